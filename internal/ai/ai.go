// Package ai is what the studio's domains say to an AI endpoint and hear
// back, without the client that carries it: a question with a JSON answer
// (Request), a conversation with function tools (Message, Tool, ToolCall,
// Reply), what a call cost (Usage, summed on a Meter that rides the
// context), what operators keep of it (Call, CallLog), and the declared
// answers of a failed call (the errors below).
//
// Each domain declares the few methods it calls as a small interface of
// its own (brand.Endpoint, lane.Endpoint, asset.Endpoint, chat.Endpoint,
// judge.Endpoint, digest.Writer); package ai/openai, the client of the
// OpenAI-compatible endpoints (OpenAI, Ollama, vLLM, gateways),
// implements them, and internal/app hands it to them. No domain imports
// the client (cmd/studio's TestDomainsNameTheirAI holds the rule), so a
// domain's tests, and any other endpoint, need only those methods.
//
// Errors are the declared codes: AI_NOT_CONFIGURED (503) when the endpoint
// is unset; AI_NEEDS_BILLING (402) when the provider says it is out of
// credit (HTTP 402, or an insufficient_quota / billing code at any status,
// as OpenAI documents for 429 and 403); AI_BAD_OUTPUT (502) when an answer
// is outside its schema twice; AI_FAILED (502) for everything else. Chat
// maps AI_NEEDS_BILLING to its own AI_GATEWAY_NEEDS_BILLING (503).
package ai

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"studio/internal/errs"
)

// The endpoint's answers, as clients see them.
var (
	ErrNotConfigured = errs.New(errs.KindUnavailable, "AI_NOT_CONFIGURED", "No AI endpoint is configured.")
	ErrNeedsBilling  = errs.New(errs.KindPayment, "AI_NEEDS_BILLING", "The AI provider's account is out of credit.")
	ErrBadOutput     = errs.New(errs.KindUpstream, "AI_BAD_OUTPUT", "The AI endpoint's answer did not have the expected shape.")
	ErrFailed        = errs.New(errs.KindUpstream, "AI_FAILED", "The AI endpoint failed.")
)

// Request is one question with a JSON answer.
type Request struct {
	System    string
	User      string
	Images    [][]byte // JPEG, PNG, WebP or GIF bytes, sent as data URLs
	ImageURLs []string // data: or https: URLs the provider fetches itself
	// Schema is the JSON Schema of the answer: json.RawMessage, a
	// map[string]any or a *jsonschema.Schema. Strict mode asks for the
	// subset OpenAI documents: every object lists all its properties in
	// required and sets additionalProperties false; optional values are
	// typed ["string", "null"].
	Schema     any
	SchemaName string // a-z, A-Z, 0-9, _ and -, at most 64; default "answer"
	MaxTokens  int64  // 0: the provider's default
}

// Roles of a conversation's messages.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Message is one turn of a conversation.
type Message struct {
	Role       string
	Text       string
	Images     [][]byte   // user turns only, sent as data URLs
	ToolCalls  []ToolCall // assistant turns that called tools
	ToolCallID string     // tool turns: the call this answers
}

// Tool is a function the model may call. Parameters is the JSON Schema of
// its arguments in the strict subset (see Request.Schema).
type Tool struct {
	Name        string
	Description string
	Parameters  any
}

// ToolCall is a call the model made; Arguments passed the tool's schema.
type ToolCall struct {
	ID        string
	Name      string
	Arguments json.RawMessage
}

// Decode unmarshals the arguments into out.
func (tc ToolCall) Decode(out any) error { return json.Unmarshal(tc.Arguments, out) }

// Reply is the model's turn: text, tool calls, or both.
type Reply struct {
	Text      string
	ToolCalls []ToolCall
}

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

// Add sums v into u: tokens, cost, latency and attempts; the model is v's
// when v names one.
func (u *Usage) Add(v Usage) {
	if v.Model != "" {
		u.Model = v.Model
	}
	u.PromptTokens += v.PromptTokens
	u.CompletionTokens += v.CompletionTokens
	u.TotalTokens += v.TotalTokens
	u.CostUSD += v.CostUSD
	u.Latency += v.Latency
	u.Attempts += v.Attempts
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

// Tally adds one call's usage to the meter ctx carries, if any; a call
// that asked nothing (no attempt) adds nothing. A client calls it once a
// call.
func Tally(ctx context.Context, u Usage) {
	m, ok := ctx.Value(meterKey{}).(*Meter)
	if !ok || u.Attempts == 0 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.u.Add(u)
}
