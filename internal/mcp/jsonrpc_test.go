package mcp

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestDecode(t *testing.T) {
	tests := []struct {
		name   string
		body   string
		kind   Kind
		code   int    // the error's code; 0 for none
		id     string // the message's id as JSON; "" for none
		method string
		params string
	}{
		{"request", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, KindRequest, 0, "1", "ping", ""},
		{"string id and params", ` {"jsonrpc":"2.0","id":"a-1","method":"tools/call","params":{"name":"x"}} `, KindRequest, 0, `"a-1"`, "tools/call", `{"name":"x"}`},
		{"null params are absent", `{"jsonrpc":"2.0","id":-3,"method":"ping","params":null}`, KindRequest, 0, "-3", "ping", ""},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, KindNotification, 0, "", "notifications/initialized", ""},
		{"reply", `{"jsonrpc":"2.0","id":4,"result":{}}`, KindReply, 0, "4", "", ""},
		{"error reply", `{"jsonrpc":"2.0","id":"x","error":{"code":1,"message":"no"}}`, KindReply, 0, `"x"`, "", ""},
		{"not JSON", `{"jsonrpc":`, 0, CodeParseError, "", "", ""},
		{"empty", ``, 0, CodeParseError, "", "", ""},
		{"two values", `{} {}`, 0, CodeParseError, "", "", ""},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, 0, CodeInvalidRequest, "", "", ""},
		{"a string", `"ping"`, 0, CodeInvalidRequest, "", "", ""},
		{"no version", `{"id":1,"method":"ping"}`, 0, CodeInvalidRequest, "1", "", ""},
		{"old version", `{"jsonrpc":"1.0","id":1,"method":"ping"}`, 0, CodeInvalidRequest, "1", "", ""},
		{"numeric version", `{"jsonrpc":2.0,"id":1,"method":"ping"}`, 0, CodeInvalidRequest, "1", "", ""},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, 0, CodeInvalidRequest, "", "", ""},
		{"fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, 0, CodeInvalidRequest, "", "", ""},
		{"boolean id", `{"jsonrpc":"2.0","id":true,"method":"ping"}`, 0, CodeInvalidRequest, "", "", ""},
		{"no method", `{"jsonrpc":"2.0","id":1}`, 0, CodeInvalidRequest, "1", "", ""},
		{"empty method", `{"jsonrpc":"2.0","id":1,"method":""}`, 0, CodeInvalidRequest, "1", "", ""},
		{"method not a string", `{"jsonrpc":"2.0","id":1,"method":7}`, 0, CodeInvalidRequest, "1", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Decode([]byte(tt.body))
			code := 0
			if err != nil {
				code = err.Code
			}
			if code != tt.code || m.Kind != tt.kind || string(m.ID) != tt.id || m.Method != tt.method || string(m.Params) != tt.params {
				t.Errorf("Decode(%s) = %+v (id %s, params %s), %v; want kind %d, code %d, id %s, method %q, params %s",
					tt.body, m, m.ID, m.Params, err, tt.kind, tt.code, tt.id, tt.method, tt.params)
			}
		})
	}
}

func TestResponseEncoding(t *testing.T) {
	for _, tt := range []struct {
		r    Response
		want string
	}{
		{Success(ID(`7`), struct{}{}), `{"jsonrpc":"2.0","id":7,"result":{}}`},
		{Failure(nil, rpcError(CodeParseError, "bad")), `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"bad"}}`},
		{Failure(ID(`"a"`), rpcError(CodeMethodNotFound, "no")), `{"jsonrpc":"2.0","id":"a","error":{"code":-32601,"message":"no"}}`},
	} {
		got, err := json.Marshal(tt.r)
		if err != nil || string(got) != tt.want {
			t.Errorf("got %s, %v; want %s", got, err, tt.want)
		}
	}
}

// FuzzDecode: any body decodes to one message or one of the two envelope
// errors without panicking; a message is well formed and survives being
// encoded again; every answer made from it is valid JSON whose id is a
// string, an integer or null.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`,
		`{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"get_develop","arguments":{"jobId":"j"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"result":{}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":1e3,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"\u00e9\ud83d\ude00","method":"p\u0000"}`,
		`{"JSONRPC":"2.0","ID":1,"METHOD":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping","params":5}`,
		`{`, ``, `null`, `0`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		m, err := Decode(body)
		if !json.Valid(bytes.TrimSpace(body)) {
			if err == nil || err.Code != CodeParseError {
				t.Fatalf("Decode(%q) = %+v, %v; want a parse error", body, m, err)
			}
		}
		if err != nil {
			if err.Code != CodeParseError && err.Code != CodeInvalidRequest {
				t.Fatalf("Decode(%q): error code %d", body, err.Code)
			}
			if m.Kind != 0 || m.Method != "" {
				t.Fatalf("Decode(%q) failed with a message %+v", body, m)
			}
			checkAnswer(t, Failure(m.ID, err))
			return
		}
		switch m.Kind {
		case KindRequest:
			if m.Method == "" || len(m.ID) == 0 {
				t.Fatalf("request without method or id: %+v", m)
			}
		case KindNotification:
			if m.Method == "" || len(m.ID) != 0 {
				t.Fatalf("notification with an id or no method: %+v", m)
			}
			return
		case KindReply:
			if m.Method != "" || len(m.ID) == 0 {
				t.Fatalf("reply with a method or without an id: %+v", m)
			}
			checkAnswer(t, Success(m.ID, struct{}{}))
			return
		default:
			t.Fatalf("Decode(%q): kind %d", body, m.Kind)
		}
		if m.Params != nil && (!json.Valid(m.Params) || string(m.Params) == "null") {
			t.Fatalf("params %q", m.Params)
		}
		checkAnswer(t, Success(m.ID, struct{}{}))
		checkAnswer(t, Failure(m.ID, rpcError(CodeMethodNotFound, "Method not found: "+clip(m.Method))))
		again := map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(m.ID), "method": m.Method}
		if m.Params != nil {
			again["params"] = m.Params
		}
		enc, merr := json.Marshal(again)
		if merr != nil {
			t.Fatal(merr)
		}
		m2, err2 := Decode(enc)
		if err2 != nil || m2.Kind != m.Kind || !bytes.Equal(m2.ID, m.ID) || m2.Method != m.Method || !bytes.Equal(compact(t, m2.Params), compact(t, m.Params)) {
			t.Fatalf("re-encoded %s decodes to %+v, %v; want %+v", enc, m2, err2, m)
		}
	})
}

func compact(t *testing.T, raw json.RawMessage) []byte {
	if raw == nil {
		return nil
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// checkAnswer: the answer is valid JSON with jsonrpc 2.0 and an id that is
// a string, an integer or null.
func checkAnswer(t *testing.T, r Response) {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatalf("marshal %+v: %v", r, err)
	}
	var back struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal(b, &back); err != nil || back.JSONRPC != "2.0" {
		t.Fatalf("answer %s: %v", b, err)
	}
	if _, ok := readID(back.ID); string(back.ID) != "null" && !ok {
		t.Fatalf("answer %s: id %s", b, back.ID)
	}
}
