package job

import (
	"context"
	"slices"
	"strings"
)

// Ref is a reference that rides with a develop: a house asset in a role
// (a logo rendition, a cast model's sheet) with a label and its text (a
// mark's material, which rides verbatim).
type Ref struct {
	Role    string `json:"role"`
	Label   string `json:"label,omitempty"`
	Text    string `json:"text,omitempty"`
	AssetID string `json:"assetId,omitempty"`
}

// Part is what one source adds to a develop's direction: a clause of the
// prompt, references, or both, at a rank.
type Part struct {
	Rank   int    // where the part stands; lower first
	Source string // who added it, for operators: "brand", "standing-note", "prompt"...
	Text   string
	Refs   []Ref
}

// The ranks of the parts, in the order a prompt is composed: the house's
// general voice first, the frame's own words last, so the most specific
// words come closest to the end where models weigh them most. Parts of one
// rank keep the order their sources were registered in, and each source's
// parts their own order: the same job gives the same prompt every time.
const (
	RankBrand      = 100 // the brand clause (brand profile, when it injects)
	RankMarks      = 150 // the marks riding with the frame, their material verbatim
	RankNotes      = 200 // standing notes in force whose scope covers the tool, oldest first
	RankMemory     = 300 // house memories
	RankPrompt     = 400 // params.prompt, the words the develop was asked with
	RankDirection  = 410 // params.direction, given with a take
	RankCorrection = 420 // params.correction, built from a verdict's findings by a redraw
)

// Direction is what a provider is told beside the tool's own instructions:
// the composed prompt and the references, recorded on the job for
// operators before the engine is called.
type Direction struct {
	Prompt string
	Refs   []Ref
}

// Director composes the direction of a job. The worker consults it right
// before it calls the engine.
type Director interface {
	Direct(ctx context.Context, j Job) (Direction, error)
}

// Source contributes parts to a job's direction.
type Source interface {
	Parts(ctx context.Context, j Job) ([]Part, error)
}

// SourceFunc is a Source written as a function.
type SourceFunc func(ctx context.Context, j Job) ([]Part, error)

// Parts calls f.
func (f SourceFunc) Parts(ctx context.Context, j Job) ([]Part, error) { return f(ctx, j) }

// Sources is a Director composed of sources, consulted in order.
type Sources []Source

// Direct gathers every source's parts, orders them by rank (stably) and
// joins their texts, one clause a line, and their references.
func (ss Sources) Direct(ctx context.Context, j Job) (Direction, error) {
	var parts []Part
	for _, s := range ss {
		p, err := s.Parts(ctx, j)
		if err != nil {
			return Direction{}, err
		}
		parts = append(parts, p...)
	}
	slices.SortStableFunc(parts, func(a, b Part) int { return a.Rank - b.Rank })
	var d Direction
	var lines []string
	for _, p := range parts {
		if t := strings.TrimSpace(p.Text); t != "" {
			lines = append(lines, t)
		}
		d.Refs = append(d.Refs, p.Refs...)
	}
	d.Prompt = strings.Join(lines, "\n")
	return d, nil
}

// FrameWords is the source of the job's own words: params.prompt, then
// params.direction, then params.correction.
var FrameWords = SourceFunc(func(_ context.Context, j Job) ([]Part, error) {
	var out []Part
	for _, w := range []struct {
		param string
		rank  int
	}{{"prompt", RankPrompt}, {"direction", RankDirection}, {"correction", RankCorrection}} {
		if t := strings.TrimSpace(j.Params[w.param]); t != "" {
			out = append(out, Part{Rank: w.rank, Source: w.param, Text: t})
		}
	}
	return out, nil
})
