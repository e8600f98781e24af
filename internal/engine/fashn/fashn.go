package fashn

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"strings"
	"time"

	"studio/internal/engine"
	"studio/internal/engine/hosted"
	"studio/internal/picture"
	"studio/internal/tool"
)

// DefaultBaseURL is FASHN's API, without /v1 (DECISIONS §11).
const DefaultBaseURL = "https://api.fashn.ai"

// Caps on a result read from FASHN: a larger one is a provider fault.
const (
	maxImageBytes = 64 << 20
	maxVideoBytes = 512 << 20
)

// Upstream is FASHN in the words of a failed develop.
var Upstream = engine.Upstream{Name: "FASHN", Setting: "FASHN_API_KEY"}

// Engine is the FASHN engine. It is safe for concurrent use.
type Engine struct{ hosted.Engine }

// New returns the FASHN engine for an API key. baseURL is FASHN_URL,
// DefaultBaseURL when empty; tests point it at a local server.
func New(key, baseURL string, opts ...hosted.Option) (*Engine, error) {
	c, err := hosted.New("fashn", Upstream, key, baseURL, DefaultBaseURL, 500*time.Millisecond)
	if err != nil {
		return nil, err
	}
	c.Auth, c.Fault = "Bearer "+key, fault
	return &Engine{hosted.NewEngine(tool.Fashn, c, DefaultModels, opts...)}, nil
}

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
	if p.video {
		return e.fetchVideo(ctx, r.Tool, out)
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
	var got struct {
		ID    string `json:"id"`
		Error string `json:"error"`
	}
	busy := func(he *hosted.HTTPError) bool { return he.Name != "OutOfCredits" }
	if err := e.Client.Submit(ctx, tool, e.Client.Base.JoinPath("v1", "run").String(), body, nil, busy, &got); err != nil {
		return "", err
	}
	if got.ID == "" {
		return "", Upstream.Failed(tool, "it took the request without an id", errors.New(got.Error))
	}
	return got.ID, nil
}

// await polls a prediction's status until it ends or ctx does. A poll
// that fails by network, 429 or 5xx is tried again, three in a row at most.
func (e *Engine) await(ctx context.Context, tool, id string) (status, error) {
	return hosted.Poll(ctx, e.Client, tool, e.Client.Base.JoinPath("v1", "status", id).String(), func(st status) (bool, error) {
		switch st.Status {
		case "starting", "in_queue", "processing":
			return false, nil
		case "completed":
			return true, nil
		case "failed":
			return true, failure(tool, st.Error)
		case "canceled":
			return true, Upstream.Failed(tool, "it cancelled the prediction", nil)
		case "time_out":
			return true, Upstream.Failed(tool, "it timed the prediction out", nil)
		}
		return true, Upstream.Failed(tool, "it reported the prediction as "+strings.ToLower(st.Status), fmt.Errorf("status %q", st.Status))
	})
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

// fault reads FASHN's error body ({error, message}) into he; an
// OutOfCredits answer is out of credit, whatever its status.
func fault(tool string, he *hosted.HTTPError, body []byte) error {
	var eb struct {
		Error   string `json:"error"`
		Message string `json:"message"`
	}
	_ = json.Unmarshal(body, &eb)
	he.Name, he.Detail = eb.Error, eb.Message
	if he.Name == "OutOfCredits" {
		return Upstream.OutOfCredit(tool, he)
	}
	return nil
}

// fetchVideo downloads a video output as FASHN sent it (an MP4), its size
// read from its track header.
func (e *Engine) fetchVideo(ctx context.Context, tool, raw string) (engine.Result, error) {
	data, mime, err := e.Client.Download(ctx, tool, raw, maxVideoBytes)
	if err != nil {
		return engine.Result{}, err
	}
	w, h := hosted.MP4Size(data)
	if !strings.HasPrefix(mime, "video/") {
		mime = "video/mp4"
	}
	return engine.Result{Data: data, Mime: mime, Width: w, Height: h}, nil
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
	data, _, err := e.Client.Download(ctx, tool, raw, maxImageBytes)
	return data, err
}
