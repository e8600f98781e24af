package brand

import (
	"context"
	"strings"

	"studio/internal/job"
)

// Source is the brand's part of every develop's direction (job.Source,
// consulted by the worker's Director right before the engine is called, for
// jobs, look frames, redraws and takes alike): the clause at job.RankBrand
// while injection is enabled, and the marks riding with the frame at
// job.RankMarks, each a line naming its rendition, its material verbatim
// and its placement, and a reference to its asset with the material as its
// text. Marks ride whether or not the clause is enabled; a mark's note
// rides nowhere.
func (s *Service) Source() job.Source {
	return job.SourceFunc(func(ctx context.Context, j job.Job) ([]job.Part, error) {
		p, err := s.profile(ctx, j.HouseID)
		if err != nil {
			return nil, err
		}
		var parts []job.Part
		if c := p.Clause; c != "" {
			parts = append(parts, job.Part{Rank: job.RankBrand, Source: "brand", Text: c})
		}
		marks, err := s.Riding(ctx, j.HouseID, j.Inputs)
		if err != nil {
			return nil, err
		}
		for _, m := range marks {
			parts = append(parts, job.Part{Rank: job.RankMarks, Source: "mark", Text: MarkLine(m),
				Refs: []job.Ref{{Role: "mark", Label: m.Filename, Text: m.Material, AssetID: m.AssetID}}})
		}
		return parts, nil
	})
}

// MarkLine is the prompt's line for a riding mark. It claims no picture:
// an engine whose model takes the marks as pictures names them by position
// itself (lookbrief.MarkWords); to any other model the mark rides as these
// words alone.
func MarkLine(m Mark) string {
	var b strings.Builder
	b.WriteString("Logo rendition " + m.Filename + ", reproduced exactly in " + m.Material)
	if m.Placement != nil && *m.Placement != "" {
		b.WriteString(", placed " + *m.Placement)
	}
	b.WriteString(".")
	return b.String()
}
