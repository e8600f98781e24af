package ai

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/openai/openai-go/v3"
)

// MaxEditImages is the most input images one edit carries (OpenAI's GPT
// image models take up to 16).
const MaxEditImages = 16

// EditImage asks the image endpoint (POST /images/edits, multipart) for
// one image from prompt and the input images, the first being the one to
// edit and the rest references. size is "1024x1024", "1536x1024",
// "1024x1536", "auto" or "" (the provider's default). The answer's bytes
// are returned as the provider encoded them (PNG unless it was told
// otherwise); an answer without image bytes is AI_BAD_OUTPUT.
func (c *Client) EditImage(ctx context.Context, prompt string, images [][]byte, size string) ([]byte, Usage, error) {
	start := c.now()
	var u Usage
	if !c.ImageConfigured() {
		return nil, u, ErrNotConfigured
	}
	if len(images) == 0 || len(images) > MaxEditImages {
		return nil, u, fmt.Errorf("ai: an edit takes 1 to %d images, not %d", MaxEditImages, len(images))
	}
	files := make([]io.Reader, len(images))
	for i, b := range images {
		ct, ext := http.DetectContentType(b), "bin"
		if t, ok := strings.CutPrefix(ct, "image/"); ok {
			ext = t
		}
		files[i] = openai.File(bytes.NewReader(b), fmt.Sprintf("image-%d.%s", i+1, ext), ct)
	}
	params := openai.ImageEditParams{Prompt: prompt, Model: openai.ImageModel(c.cfg.ImageModel)}
	if len(files) == 1 {
		params.Image.OfFile = files[0]
	} else {
		params.Image.OfFileArray = files
	}
	if size != "" {
		params.Size = openai.ImageEditParamsSize(size)
	}
	ctx, cancel := c.withTimeout(ctx)
	defer cancel()
	res, err := c.images.Edit(ctx, params)
	u.Latency = c.now().Sub(start)
	if err != nil {
		return nil, u, failure(err)
	}
	u.add(c.cfg.ImageModel, res.Usage.InputTokens, res.Usage.OutputTokens, res.Usage.TotalTokens, statedCost(res.Usage.JSON.ExtraFields))
	out, err := imageBytes(res)
	if err != nil {
		return nil, u, wrapBadOutput(err)
	}
	return out, u, nil
}

func imageBytes(res *openai.ImagesResponse) ([]byte, error) {
	if len(res.Data) == 0 {
		return nil, errors.New("the answer has no image")
	}
	d := res.Data[0]
	b64 := d.B64JSON
	if b64 == "" {
		// Some servers answer a data URL; a hosted URL is not fetched.
		_, after, ok := strings.Cut(d.URL, ";base64,")
		if !ok || !strings.HasPrefix(d.URL, "data:") {
			return nil, errors.New("the answer carries no image bytes (b64_json)")
		}
		b64 = after
	}
	out, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return nil, fmt.Errorf("the image is not base64: %w", err)
	}
	if !strings.HasPrefix(http.DetectContentType(out), "image/") {
		return nil, errors.New("the answer's bytes are not an image")
	}
	return out, nil
}
