// Package imageapi is the engine that develops the generative tools on an
// OpenAI-compatible image endpoint (AI_IMAGE_BASE_URL), the second provider
// after fal: look frames (tool lookbook, lock and variations) and
// generate-character.
//
// The protocol (OpenAI API reference, "Images"): POST {base}/v1/images/edits
// as multipart/form-data with one "image[]" part per input image (up to 16
// for GPT image models), "prompt", "model", "size" (1024x1024, 1536x1024 or
// 1024x1536) and "n" (1), the marks riding with the frame
// (engine.Request.Marks) following the request's own images as further
// "image[]" parts, named in the prompt by position and material; POST
// {base}/v1/images/generations with the same fields as JSON when there is
// no image (generate-character from words, its marks in words only).
// Both answer {created, data: [{b64_json} | {url}]}. A base URL that already
// ends in /v1 is not given a second one. "Authorization: Bearer <key>" is
// sent to the base URL's origin only; a result URL elsewhere is downloaded
// without it.
//
// A look frame is briefed by package lookbrief (the references in order,
// the riding marks last, one prompt), asked at the size nearest the
// frame's aspect, and fitted to the frame's exact size with
// engine.FinishSized. The endpoint's sizes stop at 1536: a frame larger
// than the answer (a 2k or 4k character or look frame) goes through a
// restoration model when the wiring gave the engine one (SetEnlarger:
// fal's upscale model, when FAL_KEY is set), and is charged the tier
// asked; without one it is a Lanczos resample of the answer, priced at
// 1k, the quality delivered (tool.Tool.Native), as the catalog's note says. An answer not of the size asked (beyond 3% in aspect, or under 256
// px) fails the frame; a refusal by the endpoint's safety system (an error
// whose code is moderation_blocked or content_policy_violation) is an input
// fault with a plain reason. Every other non-2xx answer is a provider fault.
package imageapi

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"strings"
	"time"

	"studio/internal/engine"
	"studio/internal/engine/lookbrief"
	"studio/internal/picture"
	"studio/internal/tool"
)

// DefaultModel is asked for when the configuration names none.
const DefaultModel = "gpt-image-1"

// maxAnswerBytes caps an answer (JSON with a base64 image, or a download).
const maxAnswerBytes = 96 << 20

// Sizes are the sizes the endpoint accepts, "WxH".
var Sizes = []string{"1024x1024", "1536x1024", "1024x1536"}

// Upstream is the endpoint in the words of a failed develop.
var Upstream = engine.Upstream{Name: "The image endpoint", Setting: "AI_IMAGE_API_KEY"}

// Engine is the image endpoint engine. It is safe for concurrent use.
type Engine struct {
	base    *url.URL
	key     string
	model   string
	client  *http.Client
	backoff engine.Backoff
	enlarge engine.Enlarger // the restoration pass; nil resamples
}

// SetEnlarger gives the engine a restoration model for answers smaller
// than the frame (fal's, engine.Enlarger); call it before the engine is
// used.
func (e *Engine) SetEnlarger(x engine.Enlarger) { e.enlarge = x }

// Restores reports whether an answer below the frame of tool goes through
// a restoration model (engine.Restoring): whenever the engine has one,
// for both its tools.
func (e *Engine) Restores(name string) bool { return e.enlarge != nil && e.Can(name) }

// SetBackoff replaces the request's backoff (engine.DefaultBackoff); call
// it before the engine is used.
func (e *Engine) SetBackoff(b engine.Backoff) { e.backoff = b }

// New returns the engine for an endpoint; model is DefaultModel when empty.
func New(baseURL, key, model string) (*Engine, error) {
	u, err := url.Parse(strings.TrimRight(strings.TrimSpace(baseURL), "/"))
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("imageapi: base URL %q is not an http(s) URL", baseURL)
	}
	if strings.TrimSpace(model) == "" {
		model = DefaultModel
	}
	return &Engine{base: u, key: key, model: model, client: &http.Client{Timeout: 5 * time.Minute}, backoff: engine.DefaultBackoff}, nil
}

// Name is "image-api".
func (e *Engine) Name() string { return tool.ImageAPI }

// Tools lists the tools the registry says it serves (generate-character
// and lookbook).
func (e *Engine) Tools() []string { return tool.ServedBy(tool.ImageAPI) }

// Can reports whether it serves the tool.
func (e *Engine) Can(name string) bool { return tool.Serves(tool.ImageAPI, name) }

