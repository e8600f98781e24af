// Package openai is the client of the OpenAI-compatible endpoints (OpenAI,
// Ollama, vLLM, gateways) that the judge, brand DNA, the AI lanes, chat
// and upload classification ask, built on github.com/openai/openai-go/v3
// with option.WithBaseURL. It implements the small interfaces the domains
// declare (package ai lists them); only internal/app builds it.
//
// Two calls: JSON asks chat completions for an answer in a strict
// json_schema response format and validates it against the schema (an
// answer outside it is asked again once, then AI_BAD_OUTPUT); Chat sends a
// conversation with function tools and returns the tool calls typed, their
// arguments validated the same way. Every call reports its ai.Usage
// (model, tokens, the cost when the provider states one, latency,
// attempts) and tallies it on the meter its context carries. Its errors
// are package ai's declared codes.
//
// Image edits are not here: the imageapi engine speaks the image
// endpoint's protocol itself (internal/engine/imageapi).
//
// The client never reads OPENAI_* environment variables: the service is
// configured by AI_BASE_URL, AI_API_KEY and AI_MODEL alone (DECISIONS §9,
// §10).
package openai

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"studio/internal/ai"
	"studio/internal/errs"
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
	chat sdk.ChatCompletionService
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
	c.chat = sdk.NewChatCompletionService(append(common, option.WithBaseURL(cfg.BaseURL), option.WithAPIKey(cfg.APIKey))...)
	return c
}

// Configured reports whether the chat endpoint (JSON, Chat) is set.
func (c *Client) Configured() bool { return c != nil && c.cfg.BaseURL != "" }

// Model is the chat model asked for.
func (c *Client) Model() string { return c.cfg.Model }

// answered adds one answered request to u.
func answered(u *ai.Usage, model string, prompt, completion, total int64, cost float64) {
	u.Add(ai.Usage{Model: model, PromptTokens: prompt, CompletionTokens: completion, TotalTokens: total, CostUSD: cost, Attempts: 1})
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
	if e, ok := errors.AsType[*sdk.Error](err); ok {
		cause := fmt.Errorf("ai: endpoint answered %d %s/%s: %s", e.StatusCode, e.Type, e.Code, e.Message)
		if isBilling(e.StatusCode, e.Code, e.Type) {
			return errs.Wrap(ai.ErrNeedsBilling, cause)
		}
		return errs.Wrap(ai.ErrFailed, cause)
	}
	return errs.Wrap(ai.ErrFailed, err)
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
