package lane

import (
	"context"
	"errors"
	"math"
	"strings"

	"studio/internal/ai"
	"studio/internal/asset"
	"studio/internal/auth"
	"studio/internal/errs"
)

// Bounds of the vision answers.
const (
	MaxNameEn      = 40  // describe-item's nameEn (SPEC §8)
	MaxItems       = 30  // detect-items' boxes
	MaxLabel       = 60  // a box's label
	MaxField       = 160 // an extract-character field
	FaceKeywords   = 20  // face-features' keywords (SPEC §4.9)
	MaxKeyword     = 40  // one keyword
	VisionEdge     = 1024
	visionMaxToken = 1200
)

// Item is what describe-item answers.
type Item struct {
	OK     bool   `json:"ok"`
	NameEn string `json:"nameEn" description:"A short plain English name, at most 40 characters."`
	Kind   string `json:"kind" description:"clothes, accessory, jewelry, model or background; anything else read is clothes."`
}

// configured refuses a vision or text lane while the AI endpoint is unset.
func (s *Service) configured() error {
	if s.opts.AI == nil || !s.opts.AI.Configured() {
		return ai.ErrNotConfigured
	}
	return nil
}

// badOutput is AI_BAD_OUTPUT for an answer that passed the schema but
// says nothing usable.
func badOutput(why string) error {
	return errs.Wrap(ai.ErrBadOutput, errors.New("lane: "+why))
}

// aiError keeps the declared codes of the AI client and makes anything
// else AI_FAILED.
func aiError(err error) error {
	if _, ok := errs.As(err); ok {
		return err
	}
	return errs.Wrap(ai.ErrFailed, err)
}

// DescribeItem names an item and files its kind with the upload's
// classify=1 reader.
func (s *Service) DescribeItem(ctx context.Context, p auth.Principal, im Image) (Item, error) {
	if err := p.MaySpend(); err != nil {
		return Item{}, err
	}
	if err := s.configured(); err != nil {
		return Item{}, err
	}
	var out Item
	_, err := s.charge(ctx, p, "describe-item", s.price("describe-item"), func(ctx context.Context, _ string) (bool, error) {
		preview, err := s.preview(ctx, im, asset.PreviewEdge, false)
		if err != nil {
			return false, err
		}
		c, err := s.opts.Reader.Classify(ctx, preview)
		if err != nil {
			if _, ok := errs.As(err); ok {
				return false, err
			}
			return false, errs.Wrap(ai.ErrBadOutput, err) // read, but nothing legal in it
		}
		name := cutRunes(strings.TrimSpace(c.Name), MaxNameEn)
		if name == "" {
			return false, badOutput("the reading has no name")
		}
		kind := string(c.Kind)
		if kind == "" {
			kind = string(asset.Clothes)
		}
		out = Item{OK: true, NameEn: name, Kind: kind}
		return false, nil
	})
	return out, err
}

// Box is one item found in a picture.
type Box struct {
	Label string `json:"label"`
	Box   [4]int `json:"box" description:"[ymin, xmin, ymax, xmax], each 0 to 1000, in the raw pixel matrix (EXIF orientation not applied)."`
}

// Items is what detect-items answers.
type Items struct {
	OK    bool  `json:"ok"`
	Items []Box `json:"items"`
}

var detectSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"items": map[string]any{"type": "array", "items": map[string]any{
			"type": "object",
			"properties": map[string]any{
				"label": map[string]any{"type": "string"},
				"box":   map[string]any{"type": "array", "items": map[string]any{"type": "number"}},
			},
			"required":             []string{"label", "box"},
			"additionalProperties": false,
		}},
	},
	"required":             []string{"items"},
	"additionalProperties": false,
}

const detectPrompt = `You find the fashion items in a photograph: garments, shoes, bags, jewelry, accessories, worn or laid out.
For each item give a short English label (e.g. "black leather belt") and its bounding box as [ymin, xmin, ymax, xmax], each normalized to 0-1000 over the image exactly as given (0,0 is the top left corner of the picture you see).
List at most 30 items, the most prominent first. An image without fashion items has an empty list.`

