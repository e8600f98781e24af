package httpapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"studio/internal/apptest"
	"studio/internal/asset"
	"studio/internal/httpapi"
	"studio/internal/mcp"
)

// mcpWalk is the mcp area's part of the route walk (walk_test.go).
var mcpWalk = walkArea{
	samples: map[string]sampleFunc{
		// MCP: initialize is public, so every credential is admitted; mcp_test.go walks the key-only methods.
		"POST /api/mcp": static("/api/mcp", map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{"protocolVersion": "2025-06-18"}}),
	},
}

// mcpPost sends one raw body to POST /api/mcp with the credential and
// extra headers (name, value pairs), as an MCP client would.
func mcpPost(t *testing.T, a *apptest.App, c apptest.Cred, body string, header ...string) apptest.Resp {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, a.URL+"/api/mcp", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	if c.Key != "" {
		req.Header.Set("Authorization", "Bearer "+c.Key)
	}
	if c.Cookie != "" {
		req.AddCookie(&http.Cookie{Name: httpapi.SessionCookie, Value: c.Cookie})
		origin := c.Origin
		if origin == "" {
			origin = a.URL
		}
		req.Header.Set("Origin", origin)
	}
	return a.Send(t, req)
}

// rpcAnswer is a JSON-RPC response as the tests read it.
type rpcAnswer struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func rpcRequest(id any, method string, params any) string {
	m := map[string]any{"jsonrpc": "2.0", "method": method}
	if id != nil {
		m["id"] = id
	}
	if params != nil {
		m["params"] = params
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// checkInitialize checks an initialize result: the protocol version
// answered, the tools capability, serverInfo and the instructions.
func checkInitialize(t *testing.T, res json.RawMessage, version string) {
	t.Helper()
	var r struct {
		ProtocolVersion string `json:"protocolVersion"`
		Capabilities    struct {
			Tools *struct {
				ListChanged *bool `json:"listChanged"`
			} `json:"tools"`
		} `json:"capabilities"`
		ServerInfo   struct{ Name, Title, Version string } `json:"serverInfo"`
		Instructions string                                `json:"instructions"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		t.Fatal(err)
	}
	if r.ProtocolVersion != version {
		t.Errorf("protocolVersion %q; want %s", r.ProtocolVersion, version)
	}
	if r.Capabilities.Tools == nil || r.Capabilities.Tools.ListChanged == nil || *r.Capabilities.Tools.ListChanged {
		t.Errorf("capabilities %s; want tools.listChanged false", res)
	}
	if r.ServerInfo.Name == "" || r.ServerInfo.Title == "" || r.ServerInfo.Version != "1.0.0" {
		t.Errorf("serverInfo %+v; want a name, a title and version 1.0.0", r.ServerInfo)
	}
	if !strings.Contains(r.Instructions, "get_develop") {
		t.Errorf("instructions %q do not explain polling get_develop", r.Instructions)
	}
}

// TestMCPProtocol walks the endpoint's protocol cases: credentials per
// method, notifications, JSON-RPC errors, the version header, the body limit.
func TestMCPProtocol(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner := a.SignUp(t, "mcp-owner")
		key := a.Key(t, owner, "member")
		garbage := apptest.Cred{Key: "fis_sk_nope"}
		initialize := func(version string) string {
			return rpcRequest(1, "initialize", map[string]any{
				"protocolVersion": version, "capabilities": map[string]any{},
				"clientInfo": map[string]any{"name": "table", "version": "0"},
			})
		}
		checkInit := func(want string) func(t *testing.T, res json.RawMessage) {
			return func(t *testing.T, res json.RawMessage) {
				checkInitialize(t, res, want)
			}
		}
		empty := func(t *testing.T, res json.RawMessage) {
			if string(res) != "{}" {
				t.Errorf("result %s; want {}", res)
			}
		}
		batchOf := func(msgs ...string) string { return "[" + strings.Join(msgs, ",") + "]" }
		tests := []struct {
			name   string
			cred   apptest.Cred
			body   string
			header []string
			status int    // HTTP status
			code   string // our error code on a non-2xx
			rpc    int    // JSON-RPC error code; 0 expects a result
			id     string // the id the answer echoes, as JSON
			check  func(t *testing.T, result json.RawMessage)
		}{
			{name: "initialize without a key, offering a newer version", body: initialize("2099-01-01"), status: 200, id: "1", check: checkInit("2025-06-18")},
			{name: "initialize offering an older version", body: initialize("2024-11-05"), status: 200, id: "1", check: checkInit("2025-06-18")},
			{name: "initialize offering 2025-03-26", body: initialize("2025-03-26"), status: 200, id: "1", check: checkInit("2025-03-26")},
			{name: "initialize offering 2025-11-25", body: initialize("2025-11-25"), status: 200, id: "1", check: checkInit("2025-11-25")},
			{name: "initialize ignores a bad key", cred: garbage, body: initialize("2025-06-18"), status: 200, id: "1", check: checkInit("2025-06-18")},
			{name: "initialize ignores the version header", body: initialize("2025-06-18"), header: []string{"MCP-Protocol-Version", "2099-01-01"}, status: 200, id: "1", check: checkInit("2025-06-18")},
			{name: "initialize without protocolVersion", body: rpcRequest(1, "initialize", map[string]any{}), status: 200, rpc: -32602, id: "1"},
			{name: "initialize with a numeric protocolVersion", body: rpcRequest(1, "initialize", map[string]any{"protocolVersion": 20250618}), status: 200, rpc: -32602, id: "1"},
			{name: "ping without a key", body: rpcRequest("p-1", "ping", nil), status: 200, id: `"p-1"`, check: empty},
			{name: "ping with a key", cred: key, body: rpcRequest(7, "ping", map[string]any{}), status: 200, id: "7", check: empty},
			{name: "tools/list without a key", body: rpcRequest(2, "tools/list", nil), status: 401, code: "UNAUTHORIZED"},
			{name: "tools/list with a bad key", cred: garbage, body: rpcRequest(2, "tools/list", nil), status: 401, code: "UNAUTHORIZED"},
			{name: "tools/call without a key", body: rpcRequest(2, "tools/call", map[string]any{"name": "check_balance"}), status: 401, code: "UNAUTHORIZED"},
			{name: "unknown method without a key", body: rpcRequest(2, "resources/list", nil), status: 401, code: "UNAUTHORIZED"},
			{name: "tools/list by session", cred: owner.Session(), body: rpcRequest(3, "tools/list", nil), status: 200, id: "3"},
			{name: "tools/list by session from another origin", cred: apptest.Cred{Cookie: owner.Cookie, Origin: "https://evil.example"},
				body: rpcRequest(3, "tools/list", nil), status: 403, code: "BAD_ORIGIN"},
			{name: "tools/list with a cursor it never issued", cred: key, body: rpcRequest(3, "tools/list", map[string]any{"cursor": "page-2"}), status: 200, rpc: -32602, id: "3"},
			{name: "tools/list with a numeric cursor", cred: key, body: rpcRequest(3, "tools/list", map[string]any{"cursor": 2}), status: 200, rpc: -32602, id: "3"},
			{name: "notification without a key", body: rpcRequest(nil, "notifications/initialized", nil), status: 202},
			{name: "notification with a key", cred: key, body: rpcRequest(nil, "notifications/cancelled", map[string]any{"requestId": 1}), status: 202},
			{name: "a client's reply", cred: key, body: `{"jsonrpc":"2.0","id":9,"result":{}}`, status: 202},
			{name: "unknown method", cred: key, body: rpcRequest(4, "resources/list", nil), status: 200, rpc: -32601, id: "4"},
			{name: "unsupported version header", cred: key, body: rpcRequest(5, "ping", nil), header: []string{"MCP-Protocol-Version", "2099-01-01"}, status: 400, code: "BAD_PROTOCOL_VERSION"},
			{name: "older version header", cred: key, body: rpcRequest(5, "tools/list", nil), header: []string{"MCP-Protocol-Version", "2025-03-26"}, status: 200, id: "5"},
			{name: "newest version header", cred: key, body: rpcRequest(5, "tools/list", nil), header: []string{"MCP-Protocol-Version", "2025-11-25"}, status: 200, id: "5"},
			{name: "malformed JSON", cred: key, body: `{"jsonrpc":"2.0",`, status: 200, rpc: -32700, id: "null"},
			{name: "empty body", body: ``, status: 200, rpc: -32700, id: "null"},
			{name: "batch under 2025-06-18", cred: key, body: batchOf(rpcRequest(1, "ping", nil)), header: []string{"MCP-Protocol-Version", "2025-06-18"}, status: 200, rpc: -32600, id: "null"},
			{name: "batch under 2025-11-25", cred: key, body: batchOf(rpcRequest(1, "ping", nil)), header: []string{"MCP-Protocol-Version", "2025-11-25"}, status: 200, rpc: -32600, id: "null"},
			{name: "empty batch", cred: key, body: `[]`, status: 200, rpc: -32600, id: "null"},
			{name: "batch of notifications", cred: key, body: batchOf(rpcRequest(nil, "notifications/initialized", nil), `{"jsonrpc":"2.0","id":9,"result":{}}`), status: 202},
			{name: "batch needing a key, without one", body: batchOf(rpcRequest(1, "ping", nil), rpcRequest(2, "tools/list", nil)), status: 401, code: "UNAUTHORIZED"},
			{name: "not an object", cred: key, body: `"ping"`, status: 200, rpc: -32600, id: "null"},
			{name: "wrong jsonrpc version", cred: key, body: `{"jsonrpc":"1.0","id":6,"method":"ping"}`, status: 200, rpc: -32600, id: "6"},
			{name: "no method", cred: key, body: `{"jsonrpc":"2.0","id":6}`, status: 200, rpc: -32600, id: "6"},
			{name: "object id", cred: key, body: `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, status: 200, rpc: -32600, id: "null"},
			{name: "params not an object", cred: key, body: `{"jsonrpc":"2.0","id":8,"method":"ping","params":[1]}`, status: 200, rpc: -32602, id: "8"},
			{name: "_meta not an object", cred: key, body: `{"jsonrpc":"2.0","id":8,"method":"ping","params":{"_meta":1}}`, status: 200, rpc: -32602, id: "8"},
			{name: "tools/call without a name", cred: key, body: rpcRequest(8, "tools/call", map[string]any{}), status: 200, rpc: -32602, id: "8"},
			{name: "tools/call of an unknown tool", cred: key, body: rpcRequest(8, "tools/call", map[string]any{"name": "nope"}), status: 200, rpc: -32602, id: "8"},
			{name: "tools/call with arguments not an object", cred: key, body: rpcRequest(8, "tools/call", map[string]any{"name": "check_balance", "arguments": "x"}), status: 200, rpc: -32602, id: "8"},
			{name: "arguments of the wrong type under 2025-06-18", cred: key, header: []string{"MCP-Protocol-Version", "2025-06-18"},
				body: rpcRequest(8, "tools/call", map[string]any{"name": "get_develop", "arguments": map[string]any{"jobId": 5}}), status: 200, rpc: -32602, id: "8"},
			{name: "params members of the wrong type under 2025-03-26", cred: key,
				body: rpcRequest(8, "tools/call", map[string]any{"name": "start_develop", "arguments": map[string]any{"tool": "upscale", "params": map[string]any{"seed": 7}}}), status: 200, rpc: -32602, id: "8"},
			{name: "body over 1 MiB without a credential", body: `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("a", httpapi.MaxJSON) + `"}}`, status: 413, code: "BODY_TOO_LARGE"},
			{name: "body over 1 MiB with a bad key", cred: garbage, body: `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("a", httpapi.MaxJSON) + `"}}`, status: 413, code: "BODY_TOO_LARGE"},
			{name: "body over 1 MiB with a key", cred: key, body: `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("a", httpapi.MaxJSON) + `"}}`, status: 200, id: "1", check: empty},
			{name: "body over the upload limit with a key", cred: key, body: `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("a", mcp.MaxBody) + `"}}`, status: 413, code: "BODY_TOO_LARGE"},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				res := mcpPost(t, a, tc.cred, tc.body, tc.header...)
				if res.Status != tc.status || res.Code != tc.code {
					t.Fatalf("got %d %q %s; want %d %q", res.Status, res.Code, res.Body, tc.status, tc.code)
				}
				if tc.status == http.StatusAccepted {
					if len(res.Body) != 0 {
						t.Errorf("202 with body %q; want none", res.Body)
					}
					return
				}
				if tc.status != http.StatusOK {
					return
				}
				if ct := res.Header.Get("Content-Type"); ct != "application/json" {
					t.Errorf("Content-Type %q; want application/json", ct)
				}
				var ans rpcAnswer
				res.JSON(t, &ans)
				if ans.JSONRPC != "2.0" {
					t.Errorf("jsonrpc %q; want 2.0", ans.JSONRPC)
				}
				if tc.id != "" && string(ans.ID) != tc.id {
					t.Errorf("id %s; want %s", ans.ID, tc.id)
				}
				switch {
				case tc.rpc != 0 && (ans.Error == nil || ans.Error.Code != tc.rpc):
					t.Errorf("answer %s; want JSON-RPC error %d", res.Body, tc.rpc)
				case tc.rpc != 0 && ans.Result != nil:
					t.Errorf("answer %s carries a result beside its error", res.Body)
				case tc.rpc == 0 && (ans.Error != nil || ans.Result == nil):
					t.Errorf("answer %s; want a result", res.Body)
				case tc.check != nil:
					tc.check(t, ans.Result)
				}
			})
		}

		// Under 2025-03-26 (no header, or the header naming it) a batch is
		// answered with an array: one answer per request, by id, none for
		// notifications; initialize may not ride in one.
		for _, header := range [][]string{nil, {"MCP-Protocol-Version", "2025-03-26"}} {
			t.Run(fmt.Sprintf("batch under 2025-03-26 (header %v)", header), func(t *testing.T) {
				res := mcpPost(t, a, key, batchOf(
					rpcRequest(1, "ping", nil),
					rpcRequest(nil, "notifications/initialized", nil),
					rpcRequest("two", "tools/list", nil),
					rpcRequest(3, "initialize", map[string]any{"protocolVersion": "2025-03-26"}),
					`{"jsonrpc":"1.0","id":4,"method":"ping"}`,
					rpcRequest(5, "tools/call", map[string]any{"name": "check_balance"}),
				), header...)
				var answers []rpcAnswer
				res.JSON(t, &answers)
				got := map[string]rpcAnswer{}
				for _, ans := range answers {
					got[string(ans.ID)] = ans
				}
				if res.Status != 200 || len(answers) != 5 {
					t.Fatalf("got %d %s; want 200 with 5 answers", res.Status, res.Body)
				}
				if got["1"].Error != nil || got[`"two"`].Error != nil || !strings.Contains(string(got[`"two"`].Result), "start_develop") ||
					got["5"].Error != nil || !strings.Contains(string(got["5"].Result), `"balance":60`) {
					t.Errorf("answers %s; want ping, tools/list and check_balance answered", res.Body)
				}
				for _, id := range []string{"3", "4"} {
					if e := got[id].Error; e == nil || e.Code != -32600 {
						t.Errorf("answer %s: %+v; want the batched initialize (3) and the 1.0 message (4) refused with -32600", id, e)
					}
				}
			})
		}
		t.Run("unsupported version header lists the supported ones", func(t *testing.T) {
			res := mcpPost(t, a, key, rpcRequest(5, "tools/list", nil), "MCP-Protocol-Version", "2026-07-28")
			var body struct{ Supported []string }
			res.JSON(t, &body)
			if res.Status != 400 || !slices.Equal(body.Supported, []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}) {
				t.Errorf("got %d %s; want 400 with the supported versions", res.Status, res.Body)
			}
		})
		for _, method := range []string{http.MethodGet, http.MethodDelete} {
			t.Run(method+" is not allowed", func(t *testing.T) {
				res := a.Do(t, method, "/api/mcp", key, nil)
				if res.Status != http.StatusMethodNotAllowed || res.Code != "METHOD_NOT_ALLOWED" || res.Header.Get("Allow") != "POST" {
					t.Errorf("got %d %q Allow %q %s; want 405 METHOD_NOT_ALLOWED with Allow: POST", res.Status, res.Code, res.Header.Get("Allow"), res.Body)
				}
			})
		}
	})
}

// bearer adds an API key to every request of the SDK's client.
type bearer struct {
	key  string
	next http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.key)
	return b.next.RoundTrip(r)
}

