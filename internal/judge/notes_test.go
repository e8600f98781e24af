package judge

import (
	"testing"
	"time"
)

func TestNormalise(t *testing.T) {
	same := []string{"Keep the collar crisp.", "keep the  collar crisp", "  \"Keep the collar CRISP!\" ", "keep the collar crisp;"}
	for _, s := range same {
		if got := Normalise(s); got != "keep the collar crisp" {
			t.Errorf("Normalise(%q) = %q", s, got)
		}
	}
	if Normalise("Keep the collar sharp.") == Normalise(same[0]) {
		t.Error("another sentence normalised to the same")
	}
}

func TestPhrase(t *testing.T) {
	for tools, want := range map[*[]string]string{
		{}: "every develop", {"packshot"}: "packshot develops", {"iron", "packshot"}: "iron and packshot develops",
		{"iron", "packshot", "upscale"}: "iron, packshot and upscale develops",
	} {
		if got := Phrase(*tools); got != want {
			t.Errorf("Phrase(%v) = %q; want %q", *tools, got, want)
		}
	}
}

func TestCorrection(t *testing.T) {
	v := Verdict{Findings: []Finding{{Code: CropCut, Confidence: NotSure}, {Code: HandsWrong, Confidence: Sure}, {Code: SoftFocus, Confidence: Sure}}}
	want := "Correct what the judge found: hands are malformed; the frame is soft or blurred; the frame cuts the piece off."
	if got := Correction(v); got != want {
		t.Errorf("Correction = %q; want %q", got, want)
	}
	if got := Correction(Verdict{}); got != "" {
		t.Errorf("a clean verdict's correction: %q", got)
	}
}

func TestBackoff(t *testing.T) {
	for n, want := range map[int]time.Duration{1: 30 * time.Second, 2: 2 * time.Minute, 3: 8 * time.Minute, 20: 6 * time.Hour} {
		if got := backoff(n); got != want {
			t.Errorf("backoff(%d) = %v; want %v", n, got, want)
		}
	}
}
