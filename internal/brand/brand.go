// Package brand is the house's identity (SPEC §2 Brand profile and Brand
// mark, §4.8): the brand profile (its visual DNA, read from photographs
// or written by hand) whose clause rides every develop when the house
// enables it, and the marks (logo renditions) that ride with its frames.
//
// Choices made where the contract is silent:
//
//   - The profile's bounds (an extraction's, applied to every write:
//     PATCH, a DNA read): visionEn at most 600 characters (cut at a word),
//     whitespace folded to single spaces; vibe at most 12 items of at most
//     40 characters; palette at most 8 colours written #rrggbb (lowercase;
//     #rgb is widened, anything else dropped); signatureKeywords at most 24
//     {category, phrase}, a category at most 40 characters and a phrase at
//     most 80. Items are trimmed, empty ones dropped, repeats (case aside)
//     kept once, the first ones kept. A PATCH merges the fields it names
//     (each replaces the stored one whole; null leaves it as it is) and
//     answers the clamped profile; dnaRuns is never written by it.
//   - The clause is built from the profile alone, the same profile giving
//     the same words: "House style: <visionEn>. Mood: <vibe, ...>.
//     Palette: <#rrggbb, ...>. Signature details: <category>: <phrase>;
//     ...." with each sentence left out when its field is empty. It is
//     empty when injectEnabled is false or the profile says nothing.
//     injectEnabled starts false.
//   - A DNA read takes 1 to 10 images (JPEG, PNG or WebP, 12 MB each, 32
//     MB across the set; 32 MB means 32 MiB). The palette is measured from
//     the pixels (palette.go), never asked of the model; the model writes
//     visionEn, vibe and the signature keywords, whose categories it picks
//     from Categories. Vibe words the form gives lead the read's vibe.
//     products is what the house makes, in plain words (a JSON string
//     array is read as its items); both only guide the read. A read
//     replaces the four fields and keeps injectEnabled.
//   - The first read of a house is free: the read claims it before the
//     model is asked, so of two first reads in flight together only one is
//     free and the other is charged as a re-read. A claim that fails gives
//     the free read back; a claim whose read died lapses after ClaimTTL.
//   - Marks (marks.go): see that file's doc.
package brand

