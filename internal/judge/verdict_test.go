package judge

import (
	"strings"
	"testing"
	"time"
)

func TestRubric(t *testing.T) {
	want := map[Code]int{MarkWrong: 25, MarkMissing: 20, GarmentDrift: 30, ColorDrift: 20, FitWrong: 15, HandsWrong: 20,
		FaceDrift: 25, AnatomyWrong: 30, CropCut: 15, BackgroundBleed: 15, TextureArtifact: 10, SoftFocus: 10}
	if len(Codes()) != 12 || len(CodeNames()) != 12 {
		t.Fatalf("%d codes; want twelve", len(Codes()))
	}
	for _, c := range Codes() {
		if c.Weight() != want[c] || !strings.HasSuffix(c.Label(), ".") || !c.Valid() {
			t.Errorf("%s: weight %d label %q", c, c.Weight(), c.Label())
		}
	}
	if MarkWrong.Label() != "The house mark is wrong or misdrawn." || Code("nope").Valid() {
		t.Error("labels are DECISIONS §7's")
	}
}

func TestWrite(t *testing.T) {
	now := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	sure := func(c Code, where string) Finding { return Finding{Code: c, Where: where, Confidence: Sure} }
	unsure := func(c Code) Finding { return Finding{Code: c, Where: "x", Confidence: NotSure} }
	tests := []struct {
		name                  string
		r                     Reading
		score                 int // 0: null
		flagged, show, futile bool
		findings              int
	}{
		{"clean", Reading{}, 100, false, false, false, 0},
		{"only a not-sure finding weighs 0", Reading{Findings: []Finding{unsure(GarmentDrift)}}, 100, false, false, false, 1},
		{"one sure finding", Reading{Findings: []Finding{sure(SoftFocus, "all")}}, 90, false, true, false, 1},
		{"flagged under 70", Reading{Findings: []Finding{sure(SoftFocus, ""), sure(TextureArtifact, ""), sure(BackgroundBleed, "")}}, 65, true, true, false, 3},
		{"exactly 70 is not flagged", Reading{Findings: []Finding{sure(GarmentDrift, "")}}, 70, false, true, false, 1},
		{"never below 1", Reading{Findings: []Finding{sure(GarmentDrift, ""), sure(AnatomyWrong, ""), sure(FaceDrift, ""), sure(MarkWrong, "")}}, 1, true, true, false, 4},
		{"one finding per code, the sure one kept", Reading{Findings: []Finding{unsure(SoftFocus), sure(SoftFocus, "b"), sure(SoftFocus, "c")}}, 90, false, true, false, 1},
		{"unknown codes dropped", Reading{Findings: []Finding{{Code: "blurry", Confidence: Sure}}}, 100, false, false, false, 0},
		{"a sure finding from the input makes a retry futile", Reading{Findings: []Finding{{Code: SoftFocus, Confidence: Sure, FromInput: true}}}, 90, false, true, true, 1},
		{"a not-sure one from the input does not", Reading{Findings: []Finding{{Code: SoftFocus, Confidence: NotSure, FromInput: true}}}, 100, false, false, false, 1},
		{"unreadable", Reading{Unreadable: true, Findings: []Finding{sure(SoftFocus, "")}}, 0, false, false, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := Write("h", "j", tt.r, DefaultThreshold, now)
			if (tt.score == 0) != (v.Score == nil) || (v.Score != nil && *v.Score != tt.score) {
				t.Fatalf("score %v; want %d", v.Score, tt.score)
			}
			if v.Unreadable != (tt.score == 0) || v.Flagged != tt.flagged || v.ShowScore != tt.show || v.RetryFutile != tt.futile ||
				len(v.Findings) != tt.findings || v.RubricVersion != 1 || !v.CreatedAt.Equal(now) || v.Findings == nil {
				t.Errorf("verdict %+v", v)
			}
			for _, f := range v.Findings {
				if f.Label != f.Code.Label() {
					t.Errorf("finding %+v lacks the server's label", f)
				}
			}
		})
	}
	t.Run("heaviest first, places trimmed to 60 characters", func(t *testing.T) {
		long := strings.Repeat("ü", 70)
		v := Write("h", "j", Reading{Findings: []Finding{sure(SoftFocus, "  a   b "), sure(GarmentDrift, long)}}, DefaultThreshold, now)
		if v.Findings[0].Code != GarmentDrift || len([]rune(v.Findings[0].Where)) != MaxWhere || v.Findings[1].Where != "a b" {
			t.Errorf("findings %+v", v.Findings)
		}
	})
}

// TestJudges: a landed still waits for its verdict; a video does not.
func TestJudges(t *testing.T) {
	for mime, want := range map[string]bool{
		"image/png": true, "image/jpeg": true, "image/webp": true,
		"video/mp4": false, "application/octet-stream": false, "": false,
	} {
		if got := Judges(mime); got != want {
			t.Errorf("Judges(%q) = %v; want %v", mime, got, want)
		}
	}
}
