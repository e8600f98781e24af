package fal

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"studio/internal/engine"
	"studio/internal/engine/hosted"
	"studio/internal/engine/lookbrief"
	"studio/internal/picture"
	"studio/internal/tool"
)

// DefaultBaseURL is fal.ai's queue endpoint.
const DefaultBaseURL = "https://queue.fal.run"

// Download caps: a result larger than this is a provider fault.
const (
	maxImageBytes = 64 << 20
	maxVideoBytes = 512 << 20
)

// Upstream is fal in the words of a failed develop.
var Upstream = engine.Upstream{Name: "fal", Setting: "FAL_KEY"}

// Engine is the fal.ai queue engine. It is safe for concurrent use.
type Engine struct{ hosted.Engine }

// New returns the fal engine for an API key. baseURL is the queue endpoint,
// DefaultBaseURL when empty; tests point it at a local server.
func New(key, baseURL string, opts ...hosted.Option) (*Engine, error) {
	c, err := hosted.New("fal", Upstream, key, baseURL, DefaultBaseURL, 250*time.Millisecond)
	if err != nil {
		return nil, err
	}
	c.Auth, c.Fault = "Key "+key, fault
	return &Engine{hosted.NewEngine(tool.Fal, c, DefaultModels, opts...)}, nil
}

// Run submits r to fal's queue and blocks until the result is downloaded or ctx ends.
func (e *Engine) Run(ctx context.Context, r engine.Request) (engine.Result, error) {
	if !e.Can(r.Tool) {
		return engine.Result{}, fmt.Errorf("%w: fal has no model for %q", engine.ErrUnsupported, r.Tool)
	}
	if err := engine.Validate(r); err != nil {
		return engine.Result{}, err
	}
	if r.Tool == lookbrief.Tool {
		return e.runLook(ctx, r)
	}
	uris := map[string][]string{}
	sizes := map[string][2]int{}
	for _, in := range r.Inputs {
		mime, w, h, err := engine.ProbeInput(r.Tool, in.Role, in.Data)
		if err != nil {
			return engine.Result{}, err
		}
		uris[in.Role] = append(uris[in.Role], "data:"+mime+";base64,"+base64.StdEncoding.EncodeToString(in.Data))
		if _, ok := sizes[in.Role]; !ok {
			sizes[in.Role] = [2]int{w, h}
		}
	}
	c, err := e.buildCall(r, uris, sizes)
	if err != nil {
		return engine.Result{}, err
	}
	sent := c.sent()
	if r.Tool == "tryon" {
		// Each further garment rides its own call onto the last result.
		if g := r.InputsSent("garment"); len(g) > 1 {
			sent.Refs = append(sent.Refs, g[1:]...)
		}
	}
	r.Tell(sent)
	out, err := e.do(ctx, r.Tool, c)
	if err != nil {
		return engine.Result{}, err
	}
	// tryon with several garments: each further garment goes onto the last result.
	if r.Tool == "tryon" {
		for _, g := range uris["garment"][1:] {
			c.input["model_image"] = out.URL
			c.input["garment_image"] = g
			if out, err = e.do(ctx, r.Tool, c); err != nil {
				return engine.Result{}, err
			}
		}
	}
	return e.fetchResult(ctx, r, sent, out)
}

// file is a file in a model's output.
type file struct {
	URL         string `json:"url"`
	ContentType string `json:"content_type"`
	Width       int    `json:"width"`
	Height      int    `json:"height"`
}

// output is the part of a model's output JSON the engine reads.
type output struct {
	Images []file `json:"images"`
	Image  *file  `json:"image"`
	Video  *file  `json:"video"`
	// NSFW is the safety checker's verdict per image (flux models); a
	// flagged image is a blacked-out refusal, never a frame.
	NSFW []bool `json:"has_nsfw_concepts"`
}

func (o output) file() (file, bool) {
	switch {
	case o.Image != nil && o.Image.URL != "":
		return *o.Image, true
	case len(o.Images) > 0 && o.Images[0].URL != "":
		return o.Images[0], true
	case o.Video != nil && o.Video.URL != "":
		return *o.Video, true
	}
	return file{}, false
}

// queued is the submit answer.
type queued struct {
	RequestID   string `json:"request_id"`
	StatusURL   string `json:"status_url"`
	ResponseURL string `json:"response_url"`
	CancelURL   string `json:"cancel_url"`
}

// status is a status answer.
type status struct {
	Status        string `json:"status"`
	QueuePosition *int   `json:"queue_position"`
	Error         string `json:"error"`
	ErrorType     string `json:"error_type"`
}

