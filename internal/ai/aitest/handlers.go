package aitest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

var namePattern = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

func (s *Server) chatCompletions(w http.ResponseWriter, r *http.Request) {
	if !s.authorized(w, r) {
		return
	}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		invalid(w, "Content-Type must be application/json.")
		return
	}
	raw, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		invalid(w, "could not read the body")
		return
	}
	var req ChatRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		invalid(w, "We could not parse the JSON body of your request: %v", err)
		return
	}
	req.Header, req.Raw = r.Header.Clone(), raw
	if msg := validateChat(req); msg != "" {
		invalid(w, "%s", msg)
		return
	}
	s.mu.Lock()
	s.chats = append(s.chats, req)
	var a Answer
	scripted := len(s.answers) > 0
	if scripted {
		a, s.answers = s.answers[0], s.answers[1:]
	}
	s.seq++
	seq := s.seq
	s.mu.Unlock()
	if !scripted {
		writeError(w, Error{Status: http.StatusInternalServerError, Type: "server_error", Message: "aitest: no answer scripted for this request"})
		return
	}
	if a.Err != nil {
		writeError(w, *a.Err)
		return
	}
	writeJSON(w, completion(req, a, seq))
}

func completion(req ChatRequest, a Answer, seq int) map[string]any {
	model := a.Model
	if model == "" {
		model = req.Model
	}
	msg := map[string]any{"role": "assistant", "content": nilIfEmpty(a.Content), "refusal": nilIfEmpty(a.Refusal)}
	finish := a.FinishReason
	if len(a.ToolCalls) > 0 {
		var calls []map[string]any
		for i, tc := range a.ToolCalls {
			id := tc.ID
			if id == "" {
				id = fmt.Sprintf("call_%d_%d", seq, i)
			}
			calls = append(calls, map[string]any{"id": id, "type": "function", "function": map[string]any{"name": tc.Name, "arguments": tc.Arguments}})
		}
		msg["tool_calls"] = calls
		if finish == "" {
			finish = "tool_calls"
		}
	}
	if finish == "" {
		finish = "stop"
	}
	u := a.Usage
	if u.PromptTokens == 0 && u.CompletionTokens == 0 {
		u.PromptTokens, u.CompletionTokens = 10, 5
	}
	usage := map[string]any{"prompt_tokens": u.PromptTokens, "completion_tokens": u.CompletionTokens, "total_tokens": u.PromptTokens + u.CompletionTokens}
	if u.Cost > 0 {
		usage["cost"] = u.Cost
	}
	return map[string]any{
		"id": fmt.Sprintf("chatcmpl-aitest-%d", seq), "object": "chat.completion", "created": time.Now().Unix(), "model": model,
		"choices": []map[string]any{{"index": 0, "message": msg, "finish_reason": finish, "logprobs": nil}},
		"usage":   usage,
	}
}