// Run develops r on the endpoint and blocks until the answer is read or ctx ends.
func (e *Engine) Run(ctx context.Context, r engine.Request) (engine.Result, error) {
	if !e.Can(r.Tool) {
		return engine.Result{}, engine.Unsupported(e.Name(), r.Tool)
	}
	if err := engine.Validate(r); err != nil {
		return engine.Result{}, err
	}
	var (
		images [][]byte
		parts  []string
		prompt string
		aspect engine.Aspect
		sent   engine.Sent
	)
	if r.Tool == lookbrief.Tool {
		b, err := lookbrief.Of(r)
		if err != nil {
			return engine.Result{}, err
		}
		images, parts, prompt, aspect, sent = b.Images, b.Parts, b.Prompt, b.Aspect, b.Sent()
	} else {
		aspect = characterAspect(r)
		var marks string
		if img, ok := r.Input("image"); ok {
			// An edit takes several images: the riding marks follow the person.
			images, parts, sent.Refs = [][]byte{img}, []string{"image"}, r.InputsSent("image")[:1]
			ms := r.Marks()
			for _, m := range ms {
				images, parts, sent.Refs = append(images, m.Data), append(parts, "mark"), append(sent.Refs, m.Sent())
			}
			marks = lookbrief.MarkWords(ms, 2)
		}
		prompt = characterPrompt(r, marks)
		sent.Prompt = prompt
	}
	for i, data := range images {
		if _, _, _, err := engine.ProbeInput(r.Tool, parts[i], data); err != nil {
			return engine.Result{}, err
		}
	}
	size := Nearest(aspect)
	r.Tell(sent)
	data, err := e.ask(ctx, r.Tool, prompt, images, size)
	if err != nil {
		return engine.Result{}, err
	}
	img, err := picture.Decode(data)
	if err != nil {
		return engine.Result{}, engine.ProviderError(r.Tool, "The image endpoint's answer is not an image we can read.", err)
	}
	w, h := img.Rect.Dx(), img.Rect.Dy()
	if !lookbrief.Fits(strings.Replace(size, "x", ":", 1), w, h) || max(w, h) < lookbrief.MinEdge {
		return engine.Result{}, Upstream.BadResult(r.Tool, fmt.Sprintf("a %dx%d picture, not the %s it was asked for", w, h, size), nil)
	}
	want := r.Tier.Pixels()
	if r.Tool == lookbrief.Tool {
		fw, fh := lookbrief.FrameSize(r)
		want = max(fw, fh)
	}
	if e.enlarge != nil && engine.Undersized(max(w, h), want) {
		if img, err = e.enlarge.Enlarge(ctx, r, sent, img, want); err != nil {
			return engine.Result{}, err
		}
	}
	var res engine.Result
	if r.Tool == lookbrief.Tool {
		fw, fh := lookbrief.FrameSize(r)
		res, err = engine.FinishSized(img, fw, fh)
	} else {
		res, err = engine.Finish(img, r.Tier, characterShape(r), false)
	}
	if err != nil {
		return engine.Result{}, engine.ProviderError(r.Tool, "The image endpoint's answer could not be finished.", err)
	}
	return res, nil
}

// Nearest is the accepted size nearest a in aspect.
func Nearest(a engine.Aspect) string {
	ratios := make([]string, len(Sizes))
	for i, s := range Sizes {
		ratios[i] = strings.Replace(s, "x", ":", 1)
	}
	return strings.Replace(lookbrief.Nearest(a, ratios), ":", "x", 1)
}

// characterPrompt is generate-character's words: the house's direction
// (which carries params.prompt), else params.prompt; from an image, the
// tool's own instruction (a model sheet of that person) first and the
// direction after it, never instead of it; then the words naming the marks
// sent after the person (lookbrief.MarkWords).
func characterPrompt(r engine.Request, marks string) string {
	p := strings.Join(strings.Fields(r.Prompt), " ")
	if p == "" {
		p = r.Param("prompt")
	}
	if _, ok := r.Input("image"); ok {
		p = strings.TrimSpace("The same person as a full-length fashion model on a plain studio background, same face and build. " + p)
	}
	if marks != "" {
		return "Image 1 is the person. " + p + marks + " A photorealistic fashion photograph; no watermark, and no text other than the logo renditions shown."
	}
	return p + " A photorealistic fashion photograph; no text, no watermark."
}