// DetectItems finds the items of a picture and their boxes. The model is
// shown the stored pixel matrix as it is, so the boxes are in it.
func (s *Service) DetectItems(ctx context.Context, p auth.Principal, im Image) (Items, error) {
	if err := p.MaySpend(); err != nil {
		return Items{}, err
	}
	if err := s.configured(); err != nil {
		return Items{}, err
	}
	out := Items{OK: true, Items: []Box{}}
	_, err := s.charge(ctx, p, "detect-items", s.price("detect-items"), func(ctx context.Context, _ string) (bool, error) {
		preview, err := s.preview(ctx, im, VisionEdge, true)
		if err != nil {
			return false, err
		}
		var ans struct {
			Items []struct {
				Label string    `json:"label"`
				Box   []float64 `json:"box"`
			} `json:"items"`
		}
		if _, err := s.opts.AI.JSON(ctx, ai.Request{System: detectPrompt, User: "Find the items in this photograph.",
			Images: [][]byte{preview}, Schema: detectSchema, SchemaName: "items", MaxTokens: visionMaxToken}, &ans); err != nil {
			return false, aiError(err)
		}
		for _, it := range ans.Items {
			b, ok := normBox(it.Box)
			label := cutRunes(fold(it.Label), MaxLabel)
			if !ok || label == "" {
				continue
			}
			out.Items = append(out.Items, Box{Label: label, Box: b})
			if len(out.Items) == MaxItems {
				break
			}
		}
		if len(ans.Items) > 0 && len(out.Items) == 0 {
			return false, badOutput("no box in the answer is a box")
		}
		return false, nil
	})
	return out, err
}

// normBox reads [ymin, xmin, ymax, xmax] in 0..1000: rounded, clamped, and
// refused when it has no area.
func normBox(v []float64) ([4]int, bool) {
	var b [4]int
	if len(v) != 4 {
		return b, false
	}
	for i, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return b, false
		}
		b[i] = int(math.Round(math.Max(0, math.Min(1000, x))))
	}
	return b, b[0] < b[2] && b[1] < b[3]
}

// Character is what extract-character answers.
type Character struct {
	OK           bool           `json:"ok"`
	FaceDetected bool           `json:"faceDetected"`
	Fields       CharacterTrait `json:"fields" description:"Empty strings when no face is seen."`
}

// CharacterTrait are the traits of a face read for a model's sheet.
type CharacterTrait struct {
	Age    string `json:"age"`
	Skin   string `json:"skin"`
	Eyes   string `json:"eyes"`
	Hair   string `json:"hair"`
	Extras string `json:"extras"`
}

var characterSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"faceDetected": map[string]any{"type": "boolean"},
		"age":          map[string]any{"type": "string"},
		"skin":         map[string]any{"type": "string"},
		"eyes":         map[string]any{"type": "string"},
		"hair":         map[string]any{"type": "string"},
		"extras":       map[string]any{"type": "string"},
	},
	"required":             []string{"faceDetected", "age", "skin", "eyes", "hair", "extras"},
	"additionalProperties": false,
}

const characterPrompt = `You describe the person in a photograph for a fashion casting sheet, in plain English, neutrally and respectfully.
faceDetected is true only when a human face is clearly visible.
age: an apparent age range (e.g. "late twenties"). skin: tone and texture. eyes: colour and shape. hair: colour, length, texture, style. extras: distinguishing visible features (freckles, glasses, tattoos), or "".
Each field is at most 160 characters. When no face is visible, every field is "".`

// ExtractCharacter reads the traits of the face in a picture.
func (s *Service) ExtractCharacter(ctx context.Context, p auth.Principal, im Image) (Character, error) {
	if err := p.MaySpend(); err != nil {
		return Character{}, err
	}
	if err := s.configured(); err != nil {
		return Character{}, err
	}
	var out Character
	_, err := s.charge(ctx, p, "extract-character", s.price("extract-character"), func(ctx context.Context, _ string) (bool, error) {
		preview, err := s.preview(ctx, im, VisionEdge, false)
		if err != nil {
			return false, err
		}
		var ans struct {
			FaceDetected                  bool
			Age, Skin, Eyes, Hair, Extras string
		}
		if _, err := s.opts.AI.JSON(ctx, ai.Request{System: characterPrompt, User: "Describe the person in this photograph.",
			Images: [][]byte{preview}, Schema: characterSchema, SchemaName: "character", MaxTokens: visionMaxToken}, &ans); err != nil {
			return false, aiError(err)
		}
		out = Character{OK: true, FaceDetected: ans.FaceDetected}
		if ans.FaceDetected {
			out.Fields = CharacterTrait{Age: field(ans.Age), Skin: field(ans.Skin), Eyes: field(ans.Eyes),
				Hair: field(ans.Hair), Extras: field(ans.Extras)}
			if out.Fields == (CharacterTrait{}) {
				return false, badOutput("a face without a single trait")
			}
		}
		return false, nil
	})
	return out, err
}