// mcpClient is the official Go SDK's client, connected over its
// streamable HTTP transport with a key, and the tools it listed.
type mcpClient struct {
	cs      *sdk.ClientSession
	tools   []*sdk.Tool
	outputs map[string]*jsonschema.Resolved
	content []sdk.Content // the blocks of the last answer after its text
}

func connectMCP(t *testing.T, a *apptest.App, key apptest.Cred) *mcpClient {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := sdk.NewClient(&sdk.Implementation{Name: "studio-test", Version: "1.0.0"}, nil)
	transport := &sdk.StreamableClientTransport{
		Endpoint:   a.URL + "/api/mcp",
		HTTPClient: &http.Client{Transport: bearer{key: key.Key, next: http.DefaultTransport}, Timeout: 2 * time.Minute},
		MaxRetries: -1,
	}
	cs, err := client.Connect(ctx, transport, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	c := &mcpClient{cs: cs, tools: list.Tools, outputs: map[string]*jsonschema.Resolved{}}
	for _, tool := range list.Tools {
		b, err := json.Marshal(tool.OutputSchema)
		if err != nil {
			t.Fatal(err)
		}
		var s jsonschema.Schema
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatalf("%s outputSchema: %v", tool.Name, err)
		}
		if c.outputs[tool.Name], err = s.Resolve(nil); err != nil {
			t.Fatalf("%s outputSchema %s: %v", tool.Name, b, err)
		}
	}
	return c
}

