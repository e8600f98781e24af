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
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"studio/internal/asset"
	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/job"
	"studio/internal/judge"
	"studio/internal/ledger"
	"studio/internal/look"
	"studio/internal/share"
)

// What initialize announces (SPEC §9).
const (
	ServerName    = "fashion-imagery-studio"
	ServerTitle   = "Fashion Imagery Studio"
	ServerVersion = "1.0.0"
)

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
	Jobs   *job.Service    // the develop tools, list_capabilities, get_verdict's frame
	Ledger *ledger.Service // check_balance
	Assets *asset.Service  // list_assets, upload_asset, get_asset
	Looks  *look.Service   // the look tools, develop_lookbook
	Judge  *judge.Service  // get_verdict
	Shares *share.Service  // share_frames, get_asset's preview
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

// wake tells this process's workers that develops were queued.
func (s *Server) wake() {
	if s.opts.Wake != nil {
		s.opts.Wake()
	}
}

// Handle answers one request under the rules of its protocol version. p
// is the caller; it is the zero Principal for a Public method, which never
// reads it.
func (s *Server) Handle(ctx context.Context, p auth.Principal, rules Rules, m Message) Response {
	known := Public(m.Method) || m.Method == "tools/list" || m.Method == "tools/call"
	if !known {
		return Failure(m.ID, rpcError(CodeMethodNotFound, "Method not found: "+clip(m.Method)+". This server answers initialize, ping, tools/list and tools/call."))
	}
	if m.Params != nil && m.Params[0] != '{' {
		return Failure(m.ID, rpcError(CodeInvalidParams, "Invalid params: params must be a JSON object."))
	}
	if m.Method != "tools/call" { // tools/call reads its _meta with its name, in one pass
		if e := checkMeta(m.Params); e != nil {
			return Failure(m.ID, e)
		}
	}
	switch m.Method {
	case "initialize":
		return s.initialize(m)
	case "ping":
		return Success(m.ID, struct{}{})
	case "tools/list":
		return s.list(m)
	default:
		return s.call(ctx, p, rules, m)
	}
}

// checkMeta refuses a params._meta that is not an object (every method's
// params may carry one; this server reads none).
func checkMeta(params json.RawMessage) *Error {
	if params == nil {
		return nil
	}
	var in struct {
		Meta json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(params, &in) != nil {
		return rpcError(CodeInvalidParams, "Invalid params: params must be a JSON object.")
	}
	if meta := bytes.TrimSpace(in.Meta); len(meta) > 0 && !isNull(meta) && meta[0] != '{' {
		return rpcError(CodeInvalidParams, "Invalid params: params._meta must be an object.")
	}
	return nil
}

// clip shortens a client's string for an error message.
func clip(s string) string {
	if len(s) > 64 {
		return s[:64] + "..."
	}
	return s
}

type initializeParams struct {
	ProtocolVersion json.RawMessage `json:"protocolVersion"`
	Capabilities    json.RawMessage `json:"capabilities"`
	ClientInfo      json.RawMessage `json:"clientInfo"`
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

// initialize answers the version the client offers when it is one of
// Versions, else DefaultVersion: the client decides whether it can speak
// it. params.protocolVersion must be a string, and capabilities and
// clientInfo objects when they are sent.
func (s *Server) initialize(m Message) Response {
	var in initializeParams
	var offered string
	if m.Params == nil || json.Unmarshal(m.Params, &in) != nil || isNull(bytes.TrimSpace(in.ProtocolVersion)) ||
		json.Unmarshal(in.ProtocolVersion, &offered) != nil {
		return Failure(m.ID, rpcError(CodeInvalidParams, "Invalid params: initialize needs params.protocolVersion, a string."))
	}
	for name, raw := range map[string]json.RawMessage{"capabilities": in.Capabilities, "clientInfo": in.ClientInfo} {
		if raw = bytes.TrimSpace(raw); len(raw) > 0 && raw[0] != '{' {
			return Failure(m.ID, rpcError(CodeInvalidParams, "Invalid params: params."+name+" must be an object."))
		}
	}
	return Success(m.ID, initializeResult{
		ProtocolVersion: negotiate(offered),
		ServerInfo:      serverInfo{Name: ServerName, Title: ServerTitle, Version: ServerVersion},
		Instructions:    Instructions,
	})
}

type listParams struct {
	Cursor json.RawMessage `json:"cursor"`
}

// list answers tools/list: every tool on one page. This server issues no
// cursor, so any cursor sent is not one of its own: -32602.
func (s *Server) list(m Message) Response {
	var in listParams
	if m.Params != nil {
		if err := json.Unmarshal(m.Params, &in); err != nil {
			return Failure(m.ID, rpcError(CodeInvalidParams, "Invalid params: params must be a JSON object."))
		}
	}
	if c := bytes.TrimSpace(in.Cursor); len(c) > 0 && !isNull(c) {
		return Failure(m.ID, rpcError(CodeInvalidParams, "Invalid params: the cursor is not one this server issued; tools/list answers every tool on one page."))
	}
	return Success(m.ID, toolsList{Tools: s.listed()})
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
			Name: t.name, Title: t.title, Description: t.description + s.priceLine(t.priced),
			InputSchema: t.input, OutputSchema: output(t.output),
			Annotations: annotations{Title: t.title, ReadOnlyHint: t.readOnly, DestructiveHint: t.destructive,
				IdempotentHint: t.readOnly || t.idempotent},
		}
	}
	return out
}

