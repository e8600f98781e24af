package httpapi

import (
	"errors"
	"io"
	"net/http"

	"github.com/swaggest/jsonschema-go"

	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/mcp"
)

// The MCP endpoint (SPEC §4.2) speaks Streamable HTTP in its simplest form:
// one POST in, one JSON answer out. Its choices:
//
//   - The route is Public: initialize and ping need no credential (and
//     ignore one that is sent); every other request needs an API key or a
//     session, checked here, and is answered 401 with our error body without
//     one. A session's POST must carry our Origin, as on every route.
//   - A notification (no id), and a client's reply to a request of ours
//     (we send none), is answered 202 with an empty body; no credential is
//     asked for, as nothing is done.
//   - The request's protocol version is its MCP-Protocol-Version header, or
//     2025-03-26 without one (mcp.RulesFor). Under 2025-03-26 a JSON-RPC
//     batch is answered with an array of the answers to its requests (202
//     when it holds none); initialize may not be part of one. Under later
//     versions a batch is -32600.
//   - Protocol errors are JSON-RPC error objects in an HTTP 200 answer:
//     malformed JSON -32700, anything that is not a message -32600, an
//     unknown method -32601, bad params -32602 (also an unknown tool name,
//     and arguments that do not match a tool's inputSchema up to
//     2025-06-18). Tool refusals are results with isError true.
//   - An MCP-Protocol-Version header other than those mcp.HeaderVersions
//     lists is answered 400 BAD_PROTOCOL_VERSION, except on a lone
//     initialize, whose version is negotiated in its body.
//   - A body is at most 1 MiB, or mcp.MaxBody (a 12 MB image in base64 for
//     upload_asset, and the message around it) when the request carries a
//     valid credential; beyond, 413 BODY_TOO_LARGE. The Accept and
//     Content-Type headers are not checked. GET and DELETE are 405 (no SSE
//     stream, no sessions): the mux's unmatched handler answers them with
//     Allow: POST.

// ErrBadProtocolVersion refuses an MCP-Protocol-Version header this server does not speak.
var ErrBadProtocolVersion = errs.With(errs.New(errs.KindInvalid, "BAD_PROTOCOL_VERSION",
	"The MCP-Protocol-Version header names a version this server does not speak."), "supported", mcp.HeaderVersions)

const mcpSummary = "MCP server: JSON-RPC 2.0, one message per POST, or a batch under protocol 2025-03-26 " +
	"(initialize and ping need no credential; every other method an API key or session)"

// mcpEndpoint builds the MCP server on the services the HTTP twins of its
// tools use, and returns the handler of POST /api/mcp.
func (s *Server) mcpEndpoint() appHandler {
	srv := mcp.New(mcp.Options{
		Jobs: s.svc.Jobs, Ledger: s.svc.Ledger, Assets: s.svc.Assets, Looks: s.svc.Looks, Judge: s.svc.Judge, Shares: s.svc.Shares,
		Wake: s.wakeWorkers, Log: logFor,
	})
	return func(w http.ResponseWriter, r *http.Request) error {
		// A credential, when one is sent, is read before the body: a valid
		// one admits a body as large as an upload; its error is answered
		// only if a method needs it (initialize ignores a bad key).
		limit, p, authErr := int64(MaxJSON), auth.Principal{}, error(errs.Unauthorized)
		if r.Header.Get("Authorization") != "" || hasCookie(r, SessionCookie) {
			if p, _, authErr = s.principal(w, r, KeyOrSession); authErr == nil {
				limit = mcp.MaxBody
			}
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
		if err != nil {
			if errors.As(err, new(*http.MaxBytesError)) {
				return errs.BodyTooLarge
			}
			return errs.Wrap(errs.Msg(errs.BadBody, "The request body could not be read."), err)
		}
		if err := checkUTF8(body); err != nil {
			return err
		}
		header := r.Header.Get("MCP-Protocol-Version")
		rules := mcp.RulesFor(header)
		parts, batch, rpcErr := mcp.Split(body)
		if rpcErr != nil {
			return encode(w, http.StatusOK, mcp.Failure(nil, rpcErr))
		}
		if batch && !rules.Batches() {
			return encode(w, http.StatusOK, mcp.Failure(nil, mcp.ErrBatchRefused(rules)))
		}
		msgs := make([]mcp.Message, len(parts))
		fails := make([]*mcp.Error, len(parts))
		needsKey, onlyInitialize := false, !batch
		for i, part := range parts {
			msgs[i], fails[i] = mcp.Decode(part)
			m := msgs[i]
			switch {
			case fails[i] != nil:
			case batch && m.Method == "initialize" && m.Kind == mcp.KindRequest:
				fails[i] = mcp.ErrInitializeInBatch
			case m.Kind == mcp.KindRequest && !mcp.Public(m.Method):
				needsKey = true
			}
			if fails[i] != nil || m.Method != "initialize" {
				onlyInitialize = false
			}
		}
		if header != "" && !onlyInitialize && !mcp.AcceptsHeaderVersion(header) {
			return ErrBadProtocolVersion
		}
		if needsKey {
			if authErr != nil {
				return authErr
			}
			if i := info(r.Context()); i != nil {
				i.house = p.HouseID
			}
		}
		var answers []mcp.Response
		for i, m := range msgs {
			switch {
			case fails[i] != nil:
				answers = append(answers, mcp.Failure(m.ID, fails[i]))
			case m.Kind == mcp.KindRequest:
				caller := auth.Principal{}
				if !mcp.Public(m.Method) {
					caller = p
				}
				answers = append(answers, srv.Handle(r.Context(), caller, rules, m))
			}
		}
		switch {
		case len(answers) == 0:
			w.WriteHeader(http.StatusAccepted)
			return nil
		case batch:
			return encode(w, http.StatusOK, answers)
		}
		return encode(w, http.StatusOK, answers[0])
	}
}

// hasCookie reports whether the request carries a non-empty cookie name.
func hasCookie(r *http.Request, name string) bool {
	c, err := r.Cookie(name)
	return err == nil && c.Value != ""
}

// MCPReply documents the endpoint's 200 answer: one JSON-RPC response, or
// under protocol 2025-03-26 the array answering a batch.
type MCPReply struct{}

// JSONSchemaOneOf names the two shapes.
func (MCPReply) JSONSchemaOneOf() []any { return []any{mcp.Response{}, []mcp.Response{}} }

// PrepareJSONSchema drops the object type the reflector gives a struct:
// the answer is an object or an array.
func (MCPReply) PrepareJSONSchema(s *jsonschema.Schema) error {
	s.Type = nil
	return nil
}

// mcpRoutes are the routes of MCP (SPEC §4.2).
func (s *Server) mcpRoutes() []Route {
	return []Route{
		// MCP (SPEC §4.2): initialize and ping are public; the handler asks every other method for a key or session (mcp.go).
		{Method: "POST", Path: "/api/mcp", Class: Public, Tag: "mcp", Summary: mcpSummary,
			Out:    []Out{{Status: 200, Body: MCPReply{}}, {Status: 202}},
			Errors: []*errs.Error{ErrBadProtocolVersion, errs.Unauthorized, ErrBadOrigin, errs.BodyTooLarge, errs.BadBody, errs.RequestTimeout}, Handler: s.mcpEndpoint()},
	}
}