func field(s string) string { return cutRunes(fold(s), MaxField) }

// Face is what face-features answers.
type Face struct {
	OK           bool     `json:"ok"`
	FaceDetected bool     `json:"faceDetected"`
	Keywords     []string `json:"keywords" description:"Up to 20 short English keywords of the face's features; empty when no face is seen."`
}

var faceSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"faceDetected": map[string]any{"type": "boolean"},
		"keywords":     map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
	},
	"required":             []string{"faceDetected", "keywords"},
	"additionalProperties": false,
}

const facePrompt = `You list the visible features of the face in a photograph as keywords for an image generator, in English: face shape, brows, eyes, nose, lips, jaw, skin, hair, expression.
faceDetected is true only when a human face is clearly visible. Give exactly 20 distinct keywords of at most 40 characters each, most telling first; none when no face is visible.`

// FaceFeaturesAt lists keywords of the face in the picture an imageUrl
// names (ImageAt), a viewer refused first.
func (s *Service) FaceFeaturesAt(ctx context.Context, p auth.Principal, imageURL string) (Face, error) {
	if err := p.MaySpend(); err != nil {
		return Face{}, err
	}
	im, err := s.ImageAt(ctx, p, imageURL)
	if err != nil {
		return Face{}, err
	}
	return s.FaceFeatures(ctx, p, im)
}

// FaceFeatures lists keywords of the face in a picture.
func (s *Service) FaceFeatures(ctx context.Context, p auth.Principal, im Image) (Face, error) {
	if err := p.MaySpend(); err != nil {
		return Face{}, err
	}
	if err := s.configured(); err != nil {
		return Face{}, err
	}
	var out Face
	_, err := s.charge(ctx, p, "face-features", s.price("face-features"), func(ctx context.Context, _ string) (bool, error) {
		preview, err := s.preview(ctx, im, VisionEdge, false)
		if err != nil {
			return false, err
		}
		var ans struct {
			FaceDetected bool
			Keywords     []string
		}
		if _, err := s.opts.AI.JSON(ctx, ai.Request{System: facePrompt, User: "List the features of this face.",
			Images: [][]byte{preview}, Schema: faceSchema, SchemaName: "face", MaxTokens: visionMaxToken}, &ans); err != nil {
			return false, aiError(err)
		}
		out = Face{OK: true, FaceDetected: ans.FaceDetected, Keywords: []string{}}
		if ans.FaceDetected {
			out.Keywords = words(ans.Keywords, FaceKeywords, MaxKeyword)
			if len(out.Keywords) == 0 {
				return false, badOutput("a face without keywords")
			}
		}
		return false, nil
	})
	return out, err
}

// words folds, cuts and de-duplicates (case aside) a list of short words,
// keeping at most n.
func words(in []string, n, size int) []string {
	out := []string{}
	seen := map[string]bool{}
	for _, w := range in {
		w = cutRunes(fold(w), size)
		if w == "" || seen[strings.ToLower(w)] {
			continue
		}
		seen[strings.ToLower(w)] = true
		out = append(out, w)
		if len(out) == n {
			break
		}
	}
	return out
}

// fold trims s and folds its runs of whitespace into single spaces.
func fold(s string) string { return strings.Join(strings.Fields(s), " ") }

// cutRunes cuts s to at most n characters, at a word when one ends in the
// last quarter.
func cutRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	cut := string(r[:n])
	if r[n] == ' ' {
		return strings.TrimSpace(cut) // the cut falls between words
	}
	if i := strings.LastIndexByte(cut, ' '); i >= len(cut)*3/4 {
		cut = cut[:i]
	}
	return strings.TrimSpace(cut)
}
