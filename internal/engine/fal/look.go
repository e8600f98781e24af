package fal

import (
	"context"
	"encoding/base64"
	"fmt"
	"image"
	"slices"

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
	if engine.Undersized(max(w, h), b.LongEdge()) && e.Models["upscale"] != "" {
		if img, err = e.restore(ctx, r, b.Sent(), img, out.URL, b.LongEdge()); err != nil {
			return engine.Result{}, err
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

// restore is the restoration pass: img, fal's answer (at imageURL, fal's
// own result URL; "" for another engine's answer), through the upscale
// model at the whole scale that reaches want, the long edge of the frame.
// An answer whose whole scale would overshoot the frame is sent resampled
// (engine.RestoreSource), as a data URI, so that the restored picture is
// the frame's size: a larger answer is refused before it is decoded
// (engine.RestoredMost), and one of another aspect or short of the frame
// fails. Before it is submitted the pass joins the record (sent, told to
// r), so the job shows the second request, failed or not.
func (e *Engine) restore(ctx context.Context, r engine.Request, sent engine.Sent, img *image.NRGBA, imageURL string, want int) (*image.NRGBA, error) {
	model := e.Models["upscale"]
	w, h := img.Rect.Dx(), img.Rect.Dy()
	long, scale := engine.RestoreSource(max(w, h), want)
	if long != max(w, h) || imageURL == "" {
		src := picture.FitLong(img, long)
		data, err := picture.EncodePNG(src)
		if err != nil {
			return nil, engine.ProviderError(r.Tool, "The picture to restore could not be encoded.", err)
		}
		w, h, imageURL = src.Rect.Dx(), src.Rect.Dy(), "data:image/png;base64,"+base64.StdEncoding.EncodeToString(data)
	}
	sent.Refs = append(slices.Clone(sent.Refs), engine.Restoration(model, w, h, scale))
	r.Tell(sent)
	up, err := e.do(ctx, r.Tool, call{model: model, input: map[string]any{
		"image_url": imageURL, "scale": scale, "model": "RealESRGAN_x4plus", "output_format": "png",
	}})
	if err != nil {
		return nil, err
	}
	data, _, err := e.download(ctx, r.Tool, up.URL, maxImageBytes)
	if err != nil {
		return nil, err
	}
	_, rw, rh, err := picture.Probe(data)
	if err != nil {
		return nil, Upstream.BadResult(r.Tool, "the restoration pass answered something that is not an image we can read", err)
	}
	if !lookbrief.Fits(fmt.Sprintf("%d:%d", w, h), rw, rh) || engine.Undersized(max(rw, rh), want) || max(rw, rh) > engine.RestoredMost(want) {
		return nil, Upstream.BadResult(r.Tool, fmt.Sprintf("the restoration pass answered a %dx%d picture for a %dx%d one at x%d", rw, rh, w, h, scale), nil)
	}
	out, err := picture.Decode(data)
	if err != nil {
		return nil, Upstream.BadResult(r.Tool, "the restoration pass answered something that is not an image we can read", err)
	}
	return out, nil
}

// Enlarge is the restoration pass for another engine's answer (the image
// endpoint's, engine.Enlarger): img goes to the upscale model as a data
// URI, resampled where the whole scale would overshoot the frame, and
// the pass joins r's record. A request that fails after fal took it is
// cancelled there (do).
func (e *Engine) Enlarge(ctx context.Context, r engine.Request, sent engine.Sent, img *image.NRGBA, long int) (*image.NRGBA, error) {
	if e.Models["upscale"] == "" {
		return nil, fmt.Errorf("%w: fal has no upscale model to restore %s with", engine.ErrUnsupported, r.Tool)
	}
	return e.restore(ctx, r, sent, img, "", long)
}
