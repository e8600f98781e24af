package mcp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"studio/internal/asset"
	"studio/internal/auth"
	"studio/internal/errs"
)

// TestNegotiate: initialize echoes the three versions it speaks and
// answers 2025-06-18 to any other offer.
func TestNegotiate(t *testing.T) {
	for offered, want := range map[string]string{
		"2025-03-26": "2025-03-26", "2025-06-18": "2025-06-18", "2025-11-25": "2025-11-25",
		"2024-11-05": "2025-06-18", "2026-07-28": "2025-06-18", "": "2025-06-18", "latest": "2025-06-18",
	} {
		res := New(Options{}).Handle(context.Background(), auth.Principal{}, RulesFor(""),
			Message{Kind: KindRequest, ID: ID("1"), Method: "initialize", Params: json.RawMessage(`{"protocolVersion":` + quoteJSON(offered) + `}`)})
		r, ok := res.Result.(initializeResult)
		if !ok || r.ProtocolVersion != want {
			t.Errorf("offered %q: %+v; want %s", offered, res, want)
		}
	}
}

func quoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestRules: a request without the header is 2025-03-26, the one version
// with batches; argument errors are tool results from 2025-11-25 on.
func TestRules(t *testing.T) {
	for _, tt := range []struct {
		header         string
		batches, asRes bool
	}{
		{"", true, false},
		{"2025-03-26", true, false},
		{"2024-11-05", false, false},
		{"2025-06-18", false, false},
		{"2025-11-25", false, true},
	} {
		r := RulesFor(tt.header)
		if r.Batches() != tt.batches || r.ArgumentErrorsAsResults() != tt.asRes {
			t.Errorf("%q: batches %v, argument errors as results %v; want %v, %v", tt.header, r.Batches(), r.ArgumentErrorsAsResults(), tt.batches, tt.asRes)
		}
	}
}

// TestSplit: one message, a batch of several, and the bodies that are
// neither.
func TestSplit(t *testing.T) {
	for _, tt := range []struct {
		body  string
		parts int
		batch bool
		code  int
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, 1, false, 0},
		{` [{"jsonrpc":"2.0","id":1,"method":"ping"}, {"jsonrpc":"2.0","method":"n"}, 7] `, 3, true, 0},
		{`[]`, 0, true, CodeInvalidRequest},
		{`[`, 0, false, CodeParseError},
		{``, 1, false, 0}, // Decode answers it: a parse error
	} {
		parts, batch, err := Split([]byte(tt.body))
		code := 0
		if err != nil {
			code = err.Code
		}
		if len(parts) != tt.parts || batch != tt.batch || code != tt.code {
			t.Errorf("Split(%s) = %d parts, batch %v, %v; want %d, %v, code %d", tt.body, len(parts), batch, err, tt.parts, tt.batch, tt.code)
		}
	}
	if _, err := Decode([]byte(`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`)); err == nil || err.Code != CodeInvalidRequest {
		t.Errorf("a batch inside a batch: %v; want -32600", err)
	}
}

