package fal

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"studio/internal/engine"
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
	maxJSONBytes  = 8 << 20
)

// Upstream is fal in the words of a failed develop.
var Upstream = engine.Upstream{Name: "fal", Setting: "FAL_KEY"}

// Engine is the fal.ai queue engine. It is safe for concurrent use.
type Engine struct {
	key     string
	base    *url.URL
	client  *http.Client
	models  map[string]string
	pollMin time.Duration
	pollMax time.Duration
	backoff engine.Backoff
}

// Option configures an Engine.
type Option func(*Engine)

// WithModels replaces entries of the tool -> model id table (DefaultModels).
func WithModels(m map[string]string) Option {
	return func(e *Engine) { maps.Copy(e.models, m) }
}

// WithPolling sets the first status poll delay and the largest one the backoff grows to.
func WithPolling(first, most time.Duration) Option {
	return func(e *Engine) { e.pollMin, e.pollMax = first, max(first, most) }
}

// WithBackoff replaces the submit's backoff (engine.DefaultBackoff).
func WithBackoff(b engine.Backoff) Option {
	return func(e *Engine) { e.backoff = b }
}

// New returns the fal engine for an API key. baseURL is the queue endpoint,
// DefaultBaseURL when empty; tests point it at a local server.
func New(key, baseURL string, opts ...Option) (*Engine, error) {
	if baseURL == "" {
		baseURL = DefaultBaseURL
	}
	u, err := url.Parse(strings.TrimRight(baseURL, "/"))
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("fal: base URL %q is not an http(s) URL", baseURL)
	}
	if strings.TrimSpace(key) == "" {
		return nil, errors.New("fal: the API key is empty")
	}
	e := &Engine{
		key:     key,
		base:    u,
		client:  &http.Client{Timeout: 60 * time.Second},
		models:  maps.Clone(DefaultModels),
		pollMin: 250 * time.Millisecond,
		pollMax: 3 * time.Second,
		backoff: engine.DefaultBackoff,
	}
	for _, o := range opts {
		o(e)
	}
	return e, nil
}

// Name is "fal".
func (e *Engine) Name() string { return tool.Fal }

// Tools lists the tools the registry says fal serves that have a model in
// the table, sorted.
func (e *Engine) Tools() []string {
	return slices.DeleteFunc(tool.ServedBy(tool.Fal), func(name string) bool { return e.models[name] == "" })
}

// Can reports whether fal serves the tool and it has a model in the table.
func (e *Engine) Can(name string) bool {
	return tool.Serves(tool.Fal, name) && e.models[name] != ""
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
	return e.fetchResult(ctx, r, out)
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
		e.tellCancel(ctx, cancelURL)
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
	header := http.Header{}
	for tries := 1; ; tries++ {
		if end, ok := ctx.Deadline(); ok {
			header.Set("X-Fal-Request-Timeout", strconv.FormatFloat(max(0.2, time.Until(end).Seconds()), 'f', 1, 64))
		}
		err := e.send(ctx, tool, http.MethodPost, e.base.JoinPath(model).String(), body, header, &q)
		if ctx.Err() != nil {
			return queued{}, fmt.Errorf("fal: submit stopped: %w", ctx.Err())
		}
		he, busy := errors.AsType[*httpError](err)
		busy = busy && engine.Retryable(he.status)
		switch {
		case err == nil && q.RequestID == "":
			return queued{}, Upstream.Failed(tool, "it took the request without a request id", nil)
		case err == nil:
			return q, nil
		case !busy:
			return queued{}, err
		case !e.backoff.Again(ctx, tries, he.retryAfter):
			if ctx.Err() != nil {
				return queued{}, fmt.Errorf("fal: submit stopped: %w", ctx.Err())
			}
			return queued{}, Upstream.Busy(tool, he.status, tries, he)
		}
	}
}

