// Package aitest is a local stand-in for an OpenAI-compatible endpoint,
// for tests: it speaks the real protocol (POST /v1/chat/completions with
// response_format json_schema and function tools; POST /v1/images/edits
// as multipart with image or image[] parts), answers from a queue each
// test scripts, captures every request, and answers errors in OpenAI's
// error shape {"error": {"message", "type", "param", "code"}}.
//
// It refuses what the real endpoint refuses, so a caller's mistake shows
// in its own tests: a strict json_schema (or strict function) whose
// objects do not list every property in required or allow additional
// properties, a root schema that is not an object, image parts that are
// not data or https URLs, tool messages without tool_call_id, streaming.
// An empty queue answers 500, so a test never passes on an answer it did
// not script.
package aitest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"studio/internal/ai/openai"
)

// Server is the stand-in endpoint.
type Server struct {
	// URL is the base URL a client is configured with: <server>/v1.
	URL string

	srv *httptest.Server

	mu      sync.Mutex
	key     string
	answers []Answer
	images  []ImageAnswer
	chats   []ChatRequest
	edits   []EditRequest
	seq     int
}

// New starts a server, closed when the test ends.
func New(t testing.TB) *Server {
	t.Helper()
	s := &Server{}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.chatCompletions)
	mux.HandleFunc("POST /v1/images/edits", s.imageEdits)
	mux.HandleFunc("POST /v1/images/generations", s.imageGenerations)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, Error{Status: http.StatusNotFound, Type: "invalid_request_error", Message: "Unknown request URL: " + r.Method + " " + r.URL.Path + "."})
	})
	s.srv = httptest.NewServer(mux)
	s.URL = s.srv.URL + "/v1"
	t.Cleanup(s.srv.Close)
	return s
}

// RequireKey makes the server answer 401 invalid_api_key to any request
// without "Authorization: Bearer key".
func (s *Server) RequireKey(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.key = key
}

// Config is an openai.Config pointing the client here, with the SDK's
// retries off so a scripted error is answered once.
func (s *Server) Config() openai.Config {
	s.mu.Lock()
	defer s.mu.Unlock()
	return openai.Config{BaseURL: s.URL, APIKey: s.key, Retries: -1, Timeout: 30 * time.Second}
}

// Answer is the reply to one chat completion request.
type Answer struct {
	Content      string     // the assistant's text (a JSON document for a JSON answer)
	ToolCalls    []ToolCall // function calls
	Refusal      string
	FinishReason string // default "stop", or "tool_calls" when ToolCalls are set
	Model        string // default: the model the request named
	Usage        Usage  // default 10 prompt and 5 completion tokens
	Err          *Error // answer this error instead
}

// ToolCall is a function call in an answer.
type ToolCall struct {
	ID        string // default call_<n>
	Name      string
	Arguments string // JSON text
}

// Usage is the token count an answer reports; Cost, when set, goes out as
// usage.cost (as gateways such as OpenRouter state it).
type Usage struct {
	PromptTokens, CompletionTokens int64
	Cost                           float64
}

// Error is an error answer in OpenAI's shape.
type Error struct {
	Status              int
	Type, Code, Message string
	RetryAfterMs        int // sent as retry-after-ms when set, as OpenAI does on 429s
}

// JSON is an answer whose content is v encoded.
func JSON(v any) Answer {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return Answer{Content: string(b)}
}

// Fail is an error answer.
func Fail(status int, typ, code, message string) Answer {
	return Answer{Err: &Error{Status: status, Type: typ, Code: code, Message: message}}
}

// OutOfCredit is OpenAI's answer when the account has no credit left.
func OutOfCredit() *Error {
	return &Error{Status: http.StatusTooManyRequests, Type: "insufficient_quota", Code: "insufficient_quota",
		Message: "You exceeded your current quota, please check your plan and billing details."}
}

// Answer queues chat completion answers, taken in order.
func (s *Server) Answer(a ...Answer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.answers = append(s.answers, a...)
}

// ImageAnswer is the reply to one image edit request.
type ImageAnswer struct {
	Image []byte // sent as data[0].b64_json
	Usage Usage  // input and output tokens; default 100 and 200
	Err   *Error
}

// AnswerImage queues image edit answers, taken in order.
func (s *Server) AnswerImage(a ...ImageAnswer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.images = append(s.images, a...)
}

// Pending is how many scripted answers were not taken.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.answers) + len(s.images)
}

