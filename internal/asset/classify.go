package asset

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/disintegration/imaging"
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
	img = Upright(img, orientation)
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

// Upright applies an EXIF orientation to img.
func Upright(img image.Image, orientation int) image.Image {
	switch orientation {
	case 2:
		return imaging.FlipH(img)
	case 3:
		return imaging.Rotate180(img)
	case 4:
		return imaging.FlipV(img)
	case 5:
		return imaging.Transpose(img)
	case 6:
		return imaging.Rotate270(img)
	case 7:
		return imaging.Transverse(img)
	case 8:
		return imaging.Rotate90(img)
	}
	return img
}

// VisionClassifier asks an OpenAI-compatible chat completions endpoint
// (OpenAI, Ollama, vLLM...) to file an image.
type VisionClassifier struct {
	BaseURL string // e.g. https://api.openai.com/v1; /chat/completions is appended
	APIKey  string // sent as a bearer token when set
	Model   string
	Client  *http.Client
}

// DefaultVisionModel is asked for when AI_MODEL is unset.
const DefaultVisionModel = "gpt-4o-mini"

// NewVisionClassifier returns a classifier for the endpoint, with a
// 60-second timeout.
func NewVisionClassifier(baseURL, apiKey, model string) *VisionClassifier {
	if model == "" {
		model = DefaultVisionModel
	}
	return &VisionClassifier{
		BaseURL: strings.TrimRight(baseURL, "/"), APIKey: apiKey, Model: model,
		Client: &http.Client{Timeout: 60 * time.Second},
	}
}

const classifyPrompt = `You file product images for a fashion house's library.
Answer with one JSON object and nothing else: {"kind": K, "name": N, "fit": F, "wearer": W}.
K is one of "clothes", "accessory", "jewelry", "model" (a person), "background" (a scene or backdrop without a product).
N is a short plain product name of at most 60 characters, e.g. "Ivory silk slip dress".
F (clothes only, else null) is one of "fitted", "regular", "loose", "oversized".
W (clothes only, else null) is "women" or "men", or null when it cannot be told.`

type chatMessage struct {
	Role    string `json:"role"`
	Content any    `json:"content"`
}

type chatPart struct {
	Type     string        `json:"type"`
	Text     string        `json:"text,omitempty"`
	ImageURL *chatImageURL `json:"image_url,omitempty"`
}

type chatImageURL struct {
	URL string `json:"url"`
}

type chatRequest struct {
	Model          string        `json:"model"`
	Messages       []chatMessage `json:"messages"`
	Temperature    float64       `json:"temperature"`
	MaxTokens      int           `json:"max_tokens"`
	ResponseFormat struct {
		Type string `json:"type"`
	} `json:"response_format"`
}

type chatResponse struct {
	Choices []struct {
		Message struct {
			Content string `json:"content"`
		} `json:"message"`
	} `json:"choices"`
}

// maxAnswer caps the bytes read from the endpoint.
const maxAnswer = 1 << 20

// Classify sends the preview and reads the filing out of the answer.
func (v *VisionClassifier) Classify(ctx context.Context, preview []byte) (Classification, error) {
	req := chatRequest{Model: v.Model, Temperature: 0, MaxTokens: 200}
	req.ResponseFormat.Type = "json_object"
	req.Messages = []chatMessage{
		{Role: "system", Content: classifyPrompt},
		{Role: "user", Content: []chatPart{
			{Type: "text", Text: "File this image."},
			{Type: "image_url", ImageURL: &chatImageURL{URL: "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(preview)}},
		}},
	}
	body, err := json.Marshal(req)
	if err != nil {
		return Classification{}, err
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, v.BaseURL+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		return Classification{}, err
	}
	hr.Header.Set("Content-Type", "application/json")
	if v.APIKey != "" {
		hr.Header.Set("Authorization", "Bearer "+v.APIKey)
	}
	res, err := v.Client.Do(hr)
	if err != nil {
		return Classification{}, fmt.Errorf("classify: %w", err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, maxAnswer))
	if err != nil {
		return Classification{}, fmt.Errorf("classify: %w", err)
	}
	if res.StatusCode != http.StatusOK {
		return Classification{}, fmt.Errorf("classify: endpoint answered %d", res.StatusCode)
	}
	var cr chatResponse
	if err := json.Unmarshal(raw, &cr); err != nil {
		return Classification{}, fmt.Errorf("classify: %w", err)
	}
	if len(cr.Choices) == 0 {
		return Classification{}, errors.New("classify: no choices")
	}
	return ParseClassification(cr.Choices[0].Message.Content)
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