// call calls a tool and checks what every answer must be: its
// structuredContent matches the tool's outputSchema and its text content
// is the same JSON. It returns the structured content and isError.
func (c *mcpClient) call(t *testing.T, name string, args map[string]any) (map[string]any, bool) {
	t.Helper()
	// Generous: a 16 MB upload_asset is parsed under the race detector on a busy machine.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := c.cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var structured map[string]any
	if err := json.Unmarshal(b, &structured); err != nil {
		t.Fatalf("%s: structuredContent %s: %v", name, b, err)
	}
	if err := c.outputs[name].Validate(structured); err != nil {
		t.Errorf("%s: structuredContent %s does not match the outputSchema: %v", name, b, err)
	}
	if len(res.Content) == 0 {
		t.Fatalf("%s: no content", name)
	}
	c.content = res.Content[1:]
	text, ok := res.Content[0].(*sdk.TextContent)
	if !ok {
		t.Fatalf("%s: content %T; want text", name, res.Content[0])
	}
	var fromText map[string]any
	if err := json.Unmarshal([]byte(text.Text), &fromText); err != nil || !reflect.DeepEqual(fromText, structured) {
		t.Errorf("%s: text %s is not the structuredContent %s", name, text.Text, b)
	}
	return structured, res.IsError
}

