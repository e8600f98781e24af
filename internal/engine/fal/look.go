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
	if long := max(w, h); engine.Undersized(long, b.LongEdge()) && e.Models["upscale"] != "" {
		if img, w, h, err = e.restore(ctx, r.Tool, out.URL, long, b.LongEdge()); err != nil {
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

// restore is the restoration pass: the picture at imageURL (fal's own
// result URL, or a data URI), whose long edge is long, through the
// upscale model at the whole scale that reaches want (2 or 4), decoded.
func (e *Engine) restore(ctx context.Context, tool, imageURL string, long, want int) (*image.NRGBA, int, int, error) {
	up, err := e.do(ctx, tool, call{model: e.Models["upscale"], input: map[string]any{
		"image_url": imageURL, "scale": engine.RestoreScale(long, want), "model": "RealESRGAN_x4plus", "output_format": "png",
	}})
	if err != nil {
		return nil, 0, 0, err
	}
	return e.fetchImage(ctx, tool, up.URL)
}

// Enlarge is the restoration pass for another engine's answer (the image
// endpoint's, engine.Enlarger): data goes to the upscale model as a data
// URI, at the whole scale that takes its long edge to long. A request
// that fails after fal took it is cancelled there (do); the picture
// answered must keep data's aspect within 3%.
func (e *Engine) Enlarge(ctx context.Context, tool string, data []byte, long int) (*image.NRGBA, error) {
	if e.Models["upscale"] == "" {
		return nil, fmt.Errorf("%w: fal has no upscale model to restore %s with", engine.ErrUnsupported, tool)
	}
	mime, w, h, err := picture.Probe(data)
	if err != nil {
		return nil, engine.ProviderError(tool, "The picture to restore is not one we can read.", err)
	}
	img, rw, rh, err := e.restore(ctx, tool, "data:"+mime+";base64,"+base64.StdEncoding.EncodeToString(data), max(w, h), long)
	if err != nil {
		return nil, err
	}
	if !lookbrief.Fits(fmt.Sprintf("%d:%d", w, h), rw, rh) || engine.Undersized(max(rw, rh), long) {
		return nil, Upstream.BadResult(tool, fmt.Sprintf("the restoration pass answered a %dx%d picture for a %dx%d one", rw, rh, w, h), nil)
	}
	return img, nil
}