// validateChat returns what the real endpoint would refuse in req, or "".
func validateChat(req ChatRequest) string {
	switch {
	case req.Model == "":
		return "you must provide a model parameter"
	case len(req.Messages) == 0:
		return "'messages' must contain at least one message"
	case req.Stream:
		return "aitest does not stream"
	case req.N > 1:
		return "aitest answers one choice"
	}
	for i, m := range req.Messages {
		parts, ok := m.parts()
		if !ok {
			return fmt.Sprintf("messages[%d].content is neither a string nor an array of parts", i)
		}
		switch m.Role {
		case "system", "developer":
		case "user":
			for j, p := range parts {
				switch p.Type {
				case "text":
				case "image_url":
					if p.ImageURL == nil || !(strings.HasPrefix(p.ImageURL.URL, "https://") ||
						strings.HasPrefix(p.ImageURL.URL, "data:image/") && strings.Contains(p.ImageURL.URL, ";base64,")) {
						return fmt.Sprintf("messages[%d].content[%d].image_url.url must be an https or base64 data URL", i, j)
					}
				default:
					return fmt.Sprintf("messages[%d].content[%d].type %q is not supported", i, j, p.Type)
				}
			}
		case "assistant":
			for j, tc := range m.ToolCalls {
				if tc.ID == "" || tc.Type != "function" || tc.Function.Name == "" {
					return fmt.Sprintf("messages[%d].tool_calls[%d] needs an id, type function and a function name", i, j)
				}
			}
		case "tool":
			if m.ToolCallID == "" {
				return fmt.Sprintf("messages[%d].tool_call_id is required for a tool message", i)
			}
		default:
			return fmt.Sprintf("messages[%d].role %q is not one of system, developer, user, assistant, tool", i, m.Role)
		}
	}
	if rf := req.ResponseFormat; rf != nil {
		switch rf.Type {
		case "text", "json_object":
		case "json_schema":
			if rf.JSONSchema == nil || !namePattern.MatchString(rf.JSONSchema.Name) || rf.JSONSchema.Schema == nil {
				return "response_format.json_schema needs a name (a-z, A-Z, 0-9, _ and -, at most 64) and a schema"
			}
			if rf.JSONSchema.Strict {
				if t, _ := rf.JSONSchema.Schema["type"].(string); t != "object" {
					return "Invalid schema for response_format '" + rf.JSONSchema.Name + "': schema must be a JSON Schema of 'type: \"object\"'"
				}
				if msg := strictProblem(rf.JSONSchema.Schema, "#"); msg != "" {
					return "Invalid schema for response_format '" + rf.JSONSchema.Name + "': " + msg
				}
			}
		default:
			return fmt.Sprintf("response_format.type %q is not supported", rf.Type)
		}
	}
	for i, t := range req.Tools {
		if t.Type != "function" || !namePattern.MatchString(t.Function.Name) {
			return fmt.Sprintf("tools[%d] must be a function with a name of a-z, A-Z, 0-9, _ and -", i)
		}
		if t.Function.Strict && t.Function.Parameters != nil {
			if msg := strictProblem(t.Function.Parameters, "#"); msg != "" {
				return fmt.Sprintf("Invalid schema for function '%s': %s", t.Function.Name, msg)
			}
		}
	}
	return ""
}

// strictProblem checks the strict-mode subset OpenAI documents: every
// object sets additionalProperties false and lists every property in
// required.
func strictProblem(s map[string]any, path string) string {
	_, hasProps := s["properties"]
	if hasType(s, "object") || hasProps {
		if ap, ok := s["additionalProperties"].(bool); !ok || ap {
			return "In context=" + path + ", 'additionalProperties' is required to be supplied and to be false."
		}
		props, _ := s["properties"].(map[string]any)
		req := map[string]bool{}
		if list, ok := s["required"].([]any); ok {
			for _, r := range list {
				if name, ok := r.(string); ok {
					req[name] = true
				}
			}
		}
		names := make([]string, 0, len(props))
		for name := range props {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			if !req[name] {
				return "In context=" + path + ", 'required' is required to be supplied and to be an array including every key in properties. Missing '" + name + "'."
			}
			if sub, ok := props[name].(map[string]any); ok {
				if msg := strictProblem(sub, path+"/properties/"+name); msg != "" {
					return msg
				}
			}
		}
	}
	if items, ok := s["items"].(map[string]any); ok {
		if msg := strictProblem(items, path+"/items"); msg != "" {
			return msg
		}
	}
	for _, key := range []string{"anyOf", "allOf"} {
		list, _ := s[key].([]any)
		for i, sub := range list {
			if m, ok := sub.(map[string]any); ok {
				if msg := strictProblem(m, path+"/"+key+"/"+strconv.Itoa(i)); msg != "" {
					return msg
				}
			}
		}
	}
	for _, key := range []string{"$defs", "definitions"} {
		defs, _ := s[key].(map[string]any)
		for name, sub := range defs {
			if m, ok := sub.(map[string]any); ok {
				if msg := strictProblem(m, path+"/"+key+"/"+name); msg != "" {
					return msg
				}
			}
		}
	}
	return ""
}

func hasType(s map[string]any, want string) bool {
	switch t := s["type"].(type) {
	case string:
		return t == want
	case []any:
		return slices.Contains(t, any(want))
	}
	return false
}