// ok calls a tool that must succeed.
func (c *mcpClient) ok(t *testing.T, name string, args map[string]any) map[string]any {
	t.Helper()
	out, isError := c.call(t, name, args)
	if isError {
		t.Fatalf("%s %v: refused: %v", name, args, out["error"])
	}
	return out
}

// refused calls a tool that must refuse with the code, and returns the error text.
func (c *mcpClient) refused(t *testing.T, name string, args map[string]any, code string) string {
	t.Helper()
	out, isError := c.call(t, name, args)
	msg, _ := out["error"].(string)
	if !isError || !strings.HasPrefix(msg, code+": ") || len(msg) <= len(code)+2 {
		t.Errorf("%s %v: got isError %v %v; want a %s refusal", name, args, isError, out, code)
	}
	return msg
}

func num(v any) int64 {
	f, _ := v.(float64)
	return int64(f)
}

// TestMCPClient drives the endpoint with the official Go SDK client: the
// handshake, the six tools with the same answers as their HTTP twins, and
// their refusals.
func TestMCPClient(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner, other := a.SignUp(t, "mcp-owner"), a.SignUp(t, "mcp-other")
		memberKey, viewerKey, otherKey := a.Key(t, owner, "member"), a.Key(t, owner, "viewer"), a.Key(t, other, "member")
		c := connectMCP(t, a, memberKey)

		t.Run("handshake", func(t *testing.T) {
			init := c.cs.InitializeResult()
			if init.ProtocolVersion != "2025-11-25" || init.ServerInfo.Version != "1.0.0" || init.ServerInfo.Title == "" ||
				init.Capabilities.Tools == nil || init.Capabilities.Tools.ListChanged || init.Instructions == "" {
				t.Errorf("initialize answered %+v, server %+v", init, init.ServerInfo)
			}
		})
		t.Run("tools/list", func(t *testing.T) {
			var names []string
			for _, tool := range c.tools {
				names = append(names, tool.Name)
				in, _ := tool.InputSchema.(map[string]any)
				out, _ := tool.OutputSchema.(map[string]any)
				if in["type"] != "object" || out["type"] != "object" || len(out["anyOf"].([]any)) != 2 || tool.Description == "" || tool.Title == "" {
					t.Errorf("%s: inputSchema %v outputSchema %v; want objects, the output anyOf success or refusal", tool.Name, in, out)
				}
			}
			want := []string{"list_capabilities", "check_balance", "list_assets", "start_develop", "get_develop", "list_develops",
				"upload_asset", "cancel_develop", "preflight_develop", "create_look", "get_look", "develop_look", "lock_look",
				"develop_variations", "get_verdict", "share_frames", "get_asset", "develop_lookbook"}
			if !slices.Equal(names, want) {
				t.Errorf("tools %v; want %v", names, want)
			}
		})
		t.Run("list_capabilities", func(t *testing.T) {
			out := c.ok(t, "list_capabilities", nil)
			if out["note"] == "" {
				t.Error("no note")
			}
			var upscale any
			for _, tool := range out["tools"].([]any) {
				if tool.(map[string]any)["tool"] == "upscale" {
					upscale = tool.(map[string]any)["prices"]
				}
			}
			want := []any{
				map[string]any{"resolution": "1k", "tokens": 2.0},
				map[string]any{"resolution": "2k", "tokens": 3.0},
				map[string]any{"resolution": "4k", "tokens": 5.0},
			}
			if !reflect.DeepEqual(upscale, want) {
				t.Errorf("upscale prices %v; want %v", upscale, want)
			}
			// Each tool gains its engine and options, and a note where the
			// local engine only composes it (DECISIONS §10).
			tools := map[string]map[string]any{}
			for _, tool := range out["tools"].([]any) {
				tools[tool.(map[string]any)["tool"].(string)] = tool.(map[string]any)
			}
			cc := tools["color-change"]
			opts, _ := cc["options"].([]any)
			if cc["engine"] != "local" || len(opts) == 0 || opts[0].(map[string]any)["name"] != "color" || opts[0].(map[string]any)["required"] != true {
				t.Errorf("color-change %v", cc)
			}
			if tools["tryon"]["note"] == nil || tools["upscale"]["note"] != nil {
				t.Errorf("notes: tryon %v, upscale %v; want a note on the composite only", tools["tryon"]["note"], tools["upscale"]["note"])
			}
			if g, ok := tools["generate-character"]; !ok || g["engine"] != nil || g["note"] != "No engine configured here performs generate-character; set FAL_KEY, AI_IMAGE_BASE_URL or FASHN_API_KEY to develop it." {
				t.Errorf("generate-character %v; want it listed with a null engine and a note naming what would serve it, as the catalog does", g)
			}
		})
		balanceOverHTTP := func(t *testing.T) map[string]any {
			t.Helper()
			return a.Do(t, "GET", "/api/toolkit/ai/billing/balance", memberKey, nil).Map(t)
		}
		t.Run("check_balance", func(t *testing.T) {
			out := c.ok(t, "check_balance", nil)
			if want := balanceOverHTTP(t); !reflect.DeepEqual(out, want) || num(out["balance"]) != 60 {
				t.Errorf("check_balance %v; want the HTTP balance %v with the 60 sign-up tokens", out, want)
			}
		})

		first := upload(t, a, owner.Session(), jpegOf(t, 64, 48), "kind", "clothes")
		second := upload(t, a, owner.Session(), jpegOf(t, 48, 64), "kind", "model")
		foreign := upload(t, a, other.Session(), jpegOf(t, 32, 32), "kind", "clothes")
		t.Run("list_assets", func(t *testing.T) {
			ids := func(out map[string]any) []string {
				var ids []string
				for _, x := range out["assets"].([]any) {
					ids = append(ids, x.(map[string]any)["id"].(string))
				}
				return ids
			}
			if got := ids(c.ok(t, "list_assets", nil)); !slices.Equal(got, []string{second.ID, first.ID}) {
				t.Errorf("assets %v; want newest first %v", got, []string{second.ID, first.ID})
			}
			if got := ids(c.ok(t, "list_assets", map[string]any{"limit": 1, "folderId": "root"})); !slices.Equal(got, []string{second.ID}) {
				t.Errorf("limit 1: %v; want %v", got, []string{second.ID})
			}
			if got := ids(c.ok(t, "list_assets", map[string]any{"folderId": uuid.NewString()})); len(got) != 0 {
				t.Errorf("unknown folder: %v; want none", got)
			}
			c.refused(t, "list_assets", map[string]any{"limit": 201}, "BAD_LIMIT")
			c.refused(t, "list_assets", map[string]any{"limit": "ten"}, "BAD_ARGUMENTS")
			c.refused(t, "list_assets", map[string]any{"folderId": 5}, "BAD_ARGUMENTS")
		})

		var jobID string
		develop := map[string]any{"tool": "upscale", "inputs": map[string]any{"image": first.ID}, "quality": "1k", "idempotencyKey": "mcp-first"}
		t.Run("start_develop", func(t *testing.T) {
			out := c.ok(t, "start_develop", develop)
			jobID, _ = out["jobId"].(string)
			if jobID == "" || out["status"] != "queued" || num(out["tokensHeld"]) != 2 || out["idempotencyKey"] != "mcp-first" {
				t.Errorf("start_develop %v; want a queued job holding 2 tokens under key mcp-first", out)
			}
			// The replay answers exactly what the first call answered, even
			// once the develop has moved on; it holds nothing more.
			if _, err := a.DB.RawExec(context.Background(), `UPDATE jobs SET status = 'running' WHERE id = ?`, jobID); err != nil {
				t.Fatal(err)
			}
			if again := c.ok(t, "start_develop", develop); !reflect.DeepEqual(again, out) {
				t.Errorf("replay %v; want the first answer %v", again, out)
			}
			if _, err := a.DB.RawExec(context.Background(), `UPDATE jobs SET status = 'queued' WHERE id = ?`, jobID); err != nil {
				t.Fatal(err)
			}
			bal := c.ok(t, "check_balance", nil)
			if num(bal["held"]) != 2 || num(bal["balance"]) != 58 {
				t.Errorf("balance after one develop %v; want 2 held, 58 spendable", bal)
			}
			unkeyed := c.ok(t, "start_develop", map[string]any{"tool": "upscale", "inputs": map[string]any{"image": second.ID}, "params": map[string]any{"seed": "7", "runId": "r1"}})
			if unkeyed["idempotencyKey"] != nil || num(unkeyed["tokensHeld"]) != 2 {
				t.Errorf("start_develop without a key %v; want idempotencyKey null, 2 held", unkeyed)
			}
		})
		t.Run("get_develop", func(t *testing.T) {
			out := c.ok(t, "get_develop", map[string]any{"jobId": jobID})
			if out["jobId"] != jobID || out["tool"] != "upscale" || out["status"] != "queued" || num(out["tokensEstimated"]) != 2 ||
				out["tokensSettled"] != nil || out["resultUrl"] != nil || out["finishedAt"] != nil || out["createdAt"] == "" {
				t.Errorf("get_develop %v", out)
			}
		})
		t.Run("list_develops", func(t *testing.T) {
			out := c.ok(t, "list_develops", nil)
			list := out["develops"].([]any)
			if len(list) != 2 || list[1].(map[string]any)["jobId"] != jobID {
				t.Errorf("list_develops %v; want two, %s the older", out, jobID)
			}
			if got := c.ok(t, "list_develops", map[string]any{"limit": 1, "status": "queued"})["develops"].([]any); len(got) != 1 {
				t.Errorf("limit 1: %v", got)
			}
			if got := c.ok(t, "list_develops", map[string]any{"status": "done"})["develops"].([]any); len(got) != 0 {
				t.Errorf("done: %v; want none yet", got)
			}
			c.refused(t, "list_develops", map[string]any{"limit": 101}, "BAD_LIMIT")
			c.refused(t, "list_develops", map[string]any{"status": "finished"}, "BAD_STATUS")
		})

		t.Run("refusals", func(t *testing.T) {
			viewer := connectMCP(t, a, viewerKey)
			if out := viewer.ok(t, "check_balance", nil); num(out["held"]) != 4 {
				t.Errorf("a viewer reads the balance: %v", out)
			}
			viewer.refused(t, "start_develop", develop, "FORBIDDEN")

			notFound := c.refused(t, "get_develop", map[string]any{"jobId": uuid.NewString()}, "NOT_FOUND")
			if foreign := connectMCP(t, a, otherKey).refused(t, "get_develop", map[string]any{"jobId": jobID}, "NOT_FOUND"); foreign != notFound {
				t.Errorf("another house's job: %q; want the same refusal as an unknown one, %q", foreign, notFound)
			}
			c.refused(t, "get_develop", map[string]any{"jobId": "not-a-uuid"}, "NOT_FOUND")
			c.refused(t, "get_develop", nil, "BAD_ARGUMENTS")

			c.refused(t, "start_develop", map[string]any{"tool": "nope", "inputs": map[string]any{"image": first.ID}}, "UNKNOWN_TOOL")
			c.refused(t, "start_develop", map[string]any{"tool": "upscale"}, "NO_INPUTS")
			c.refused(t, "start_develop", map[string]any{"tool": "tryon", "inputs": map[string]any{"model": second.ID}}, "NO_INPUTS")
			c.refused(t, "start_develop", map[string]any{"tool": "upscale", "inputs": map[string]any{"image": foreign.ID}}, "ASSET_NOT_FOUND")
			c.refused(t, "start_develop", map[string]any{"tool": "upscale", "inputs": map[string]any{"image": uuid.NewString()}}, "ASSET_NOT_FOUND")
			huge := upload(t, a, owner.Session(), jpegOf(t, 40, 42), "kind", "clothes")
			if _, err := a.DB.RawExec(context.Background(), `UPDATE assets SET size_bytes = ? WHERE id = ?`, asset.MaxBytes+1, huge.ID); err != nil {
				t.Fatal(err)
			}
			c.refused(t, "start_develop", map[string]any{"tool": "upscale", "inputs": map[string]any{"image": huge.ID}}, "IMAGE_TOO_LARGE")
			c.refused(t, "start_develop", map[string]any{"tool": "upscale", "inputs": map[string]any{"image": first.ID}, "quality": "8k"}, "BAD_QUALITY")
			c.refused(t, "start_develop", map[string]any{"tool": "upscale", "inputs": map[string]any{"image": second.ID}, "idempotencyKey": "mcp-first"}, "IDEMPOTENCY_KEY_REUSED")
			c.refused(t, "start_develop", map[string]any{"tool": "upscale", "inputs": map[string]any{"image": []string{first.ID}}}, "BAD_ARGUMENTS")
			c.refused(t, "start_develop", map[string]any{"tool": "upscale", "inputs": map[string]any{"image": first.ID}, "params": map[string]any{"bg": map[string]any{}}}, "BAD_ARGUMENTS")
			c.refused(t, "start_develop", map[string]any{"tool": "upscale", "inputs": map[string]any{"image": first.ID}, "params": map[string]any{"seed": 7}}, "BAD_ARGUMENTS")
			c.refused(t, "start_develop", map[string]any{"tool": "upscale", "inputs": map[string]any{"image": first.ID}, "params": map[string]any{"sharp": true}}, "BAD_ARGUMENTS")
			if msg := c.refused(t, "start_develop", map[string]any{"tool": "color-change", "inputs": map[string]any{"image": first.ID}, "params": map[string]any{"color": "blue"}}, "BAD_OPTION"); !strings.Contains(msg, "#rrggbb") {
				t.Errorf("refusal %q; want the legal form named", msg)
			}
			c.refused(t, "start_develop", map[string]any{"tool": "packshot", "inputs": map[string]any{"image": first.ID}, "params": map[string]any{"bg": "image"}}, "NO_INPUTS")

			// 4 tokens are held; three 4k try-ons hold 54 of the 56 left, a fourth needs 18.
			tryon := func(key string) map[string]any {
				return map[string]any{"tool": "tryon", "inputs": map[string]any{"model": second.ID, "garment": first.ID}, "quality": "4k", "idempotencyKey": key}
			}
			for _, k := range []string{"t1", "t2", "t3"} {
				c.ok(t, "start_develop", tryon(k))
			}
			msg := c.refused(t, "start_develop", tryon("t4"), "INSUFFICIENT_TOKENS")
			if msg != "INSUFFICIENT_TOKENS: The develop needs 18 tokens; the house can spend 2 and already holds 58 for develops in flight." {
				t.Errorf("refusal %q; want the need (18), the spendable (2) and the held (58) stated", msg)
			}
		})
		t.Run("unknown tool is a protocol error", func(t *testing.T) {
			_, err := c.cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "nope", Arguments: map[string]any{}})
			var rpcErr *jsonrpc.Error
			if !errors.As(err, &rpcErr) || rpcErr.Code != -32602 || !strings.Contains(rpcErr.Message, "check_balance") {
				t.Errorf("got %v; want JSON-RPC error -32602 naming the tools", err)
			}
		})
	})
}

