package fashn

import (
	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"studio/internal/engine"
	"studio/internal/picture"
	"studio/internal/tool"
)

// DefaultBaseURL is FASHN's API, without /v1 (DECISIONS §11).
const DefaultBaseURL = "https://api.fashn.ai"

// Caps on what is read from FASHN: a larger answer is a provider fault.
const (
	maxImageBytes = 64 << 20
	maxJSONBytes  = 8 << 20
)

// Upstream is FASHN in the words of a failed develop.
var Upstream = engine.Upstream{Name: "FASHN", Setting: "FASHN_API_KEY"}

// Engine is the FASHN engine. It is safe for concurrent use.
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

// WithModels replaces entries of the tool -> model name table (DefaultModels).
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

// New returns the FASHN engine for an API key. baseURL is FASHN_URL,
// DefaultBaseURL when empty; tests point it at a local server.
func New(key, baseURL string, opts ...Option) (*Engine, error) {
	if baseURL == "" {
		baseURL = DefaultBaseURL
	}
	u, err := url.Parse(strings.TrimRight(baseURL, "/"))
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("fashn: base URL %q is not an http(s) URL", baseURL)
	}
	if strings.TrimSpace(key) == "" {
		return nil, errors.New("fashn: the API key is empty")
	}
	e := &Engine{
		key:     key,
		base:    u,
		client:  &http.Client{Timeout: 60 * time.Second},
		models:  maps.Clone(DefaultModels),
		pollMin: 500 * time.Millisecond,
		pollMax: 3 * time.Second,
		backoff: engine.DefaultBackoff,
	}
	for _, o := range opts {
		o(e)
	}
	return e, nil
}

// Name is "fashn".
func (e *Engine) Name() string { return tool.Fashn }

// Tools lists the tools the registry says FASHN serves that have a model
// in the table, sorted.
func (e *Engine) Tools() []string {
	return slices.DeleteFunc(tool.ServedBy(tool.Fashn), func(name string) bool { return e.models[name] == "" })
}

// Can reports whether FASHN serves the tool and it has a model in the table.
func (e *Engine) Can(name string) bool {
	return tool.Serves(tool.Fashn, name) && e.models[name] != ""
}

// Upstream is FASHN in the words of a failed develop.
func (e *Engine) Upstream() engine.Upstream { return Upstream }

// Run sends r to FASHN and blocks until the result is downloaded or ctx ends.
func (e *Engine) Run(ctx context.Context, r engine.Request) (engine.Result, error) {
	if !e.Can(r.Tool) {
		return engine.Result{}, fmt.Errorf("%w: fashn has no model for %q", engine.ErrUnsupported, r.Tool)
	}
	if err := engine.Validate(r); err != nil {
		return engine.Result{}, err
	}
	uris := map[string][]string{}
	for _, in := range r.Inputs {
		mime, _, _, err := engine.ProbeInput(r.Tool, in.Role, in.Data)
		if err != nil {
			return engine.Result{}, err
		}
		uris[in.Role] = append(uris[in.Role], dataURI(mime, in.Data))
	}
	p, err := e.plan(r, uris)
	if err != nil {
		return engine.Result{}, err
	}
	r.Tell(p.sent)
	var out string
	for i, c := range p.calls {
		if i > 0 {
			// A further piece goes onto the last result.
			c.inputs[c.onto] = out
		}
		if out, err = e.do(ctx, r.Tool, c); err != nil {
			return engine.Result{}, err
		}
	}
	img, err := e.fetchImage(ctx, r.Tool, out)
	if err != nil {
		return engine.Result{}, err
	}
	var res engine.Result
	if p.width > 0 {
		res, err = engine.FinishSized(img, p.width, p.height)
	} else {
		res, err = engine.Finish(img, r.Tier, cmp.Or(p.shape, r.Shape), r.Tool == "remove-background")
	}
	if err != nil {
		return engine.Result{}, engine.ProviderError(r.Tool, "FASHN's result could not be finished.", err)
	}
	return res, nil
}

func dataURI(mime string, data []byte) string {
	return "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(data)
}

// status is a status answer (GET /v1/status/{id}).
type status struct {
	ID     string          `json:"id"`
	Status string          `json:"status"`
	Output json.RawMessage `json:"output"`
	Error  *runError       `json:"error"`
}