// TestParamsTypes: the members of params are the JSON types their schema
// says: -32602 otherwise.
func TestParamsTypes(t *testing.T) {
	s := New(Options{})
	for _, tt := range []struct {
		method, params string
		code           int
	}{
		{"initialize", `{"protocolVersion":20250618}`, CodeInvalidParams},
		{"initialize", `{"protocolVersion":null}`, CodeInvalidParams},
		{"initialize", `{"protocolVersion":"2025-06-18","capabilities":"all"}`, CodeInvalidParams},
		{"initialize", `{"protocolVersion":"2025-06-18","clientInfo":["x"]}`, CodeInvalidParams},
		{"initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}`, 0},
		{"tools/list", `{"cursor":"page-2"}`, CodeInvalidParams},
		{"tools/list", `{"cursor":2}`, CodeInvalidParams},
		{"tools/list", `{"cursor":""}`, CodeInvalidParams},
		{"tools/list", `{"cursor":null}`, 0},
		{"tools/list", `{"_meta":{"progressToken":1}}`, 0},
		{"tools/list", `{"_meta":"x"}`, CodeInvalidParams},
		{"ping", `{"_meta":[1]}`, CodeInvalidParams},
		{"tools/call", `{"name":7}`, CodeInvalidParams},
		{"tools/call", `{"name":"list_capabilities","arguments":[]}`, CodeInvalidParams},
	} {
		res := s.Handle(context.Background(), auth.Principal{}, RulesFor("2025-06-18"),
			Message{Kind: KindRequest, ID: ID("1"), Method: tt.method, Params: json.RawMessage(tt.params)})
		code := 0
		if res.Error != nil {
			code = res.Error.Code
		}
		if code != tt.code {
			t.Errorf("%s %s: %+v; want code %d", tt.method, tt.params, res.Error, tt.code)
		}
	}
}

// TestArgumentTypes: a tool's arguments of the wrong JSON type are
// BAD_ARGUMENTS naming the member; whole numbers out of range keep their
// own code.
func TestArgumentTypes(t *testing.T) {
	for _, tt := range []struct {
		raw  string
		code string
	}{
		{`{"seed":7}`, "BAD_ARGUMENTS"},
		{`{"flag":true}`, "BAD_ARGUMENTS"},
		{`{"bg":{}}`, "BAD_ARGUMENTS"},
		{`{"bg":["white"]}`, "BAD_ARGUMENTS"},
		{`{"bg":"white","runId":null}`, ""},
	} {
		var in map[string]json.RawMessage
		if err := json.Unmarshal([]byte(tt.raw), &in); err != nil {
			t.Fatal(err)
		}
		out, err := stringParams(in)
		if code := codeOf(err); code != tt.code {
			t.Errorf("params %s: %v, %v; want %q", tt.raw, out, err, tt.code)
		}
	}
	for _, tt := range []struct {
		raw  string
		want int
		code string
	}{
		{``, 20, ""}, {`null`, 20, ""}, {`1`, 1, ""}, {`100`, 100, ""}, {`5.0`, 5, ""},
		{`0`, 0, "BAD_LIMIT"}, {`101`, 0, "BAD_LIMIT"}, {`-3`, 0, "BAD_LIMIT"},
		{`"ten"`, 0, "BAD_ARGUMENTS"}, {`"5"`, 0, "BAD_ARGUMENTS"}, {`2.5`, 0, "BAD_ARGUMENTS"}, {`true`, 0, "BAD_ARGUMENTS"},
	} {
		n, err := limitArg(json.RawMessage(tt.raw), DevelopsDefault, DevelopsMax)
		if n != tt.want || codeOf(err) != tt.code {
			t.Errorf("limit %s: %d, %v; want %d, %q", tt.raw, n, err, tt.want, tt.code)
		}
	}
}

func codeOf(err error) string {
	if e, ok := errs.As(err); ok {
		return e.Code
	}
	if err != nil {
		return err.Error()
	}
	return ""
}

// TestArgumentErrorsByVersion: arguments that do not match the schema are
// -32602 up to 2025-06-18 and an isError result from 2025-11-25 on.
func TestArgumentErrorsByVersion(t *testing.T) {
	s := New(Options{})
	call := Message{Kind: KindRequest, ID: ID("1"), Method: "tools/call", Params: json.RawMessage(`{"name":"get_develop","arguments":{"jobId":5}}`)}
	for _, v := range []string{"", "2025-03-26", "2025-06-18"} {
		res := s.Handle(context.Background(), auth.Principal{}, RulesFor(v), call)
		if res.Error == nil || res.Error.Code != CodeInvalidParams || !strings.Contains(res.Error.Message, "jobId") {
			t.Errorf("%q: %+v; want -32602 naming jobId", v, res)
		}
	}
	res := s.Handle(context.Background(), auth.Principal{}, RulesFor("2025-11-25"), call)
	r, ok := res.Result.(CallResult)
	if !ok || !r.IsError || !strings.HasPrefix(string(r.StructuredContent.(json.RawMessage)), `{"error":"BAD_ARGUMENTS: `) {
		t.Errorf("2025-11-25: %+v; want an isError result with BAD_ARGUMENTS", res)
	}
}

// TestDecodeBase64: upload_asset's data in standard or URL-safe base64,
// padded or not, or behind a data: URL; over 12 MB decoded is
// IMAGE_TOO_LARGE before it is decoded; anything else is BAD_DATA.
func TestDecodeBase64(t *testing.T) {
	for _, tt := range []struct {
		data, want, code string
	}{
		{"aGVsbG8/Pw==", "hello??", ""},
		{"aGVsbG8_Pw", "hello??", ""},
		{"data:image/png;base64,aGVsbG8=", "hello", ""},
		{"data:image/png,hello", "", "BAD_DATA"},
		{"not base64!", "", "BAD_DATA"},
		{"", "", "EMPTY_IMAGE"},
	} {
		got, err := decodeBase64(tt.data)
		if string(got) != tt.want || codeOf(err) != tt.code {
			t.Errorf("%q: %q, %v; want %q, %q", tt.data, got, err, tt.want, tt.code)
		}
	}
	big := base64.StdEncoding.EncodeToString(make([]byte, asset.MaxBytes+1))
	if _, err := decodeBase64(big); codeOf(err) != "IMAGE_TOO_LARGE" {
		t.Errorf("12 MB and a byte: %v; want IMAGE_TOO_LARGE", err)
	}
	if got, err := decodeBase64(base64.StdEncoding.EncodeToString(make([]byte, asset.MaxBytes))); err != nil || len(got) != asset.MaxBytes {
		t.Errorf("12 MB: %d bytes, %v; want them all", len(got), err)
	}
}