// TestMCPDevelopLands follows a develop started over MCP through the
// workers: get_develop reports it done with an absolute result URL the
// same key can fetch, and the hold settled at the listed price.
func TestMCPDevelopLands(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		ctx, stop := context.WithCancel(context.Background())
		workers := make(chan error, 1)
		go func() { workers <- a.RunWorkers(ctx) }()
		t.Cleanup(func() {
			stop()
			if err := <-workers; err != nil && !errors.Is(err, context.Canceled) {
				t.Errorf("workers: %v", err)
			}
		})
		owner := a.SignUp(t, "mcp-lands")
		key := a.Key(t, owner, "member")
		c := connectMCP(t, a, key)
		img := upload(t, a, owner.Session(), jpegOf(t, 64, 48), "kind", "clothes")

		started := c.ok(t, "start_develop", map[string]any{"tool": "upscale", "inputs": map[string]any{"image": img.ID}})
		var out map[string]any
		for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			out = c.ok(t, "get_develop", map[string]any{"jobId": started["jobId"]})
			if s := out["status"]; s != "queued" && s != "running" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("develop still %v after 90s", out["status"])
			}
		}
		resultID, _ := out["resultAssetId"].(string)
		if out["status"] != "done" || resultID == "" || out["resultUrl"] != a.URL+"/api/toolkit/assets/"+resultID+"/file" ||
			num(out["tokensSettled"]) != 2 || out["finishedAt"] == nil || out["error"] != nil {
			t.Fatalf("get_develop %v; want done, settled at 2 tokens, with an absolute result URL", out)
		}
		if len(c.content) != 1 {
			t.Errorf("content after the text %v; want a resource_link to the frame", c.content)
		} else if link, ok := c.content[0].(*sdk.ResourceLink); !ok || link.URI != out["resultUrl"] {
			t.Errorf("content %#v; want a resource_link to %v", c.content[0], out["resultUrl"])
		}
		req, err := http.NewRequest(http.MethodGet, out["resultUrl"].(string), nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+key.Key)
		if res := a.Send(t, req); res.Status != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "image/") {
			t.Errorf("result bytes: %d %s", res.Status, res.Header.Get("Content-Type"))
		}
		if bal := c.ok(t, "check_balance", nil); num(bal["balance"]) != 58 || num(bal["held"]) != 0 {
			t.Errorf("balance %v; want 58 spendable, nothing held", bal)
		}
		done := c.ok(t, "list_develops", map[string]any{"status": "done"})["develops"].([]any)
		if len(done) != 1 || done[0].(map[string]any)["jobId"] != started["jobId"] {
			t.Errorf("done develops %v", done)
		}
	})
}