// priceLine states the live prices of a catalog tool per quality, as the
// billing catalog lists them ("" for none): the sentence a spending tool's
// description ends with, so tools/list and the catalog agree.
func (s *Server) priceLine(tool string) string {
	if tool == "" || s.opts.Jobs == nil {
		return ""
	}
	c := s.opts.Jobs.Catalog()
	prices := ledger.TierPrices{K1: c.DefaultPrice, K2: c.DefaultPrice, K4: c.DefaultPrice}
	for _, row := range c.Tools {
		if row.Tool == tool {
			prices = row.Prices
		}
	}
	return fmt.Sprintf(" Price per frame, as the billing catalog lists %s: %d tokens at 1k, %d at 2k, %d at 4k.",
		tool, prices.At(ledger.Tier1K), prices.At(ledger.Tier2K), prices.At(ledger.Tier4K))
}

type callParams struct {
	Name      *string         `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Meta      json.RawMessage `json:"_meta"`
}

// CallResult is what tools/call always answers, a refusal included.
type CallResult struct {
	Content           []Content `json:"content"`
	StructuredContent any       `json:"structuredContent"`
	IsError           bool      `json:"isError"`
}

// Content is one block of a result: text (always first: the
// structuredContent as JSON), an image (a preview), or a resource_link (a
// developed frame, from protocol 2025-06-18 on).
type Content struct {
	Type        string `json:"type" enum:"text,image,resource_link"`
	Text        string `json:"text,omitempty"`
	Data        string `json:"data,omitempty" description:"An image's bytes, base64."`
	MimeType    string `json:"mimeType,omitempty"`
	URI         string `json:"uri,omitempty" description:"A resource_link's URL: fetch it with the same key."`
	Name        string `json:"name,omitempty"`
	Description string `json:"description,omitempty"`
}

// contented is a tool's answer that carries content blocks beside its
// text: a preview image, a link to a developed frame.
type contented interface {
	content(r Rules) []Content
}

// call runs a tool. An unknown tool name is a protocol error (-32602), as
// MCP specifies and as the SDK clients report it; so are arguments that do
// not match the tool's inputSchema, up to 2025-06-18 (Rules). Everything
// else the tool refuses is a result with isError true.
func (s *Server) call(ctx context.Context, p auth.Principal, rules Rules, m Message) Response {
	var in callParams
	if m.Params == nil || json.Unmarshal(m.Params, &in) != nil || in.Name == nil {
		return Failure(m.ID, rpcError(CodeInvalidParams, "Invalid params: tools/call needs params.name, a string."))
	}
	if meta := bytes.TrimSpace(in.Meta); len(meta) > 0 && !isNull(meta) && meta[0] != '{' {
		return Failure(m.ID, rpcError(CodeInvalidParams, "Invalid params: params._meta must be an object."))
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
		if errors.Is(err, ErrBadArguments) && !rules.ArgumentErrorsAsResults() {
			e, _ := errs.As(err)
			return Failure(m.ID, rpcError(CodeInvalidParams, "Invalid params: the arguments of "+t.name+" do not match its inputSchema: "+e.Message))
		}
		return Success(m.ID, s.refuse(ctx, t, err))
	}
	res := result(out, false)
	if c, ok := out.(contented); ok {
		res.Content = append(res.Content, c.content(rules)...)
	}
	return Success(m.ID, res)
}

// result renders a tool's answer: the structured value and its JSON text.
func result(v any, isError bool) CallResult {
	text, err := json.Marshal(v)
	if err != nil { // the tools answer plain structs and maps
		text = []byte("{}")
	}
	return CallResult{Content: []Content{{Type: "text", Text: string(text)}}, StructuredContent: json.RawMessage(text), IsError: isError}
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
