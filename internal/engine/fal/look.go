package fal

import (
	"context"
	"encoding/base64"
	"fmt"
	"image"

	"studio/internal/engine"
	"studio/internal/engine/lookbrief"
	"studio/internal/picture"
)

// lookAspects are the aspect_ratio values the look model accepts
// (fal-ai/nano-banana-pro/edit; "auto" is never sent).
var lookAspects = []string{"21:9", "16:9", "3:2", "4:3", "5:4", "1:1", "4:5", "3:4", "2:3", "9:16"}

// resolution is the look model's resolution for a frame's long edge: the
// smallest of 1K, 2K and 4K that reaches it, 4K beyond.
func resolution(long int) string {
	switch {
	case long <= 1024:
		return "1K"
	case long <= 2048:
		return "2K"
	}
	return "4K"
}

// runLook develops a look frame (lock or variation) on the look model: the
// references as image_urls in the brief's order (the riding marks last),
// its prompt, the nearest
// accepted aspect_ratio and the resolution of the frame's pixels. An
// answer of another aspect, or too small to restore, fails; one smaller
// than the frame goes through the upscale model (the restoration pass)
// before it is finished at the frame's exact size.
func (e *Engine) runLook(ctx context.Context, r engine.Request) (engine.Result, error) {
	b, err := lookbrief.Of(r)
	if err != nil {
		return engine.Result{}, err
	}
	urls := make([]string, len(b.Images))
	for i, data := range b.Images {
		mime, _, _, err := engine.ProbeInput(r.Tool, b.Parts[i], data)
		if err != nil {
			return engine.Result{}, err
		}
		urls[i] = "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(data)
	}
	asked := lookbrief.Nearest(b.Aspect, lookAspects)
	r.Tell(b.Sent())
	out, err := e.do(ctx, r.Tool, call{model: e.Models[r.Tool], input: map[string]any{
		"prompt": b.Prompt, "image_urls": urls, "aspect_ratio": asked,
		"resolution": resolution(b.LongEdge()), "num_images": 1, "output_format": "png",
	}})
	if err != nil {
		return engine.Result{}, err
	}
	img, w, h, err := e.fetchImage(ctx, r.Tool, out.URL)
	if err != nil {
		return engine.Result{}, err
	}
	if !lookbrief.Fits(asked, w, h) || max(w, h) < lookbrief.MinEdge {
		return engine.Result{}, Upstream.BadResult(r.Tool, fmt.Sprintf(
			"the look model answered a %dx%d picture, not the %s frame it was asked for", w, h, asked), nil)
	}
	if long := max(w, h); long*100 < b.LongEdge()*97 && e.Models["upscale"] != "" {
		scale := 4
		if 2*long >= b.LongEdge() {
			scale = 2
		}
		up, err := e.do(ctx, r.Tool, call{model: e.Models["upscale"], input: map[string]any{
			"image_url": out.URL, "scale": scale, "model": "RealESRGAN_x4plus", "output_format": "png",
		}})
		if err != nil {
			return engine.Result{}, err
		}
		if img, w, h, err = e.fetchImage(ctx, r.Tool, up.URL); err != nil {
			return engine.Result{}, err
		}
		if !lookbrief.Fits(asked, w, h) {
			return engine.Result{}, Upstream.BadResult(r.Tool, fmt.Sprintf(
				"the restoration pass answered a %dx%d picture, not the %s frame it was given", w, h, asked), nil)
		}
	}
	res, err := engine.FinishSized(img, b.Width, b.Height)
	if err != nil {
		return engine.Result{}, engine.ProviderError(r.Tool, "fal's result could not be finished.", err)
	}
	return res, nil
}

// fetchImage downloads and decodes an output image.
func (e *Engine) fetchImage(ctx context.Context, tool, u string) (*image.NRGBA, int, int, error) {
	data, _, err := e.download(ctx, tool, u, maxImageBytes)
	if err != nil {
		return nil, 0, 0, err
	}
	img, err := picture.Decode(data)
	if err != nil {
		return nil, 0, 0, Upstream.BadResult(tool, "it is not an image we can read", err)
	}
	return img, img.Rect.Dx(), img.Rect.Dy(), nil
}
