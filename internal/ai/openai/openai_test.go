package openai_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"strings"
	"testing"

	"studio/internal/ai"
	"studio/internal/ai/aitest"
	"studio/internal/ai/openai"
	"studio/internal/errs"
)

// itemSchema is a strict schema of the kind the lanes use.
var itemSchema = json.RawMessage(`{
	"type": "object",
	"properties": {
		"name": {"type": "string", "maxLength": 40},
		"kind": {"type": "string", "enum": ["clothes", "accessory", "jewelry"]},
		"fit":  {"type": ["string", "null"], "enum": ["fitted", "loose", null]}
	},
	"required": ["name", "kind", "fit"],
	"additionalProperties": false
}`)

type item struct {
	Name string  `json:"name"`
	Kind string  `json:"kind"`
	Fit  *string `json:"fit"`
}

func pngBytes(t *testing.T, c color.Color) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 4, 4))
	for i := range img.Pix {
		img.Pix[i] = 0xFF
	}
	img.Set(0, 0, c)
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func itemRequest(t *testing.T) ai.Request {
	return ai.Request{System: "You file garments.", User: "What is this?", Images: [][]byte{pngBytes(t, color.Black)}, Schema: itemSchema, SchemaName: "item"}
}

func TestJSON(t *testing.T) {
	srv := aitest.New(t)
	srv.RequireKey("sk-test")
	srv.Answer(aitest.Answer{Content: `{"name":"Slip dress","kind":"clothes","fit":"loose"}`, Model: "gpt-4o-mini-2024-07-18",
		Usage: aitest.Usage{PromptTokens: 120, CompletionTokens: 12, Cost: 0.00021}})
	c := openai.New(srv.Config())
	var got item
	u, err := c.JSON(context.Background(), itemRequest(t), &got)
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "Slip dress" || got.Kind != "clothes" || got.Fit == nil || *got.Fit != "loose" {
		t.Errorf("decoded %+v", got)
	}
	if u.Model != "gpt-4o-mini-2024-07-18" || u.PromptTokens != 120 || u.CompletionTokens != 12 || u.TotalTokens != 132 ||
		u.CostUSD != 0.00021 || u.Attempts != 1 || u.Latency <= 0 {
		t.Errorf("usage %+v", u)
	}
	reqs := srv.Chats()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := reqs[0]
	if r.Model != openai.DefaultModel || len(r.Messages) != 2 || r.Messages[0].Role != "system" || r.Messages[0].Text() != "You file garments." {
		t.Errorf("request %s", r.Raw)
	}
	if urls := r.Messages[1].ImageURLs(); len(urls) != 1 || !strings.HasPrefix(urls[0], "data:image/png;base64,") || r.Messages[1].Text() != "What is this?" {
		t.Errorf("user message %s", r.Messages[1].Content)
	}
	if imgs := r.Messages[1].Images(); len(imgs) != 1 || !bytes.Equal(imgs[0], pngBytes(t, color.Black)) {
		t.Error("the image did not arrive intact")
	}
	bad := itemRequest(t)
	bad.Images = [][]byte{[]byte("not an image")}
	if _, err := c.JSON(context.Background(), bad, &got); err == nil || errors.Is(err, ai.ErrFailed) || len(srv.Chats()) != 1 {
		t.Errorf("non-image bytes: %v, %d requests", err, len(srv.Chats()))
	}
	rf := r.ResponseFormat
	if rf == nil || rf.Type != "json_schema" || rf.JSONSchema.Name != "item" || !rf.JSONSchema.Strict || rf.JSONSchema.Schema["additionalProperties"] != false {
		t.Errorf("response_format %+v", rf)
	}
}

