// Package mcp is the studio's MCP server (SPEC §4.2): JSON-RPC 2.0 over
// Streamable HTTP in its simplest form, one POST in and one JSON object out.
// It answers initialize, ping, tools/list and tools/call; its six tools call
// the same service methods as their HTTP twins, so roles, prices and
// tenancy cannot drift. A tool's refusal is a result with isError true and
// structuredContent {error: "<CODE>: <message>"}, never a protocol error.
//
// The HTTP adapter (httpapi) reads the body, checks the credential of the
// methods that need one and calls Handle; this package never sees HTTP.
package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"strings"

	"studio/internal/asset"
	"studio/internal/auth"
	"studio/internal/job"
	"studio/internal/ledger"
)

// What initialize announces (SPEC §9).
const (
	// ProtocolVersion is the one protocol version initialize answers,
	// whatever version the client offers: newer clients fall back to it,
	// and older ones (2025-03-26, 2024-11-05) get results whose newer
	// members (structuredContent, outputSchema, title) they ignore.
	ProtocolVersion = "2025-06-18"
	ServerName      = "fashion-imagery-studio"
	ServerTitle     = "Fashion Imagery Studio"
	ServerVersion   = "1.0.0"
)

// HeaderVersions are the values of the MCP-Protocol-Version header a
// request may carry; any other value is refused with HTTP 400.
var HeaderVersions = []string{"2025-06-18", "2025-03-26", "2024-11-05"}

// AcceptsHeaderVersion reports whether v is an MCP-Protocol-Version header
// value this server takes.
func AcceptsHeaderVersion(v string) bool { return slices.Contains(HeaderVersions, v) }

// Public reports whether a method needs no credential (SPEC §5.6).
func Public(method string) bool { return method == "initialize" || method == "ping" }

// Instructions tell an agent how to use the tools; initialize returns them.
const Instructions = "Fashion Imagery Studio develops fashion frames (packshots, try-ons, upscales and more) " +
	"from a house's image library, priced in tokens. Call list_capabilities for the tools and their price per " +
	"resolution, check_balance for the spendable tokens and list_assets for asset ids. start_develop commissions " +
	`one frame from asset ids by role (for example inputs {"image": "<assetId>"}; tryon takes model and garment) ` +
	"and holds its price; send an idempotencyKey so that a retry never pays twice. Nothing is pushed: poll " +
	"get_develop until its status is done, failed or cancelled; list_develops shows recent work. A refusal is a " +
	`result with isError true and structuredContent {"error": "<CODE>: <message>"}; switch on the code before ` +
	"the colon. A refused or failed develop charges nothing."

// Options are the services the tools call and what the server needs of
// its host.
type Options struct {
	Jobs   *job.Service    // start_develop, get_develop, list_develops, list_capabilities
	Ledger *ledger.Service // check_balance
	Assets *asset.Service  // list_assets
	// Wake tells this process's workers that a develop was queued; nil
	// when there are none.
	Wake func()
	// Log returns the logger of the request in ctx; nil is slog.Default.
	// Internal failures are logged once, here, and never sent.
	Log func(ctx context.Context) *slog.Logger
}

// Server answers MCP requests.
type Server struct {
	opts  Options
	tools []*tool
}

// New returns the server.
func New(opts Options) *Server {
	if opts.Log == nil {
		opts.Log = func(context.Context) *slog.Logger { return slog.Default() }
	}
	return &Server{opts: opts, tools: tools()}
}

// Handle answers one request. p is the caller; it is the zero Principal
// for a Public method, which never reads it.
func (s *Server) Handle(ctx context.Context, p auth.Principal, m Message) Response {
	known := Public(m.Method) || m.Method == "tools/list" || m.Method == "tools/call"
	if !known {
		return Failure(m.ID, rpcError(CodeMethodNotFound, "Method not found: "+clip(m.Method)+". This server answers initialize, ping, tools/list and tools/call."))
	}
	if m.Params != nil && m.Params[0] != '{' {
		return Failure(m.ID, rpcError(CodeInvalidParams, "Invalid params: params must be a JSON object."))
	}
	switch m.Method {
	case "initialize":
		return s.initialize(m)
	case "ping":
		return Success(m.ID, struct{}{})
	case "tools/list":
		return Success(m.ID, toolsList{Tools: s.listed()})
	default:
		return s.call(ctx, p, m)
	}
}

// clip shortens a client's string for an error message.
func clip(s string) string {
	if len(s) > 64 {
		return s[:64] + "..."
	}
	return s
}