// await polls a request's status until fal says COMPLETED, or ctx ends;
// done says whether fal finished the request (completed, with or without
// an error): one that did not may still run, and the caller cancels it.
func (e *Engine) await(ctx context.Context, tool, statusURL string) (done bool, err error) {

	wait := e.pollMin
	failures := 0
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-timer.C:
		}
		var st status
		err := e.call(ctx, tool, http.MethodGet, statusURL, nil, &st)
		switch {
		case ctx.Err() != nil:
			return false, ctx.Err()
		case err != nil && transient(err) && failures < 3:
			failures++
		case err != nil:
			return false, err
		default:
			failures = 0
			switch st.Status {
			case "IN_QUEUE", "IN_PROGRESS":
			case "COMPLETED":
				if st.Error != "" {
					return true, Upstream.Failed(tool, "", fmt.Errorf("%s: %s", cmpOr(st.ErrorType, "error"), st.Error))
				}
				return true, nil
			default:
				return false, Upstream.Failed(tool, "it reported the request as "+strings.ToLower(st.Status), fmt.Errorf("status %q", st.Status))
			}
		}
		wait = min(e.pollMax, wait*3/2)
		timer.Reset(wait)
	}
}

// response reads a completed request's output.
func (e *Engine) response(ctx context.Context, tool, responseURL string) (file, error) {
	var out output
	if err := e.call(ctx, tool, http.MethodGet, responseURL, nil, &out); err != nil {
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

// cancel asks fal to cancel a request after ctx ended, and returns the error Run reports.
func (e *Engine) cancel(ctx context.Context, cancelURL, id string) error {
	e.tellCancel(ctx, cancelURL)
	return fmt.Errorf("fal: request %s cancelled: %w", id, ctx.Err())
}

// tellCancel sends PUT cancel_url (fal docs, "Cancel a request": a queued
// request is removed, a running one told to stop), whatever ctx says, for
// at most 10 s; its answer changes nothing.
func (e *Engine) tellCancel(ctx context.Context, cancelURL string) {
	cctx, stop := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer stop()
	req, err := http.NewRequestWithContext(cctx, http.MethodPut, cancelURL, nil)
	if err == nil {
		req.Header.Set("Authorization", "Key "+e.key)
		if res, err := e.client.Do(req); err == nil {
			io.Copy(io.Discard, io.LimitReader(res.Body, 4096))
			res.Body.Close()
		}
	}
}

// httpError is a non-2xx answer from fal.
type httpError struct {
	status     int
	detail     string
	retryAfter time.Duration // what its Retry-After asked, 0 when nothing
}

func (h *httpError) Error() string { return fmt.Sprintf("fal answered %d: %s", h.status, h.detail) }

// transient reports whether a poll may be retried: a network error, 429 or 5xx.
func transient(err error) bool {
	var he *httpError
	if errors.As(err, &he) {
		return he.status == http.StatusTooManyRequests || he.status >= 500
	}
	return true
}

// call sends one authorised JSON request and decodes a 2xx answer into out.
// Its errors are provider faults (wrapping an *httpError for non-2xx).
func (e *Engine) call(ctx context.Context, tool, method, u string, body []byte, out any) error {
	return e.send(ctx, tool, method, u, body, nil, out)
}

// send is call with further headers.
func (e *Engine) send(ctx context.Context, tool, method, u string, body []byte, header http.Header, out any) error {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return engine.ProviderError(tool, "The fal request could not be made.", err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("Authorization", "Key "+e.key)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := e.client.Do(req)
	if err != nil {
		return Upstream.Unsent(tool, e.client.Timeout, err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(io.LimitReader(res.Body, maxJSONBytes))
	if err != nil {
		return engine.ProviderError(tool, "fal's answer could not be read.", err)
	}
	if res.StatusCode < 200 || res.StatusCode > 299 {
		he := &httpError{status: res.StatusCode, detail: detailOf(data), retryAfter: engine.RetryAfter(res.Header, time.Now())}
		switch {
		case res.StatusCode < 500 && slices.Contains(detailTypes(data), "content_policy_violation"):
			return refusal(tool, he)
		case res.StatusCode == http.StatusForbidden && strings.Contains(strings.ToLower(he.detail), "balance"):
			// "User is locked. Reason: Exhausted balance. Top up your
			// balance at fal.ai/dashboard/billing."
			return Upstream.OutOfCredit(tool, he)
		}
		return Upstream.Answered(tool, res.StatusCode, he)
	}
	if err := json.Unmarshal(data, out); err != nil {
		return engine.ProviderError(tool, "fal's answer is not the expected JSON.", err)
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
	if u, err := url.Parse(given); err == nil && given != "" && e.sameOrigin(u) {
		return u.String()
	}
	parts := strings.Split(strings.Trim(model, "/"), "/")
	elems := slices.Concat(parts[:min(2, len(parts))], []string{"requests", id})
	if suffix != "" {
		elems = append(elems, suffix)
	}
	return e.base.JoinPath(elems...).String()
}

func (e *Engine) sameOrigin(u *url.URL) bool {
	return strings.EqualFold(u.Scheme, e.base.Scheme) && strings.EqualFold(u.Host, e.base.Host)
}

// fetchResult downloads the output file and makes the engine's result of it.
func (e *Engine) fetchResult(ctx context.Context, r engine.Request, f file) (engine.Result, error) {
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
			w, h = mp4Size(data)
		}
		return engine.Result{Data: data, Mime: cmpOr(f.ContentType, cmpOr(mime, "video/mp4")), Width: w, Height: h}, nil
	}
	img, err := picture.Decode(data)
	if err != nil {
		return engine.Result{}, Upstream.BadResult(r.Tool, "it is not an image we can read", err)
	}
	res, err := engine.Finish(img, r.Tier, finishShape(r), r.Tool == "remove-background")
	if err != nil {
		return engine.Result{}, engine.ProviderError(r.Tool, "fal's result could not be finished.", err)
	}
	return res, nil
}

// download fetches a result file: a data URI, or an http(s) URL. The key is
// sent only to the base URL's origin, never to a CDN.
func (e *Engine) download(ctx context.Context, tool, raw string, limit int64) ([]byte, string, error) {
	if rest, ok := strings.CutPrefix(raw, "data:"); ok {
		meta, payload, ok := strings.Cut(rest, ",")
		if !ok || !strings.HasSuffix(meta, ";base64") {
			return nil, "", engine.ProviderError(tool, "fal's result is a data URI that is not base64.", nil)
		}
		data, err := base64.StdEncoding.DecodeString(payload)
		if err != nil {
			return nil, "", engine.ProviderError(tool, "fal's result data URI does not decode.", err)
		}
		return data, strings.TrimSuffix(meta, ";base64"), nil
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, "", engine.ProviderError(tool, "fal's result URL is not an http(s) URL.", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, "", engine.ProviderError(tool, "fal's result could not be requested.", err)
	}
	if e.sameOrigin(u) {
		req.Header.Set("Authorization", "Key "+e.key)
	}
	res, err := e.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, "", fmt.Errorf("fal: download stopped: %w", ctx.Err())
		}
		return nil, "", engine.ProviderError(tool, "fal's result could not be downloaded.", err)
	}
	defer res.Body.Close()
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return nil, "", engine.ProviderError(tool, fmt.Sprintf("fal's result download answered %d.", res.StatusCode), nil)
	}
	data, err := io.ReadAll(io.LimitReader(res.Body, limit+1))
	if err != nil {
		return nil, "", engine.ProviderError(tool, "fal's result could not be downloaded.", err)
	}
	if int64(len(data)) > limit {
		return nil, "", engine.ProviderError(tool, "fal's result is larger than we accept.", nil)
	}
	return data, res.Header.Get("Content-Type"), nil
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

// Upstream is fal in the words of a failed develop.
func (e *Engine) Upstream() engine.Upstream { return Upstream }
