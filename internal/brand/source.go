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
// job.RankMarks, each a reference to its asset whose text is its material
// verbatim and its placement (MarkText). A mark adds no line to the
// prompt: an engine whose model is shown the marks' pictures names them
// by position with that text (lookbrief.MarkWords), and a model that is
// not shown them hears nothing of them, so it never invents a logo (issue
// 27). Marks ride whether or not the clause is enabled; a mark's note
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
			parts = append(parts, job.Part{Rank: job.RankMarks, Source: "mark",
				Refs: []job.Ref{{Role: "mark", Label: m.Filename, Text: MarkText(m), AssetID: m.AssetID}}})
		}
		return parts, nil
	})
}

// MarkText is what a riding mark's picture is said to be beside it: its
// material verbatim, and its placement ("gold foil, placed left chest").
func MarkText(m Mark) string {
	var b strings.Builder
	b.WriteString(m.Material)
	if m.Placement != nil && *m.Placement != "" {
		b.WriteString(", placed " + *m.Placement)
	}
	return b.String()
}
