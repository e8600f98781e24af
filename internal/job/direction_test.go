package job

import (
	"context"
	"errors"
	"testing"
)

func TestSourcesCompose(t *testing.T) {
	j := Job{Tool: "packshot", Params: map[string]string{"correction": "Fix the cuff.", "prompt": " Studio light. ", "direction": "Warmer."}}
	memory := SourceFunc(func(context.Context, Job) ([]Part, error) {
		return []Part{{Rank: RankMemory, Source: "memory", Text: "The house shoots on sand."}}, nil
	})
	notes := SourceFunc(func(context.Context, Job) ([]Part, error) {
		return []Part{{Rank: RankNotes, Source: "standing-note", Text: "Crisp collar."}, {Rank: RankNotes, Source: "standing-note", Text: "  "},
			{Rank: RankNotes, Source: "standing-note", Text: "No labels."}}, nil
	})
	brand := SourceFunc(func(context.Context, Job) ([]Part, error) {
		return []Part{{Rank: RankBrand, Source: "brand", Text: "Quiet luxury."}, {Rank: RankMarks, Source: "mark",
			Refs: []Ref{{Role: "mark", Label: "logo", Text: "embroidered", AssetID: "a1"}}}}, nil
	})
	// Registered in any order, composed by rank; within a rank in registration order.
	d, err := Sources{FrameWords, memory, notes, brand}.Direct(context.Background(), j)
	if err != nil {
		t.Fatal(err)
	}
	want := "Quiet luxury.\nCrisp collar.\nNo labels.\nThe house shoots on sand.\nStudio light.\nWarmer.\nFix the cuff."
	if d.Prompt != want || len(d.Refs) != 1 || d.Refs[0].AssetID != "a1" {
		t.Errorf("direction %q %+v; want %q", d.Prompt, d.Refs, want)
	}
	if d, _ := (Sources{FrameWords}).Direct(context.Background(), Job{}); d.Prompt != "" || d.Refs != nil {
		t.Errorf("a job without words: %+v", d)
	}
	boom := errors.New("boom")
	if _, err := (Sources{SourceFunc(func(context.Context, Job) ([]Part, error) { return nil, boom })}).Direct(context.Background(), j); !errors.Is(err, boom) {
		t.Errorf("a failing source: %v", err)
	}
}
