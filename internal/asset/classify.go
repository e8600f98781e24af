package asset

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"slices"
	"strings"

	"github.com/disintegration/imaging"

	"studio/internal/ai"
	"studio/internal/picture"
)

// Classification is what a vision read of an image found. Zero fields
// were not read.
type Classification struct {
	Kind   Kind
	Name   string
	Fit    Fit
	Wearer Wearer // women or men; unisex is only ever set by a person
}

// Read reports whether the classification found anything worth its token.
func (c Classification) Read() bool { return c.Kind != "" || c.Name != "" }

// Classifier reads an image and files it.
type Classifier interface {
	// Classify reads a JPEG preview of an asset.
	Classify(ctx context.Context, jpegPreview []byte) (Classification, error)
}

// PreviewEdge is the long edge of the preview sent to a classifier.
const PreviewEdge = 1024

// Preview renders img upright (EXIF orientation applied) as a JPEG whose
// long edge is at most edge pixels.
func Preview(img image.Image, orientation, edge int) ([]byte, error) {
	img = picture.Upright(img, orientation)
	b := img.Bounds()
	if b.Dx() > edge || b.Dy() > edge {
		img = imaging.Fit(img, edge, edge, imaging.Linear)
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 85}); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Endpoint is what a vision read asks of the AI endpoint: one question
// with a JSON answer (package ai/openai implements it).
type Endpoint interface {
	JSON(ctx context.Context, req ai.Request, out any) (ai.Usage, error)
}

// VisionClassifier files an image through the AI endpoint's JSON answers:
// a strict schema of kind, name, fit and wearer, validated before
// ParseClassification clamps it.
type VisionClassifier struct {
	AI Endpoint
}

const classifyPrompt = `You file product images for a fashion house's library.
kind is one of "clothes", "accessory", "jewelry", "model" (a person), "background" (a scene or backdrop without a product).
name is a short plain product name of at most 60 characters, e.g. "Ivory silk slip dress".
fit (clothes only, else null) is one of "fitted", "regular", "loose", "oversized".
wearer (clothes only, else null) is "women" or "men", or null when it cannot be told.`

// classifySchema is the answer's shape, in the strict subset. A wearer of
// unisex is allowed in the answer and dropped by ParseClassification (only
// a person sets it), as before the schema.
var classifySchema = json.RawMessage(`{
	"type": "object",
	"properties": {
		"kind":   {"type": "string", "enum": ["clothes", "accessory", "jewelry", "model", "background"]},
		"name":   {"type": "string"},
		"fit":    {"type": ["string", "null"], "enum": ["fitted", "regular", "loose", "oversized", null]},
		"wearer": {"type": ["string", "null"], "enum": ["women", "men", "unisex", null]}
	},
	"required": ["kind", "name", "fit", "wearer"],
	"additionalProperties": false
}`)

// Classify sends the preview and reads the filing out of the answer.
func (v *VisionClassifier) Classify(ctx context.Context, preview []byte) (Classification, error) {
	var answer json.RawMessage
	_, err := v.AI.JSON(ctx, ai.Request{
		System: classifyPrompt, User: "File this image.", Images: [][]byte{preview},
		Schema: classifySchema, SchemaName: "filing", MaxTokens: 200,
	}, &answer)
	if err != nil {
		return Classification{}, fmt.Errorf("classify: %w", err)
	}
	return ParseClassification(string(answer))
}

// ParseClassification reads {kind, name, fit, wearer} out of a model's
// answer, tolerating prose or code fences around the object. Values that
// are not legal are dropped; a wearer of unisex is dropped (only a person
// sets it).
func ParseClassification(content string) (Classification, error) {
	start, end := strings.IndexByte(content, '{'), strings.LastIndexByte(content, '}')
	if start < 0 || end < start {
		return Classification{}, errors.New("classify: no JSON object in the answer")
	}
	var raw struct {
		Kind, Name, Fit, Wearer *string
	}
	if err := json.Unmarshal([]byte(content[start:end+1]), &raw); err != nil {
		return Classification{}, fmt.Errorf("classify: %w", err)
	}
	var c Classification
	if raw.Kind != nil && slices.Contains(FileKinds, Kind(strings.ToLower(*raw.Kind))) {
		c.Kind = Kind(strings.ToLower(*raw.Kind))
	}
	if raw.Name != nil {
		name := strings.TrimSpace(*raw.Name)
		if r := []rune(name); len(r) > 80 {
			name = strings.TrimSpace(string(r[:80]))
		}
		if n, err := CleanName(name); err == nil {
			c.Name = n
		}
	}
	if c.Kind == Clothes {
		if raw.Fit != nil && slices.Contains(Fits, Fit(*raw.Fit)) && *raw.Fit != "auto" {
			c.Fit = Fit(*raw.Fit)
		}
		if raw.Wearer != nil && (*raw.Wearer == string(Women) || *raw.Wearer == string(Men)) {
			c.Wearer = Wearer(*raw.Wearer)
		}
	}
	if !c.Read() {
		return Classification{}, errors.New("classify: nothing legal in the answer")
	}
	return c, nil
}