func TestJSONAsksAgainOnceThenBadOutput(t *testing.T) {
	srv := aitest.New(t)
	c := openai.New(srv.Config())
	ctx := context.Background()

	// Outside the schema, then right: one answer, two attempts, the reason sent back.
	srv.Answer(aitest.Answer{Content: `{"name":"Ring","kind":"shoe","fit":null}`}, aitest.Answer{Content: "```json\n{\"name\":\"Ring\",\"kind\":\"jewelry\",\"fit\":null}\n```"})
	var got item
	u, err := c.JSON(ctx, itemRequest(t), &got)
	if err != nil || got.Kind != "jewelry" || u.Attempts != 2 || u.TotalTokens != 30 {
		t.Fatalf("got %+v %+v %v", got, u, err)
	}
	second := srv.Chats()[1]
	if n := len(second.Messages); n != 4 || second.Messages[2].Role != "assistant" || !strings.Contains(second.Messages[3].Text(), "schema") {
		t.Errorf("the second request does not say why: %s", second.Raw)
	}

	for _, tt := range []struct {
		name   string
		first  aitest.Answer
		second aitest.Answer
	}{
		{"outside the schema twice", aitest.Answer{Content: `{"name":"x"}`}, aitest.Answer{Content: `{"name":"x","kind":"clothes","fit":"baggy"}`}},
		{"not JSON twice", aitest.Answer{Content: "I think it is a dress."}, aitest.Answer{Content: "{"}},
		{"refusals", aitest.Answer{Refusal: "I can't help with that."}, aitest.Answer{Refusal: "No."}},
		{"cut off twice", aitest.Answer{Content: `{"name":"Sl`, FinishReason: "length"}, aitest.Answer{Content: `{"name":"Sl`, FinishReason: "length"}},
		{"no choices of use", aitest.Answer{Content: ""}, aitest.Answer{Content: "[]"}},
	} {
		srv.Answer(tt.first, tt.second)
		u, err := c.JSON(ctx, itemRequest(t), &got)
		if !errors.Is(err, ai.ErrBadOutput) || u.Attempts != 2 {
			t.Errorf("%s: %v after %d attempts", tt.name, err, u.Attempts)
		}
		if e, ok := errs.As(err); !ok || e.Kind != errs.KindUpstream || e.Err == nil {
			t.Errorf("%s: %#v", tt.name, err)
		}
	}
	if srv.Pending() != 0 {
		t.Errorf("%d answers not taken", srv.Pending())
	}
}

func TestErrorsMapToDeclaredCodes(t *testing.T) {
	ctx := context.Background()
	var out item
	unset := openai.New(openai.Config{})
	if _, err := unset.JSON(ctx, itemRequest(t), &out); !errors.Is(err, ai.ErrNotConfigured) {
		t.Errorf("JSON unset: %v", err)
	}
	if _, _, err := unset.Chat(ctx, []ai.Message{{Role: ai.RoleUser, Text: "hi"}}, nil); !errors.Is(err, ai.ErrNotConfigured) {
		t.Errorf("Chat unset: %v", err)
	}

	for _, tt := range []struct {
		name     string
		answer   *aitest.Error
		retries  int
		want     *errs.Error
		requests int
	}{
		{"402", &aitest.Error{Status: 402, Type: "payment_required", Message: "Add credits."}, 1, ai.ErrNeedsBilling, 1},
		{"429 insufficient_quota, not retried", aitest.OutOfCredit(), 1, ai.ErrNeedsBilling, 1},
		{"429 credit_balance_exhausted", &aitest.Error{Status: 429, Type: "insufficient_quota", Code: "credit_balance_exhausted", Message: "No credit."}, 1, ai.ErrNeedsBilling, 1},
		{"403 billing_not_active", &aitest.Error{Status: 403, Type: "invalid_request_error", Code: "billing_not_active", Message: "Your account is not active."}, -1, ai.ErrNeedsBilling, 1},
		{"400 billing_hard_limit_reached", &aitest.Error{Status: 400, Type: "invalid_request_error", Code: "billing_hard_limit_reached", Message: "Billing hard limit has been reached."}, -1, ai.ErrNeedsBilling, 1},
		{"429 rate limit, retried", &aitest.Error{Status: 429, Type: "requests", Code: "rate_limit_exceeded", Message: "Slow down.", RetryAfterMs: 1}, 1, ai.ErrFailed, 2},
		{"500", &aitest.Error{Status: 500, Type: "server_error", Message: "Boom."}, -1, ai.ErrFailed, 1},
		{"404 model", &aitest.Error{Status: 404, Type: "invalid_request_error", Code: "model_not_found", Message: "The model does not exist."}, -1, ai.ErrFailed, 1},
	} {
		srv := aitest.New(t)
		cfg := srv.Config()
		cfg.Retries = tt.retries
		for range tt.requests {
			srv.Answer(aitest.Answer{Err: tt.answer})
		}
		_, err := openai.New(cfg).JSON(ctx, itemRequest(t), &out)
		if !errors.Is(err, tt.want) {
			t.Errorf("%s: got %v; want %s", tt.name, err, tt.want.Code)
		}
		if n := len(srv.Chats()); n != tt.requests {
			t.Errorf("%s: %d requests; want %d", tt.name, n, tt.requests)
		}
		if e, _ := errs.As(err); e == nil || e.Err == nil || !strings.Contains(e.Err.Error(), tt.answer.Message) {
			t.Errorf("%s: the provider's words are not in the cause: %v", tt.name, err)
		}
	}

	// A transient 500 is retried by the SDK and then answered.
	srv := aitest.New(t)
	cfg := srv.Config()
	cfg.Retries = 1
	srv.Answer(aitest.Answer{Err: &aitest.Error{Status: 503, Type: "server_error", Message: "Overloaded.", RetryAfterMs: 1}}, aitest.Answer{Content: `{"name":"Tee","kind":"clothes","fit":null}`})
	if _, err := openai.New(cfg).JSON(ctx, itemRequest(t), &out); err != nil {
		t.Errorf("after a transient 503: %v", err)
	}

	// A wrong key and an endpoint that is not there are failures.
	srv.RequireKey("right")
	cfg = srv.Config()
	cfg.APIKey = "wrong"
	if _, err := openai.New(cfg).JSON(ctx, itemRequest(t), &out); !errors.Is(err, ai.ErrFailed) {
		t.Errorf("wrong key: %v", err)
	}
	if _, err := openai.New(openai.Config{BaseURL: "http://127.0.0.1:1/v1", Retries: -1}).JSON(ctx, itemRequest(t), &out); !errors.Is(err, ai.ErrFailed) {
		t.Errorf("no endpoint: %v", err)
	}
}

