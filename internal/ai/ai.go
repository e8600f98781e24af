// Package ai is the client of the OpenAI-compatible endpoints (OpenAI,
// Ollama, vLLM, gateways) that the judge, brand DNA, the AI lanes, chat,
// upload classification and image edits use, built on
// github.com/openai/openai-go/v3 with option.WithBaseURL.
//
// Two calls: JSON asks chat completions for an answer in a strict
// json_schema response format and validates it against the schema (an
// answer outside it is asked again once, then AI_BAD_OUTPUT); Chat sends a
// conversation with function tools and returns the tool calls typed, their
// arguments validated the same way. Every call reports its Usage (model,
// tokens, the cost when the provider states one, latency, attempts).
//
// Image edits are not here: the imageapi engine speaks the image
// endpoint's protocol itself (internal/engine/imageapi).
//
// Errors are the declared codes: AI_NOT_CONFIGURED (503) when the endpoint
// is unset; AI_NEEDS_BILLING (402) when the provider says it is out of
// credit (HTTP 402, or an insufficient_quota / billing code at any status,
// as OpenAI documents for 429 and 403); AI_BAD_OUTPUT (502); AI_FAILED
// (502) for everything else. Chat maps AI_NEEDS_BILLING to its own
// AI_GATEWAY_NEEDS_BILLING (503).
//
// The client never reads OPENAI_* environment variables: the service is
// configured by AI_BASE_URL, AI_API_KEY and AI_MODEL alone (DECISIONS §9,
// §10).
package ai

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"studio/internal/errs"
)

// The endpoint's answers, as clients see them.
var (
	ErrNotConfigured = errs.New(errs.KindUnavailable, "AI_NOT_CONFIGURED", "No AI endpoint is configured.")
	ErrNeedsBilling  = errs.New(errs.KindPayment, "AI_NEEDS_BILLING", "The AI provider's account is out of credit.")
	ErrBadOutput     = errs.New(errs.KindUpstream, "AI_BAD_OUTPUT", "The AI endpoint's answer did not have the expected shape.")
	ErrFailed        = errs.New(errs.KindUpstream, "AI_FAILED", "The AI endpoint failed.")
)

// DefaultModel is asked for when the configuration names none.
const DefaultModel = "gpt-4o-mini"

// DefaultTimeout bounds one call, its retries included.
const DefaultTimeout = 120 * time.Second

// Config names the chat endpoint, which serves JSON and Chat.
type Config struct {
	BaseURL, APIKey, Model string // e.g. https://api.openai.com/v1, http://localhost:11434/v1

	HTTPClient *http.Client  // default: a client without its own timeout
	Timeout    time.Duration // per call; default DefaultTimeout
	// Retries is how often the SDK repeats a request after a connection
	// error, 408, 409, 429 or 5xx (never after a billing answer): 0 means
	// the default, 1; a negative number means none.
	Retries int
}

// Client calls the endpoint. The zero value is not usable; New always
// returns a client, whose calls answer AI_NOT_CONFIGURED while the
// endpoint is unset.
type Client struct {
	cfg  Config
	chat openai.ChatCompletionService
	now  func() time.Time
}