// do submits one call, polls it to completion and returns its output file.
func (e *Engine) do(ctx context.Context, tool string, c call) (file, error) {
	body, err := json.Marshal(c.input)
	if err != nil {
		return file{}, engine.ProviderError(tool, "The request for fal could not be encoded.", err)
	}
	q, err := e.submit(ctx, tool, c.model, body)
	if err != nil {
		return file{}, err
	}
	statusURL := e.queueURL(q.StatusURL, c.model, q.RequestID, "status")
	responseURL := e.queueURL(q.ResponseURL, c.model, q.RequestID, "")
	cancelURL := e.queueURL(q.CancelURL, c.model, q.RequestID, "cancel")
	done, err := e.await(ctx, tool, statusURL)
	switch {
	case ctx.Err() != nil:
		return file{}, e.cancel(ctx, cancelURL, q.RequestID)
	case err != nil && !done:
		// fal took the request and may still run it: tell it to stop,
		// so that it neither runs nor bills it.
		e.Client.TellCancel(ctx, http.MethodPut, cancelURL)
		return file{}, err
	case err != nil:
		return file{}, err
	}
	return e.response(ctx, tool, responseURL)
}

// submit posts one request to model's queue and returns fal's answer. An
// answer of 429 or 5xx (fal did not take the request) is tried again
// with the engine's backoff, honouring Retry-After, while the context's
// deadline allows. The deadline left rides as X-Fal-Request-Timeout (fal
// docs, "Platform headers"): fal drops a request no runner has started
// by then.
func (e *Engine) submit(ctx context.Context, tool, model string, body []byte) (queued, error) {
	var q queued
	header := func() http.Header {
		h := http.Header{}
		if end, ok := ctx.Deadline(); ok {
			h.Set("X-Fal-Request-Timeout", strconv.FormatFloat(max(0.2, time.Until(end).Seconds()), 'f', 1, 64))
		}
		return h
	}
	if err := e.Client.Submit(ctx, tool, e.Client.Base.JoinPath(model).String(), body, header, nil, &q); err != nil {
		return queued{}, err
	}
	if q.RequestID == "" {
		return queued{}, Upstream.Failed(tool, "it took the request without a request id", nil)
	}
	return q, nil
}

// await polls a request's status until fal says COMPLETED, or ctx ends;
// done says whether fal finished the request (completed, with or without
// an error): one that did not may still run, and the caller cancels it.
func (e *Engine) await(ctx context.Context, tool, statusURL string) (done bool, err error) {
	_, err = hosted.Poll(ctx, e.Client, tool, statusURL, func(st status) (bool, error) {
		switch st.Status {
		case "IN_QUEUE", "IN_PROGRESS":
			return false, nil
		case "COMPLETED":
			done = true
			if st.Error != "" {
				return true, Upstream.Failed(tool, "", fmt.Errorf("%s: %s", cmpOr(st.ErrorType, "error"), st.Error))
			}
			return true, nil
		}
		return true, Upstream.Failed(tool, "it reported the request as "+strings.ToLower(st.Status), fmt.Errorf("status %q", st.Status))
	})
	return done, err
}

// response reads a completed request's output.
func (e *Engine) response(ctx context.Context, tool, responseURL string) (file, error) {
	var out output
	if err := e.Client.Send(ctx, tool, http.MethodGet, responseURL, nil, nil, &out); err != nil {
		if ctx.Err() != nil {
			return file{}, fmt.Errorf("fal: reading the result stopped: %w", ctx.Err())
		}
		return file{}, err
	}
	if slices.Contains(out.NSFW, true) {
		return file{}, refusal(tool, nil)
	}
	f, ok := out.file()
	if !ok {
		return file{}, Upstream.BadResult(tool, "its output has no image or video", nil)
	}
	return f, nil
}

// cancel asks fal to cancel a request after ctx ended (PUT cancel_url,
// fal docs "Cancel a request": a queued request is removed, a running one
// told to stop), and returns the error Run reports.
func (e *Engine) cancel(ctx context.Context, cancelURL, id string) error {
	e.Client.TellCancel(ctx, http.MethodPut, cancelURL)
	return fmt.Errorf("fal: request %s cancelled: %w", id, ctx.Err())
}

// fault reads fal's error body into he: a content policy refusal is its
// safety check's, a 403 for an exhausted balance is out of credit.
func fault(tool string, he *hosted.HTTPError, body []byte) error {
	he.Detail = detailOf(body)
	switch {
	case he.Status < 500 && slices.Contains(detailTypes(body), "content_policy_violation"):
		return refusal(tool, he)
	case he.Status == http.StatusForbidden && strings.Contains(strings.ToLower(he.Detail), "balance"):
		// "User is locked. Reason: Exhausted balance. Top up your
		// balance at fal.ai/dashboard/billing."
		return Upstream.OutOfCredit(tool, he)
	}
	return nil
}