// characterShape is the shape a character is finished in: the
// destination's, else, made from words, the aspect asked (the endpoint's
// nearest size composed for it, so that a 4:5 character is 4:5, not
// 2:3); from a photo, the answer's own.
func characterShape(r engine.Request) *engine.Shape {
	if _, ok := r.Input("image"); r.Shape != nil || ok {
		return r.Shape
	}
	a := characterAspect(r)
	w, h := engine.Canvas(r.Tier, a)
	return &engine.Shape{Width: w, Height: h}
}

func characterAspect(r engine.Request) engine.Aspect {
	if r.Shape != nil && r.Shape.Width > 0 && r.Shape.Height > 0 {
		return r.Shape.Aspect()
	}
	if a, err := engine.ParseAspect(r.Param("aspect")); err == nil {
		return a
	}
	return engine.Aspect{W: 1, H: 1}
}

// endpoint is {base}/v1/{path}, or {base}/{path} when base ends in /v1.
func (e *Engine) endpoint(path string) string {
	if strings.HasSuffix(e.base.Path, "/v1") {
		return e.base.JoinPath(path).String()
	}
	return e.base.JoinPath("v1", path).String()
}

// ask sends one edit (with images) or generation (without) and returns the
// first image's bytes. An answer of 429 (a rate limit, not a spent quota)
// or 5xx is asked again with the engine's backoff, honouring Retry-After,
// while ctx's deadline allows: the endpoint did not make the picture.
func (e *Engine) ask(ctx context.Context, tool, prompt string, images [][]byte, size string) ([]byte, error) {
	for tries := 1; ; tries++ {
		data, after, err := e.askOnce(ctx, tool, prompt, images, size)
		he, busy := errors.AsType[*busyError](err)
		if !busy {
			return data, err
		}
		if !e.backoff.Again(ctx, tries, after) {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("imageapi: stopped: %w", ctx.Err())
			}
			return nil, Upstream.Busy(tool, he.status, tries, he.cause)
		}
	}
}

// busyError is an answer worth asking again: 429 for a rate limit, or 5xx.
type busyError struct {
	status int
	cause  error
}

func (b *busyError) Error() string { return b.cause.Error() }