// TestStrictSchemaMistakesShowInTests: the stand-in refuses, as OpenAI
// does, a strict schema that leaves a property optional.
func TestStrictSchemaMistakesShowInTests(t *testing.T) {
	srv := aitest.New(t)
	req := itemRequest(t)
	req.Schema = json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"},"kind":{"type":"string"}},"required":["name"],"additionalProperties":false}`)
	var out item
	_, err := openai.New(srv.Config()).JSON(context.Background(), req, &out)
	if e, _ := errs.As(err); !errors.Is(err, ai.ErrFailed) || e == nil || !strings.Contains(e.Err.Error(), "Missing 'kind'") {
		t.Errorf("got %v", err)
	}
}

// TestNoEnvironment: OPENAI_* variables reach nothing; without a key no
// Authorization header is sent (Ollama needs none).
func TestNoEnvironment(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-from-the-environment")
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
	t.Setenv("OPENAI_ORG_ID", "org-env")
	srv := aitest.New(t)
	srv.Answer(aitest.Answer{Content: `{"name":"Tee","kind":"clothes","fit":null}`})
	var out item
	if _, err := openai.New(srv.Config()).JSON(context.Background(), itemRequest(t), &out); err != nil {
		t.Fatal(err)
	}
	h := srv.Chats()[0].Header
	if h.Get("Authorization") != "" || h.Get("OpenAI-Organization") != "" {
		t.Errorf("headers from the environment: %v", h)
	}
}

