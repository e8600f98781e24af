package judge

import (
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"studio/internal/ts"
)

// RubricVersion is the rubric every verdict written today follows; scores
// of different versions are not comparable (SPEC §9).
const RubricVersion = 1

// DefaultThreshold is the score under which a frame is flagged (DECISIONS
// §7): flagged = score < 70.
const DefaultThreshold = 70

// MaxWhere is the longest place a finding names (SPEC §8).
const MaxWhere = 60

// Code is one of the twelve defect codes of DECISIONS §7.
type Code string

// The twelve defect codes, in the order DECISIONS §7 lists them.
const (
	MarkWrong       Code = "mark-wrong"
	MarkMissing     Code = "mark-missing"
	GarmentDrift    Code = "garment-drift"
	ColorDrift      Code = "color-drift"
	FitWrong        Code = "fit-wrong"
	HandsWrong      Code = "hands-wrong"
	FaceDrift       Code = "face-drift"
	AnatomyWrong    Code = "anatomy-wrong"
	CropCut         Code = "crop-cut"
	BackgroundBleed Code = "background-bleed"
	TextureArtifact Code = "texture-artifact"
	SoftFocus       Code = "soft-focus"
)

type codeInfo struct {
	weight int
	label  string
}

var rubric = map[Code]codeInfo{
	MarkWrong:       {25, "The house mark is wrong or misdrawn."},
	MarkMissing:     {20, "The house mark is missing."},
	GarmentDrift:    {30, "The garment differs from the source piece."},
	ColorDrift:      {20, "Colours drift from the source piece."},
	FitWrong:        {15, "The fit differs from the piece's cut."},
	HandsWrong:      {20, "Hands are malformed."},
	FaceDrift:       {25, "The face differs from the cast model."},
	AnatomyWrong:    {30, "The body is anatomically wrong."},
	CropCut:         {15, "The frame cuts the piece off."},
	BackgroundBleed: {15, "The background bleeds into the subject."},
	TextureArtifact: {10, "The fabric shows artifacts."},
	SoftFocus:       {10, "The frame is soft or blurred."},
}

// Codes lists the twelve codes in the order DECISIONS §7 gives them.
func Codes() []Code {
	return []Code{MarkWrong, MarkMissing, GarmentDrift, ColorDrift, FitWrong, HandsWrong, FaceDrift,
		AnatomyWrong, CropCut, BackgroundBleed, TextureArtifact, SoftFocus}
}

// CodeNames are the codes as strings, for schemas and enums.
func CodeNames() []string {
	out := make([]string, 0, len(rubric))
	for _, c := range Codes() {
		out = append(out, string(c))
	}
	return out
}

// Valid reports whether c is one of the twelve.
func (c Code) Valid() bool { _, ok := rubric[c]; return ok }

// Weight is what a sure finding of c takes off the score.
func (c Code) Weight() int { return rubric[c].weight }

// Label is the server's sentence for c: the only text about a code the
// wire carries besides the model's own place.
func (c Code) Label() string { return rubric[c].label }

// Confidence says how sure the judge is of a finding.
type Confidence string

const (
	Sure    Confidence = "sure"
	NotSure Confidence = "not-sure"
)

// Finding is one defect the judge saw.
type Finding struct {
	Code       Code       `json:"code" enum:"mark-wrong,mark-missing,garment-drift,color-drift,fit-wrong,hands-wrong,face-drift,anatomy-wrong,crop-cut,background-bleed,texture-artifact,soft-focus"`
	Where      string     `json:"where" maxLength:"60" description:"The judge's own place on the frame; the only judge-authored text on the wire."`
	Label      string     `json:"label" description:"The server's sentence for the code."`
	Confidence Confidence `json:"confidence" enum:"sure,not-sure"`
	// FromInput is the judge's reading that the defect comes from the
	// input (a source too small for the tier), so no retry can mend it.
	FromInput bool `json:"-"`
}

// Weight is what the finding takes off the score: its code's weight when
// sure, 0 when not sure.
func (f Finding) Weight() int {
	if f.Confidence != Sure {
		return 0
	}
	return f.Code.Weight()
}

// Answer is the house's answer to a verdict.
type Answer struct {
	Agrees bool   `json:"agrees"`
	Note   string `json:"note,omitempty" description:"Absent when none; never empty."`
}