import (
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// Bounds of a profile.
const (
	MaxVision      = 600
	MaxVibe        = 12
	MaxVibeLen     = 40
	MaxPalette     = 8
	MaxKeywords    = 24
	MaxCategoryLen = 40
	MaxPhraseLen   = 80
)

// Profile is a house's brand profile as the wire shows it.
type Profile struct {
	VisionEn          string    `json:"visionEn" maxLength:"600" description:"The house's visual identity in English prose."`
	Vibe              []string  `json:"vibe" maxItems:"12" description:"Mood words, at most 12 of at most 40 characters."`
	Palette           []string  `json:"palette" maxItems:"8" description:"Dominant colours as #rrggbb, most present first; a DNA read measures them from the photographs' pixels."`
	SignatureKeywords []Keyword `json:"signatureKeywords" maxItems:"24" description:"Signature details of the house, at most 24."`
	InjectEnabled     bool      `json:"injectEnabled" description:"The clause rides every develop of the house."`
	DNARuns           int64     `json:"dnaRuns" description:"Successful DNA reads of the house; the first was free."`
	Clause            string    `json:"clause" description:"Exactly the text generators are given; empty when injectEnabled is false."`
}

// Keyword is one signature detail.
type Keyword struct {
	Category string `json:"category" maxLength:"40" description:"What the detail is about, e.g. silhouette, material, color."`
	Phrase   string `json:"phrase" maxLength:"80"`
}

// Categories are the categories a DNA read files its signature keywords
// under. A person may write others.
var Categories = []string{"silhouette", "material", "color", "detail", "styling", "setting", "lighting", "composition"}

// Empty is the profile of a house that has none.
func Empty() Profile {
	return Profile{Vibe: []string{}, Palette: []string{}, SignatureKeywords: []Keyword{}}
}

// Clamp bounds every field as an extraction is bounded (see the package
// doc) and computes the clause.
func (p *Profile) Clamp() {
	p.VisionEn = cut(fold(p.VisionEn), MaxVision)
	p.Vibe = clampList(p.Vibe, MaxVibe, MaxVibeLen)
	pal := []string{}
	for _, c := range p.Palette {
		if h, ok := Hex(c); ok && !slices.Contains(pal, h) && len(pal) < MaxPalette {
			pal = append(pal, h)
		}
	}
	p.Palette = pal
	kws := []Keyword{}
	seen := map[string]bool{}
	for _, k := range p.SignatureKeywords {
		k.Category, k.Phrase = cut(fold(k.Category), MaxCategoryLen), cut(fold(k.Phrase), MaxPhraseLen)
		key := strings.ToLower(k.Category + "\x00" + k.Phrase)
		if k.Category == "" || k.Phrase == "" || seen[key] || len(kws) == MaxKeywords {
			continue
		}
		seen[key] = true
		kws = append(kws, k)
	}
	p.SignatureKeywords = kws
	p.DNARuns = max(p.DNARuns, 0)
	p.Clause = p.clause()
}

// clause is the text generators are given: see the package doc.
func (p Profile) clause() string {
	if !p.InjectEnabled {
		return ""
	}
	var ss []string
	if p.VisionEn != "" {
		ss = append(ss, "House style: "+sentence(p.VisionEn))
	}
	if len(p.Vibe) > 0 {
		ss = append(ss, "Mood: "+strings.Join(p.Vibe, ", ")+".")
	}
	if len(p.Palette) > 0 {
		ss = append(ss, "Palette: "+strings.Join(p.Palette, ", ")+".")
	}
	if len(p.SignatureKeywords) > 0 {
		ks := make([]string, len(p.SignatureKeywords))
		for i, k := range p.SignatureKeywords {
			ks[i] = k.Category + ": " + strings.TrimRight(k.Phrase, ".;")
		}
		ss = append(ss, "Signature details: "+strings.Join(ks, "; ")+".")
	}
	return strings.Join(ss, " ")
}

// sentence ends s with a full stop unless it ends a sentence already.
func sentence(s string) string {
	if strings.HasSuffix(s, ".") || strings.HasSuffix(s, "!") || strings.HasSuffix(s, "?") {
		return s
	}
	return s + "."
}

// fold trims s, folds every run of whitespace to one space and drops
// control characters (a model's answer may carry them; a client's cannot).
func fold(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == utf8.RuneError {
			if r == '\t' || r == '\n' || r == '\r' {
				return ' '
			}
			return -1
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

// cut shortens s to at most n characters, at the last space when there is
// one in its second half.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)[:n]
	if i := strings.LastIndexByte(string(r), ' '); i > len(string(r))/2 {
		return strings.TrimRight(string(r)[:i], " ,;:-")
	}
	return strings.TrimSpace(string(r))
}

// clampList folds and cuts each item, drops empty ones and repeats (case
// aside) and keeps the first most.
func clampList(in []string, most, length int) []string {
	out := []string{}
	seen := map[string]bool{}
	for _, s := range in {
		s = cut(fold(s), length)
		if s == "" || seen[strings.ToLower(s)] || len(out) == most {
			continue
		}
		seen[strings.ToLower(s)] = true
		out = append(out, s)
	}
	return out
}

var hexColour = regexp.MustCompile(`^#?([0-9a-fA-F]{6}|[0-9a-fA-F]{3})$`)

// Hex reads a colour written #rrggbb or #rgb (the # may be left out) and
// writes it #rrggbb in lowercase.
func Hex(s string) (string, bool) {
	m := hexColour.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return "", false
	}
	h := strings.ToLower(m[1])
	if len(h) == 3 {
		h = string([]byte{h[0], h[0], h[1], h[1], h[2], h[2]})
	}
	return "#" + h, true
}

// PatchRequest is the body of PATCH /api/toolkit/brand. Each field it
// names replaces the stored one whole; the result is clamped.
type PatchRequest struct {
	VisionEn          *string    `json:"visionEn,omitempty" description:"Folded and cut to 600 characters."`
	Vibe              *[]string  `json:"vibe,omitempty" description:"Kept: the first 12 distinct items, each cut to 40 characters."`
	Palette           *[]string  `json:"palette,omitempty" description:"Kept: the first 8 distinct colours written #rrggbb or #rgb; others are dropped."`
	SignatureKeywords *[]Keyword `json:"signatureKeywords,omitempty" description:"Kept: the first 24 distinct details with both fields."`
	InjectEnabled     *bool      `json:"injectEnabled,omitempty"`
}

// apply merges the request into p and clamps the result.
func (r PatchRequest) apply(p *Profile) {
	if r.VisionEn != nil {
		p.VisionEn = *r.VisionEn
	}
	if r.Vibe != nil {
		p.Vibe = *r.Vibe
	}
	if r.Palette != nil {
		p.Palette = *r.Palette
	}
	if r.SignatureKeywords != nil {
		p.SignatureKeywords = *r.SignatureKeywords
	}
	if r.InjectEnabled != nil {
		p.InjectEnabled = *r.InjectEnabled
	}
	p.Clamp()
}