// detailOf reads fal's error body ({"detail": "..."} or {"detail": [{"msg": ...}]}).
func detailOf(data []byte) string {
	var body struct {
		Detail json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(data, &body) == nil && len(body.Detail) > 0 {
		var s string
		if json.Unmarshal(body.Detail, &s) == nil {
			return s
		}
		var list []struct {
			Msg string `json:"msg"`
		}
		if json.Unmarshal(body.Detail, &list) == nil && len(list) > 0 {
			msgs := make([]string, 0, len(list))
			for _, d := range list {
				msgs = append(msgs, d.Msg)
			}
			return strings.Join(msgs, "; ")
		}
	}
	s := strings.TrimSpace(string(data))
	if len(s) > 300 {
		s = s[:300]
	}
	return s
}

// detailTypes reads the machine-readable types of fal's error body
// ({"detail": [{"loc", "msg", "type", "url"}]}, fal docs "Errors").
func detailTypes(data []byte) []string {
	var body struct {
		Detail []struct {
			Type string `json:"type"`
		} `json:"detail"`
	}
	if json.Unmarshal(data, &body) != nil {
		return nil
	}
	out := make([]string, 0, len(body.Detail))
	for _, d := range body.Detail {
		out = append(out, d.Type)
	}
	return out
}

// refusal is fal's safety check refusing a request or its picture: an
// input fault (the same request would be refused again).
func refusal(tool string, cause error) error {
	return Upstream.Refused(tool, cause)
}

// queueURL returns given when it is on the base's origin, else the URL built
// from the model's app id ({owner}/{alias}, without a subpath).
func (e *Engine) queueURL(given, model, id, suffix string) string {
	if u, err := url.Parse(given); err == nil && given != "" && e.Client.SameOrigin(u) {
		return u.String()
	}
	parts := strings.Split(strings.Trim(model, "/"), "/")
	elems := slices.Concat(parts[:min(2, len(parts))], []string{"requests", id})
	if suffix != "" {
		elems = append(elems, suffix)
	}
	return e.Client.Base.JoinPath(elems...).String()
}

// fetchResult downloads the output file and makes the engine's result of
// it; sent is what the record on the job holds so far.
func (e *Engine) fetchResult(ctx context.Context, r engine.Request, sent engine.Sent, f file) (engine.Result, error) {
	t, _ := tool.Get(r.Tool)
	video := t.Video || strings.HasPrefix(f.ContentType, "video/")
	limit := int64(maxImageBytes)
	if video {
		limit = maxVideoBytes
	}
	data, mime, err := e.download(ctx, r.Tool, f.URL, limit)
	if err != nil {
		return engine.Result{}, err
	}
	if video {
		w, h := f.Width, f.Height
		if w == 0 || h == 0 {
			w, h = hosted.MP4Size(data)
		}
		return engine.Result{Data: data, Mime: cmpOr(f.ContentType, cmpOr(mime, "video/mp4")), Width: w, Height: h}, nil
	}
	img, err := picture.Decode(data)
	if err != nil {
		return engine.Result{}, Upstream.BadResult(r.Tool, "it is not an image we can read", err)
	}
	if Restores(r.Tool) && engine.Undersized(max(img.Rect.Dx(), img.Rect.Dy()), r.Tier.Pixels()) && e.Models["upscale"] != "" {
		// The model answered at its own size (kontext's edits about one
		// megapixel, flux/dev its native canvas, the others the input's
		// size): the restoration pass takes it to the tier.
		if img, err = e.restore(ctx, r, sent, img, f.URL, r.Tier.Pixels()); err != nil {
			return engine.Result{}, err
		}
	}
	res, err := engine.Finish(img, r.Tier, finishShape(r), r.Tool == "remove-background")
	if err != nil {
		return engine.Result{}, engine.ProviderError(r.Tool, "fal's result could not be finished.", err)
	}
	return res, nil
}

// Restores reports whether a still result of tool that falls short of the
// tier asked goes through the restoration pass (fal-ai/esrgan) before it
// is finished, and is charged the tier asked: every fal model but the
// upscale model itself (its scale is chosen to reach the tier) and the
// background remover, whose answer is a matte at the input's size and
// priced alike at every tier (an upscale model would redraw its edge).
// Look frames are restored by runLook; videos are what they are.
func Restores(tool string) bool {
	switch tool {
	case "upscale", "remove-background", "lookbook-video":
		return false
	}
	return true
}

// download fetches a result file of at most limit bytes: a data URI, or
// an http(s) URL (hosted.Client.Download).
func (e *Engine) download(ctx context.Context, tool, raw string, limit int64) ([]byte, string, error) {
	return e.Client.Download(ctx, tool, raw, limit)
}

// Model runs one fal model with a JSON input outside the develop tools (the
// AI lanes' depth and segment), waits for it like Run, and returns the bytes
// of its output image as fal sent them. tool names the call in errors.
func (e *Engine) Model(ctx context.Context, tool, model string, input map[string]any) ([]byte, error) {
	if strings.TrimSpace(model) == "" {
		return nil, fmt.Errorf("%w: fal has no model for %q", engine.ErrUnsupported, tool)
	}
	out, err := e.do(ctx, tool, call{model: model, input: input})
	if err != nil {
		return nil, err
	}
	data, _, err := e.download(ctx, tool, out.URL, maxImageBytes)
	return data, err
}