type initializeParams struct {
	ProtocolVersion *string `json:"protocolVersion"`
}

type initializeResult struct {
	ProtocolVersion string       `json:"protocolVersion"`
	Capabilities    capabilities `json:"capabilities"`
	ServerInfo      serverInfo   `json:"serverInfo"`
	Instructions    string       `json:"instructions"`
}

type capabilities struct {
	Tools struct {
		ListChanged bool `json:"listChanged"`
	} `json:"tools"`
}

type serverInfo struct {
	Name    string `json:"name"`
	Title   string `json:"title"`
	Version string `json:"version"`
}

// initialize answers ProtocolVersion whatever the client offers: the
// client decides whether it can speak it.
func (s *Server) initialize(m Message) Response {
	var in initializeParams
	if m.Params == nil || json.Unmarshal(m.Params, &in) != nil || in.ProtocolVersion == nil {
		return Failure(m.ID, rpcError(CodeInvalidParams, "Invalid params: initialize needs params.protocolVersion, a string."))
	}
	return Success(m.ID, initializeResult{
		ProtocolVersion: ProtocolVersion,
		ServerInfo:      serverInfo{Name: ServerName, Title: ServerTitle, Version: ServerVersion},
		Instructions:    Instructions,
	})
}

type toolsList struct {
	Tools []listedTool `json:"tools"`
}

type listedTool struct {
	Name         string      `json:"name"`
	Title        string      `json:"title"`
	Description  string      `json:"description"`
	InputSchema  schema      `json:"inputSchema"`
	OutputSchema schema      `json:"outputSchema"`
	Annotations  annotations `json:"annotations"`
}

type annotations struct {
	Title           string `json:"title"`
	ReadOnlyHint    bool   `json:"readOnlyHint"`
	DestructiveHint bool   `json:"destructiveHint"`
	IdempotentHint  bool   `json:"idempotentHint"`
	OpenWorldHint   bool   `json:"openWorldHint"`
}

func (s *Server) listed() []listedTool {
	out := make([]listedTool, len(s.tools))
	for i, t := range s.tools {
		out[i] = listedTool{
			Name: t.name, Title: t.title, Description: t.description,
			InputSchema: t.input, OutputSchema: output(t.output),
			Annotations: annotations{Title: t.title, ReadOnlyHint: t.readOnly, IdempotentHint: t.readOnly},
		}
	}
	return out
}

type callParams struct {
	Name      *string         `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// CallResult is what tools/call always answers, a refusal included.
type CallResult struct {
	Content           []TextContent `json:"content"`
	StructuredContent any           `json:"structuredContent"`
	IsError           bool          `json:"isError"`
}

// TextContent is the text rendering of a result: its structuredContent as JSON.
type TextContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// call runs a tool. An unknown tool name is a protocol error (-32602), as
// MCP specifies and as the SDK clients report it; everything the tool
// itself refuses is a result with isError true.
func (s *Server) call(ctx context.Context, p auth.Principal, m Message) Response {
	var in callParams
	if m.Params == nil || json.Unmarshal(m.Params, &in) != nil || in.Name == nil {
		return Failure(m.ID, rpcError(CodeInvalidParams, "Invalid params: tools/call needs params.name, a string."))
	}
	t := s.tool(*in.Name)
	if t == nil {
		return Failure(m.ID, rpcError(CodeInvalidParams, "Unknown tool: "+clip(*in.Name)+". Tools: "+strings.Join(s.names(), ", ")+"."))
	}
	args := bytes.TrimSpace(in.Arguments)
	if isNull(args) {
		args = nil
	}
	if args != nil && args[0] != '{' {
		return Failure(m.ID, rpcError(CodeInvalidParams, "Invalid params: params.arguments must be a JSON object."))
	}
	out, err := t.run(s, ctx, p, args)
	if err != nil {
		return Success(m.ID, s.refuse(ctx, t.name, err))
	}
	return Success(m.ID, result(out, false))
}

// result renders a tool's answer: the structured value and its JSON text.
func result(v any, isError bool) CallResult {
	text, err := json.Marshal(v)
	if err != nil { // the tools answer plain structs and maps
		text = []byte("{}")
	}
	return CallResult{Content: []TextContent{{Type: "text", Text: string(text)}}, StructuredContent: v, IsError: isError}
}

func (s *Server) tool(name string) *tool {
	for _, t := range s.tools {
		if t.name == name {
			return t
		}
	}
	return nil
}

func (s *Server) names() []string {
	out := make([]string, len(s.tools))
	for i, t := range s.tools {
		out[i] = t.name
	}
	return out
}
