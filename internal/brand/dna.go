package brand

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"studio/internal/ai"
	"studio/internal/asset"
	"studio/internal/errs"
)

// Limits of a DNA read (SPEC §8).
const (
	MaxImages = 10
	// MaxSetMB is the most the images of one read may weigh together.
	MaxSetMB    = 32
	MaxSetBytes = MaxSetMB << 20
	// MaxProducts bounds the products hint, in characters.
	MaxProducts = 600
	// RereadPrice is what every read after the house's first costs.
	RereadPrice = 2
	// Workflow names a re-read's hold (the account's spend per workflow,
	// the operators' costs by tool).
	Workflow = "brand-dna"
	// PreviewEdge is the long edge of the photographs the model is shown.
	PreviewEdge = 768
	// ReadTimeout bounds the model's read.
	ReadTimeout = 3 * time.Minute
	// ClaimTTL is how long a read holds the house's free first read: past
	// it, a read that died gives the free read back.
	ClaimTTL = ReadTimeout + 2*time.Minute
)

// DNARequest is a DNA read's form as the HTTP layer read it.
type DNARequest struct {
	Images   [][]byte
	Vibe     string // a JSON array of strings, as given; "" when absent
	Products string // "" when absent
}

// dnaInput is a checked request: the images inspected, the hints read.
type dnaInput struct {
	images   [][]byte
	infos    []asset.Info
	vibe     []string
	products string
}

// check reads the request: 1 to 10 readable images of at most 12 MB each
// and 32 MB together, vibe a JSON array of strings, products plain words
// (or a JSON array of strings).
func (r DNARequest) check() (dnaInput, error) {
	var in dnaInput
	if len(r.Images) == 0 {
		return in, ErrNoImages
	}
	if len(r.Images) > MaxImages {
		return in, errs.Msg(errs.BadForm, "A DNA read takes at most 10 images.")
	}
	var total int
	for _, b := range r.Images {
		total += len(b)
	}
	if total > MaxSetBytes {
		return in, ErrSetTooLarge
	}
	for i, b := range r.Images {
		if len(b) == 0 {
			return in, errs.Msg(errs.BadForm, fmt.Sprintf("Image %d is empty.", i+1))
		}
		info, err := asset.Inspect(b)
		if err != nil {
			return in, err // BAD_FORM naming the accepted types, or IMAGE_TOO_LARGE
		}
		in.infos = append(in.infos, info)
	}
	in.images = r.Images
	if v := strings.TrimSpace(r.Vibe); v != "" {
		var words []string
		if err := json.Unmarshal([]byte(v), &words); err != nil {
			return in, errs.Msg(errs.BadForm, `vibe must be a JSON array of strings, e.g. ["quiet", "coastal"].`)
		}
		in.vibe = clampList(words, MaxVibe, MaxVibeLen)
	}
	p := strings.TrimSpace(r.Products)
	var items []string
	if strings.HasPrefix(p, "[") && json.Unmarshal([]byte(p), &items) == nil {
		p = strings.Join(clampList(items, 40, 80), ", ")
	}
	in.products = cut(fold(p), MaxProducts)
	return in, nil
}

// reading is the model's part of a DNA read, as its schema allows.
type reading struct {
	VisionEn          string    `json:"visionEn"`
	Vibe              []string  `json:"vibe"`
	SignatureKeywords []Keyword `json:"signatureKeywords"`
}

// dnaSchema is the answer's shape, in the strict subset.
var dnaSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"visionEn": map[string]any{"type": "string"},
		"vibe":     map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
		"signatureKeywords": map[string]any{"type": "array", "items": map[string]any{
			"type": "object",
			"properties": map[string]any{
				"category": map[string]any{"type": "string", "enum": Categories},
				"phrase":   map[string]any{"type": "string"},
			},
			"required":             []string{"category", "phrase"},
			"additionalProperties": false,
		}},
	},
	"required":             []string{"visionEn", "vibe", "signatureKeywords"},
	"additionalProperties": false,
}

const dnaPrompt = `You read the visual DNA of a fashion house from a set of its own photographs (campaigns, lookbooks, product shots).
Answer in English, about what the photographs show, not about any one garment:
- visionEn: the house's visual identity in 2 to 4 sentences, at most 600 characters: silhouettes, materials, styling, settings, light and composition that recur.
- vibe: 4 to 12 mood words or short phrases, each at most 40 characters, most telling first.
- signatureKeywords: up to 24 signature details, each a category from the list and a phrase of at most 80 characters.
Colours are measured from the pixels separately; mention colour only where it is part of a detail.`

// userText is the read's question, with the house's own hints.
func (in dnaInput) userText(palette []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Read the visual DNA of this house from these %d photographs.", len(in.images))
	if in.products != "" {
		b.WriteString("\nThe house makes: " + in.products + ".")
	}
	if len(in.vibe) > 0 {
		b.WriteString("\nThe house describes its mood as: " + strings.Join(in.vibe, ", ") + ".")
	}
	if len(palette) > 0 {
		b.WriteString("\nMeasured palette, most present first: " + strings.Join(palette, ", ") + ".")
	}
	return b.String()
}

// ask has the model read the previews and returns its reading, clamped.
// A reading without a vision is AI_BAD_OUTPUT.
func ask(ctx context.Context, c Endpoint, in dnaInput, previews [][]byte, palette []string) (reading, ai.Usage, error) {
	ctx, cancel := context.WithTimeout(ctx, ReadTimeout)
	defer cancel()
	var r reading
	u, err := c.JSON(ctx, ai.Request{System: dnaPrompt, User: in.userText(palette), Images: previews,
		Schema: dnaSchema, SchemaName: "brand_dna", MaxTokens: 1500}, &r)
	if err != nil {
		return r, u, err
	}
	p := Profile{VisionEn: r.VisionEn, Vibe: r.Vibe, SignatureKeywords: r.SignatureKeywords}
	p.Clamp()
	if p.VisionEn == "" {
		return r, u, errs.Wrap(ai.ErrBadOutput, fmt.Errorf("brand: the reading has no vision"))
	}
	return reading{VisionEn: p.VisionEn, Vibe: p.Vibe, SignatureKeywords: p.SignatureKeywords}, u, nil
}

// Read is a DNA read ready to be stored: the fields it writes, what it
// charged, and what the provider reported (for operators).
type Read struct {
	ID      string
	UserID  string
	Profile Profile // visionEn, vibe, palette and signatureKeywords
	Images  int
	Charged int64
	HoldID  string // the re-read's hold, posted with the read; "" for the free read
	Claimed bool   // the read holds the house's free first read
	Usage   ai.Usage
}

// Codes of the DNA read.
var (
	ErrNoImages    = errs.New(errs.KindInvalid, "NO_IMAGES", "A DNA read needs 1 to 10 images in the field image.")
	ErrSetTooLarge = errs.With(errs.New(errs.KindTooLarge, "SET_TOO_LARGE", "The images of a DNA read weigh more than 32 MB together."), "maxMb", MaxSetMB)
)