// New returns a client for cfg.
func New(cfg Config) *Client {
	if cfg.Model == "" {
		cfg.Model = DefaultModel
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	retries := cfg.Retries
	switch {
	case retries == 0:
		retries = 1
	case retries < 0:
		retries = 0
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	common := []option.RequestOption{
		option.WithHTTPClient(hc),
		option.WithMaxRetries(retries),
		option.WithMiddleware(noRetryOnBilling),
	}
	c := &Client{cfg: cfg, now: time.Now}
	// The service built directly, not through openai.NewClient, which
	// would read OPENAI_* from the environment.
	c.chat = openai.NewChatCompletionService(append(common, option.WithBaseURL(cfg.BaseURL), option.WithAPIKey(cfg.APIKey))...)
	return c
}

// Configured reports whether the chat endpoint (JSON, Chat) is set.
func (c *Client) Configured() bool { return c != nil && c.cfg.BaseURL != "" }

// Model is the chat model asked for.
func (c *Client) Model() string { return c.cfg.Model }

// Usage is what one call cost. The judge stores it for operators.
type Usage struct {
	Model            string        // the model that answered, as the provider names it
	PromptTokens     int64         // summed over attempts
	CompletionTokens int64         // summed over attempts
	TotalTokens      int64         // summed over attempts
	CostUSD          float64       // when the provider states it (usage.cost, as OpenRouter and LiteLLM do); else 0
	Latency          time.Duration // the whole call, retries included
	Attempts         int           // requests answered (a bad answer is asked again once)
}

func (u *Usage) add(model string, prompt, completion, total int64, cost float64) {
	if model != "" {
		u.Model = model
	}
	u.PromptTokens += prompt
	u.CompletionTokens += completion
	u.TotalTokens += total
	u.CostUSD += cost
	u.Attempts++
}

// Meter gathers the usage of every JSON call made with a context that
// carries it (WithMeter), whoever makes the call: a lane meters its call
// even when the question is asked by a reader it shares (describe-item's
// classifier), and records the sum for operators.
type Meter struct {
	mu sync.Mutex
	u  Usage
}

type meterKey struct{}

// WithMeter returns ctx carrying m.
func WithMeter(ctx context.Context, m *Meter) context.Context {
	return context.WithValue(ctx, meterKey{}, m)
}

// Usage is the sum of the calls metered so far.
func (m *Meter) Usage() Usage {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.u
}

// metered adds one call's usage to the meter ctx carries, if any.
func metered(ctx context.Context, u Usage) {
	m, ok := ctx.Value(meterKey{}).(*Meter)
	if !ok || u.Attempts == 0 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.u.add(u.Model, u.PromptTokens, u.CompletionTokens, u.TotalTokens, u.CostUSD)
	m.u.Attempts += u.Attempts - 1
	m.u.Latency += u.Latency
}

// billingCodes are the error codes and types that mean the provider's
// account is out of credit or over a spending limit (OpenAI's error codes
// guide; gateways reuse them).
var billingCodes = map[string]bool{
	"insufficient_quota":                true,
	"billing_hard_limit_reached":        true,
	"billing_not_active":                true,
	"credit_balance_exhausted":          true,
	"organization_spend_limit_exceeded": true,
	"project_spend_limit_exceeded":      true,
	"organization_usage_limit_exceeded": true,
	"insufficient_credits":              true,
	"payment_required":                  true,
}

func isBilling(status int, code, typ string) bool {
	return status == http.StatusPaymentRequired || billingCodes[code] || billingCodes[typ]
}

// failure maps an SDK error to the declared codes, keeping the provider's
// words in the cause for the log.
func failure(err error) error {
	if e, ok := errors.AsType[*openai.Error](err); ok {
		cause := fmt.Errorf("ai: endpoint answered %d %s/%s: %s", e.StatusCode, e.Type, e.Code, e.Message)
		if isBilling(e.StatusCode, e.Code, e.Type) {
			return errs.Wrap(ErrNeedsBilling, cause)
		}
		return errs.Wrap(ErrFailed, cause)
	}
	return errs.Wrap(ErrFailed, err)
}

// noRetryOnBilling marks a billing answer (a 429 or 403 that says
// insufficient_quota) as not worth repeating, so the SDK gives up at once.
func noRetryOnBilling(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	res, err := next(req)
	if err != nil || res == nil || res.StatusCode < 400 || res.StatusCode >= 500 {
		return res, err
	}
	orig := res.Body
	body, rerr := io.ReadAll(io.LimitReader(orig, 64<<10))
	res.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(body), orig), orig} // the SDK still reads all of it
	if rerr == nil && res.StatusCode != http.StatusPaymentRequired {
		for code := range billingCodes {
			if strings.Contains(string(body), `"`+code+`"`) {
				res.Header.Set("x-should-retry", "false")
				break
			}
		}
	}
	return res, err
}

// withTimeout bounds a call.
func (c *Client) withTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, c.cfg.Timeout)
}