// runError is a failed prediction's error.
type runError struct {
	Name    string `json:"name"`
	Message string `json:"message"`
}

// do runs one prediction to its end and returns its first output.
func (e *Engine) do(ctx context.Context, tool string, c call) (string, error) {
	body, err := json.Marshal(map[string]any{"model_name": c.model, "inputs": c.inputs})
	if err != nil {
		return "", engine.ProviderError(tool, "The request for FASHN could not be encoded.", err)
	}
	id, err := e.submit(ctx, tool, body)
	if err != nil {
		return "", err
	}
	st, err := e.await(ctx, tool, id)
	if err != nil {
		if ctx.Err() != nil {
			// FASHN has no cancel: the prediction is left to end on its own.
			return "", fmt.Errorf("fashn: prediction %s abandoned: %w", id, ctx.Err())
		}
		return "", err
	}
	var outs []string
	if json.Unmarshal(st.Output, &outs) != nil || len(outs) == 0 || outs[0] == "" {
		return "", Upstream.BadResult(tool, "its output has no image", nil)
	}
	return outs[0], nil
}

// submit posts one prediction and returns its id. A 429 other than
// OutOfCredits, or a 5xx, got no id (nothing runs, nothing is billed) and
// is sent again with the engine's backoff while the deadline allows.
func (e *Engine) submit(ctx context.Context, tool string, body []byte) (string, error) {
	for tries := 1; ; tries++ {
		var got struct {
			ID    string `json:"id"`
			Error string `json:"error"`
		}
		err := e.send(ctx, tool, http.MethodPost, e.base.JoinPath("v1", "run").String(), body, &got)
		if ctx.Err() != nil {
			return "", fmt.Errorf("fashn: submit stopped: %w", ctx.Err())
		}
		he, busy := errors.AsType[*httpError](err)
		busy = busy && engine.Retryable(he.status) && he.name != "OutOfCredits"
		switch {
		case err == nil && got.ID == "":
			return "", Upstream.Failed(tool, "it took the request without an id", errors.New(got.Error))
		case err == nil:
			return got.ID, nil
		case !busy:
			return "", err
		case !e.backoff.Again(ctx, tries, he.retryAfter):
			if ctx.Err() != nil {
				return "", fmt.Errorf("fashn: submit stopped: %w", ctx.Err())
			}
			return "", Upstream.Busy(tool, he.status, tries, he)
		}
	}
}

// await polls a prediction's status until it ends or ctx does. A poll
// that fails by network, 429 or 5xx is tried again, three in a row at most.
func (e *Engine) await(ctx context.Context, tool, id string) (status, error) {
	u := e.base.JoinPath("v1", "status", id).String()
	wait := e.pollMin
	failures := 0
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return status{}, ctx.Err()
		case <-timer.C:
		}
		var st status
		err := e.send(ctx, tool, http.MethodGet, u, nil, &st)
		switch {
		case ctx.Err() != nil:
			return status{}, ctx.Err()
		case err != nil && transient(err) && failures < 3:
			failures++
		case err != nil:
			return status{}, err
		default:
			failures = 0
			switch st.Status {
			case "starting", "in_queue", "processing":
			case "completed":
				return st, nil
			case "failed":
				return status{}, failure(tool, st.Error)
			case "canceled":
				return status{}, Upstream.Failed(tool, "it cancelled the prediction", nil)
			case "time_out":
				return status{}, Upstream.Failed(tool, "it timed the prediction out", nil)
			default:
				return status{}, Upstream.Failed(tool, "it reported the prediction as "+strings.ToLower(st.Status), fmt.Errorf("status %q", st.Status))
			}
		}
		wait = min(e.pollMax, wait*3/2)
		timer.Reset(wait)
	}
}

// failure maps a failed prediction's error (FASHN's runtime error names)
// to the develop's failure. What the same request would meet again is an
// input fault, so a redraw is not offered for it.
func failure(tool string, re *runError) error {
	if re == nil {
		re = &runError{Name: "InternalServerError"}
	}
	cause := fmt.Errorf("%s: %s", re.Name, re.Message)
	input := func(why string) error {
		err := Upstream.Failed(tool, why, cause)
		err.Fault = engine.FaultInput
		return err
	}
	switch re.Name {
	case "ContentModerationError":
		return Upstream.Refused(tool, cause)
	case "ImageLoadError":
		return input("it could not load one of the pictures")
	case "PoseError":
		return input("it could not find the body's pose in the picture")
	case "InputValidationError":
		return input("it refused the request's settings")
	case "ThirdPartyError", "3rdPartyProviderError":
		return Upstream.Failed(tool, "a service it relies on refused or failed", cause)
	}
	// PipelineError, InternalServerError and any name not documented.
	return Upstream.Failed(tool, "its model failed", cause)
}