func (s *Server) imageEdits(w http.ResponseWriter, r *http.Request) {
	if !s.authorized(w, r) {
		return
	}
	if err := r.ParseMultipartForm(64 << 20); err != nil {
		invalid(w, "the body must be multipart/form-data: %v", err)
		return
	}
	req := EditRequest{Header: r.Header.Clone(), Prompt: r.FormValue("prompt"), Model: r.FormValue("model"), Size: r.FormValue("size"),
		N: r.FormValue("n"), Path: r.URL.Path}
	if req.Prompt == "" {
		invalid(w, "Missing required parameter: 'prompt'.")
		return
	}
	for _, field := range []string{"image", "image[]"} {
		for _, fh := range r.MultipartForm.File[field] {
			f, err := fh.Open()
			if err != nil {
				invalid(w, "could not read %s", field)
				return
			}
			b, _ := io.ReadAll(f)
			_ = f.Close()
			if ct := http.DetectContentType(b); ct != "image/png" && ct != "image/jpeg" && ct != "image/webp" {
				invalid(w, "Invalid file '%s': unsupported mimetype ('%s'). Supported file formats are 'image/jpeg', 'image/png', and 'image/webp'.", field, ct)
				return
			}
			req.Images = append(req.Images, b)
			req.ImageField = field
		}
	}
	switch {
	case len(req.Images) == 0:
		invalid(w, "Missing required parameter: 'image'.")
		return
	case len(req.Images) > 16:
		invalid(w, "At most 16 images may be provided.")
		return
	}
	s.answerImage(w, req)
}

// imageGenerations answers POST /v1/images/generations (JSON: prompt,
// model, size, n) from the same scripted image answers as edits.
func (s *Server) imageGenerations(w http.ResponseWriter, r *http.Request) {
	if !s.authorized(w, r) {
		return
	}
	var body struct {
		Prompt, Model, Size string
		N                   *int
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		invalid(w, "We could not parse the JSON body of your request.")
		return
	}
	req := EditRequest{Header: r.Header.Clone(), Prompt: body.Prompt, Model: body.Model, Size: body.Size, Path: r.URL.Path}
	if body.N != nil {
		req.N = strconv.Itoa(*body.N)
	}
	if req.Prompt == "" {
		invalid(w, "Missing required parameter: 'prompt'.")
		return
	}
	s.answerImage(w, req)
}

func (s *Server) answerImage(w http.ResponseWriter, req EditRequest) {
	if req.Size != "" && !slices.Contains([]string{"auto", "1024x1024", "1536x1024", "1024x1536", "256x256", "512x512"}, req.Size) {
		invalid(w, "Invalid value: '%s'. Supported values are: '1024x1024', '1024x1536', '1536x1024', and 'auto'.", req.Size)
		return
	}
	if req.N != "" && req.N != "1" {
		if n, err := strconv.Atoi(req.N); err != nil || n < 1 || n > 10 {
			invalid(w, "Invalid 'n': integer between 1 and 10 expected.")
			return
		}
	}
	s.mu.Lock()
	s.edits = append(s.edits, req)
	var a ImageAnswer
	scripted := len(s.images) > 0
	if scripted {
		a, s.images = s.images[0], s.images[1:]
	}
	s.mu.Unlock()
	if !scripted {
		writeError(w, Error{Status: http.StatusInternalServerError, Type: "server_error", Message: "aitest: no image answer scripted for this request"})
		return
	}
	if a.Err != nil {
		writeError(w, *a.Err)
		return
	}
	u := a.Usage
	if u.PromptTokens == 0 && u.CompletionTokens == 0 {
		u.PromptTokens, u.CompletionTokens = 100, 200
	}
	writeJSON(w, map[string]any{
		"created": time.Now().Unix(),
		"data":    []map[string]any{{"b64_json": base64.StdEncoding.EncodeToString(a.Image)}},
		"usage": map[string]any{
			"input_tokens": u.PromptTokens, "output_tokens": u.CompletionTokens, "total_tokens": u.PromptTokens + u.CompletionTokens,
			"input_tokens_details": map[string]any{"image_tokens": u.PromptTokens, "text_tokens": 0},
		},
	})
}