func TestChatToolCalls(t *testing.T) {
	srv := aitest.New(t)
	c := openai.New(srv.Config())
	tools := []ai.Tool{{
		Name: "set_background", Description: "Choose the look's background.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"preset":{"type":"string","enum":["studio-white","beach"]}},"required":["preset"],"additionalProperties":false}`),
	}}
	history := []ai.Message{
		{Role: ai.RoleSystem, Text: "You direct a shoot."},
		{Role: ai.RoleUser, Text: "Put her on a beach.", Images: [][]byte{pngBytes(t, color.White)}},
	}
	srv.Answer(
		// An unknown tool, then arguments outside the schema, then right.
		aitest.Answer{ToolCalls: []aitest.ToolCall{{Name: "delete_everything", Arguments: `{}`}}},
		aitest.Answer{ToolCalls: []aitest.ToolCall{{ID: "call_1", Name: "set_background", Arguments: `{"preset":"beach"}`}}, Content: "On it."},
	)
	reply, u, err := c.Chat(context.Background(), history, tools)
	if err != nil {
		t.Fatal(err)
	}
	if len(reply.ToolCalls) != 1 || reply.ToolCalls[0].ID != "call_1" || reply.ToolCalls[0].Name != "set_background" || reply.Text != "On it." || u.Attempts != 2 {
		t.Fatalf("reply %+v usage %+v", reply, u)
	}
	var args struct{ Preset string }
	if err := reply.ToolCalls[0].Decode(&args); err != nil || args.Preset != "beach" {
		t.Errorf("arguments %s: %v", reply.ToolCalls[0].Arguments, err)
	}
	first := srv.Chats()[0]
	if len(first.Tools) != 1 || first.Tools[0].Type != "function" || !first.Tools[0].Function.Strict || first.Tools[0].Function.Name != "set_background" ||
		first.Tools[0].Function.Description == "" || len(first.Messages[1].Images()) != 1 {
		t.Errorf("request %s", first.Raw)
	}

	// The conversation goes on with the call and its result.
	history = append(history,
		ai.Message{Role: ai.RoleAssistant, Text: reply.Text, ToolCalls: reply.ToolCalls},
		ai.Message{Role: ai.RoleTool, ToolCallID: "call_1", Text: `{"applied":true}`})
	srv.Answer(aitest.Answer{Content: "Done: a beach."})
	reply, _, err = c.Chat(context.Background(), history, tools)
	if err != nil || reply.Text != "Done: a beach." || len(reply.ToolCalls) != 0 {
		t.Fatalf("reply %+v %v", reply, err)
	}
	last := srv.Chats()[2]
	if m := last.Messages[2]; m.Role != "assistant" || len(m.ToolCalls) != 1 || m.ToolCalls[0].Function.Arguments != `{"preset":"beach"}` {
		t.Errorf("assistant turn %+v", m)
	}
	if m := last.Messages[3]; m.Role != "tool" || m.ToolCallID != "call_1" {
		t.Errorf("tool turn %+v", m)
	}

	srv.Answer(aitest.Answer{ToolCalls: []aitest.ToolCall{{Name: "set_background", Arguments: `{"preset":"moon"}`}}}, aitest.Answer{Content: ""})
	if _, _, err := c.Chat(context.Background(), history, tools); !errors.Is(err, ai.ErrBadOutput) {
		t.Errorf("bad calls twice: %v", err)
	}
	if _, _, err := c.Chat(context.Background(), []ai.Message{{Role: "narrator", Text: "x"}}, nil); err == nil || errors.Is(err, ai.ErrFailed) {
		t.Errorf("unknown role: %v", err)
	}
}

func TestAitestRefusesWhatOpenAIRefuses(t *testing.T) {
	srv := aitest.New(t)
	for _, tt := range []struct{ name, body string }{
		{"no model", `{"messages":[{"role":"user","content":"hi"}]}`},
		{"no messages", `{"model":"m","messages":[]}`},
		{"file image url", `{"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"file:///etc/passwd"}}]}]}`},
		{"tool without id", `{"model":"m","messages":[{"role":"tool","content":"x"}]}`},
		{"strict root array", `{"model":"m","messages":[{"role":"user","content":"hi"}],"response_format":{"type":"json_schema","json_schema":{"name":"a","strict":true,"schema":{"type":"array"}}}}`},
		{"strict open object", `{"model":"m","messages":[{"role":"user","content":"hi"}],"response_format":{"type":"json_schema","json_schema":{"name":"a","strict":true,"schema":{"type":"object","properties":{}}}}}`},
		{"bad schema name", `{"model":"m","messages":[{"role":"user","content":"hi"}],"response_format":{"type":"json_schema","json_schema":{"name":"a b","schema":{"type":"object"}}}}`},
		{"stream", `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`},
	} {
		res, err := http.Post(srv.URL+"/chat/completions", "application/json", strings.NewReader(tt.body))
		if err != nil {
			t.Fatal(err)
		}
		var body struct {
			Error struct{ Type, Message string }
		}
		_ = json.NewDecoder(res.Body).Decode(&body)
		_ = res.Body.Close()
		if res.StatusCode != 400 || body.Error.Type != "invalid_request_error" || body.Error.Message == "" {
			t.Errorf("%s: %d %+v", tt.name, res.StatusCode, body)
		}
	}
	if len(srv.Chats()) != 0 {
		t.Error("refused requests were captured")
	}
}