// httpError is a non-2xx answer from FASHN ({error, message}).
type httpError struct {
	status     int
	name       string
	message    string
	retryAfter time.Duration
}

func (h *httpError) Error() string {
	return fmt.Sprintf("FASHN answered %d %s: %s", h.status, h.name, h.message)
}

// transient reports whether a status poll may be tried again: a network
// error, 429 or 5xx.
func transient(err error) bool {
	if he, ok := errors.AsType[*httpError](err); ok {
		return engine.Retryable(he.status)
	}
	return !engine.IsInput(err)
}

// send makes one authorised JSON request and decodes a 2xx answer into
// out. Its errors are provider faults (wrapping an *httpError for non-2xx).
func (e *Engine) send(ctx context.Context, tool, method, u string, body []byte, out any) error {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return engine.ProviderError(tool, "The FASHN request could not be made.", err)
	}
	req.Header.Set("Authorization", "Bearer "+e.key)
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
		return engine.ProviderError(tool, "FASHN's answer could not be read.", err)
	}
	if res.StatusCode < 200 || res.StatusCode > 299 {
		var eb struct {
			Error   string `json:"error"`
			Message string `json:"message"`
		}
		_ = json.Unmarshal(data, &eb)
		he := &httpError{status: res.StatusCode, name: eb.Error, message: eb.Message, retryAfter: engine.RetryAfter(res.Header, time.Now())}
		if he.name == "OutOfCredits" {
			return Upstream.OutOfCredit(tool, he)
		}
		return Upstream.Answered(tool, res.StatusCode, he)
	}
	if err := json.Unmarshal(data, out); err != nil {
		return engine.ProviderError(tool, "FASHN's answer is not the expected JSON.", err)
	}
	return nil
}

// fetchImage downloads and decodes an output: a data URI, or an http(s)
// URL (the key goes only to FASHN_URL's origin, never to its CDN).
func (e *Engine) fetchImage(ctx context.Context, tool, raw string) (*image.NRGBA, error) {
	data, err := e.download(ctx, tool, raw)
	if err != nil {
		return nil, err
	}
	img, err := picture.Decode(data)
	if err != nil {
		return nil, Upstream.BadResult(tool, "it is not an image we can read", err)
	}
	return img, nil
}

func (e *Engine) download(ctx context.Context, tool, raw string) ([]byte, error) {
	if rest, ok := strings.CutPrefix(raw, "data:"); ok {
		meta, payload, ok := strings.Cut(rest, ",")
		if !ok || !strings.HasSuffix(meta, ";base64") {
			return nil, Upstream.BadResult(tool, "its output is a data URI that is not base64", nil)
		}
		data, err := base64.StdEncoding.DecodeString(payload)
		if err != nil {
			return nil, Upstream.BadResult(tool, "its output's data URI does not decode", err)
		}
		return data, nil
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, Upstream.BadResult(tool, "its output is not an http(s) URL", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, engine.ProviderError(tool, "FASHN's result could not be requested.", err)
	}
	if strings.EqualFold(u.Scheme, e.base.Scheme) && strings.EqualFold(u.Host, e.base.Host) {
		req.Header.Set("Authorization", "Bearer "+e.key)
	}
	res, err := e.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("fashn: download stopped: %w", ctx.Err())
		}
		return nil, Upstream.Unsent(tool, e.client.Timeout, err)
	}
	defer res.Body.Close()
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return nil, engine.ProviderError(tool, fmt.Sprintf("FASHN's result download answered %d.", res.StatusCode), nil)
	}
	data, err := io.ReadAll(io.LimitReader(res.Body, maxImageBytes+1))
	if err != nil {
		return nil, engine.ProviderError(tool, "FASHN's result could not be downloaded.", err)
	}
	if len(data) > maxImageBytes {
		return nil, engine.ProviderError(tool, "FASHN's result is larger than we accept.", nil)
	}
	return data, nil
}