// askOnce is one try of ask; a busy answer is a *busyError with what its
// Retry-After asked.
func (e *Engine) askOnce(ctx context.Context, tool, prompt string, images [][]byte, size string) ([]byte, time.Duration, error) {
	var (
		body  bytes.Buffer
		ctype string
		path  = "images/generations"
	)
	if len(images) > 0 {
		path = "images/edits"
		mw := multipart.NewWriter(&body)
		for k, v := range map[string]string{"model": e.model, "prompt": prompt, "size": size, "n": "1"} {
			if err := mw.WriteField(k, v); err != nil {
				return nil, 0, engine.ProviderError(tool, "The request for the image endpoint could not be encoded.", err)
			}
		}
		for i, img := range images {
			ct := http.DetectContentType(img)
			h := textproto.MIMEHeader{}
			h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="image[]"; filename="image-%d.%s"`, i+1, strings.TrimPrefix(ct, "image/")))
			h.Set("Content-Type", ct)
			pw, err := mw.CreatePart(h)
			if err == nil {
				_, err = pw.Write(img)
			}
			if err != nil {
				return nil, 0, engine.ProviderError(tool, "The request for the image endpoint could not be encoded.", err)
			}
		}
		if err := mw.Close(); err != nil {
			return nil, 0, engine.ProviderError(tool, "The request for the image endpoint could not be encoded.", err)
		}
		ctype = mw.FormDataContentType()
	} else {
		if err := json.NewEncoder(&body).Encode(map[string]any{"model": e.model, "prompt": prompt, "size": size, "n": 1}); err != nil {
			return nil, 0, engine.ProviderError(tool, "The request for the image endpoint could not be encoded.", err)
		}
		ctype = "application/json"
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.endpoint(path), &body)
	if err != nil {
		return nil, 0, engine.ProviderError(tool, "The image endpoint request could not be made.", err)
	}
	req.Header.Set("Content-Type", ctype)
	req.Header.Set("Accept", "application/json")
	if e.key != "" {
		req.Header.Set("Authorization", "Bearer "+e.key)
	}
	res, err := e.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, 0, fmt.Errorf("imageapi: stopped: %w", ctx.Err())
		}
		return nil, 0, Upstream.Unsent(tool, e.client.Timeout, err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(io.LimitReader(res.Body, maxAnswerBytes))
	if err != nil {
		return nil, 0, engine.ProviderError(tool, "The image endpoint's answer could not be read.", err)
	}
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return nil, engine.RetryAfter(res.Header, time.Now()), failure(tool, res.StatusCode, data)
	}
	var out struct {
		Data []struct {
			B64JSON string `json:"b64_json"`
			URL     string `json:"url"`
		} `json:"data"`
	}
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, 0, engine.ProviderError(tool, "The image endpoint's answer is not the expected JSON.", err)
	}
	if len(out.Data) == 0 || (out.Data[0].B64JSON == "" && out.Data[0].URL == "") {
		return nil, 0, engine.ProviderError(tool, "The image endpoint's answer has no image.", nil)
	}
	if b := out.Data[0].B64JSON; b != "" {
		img, err := base64.StdEncoding.DecodeString(b)
		if err != nil {
			return nil, 0, engine.ProviderError(tool, "The image endpoint's image is not base64.", err)
		}
		return img, 0, nil
	}
	img, err := e.download(ctx, tool, out.Data[0].URL)
	return img, 0, err
}

// apiError is the endpoint's error body: {"error": {message, type, code}}.
type apiError struct {
	Error struct {
		Message string `json:"message"`
		Type    string `json:"type"`
		Code    any    `json:"code"`
	} `json:"error"`
}

// failure turns a non-2xx answer into the run's error: a safety refusal is
// an input fault, anything else a provider fault.
func failure(tool string, status int, data []byte) error {
	var ae apiError
	_ = json.Unmarshal(data, &ae)
	code := fmt.Sprint(ae.Error.Code)
	cause := fmt.Errorf("image endpoint answered %d: %s (%s)", status, ae.Error.Message, code)
	switch {
	case code == "moderation_blocked" || code == "content_policy_violation" || ae.Error.Type == "image_generation_user_error" && strings.Contains(strings.ToLower(ae.Error.Message), "safety"):
		return Upstream.Refused(tool, cause)
	case code == "insufficient_quota" || code == "billing_hard_limit_reached" || ae.Error.Type == "insufficient_quota":
		// OpenAI answers a spent quota 429 insufficient_quota: not worth
		// asking again.
		return Upstream.OutOfCredit(tool, cause)
	case engine.Retryable(status):
		return &busyError{status: status, cause: cause}
	}
	return Upstream.Answered(tool, status, cause)
}

// download fetches a result URL: a data URL, or http(s) (the key only to
// the base URL's origin).
func (e *Engine) download(ctx context.Context, tool, raw string) ([]byte, error) {
	if rest, ok := strings.CutPrefix(raw, "data:"); ok {
		_, payload, ok := strings.Cut(rest, ";base64,")
		if !ok {
			return nil, engine.ProviderError(tool, "The image endpoint's data URL is not base64.", nil)
		}
		img, err := base64.StdEncoding.DecodeString(payload)
		if err != nil {
			return nil, engine.ProviderError(tool, "The image endpoint's data URL does not decode.", err)
		}
		return img, nil
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, engine.ProviderError(tool, "The image endpoint's result URL is not an http(s) URL.", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, engine.ProviderError(tool, "The image endpoint's result could not be requested.", err)
	}
	if e.key != "" && strings.EqualFold(u.Host, e.base.Host) && strings.EqualFold(u.Scheme, e.base.Scheme) {
		req.Header.Set("Authorization", "Bearer "+e.key)
	}
	res, err := e.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("imageapi: download stopped: %w", ctx.Err())
		}
		return nil, engine.ProviderError(tool, "The image endpoint's result could not be downloaded.", err)
	}
	defer res.Body.Close()
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return nil, engine.ProviderError(tool, fmt.Sprintf("The image endpoint's result download answered %d.", res.StatusCode), nil)
	}
	data, err := io.ReadAll(io.LimitReader(res.Body, maxAnswerBytes+1))
	if err != nil || len(data) > maxAnswerBytes {
		return nil, engine.ProviderError(tool, "The image endpoint's result could not be downloaded whole.", err)
	}
	return data, nil
}

// Upstream is the endpoint in the words of a failed develop.
func (e *Engine) Upstream() engine.Upstream { return Upstream }