// Verdict is the judge's reading of one developed frame (SPEC §2).
type Verdict struct {
	JobID         string    `json:"jobId"`
	Score         *int      `json:"score" minimum:"1" maximum:"100" description:"null exactly when unreadable; never 0."`
	Unreadable    bool      `json:"unreadable" description:"The judge could not look; nothing is shown."`
	Flagged       bool      `json:"flagged" description:"The score was under the threshold when the verdict was written."`
	ShowScore     bool      `json:"showScore" description:"False for a clean frame and for one whose only findings weigh 0."`
	RetryFutile   bool      `json:"retryFutile" description:"True: offer no paid retry; the defect comes from the input, or the frame's engine renders the same frame again and can mend none of the findings (the local engine, DECISIONS §11)."`
	Findings      []Finding `json:"findings"`
	RubricVersion int       `json:"rubricVersion"`
	CreatedAt     ts.Time   `json:"createdAt"`
	Answer        *Answer   `json:"answer,omitempty" description:"The house's answer; absent while unanswered."`
	Judge         string    `json:"judge" enum:"pixels,vision" description:"Which judge wrote the verdict: pixels (measured from the frame's pixels) or vision (a vision model, which also saw the pixel measures)."`

	// For operators only, never on the wire.
	HouseID   string  `json:"-"`
	Model     string  `json:"-"` // the model that answered; empty for the local judge
	Note      string  `json:"-"` // the judge's own note
	Cost      int64   `json:"-"` // provider tokens the vision call used (0 for the local judge)
	CostUSD   float64 `json:"-"` // what the provider said the call cost, when it says
	LatencyMs int64   `json:"-"`
}

// Reading is what a judge saw, before it is scored.
type Reading struct {
	Unreadable bool
	Findings   []Finding
	Note       string // the judge's own words, for operators
	Judge      string // pixels or vision
	// Cap is the most the frame may score (0: no cap): a proof or a
	// composite is never a finished frame, so it never scores 100.
	Cap     int
	Model   string
	Cost    int64
	CostUSD float64
	Latency time.Duration
}

// Write scores a reading into the verdict for job: score = max(1, 100 -
// the weights of the sure findings), at most the reading's cap (shown
// then), flagged against threshold, showScore when some finding weighs
// more than 0, retryFutile when a sure finding comes from the input. An unreadable reading has no score, no findings
// and shows nothing.
func Write(house, job string, r Reading, threshold int, now time.Time) Verdict {
	v := Verdict{JobID: job, HouseID: house, RubricVersion: RubricVersion, CreatedAt: ts.Of(now),
		Findings: []Finding{}, Judge: r.Judge, Model: r.Model, Note: r.Note, Cost: r.Cost, CostUSD: r.CostUSD,
		LatencyMs: r.Latency.Milliseconds()}
	if r.Unreadable {
		v.Unreadable = true
		return v
	}
	lost := 0
	for _, f := range normalise(r.Findings) {
		v.Findings = append(v.Findings, f)
		lost += f.Weight()
		if f.Weight() > 0 {
			v.ShowScore = true
			if f.FromInput {
				v.RetryFutile = true
			}
		}
	}
	score := max(1, 100-lost)
	if r.Cap > 0 && score > r.Cap {
		score = r.Cap
		v.ShowScore = true
	}
	v.Score = &score
	v.Flagged = score < threshold
	return v
}

// normalise keeps the findings of known codes, one per code (the surest,
// then the first), labels them with the server's sentence, trims their
// place to MaxWhere characters and orders them by weight, heaviest first.
func normalise(in []Finding) []Finding {
	var out []Finding
	for _, f := range in {
		if !f.Code.Valid() {
			continue
		}
		if f.Confidence != Sure {
			f.Confidence = NotSure
		}
		f.Label = f.Code.Label()
		f.Where = clip(strings.Join(strings.Fields(f.Where), " "), MaxWhere)
		i := slices.IndexFunc(out, func(o Finding) bool { return o.Code == f.Code })
		switch {
		case i < 0:
			out = append(out, f)
		case out[i].Confidence != Sure && f.Confidence == Sure:
			out[i] = f
		}
	}
	slices.SortStableFunc(out, func(a, b Finding) int { return b.Weight() - a.Weight() })
	return out
}

// clip cuts s to at most n characters, on a character boundary.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n]))
}

// The judges a verdict names.
const (
	JudgePixels = "pixels" // the local pixel judge
	JudgeVision = "vision" // the vision judge
)
