package judge

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"strings"

	"github.com/disintegration/imaging"

	"studio/internal/ai"
	"studio/internal/picture"
)

// Vision is the judge that asks an OpenAI-compatible chat endpoint to look
// at the frame (and its source) and answer in a JSON schema restricted to
// the twelve codes. The client asks again once when an answer falls
// outside the schema; a second miss leaves the local verdict standing.
type Vision struct {
	client Endpoint
}

// Endpoint is what the vision judge asks of the AI endpoint (package
// ai/openai implements it): whether it is set, and one question with a
// JSON answer.
type Endpoint interface {
	Configured() bool
	JSON(ctx context.Context, req ai.Request, out any) (ai.Usage, error)
}

// NewVision returns the vision judge on client, or nil when there is no
// client or it has no chat endpoint.
func NewVision(client Endpoint) *Vision {
	if client == nil || !client.Configured() {
		return nil
	}
	return &Vision{client: client}
}

// Name is "vision".
func (*Vision) Name() string { return "vision" }

var (
	errOutsideSchema = errors.New("its answer was outside the schema twice")
	errNoCredit      = errors.New("the provider is out of credit")
)

// visionAnswer is the schema's shape.
type visionAnswer struct {
	Findings []struct {
		Code       string `json:"code"`
		Where      string `json:"where"`
		Confidence string `json:"confidence"`
	} `json:"findings"`
	Note string `json:"note"`
}

// visionSchema is the answer's JSON schema, strict: every property
// required, nothing else allowed, codes and confidences enumerated.
func visionSchema() map[string]any {
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"findings": map[string]any{
				"type": "array",
				"items": map[string]any{
					"type": "object",
					"properties": map[string]any{
						"code":       map[string]any{"type": "string", "enum": CodeNames()},
						"where":      map[string]any{"type": "string", "description": "Where on the frame, at most 60 characters."},
						"confidence": map[string]any{"type": "string", "enum": []string{string(Sure), string(NotSure)}},
					},
					"required":             []string{"code", "where", "confidence"},
					"additionalProperties": false,
				},
			},
			"note": map[string]any{"type": "string", "description": "One or two sentences for the studio's operators."},
		},
		"required":             []string{"findings", "note"},
		"additionalProperties": false,
	}
}

// visionPrompt tells the model the rubric: each code with the server's
// sentence for it.
func visionPrompt() string {
	var b strings.Builder
	b.WriteString("You judge frames a fashion studio developed with an AI tool, before the house sees them. ")
	b.WriteString("Report only defects you can see, each as one of these codes:\n")
	for _, c := range Codes() {
		b.WriteString("- " + string(c) + ": " + c.Label() + "\n")
	}
	b.WriteString("For each, say where on the frame in at most 60 characters (e.g. \"left cuff\", \"logo on the chest\"), and " +
		"\"sure\" or \"not-sure\". A clean frame has no findings. The first image is the frame; the second, when given, is the " +
		"source it was made from.")
	return b.String()
}

// Look asks the endpoint about the frame; its findings join the local
// judge's measured ones (which alone know the source's size against the
// tier).
func (v *Vision) Look(ctx context.Context, f Frame, measured Reading) (Reading, error) {
	images := [][]byte{}
	for i, data := range [][]byte{f.Data, f.Source} {
		if len(data) == 0 {
			continue
		}
		small, err := shrink(data, []int{1024, 768}[i])
		if err != nil {
			if i == 0 {
				return Reading{}, err
			}
			continue
		}
		images = append(images, small)
	}
	user := "The tool was " + f.Tool + " at the " + string(f.Tier) + " tier."
	if c := f.Params["color"]; c != "" {
		user += " The colour asked for was " + c + "."
	}
	var ans visionAnswer
	u, err := v.client.JSON(ctx, ai.Request{System: visionPrompt(), User: user, Images: images, Schema: visionSchema(),
		SchemaName: "verdict", MaxTokens: 800}, &ans)
	switch {
	case errors.Is(err, ai.ErrBadOutput):
		return Reading{}, errOutsideSchema
	case errors.Is(err, ai.ErrNeedsBilling):
		return Reading{}, errNoCredit
	case err != nil:
		return Reading{}, err
	}
	r := Reading{Judge: JudgeVision, Model: u.Model, Cost: u.TotalTokens, CostUSD: u.CostUSD, Latency: u.Latency,
		Note: strings.TrimSpace(ans.Note) + " | " + measured.Note}
	for _, x := range ans.Findings {
		r.Findings = append(r.Findings, Finding{Code: Code(x.Code), Where: x.Where, Confidence: Confidence(x.Confidence)})
	}
	r.Findings = append(r.Findings, measured.Findings...)
	return r, nil
}

// shrink re-encodes an image as a JPEG at most long px on its long edge,
// so a 4k frame does not cost a model a fortune to look at.
func shrink(data []byte, long int) ([]byte, error) {
	img, err := picture.Decode(data)
	if err != nil {
		return nil, err
	}
	if max(img.Rect.Dx(), img.Rect.Dy()) > long {
		if img.Rect.Dx() >= img.Rect.Dy() {
			img = imaging.Resize(img, long, 0, imaging.Box)
		} else {
			img = imaging.Resize(img, 0, long, imaging.Box)
		}
	}
	var b bytes.Buffer
	flat := imaging.Overlay(imaging.New(img.Rect.Dx(), img.Rect.Dy(), color.White), img, image.Point{}, 1) // a cut-out on white
	if err := jpeg.Encode(&b, flat, &jpeg.Options{Quality: 85}); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