// ChatRequest is a captured chat completion request.
type ChatRequest struct {
	Header              http.Header     `json:"-"`
	Raw                 json.RawMessage `json:"-"`
	Model               string          `json:"model"`
	Messages            []ChatMessage   `json:"messages"`
	ResponseFormat      *ResponseFormat `json:"response_format"`
	Tools               []ChatTool      `json:"tools"`
	MaxCompletionTokens int64           `json:"max_completion_tokens"`
	Stream              bool            `json:"stream"`
	N                   int             `json:"n"`
}

// ChatMessage is one message of a request.
type ChatMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCalls  []WireToolCall  `json:"tool_calls"`
	ToolCallID string          `json:"tool_call_id"`
}

// WireToolCall is a tool call as the protocol carries it.
type WireToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type contentPart struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	ImageURL *struct {
		URL    string `json:"url"`
		Detail string `json:"detail"`
	} `json:"image_url"`
}

func (m ChatMessage) parts() ([]contentPart, bool) {
	if len(m.Content) == 0 || string(m.Content) == "null" {
		return nil, true
	}
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return []contentPart{{Type: "text", Text: s}}, true
	}
	var parts []contentPart
	if json.Unmarshal(m.Content, &parts) != nil {
		return nil, false
	}
	return parts, true
}

// Text is the message's text (its text parts joined).
func (m ChatMessage) Text() string {
	parts, _ := m.parts()
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// ImageURLs are the message's image parts.
func (m ChatMessage) ImageURLs() []string {
	parts, _ := m.parts()
	var out []string
	for _, p := range parts {
		if p.Type == "image_url" && p.ImageURL != nil {
			out = append(out, p.ImageURL.URL)
		}
	}
	return out
}

// Images decodes the message's data-URL images.
func (m ChatMessage) Images() [][]byte {
	var out [][]byte
	for _, u := range m.ImageURLs() {
		if _, b64, ok := strings.Cut(u, ";base64,"); ok {
			if b, err := base64.StdEncoding.DecodeString(b64); err == nil {
				out = append(out, b)
			}
		}
	}
	return out
}

// ResponseFormat is a request's response_format.
type ResponseFormat struct {
	Type       string `json:"type"`
	JSONSchema *struct {
		Name   string         `json:"name"`
		Strict bool           `json:"strict"`
		Schema map[string]any `json:"schema"`
	} `json:"json_schema"`
}

// ChatTool is a function tool of a request.
type ChatTool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string         `json:"name"`
		Description string         `json:"description"`
		Strict      bool           `json:"strict"`
		Parameters  map[string]any `json:"parameters"`
	} `json:"function"`
}

// Chats returns the captured chat requests, oldest first.
func (s *Server) Chats() []ChatRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]ChatRequest(nil), s.chats...)
}

// EditRequest is a captured image edit request.
type EditRequest struct {
	Header     http.Header
	Prompt     string
	Model      string
	Size       string
	N          string   // the n field as sent ("" when absent)
	Images     [][]byte // in the order sent; none for a generation
	ImageField string   // "image" or "image[]"; "" for a generation
	Path       string   // /v1/images/edits or /v1/images/generations
}

// Edits returns the captured image edit requests, oldest first.
func (s *Server) Edits() []EditRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]EditRequest(nil), s.edits...)
}

func writeError(w http.ResponseWriter, e Error) {
	body := map[string]any{"error": map[string]any{"message": e.Message, "type": e.Type, "param": nil, "code": nilIfEmpty(e.Code)}}
	w.Header().Set("Content-Type", "application/json")
	if e.RetryAfterMs > 0 {
		w.Header().Set("retry-after-ms", strconv.Itoa(e.RetryAfterMs))
	}
	w.WriteHeader(e.Status)
	_ = json.NewEncoder(w).Encode(body)
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func invalid(w http.ResponseWriter, format string, args ...any) {
	writeError(w, Error{Status: http.StatusBadRequest, Type: "invalid_request_error", Message: fmt.Sprintf(format, args...)})
}

// authorized answers 401 and reports false when a key is required and
// not sent.
func (s *Server) authorized(w http.ResponseWriter, r *http.Request) bool {
	s.mu.Lock()
	key := s.key
	s.mu.Unlock()
	if key != "" && r.Header.Get("Authorization") != "Bearer "+key {
		writeError(w, Error{Status: http.StatusUnauthorized, Type: "invalid_request_error", Code: "invalid_api_key", Message: "Incorrect API key provided."})
		return false
	}
	return true
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
