package httpapi

import (
	"errors"
	"io"
	"net/http"

	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/mcp"
)

// The MCP endpoint (SPEC §4.2) speaks Streamable HTTP in its simplest form:
// one JSON-RPC message per POST, one JSON object back. Its choices:
//
//   - The route is Public: initialize and ping need no credential (and
//     ignore one that is sent); every other request needs an API key or a
//     session, checked here, and is answered 401 with our error body without
//     one. A session's POST must carry our Origin, as on every route.
//   - A notification (no id), and a client's reply to a request of ours
//     (we send none), is answered 202 with an empty body; no credential is
//     asked for, as nothing is done.
//   - Protocol errors are JSON-RPC error objects in an HTTP 200 answer:
//     malformed JSON -32700, anything that is not one message -32600 (a
//     batch array too: MCP 2025-06-18 removed batching), an unknown method
//     -32601, bad params -32602 (also an unknown tool name). Tool refusals
//     are results with isError true.
//   - An MCP-Protocol-Version header other than 2025-06-18, 2025-03-26 or
//     2024-11-05 is answered 400 BAD_PROTOCOL_VERSION, except on
//     initialize, whose version is negotiated in its body.
//   - A body over 1 MiB is 413 BODY_TOO_LARGE. The Accept and Content-Type
//     headers are not checked. GET and DELETE are 405 (no SSE stream, no
//     sessions): the mux's unmatched handler answers them with Allow: POST.

// ErrBadProtocolVersion refuses an MCP-Protocol-Version header this server does not speak.
var ErrBadProtocolVersion = errs.With(errs.New(errs.KindInvalid, "BAD_PROTOCOL_VERSION",
	"The MCP-Protocol-Version header names a version this server does not speak."), "supported", mcp.HeaderVersions)

const mcpSummary = "MCP server: JSON-RPC 2.0, one message per POST (initialize and ping need no credential; " +
	"every other method an API key or session)"

// mcpEndpoint builds the MCP server on the services the HTTP twins of its
// tools use, and returns the handler of POST /api/mcp.
func (s *Server) mcpEndpoint() appHandler {
	srv := mcp.New(mcp.Options{
		Jobs: s.svc.Jobs, Ledger: s.svc.Ledger, Assets: s.svc.Assets,
		Wake: s.wakeWorkers, Log: logFor,
	})
	return func(w http.ResponseWriter, r *http.Request) error {
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxJSON))
		if err != nil {
			if errors.As(err, new(*http.MaxBytesError)) {
				return errs.BodyTooLarge
			}
			return errs.Wrap(errs.Msg(errs.BadBody, "The request body could not be read."), err)
		}
		if err := checkUTF8(body); err != nil {
			return err
		}
		m, rpcErr := mcp.Decode(body)
		if rpcErr != nil {
			return encode(w, http.StatusOK, mcp.Failure(m.ID, rpcErr))
		}
		if v := r.Header.Get("MCP-Protocol-Version"); v != "" && m.Method != "initialize" && !mcp.AcceptsHeaderVersion(v) {
			return ErrBadProtocolVersion
		}
		if m.Kind != mcp.KindRequest {
			w.WriteHeader(http.StatusAccepted)
			return nil
		}
		var p auth.Principal
		if !mcp.Public(m.Method) {
			if p, _, err = s.principal(w, r, KeyOrSession); err != nil {
				return err
			}
			if i := info(r.Context()); i != nil {
				i.house = p.HouseID
			}
		}
		return encode(w, http.StatusOK, srv.Handle(r.Context(), p, m))
	}
}

// mcpRoutes are the routes of MCP (SPEC §4.2).
func (s *Server) mcpRoutes() []Route {
	return []Route{
		// MCP (SPEC §4.2): initialize and ping are public; the handler asks every other method for a key or session (mcp.go).
		{Method: "POST", Path: "/api/mcp", Class: Public, Tag: "mcp", Summary: mcpSummary,
			Out:    []Out{{Status: 200, Body: mcp.Response{}}, {Status: 202}},
			Errors: []*errs.Error{ErrBadProtocolVersion, errs.Unauthorized, ErrBadOrigin, errs.BodyTooLarge, errs.BadBody, errs.RequestTimeout}, Handler: s.mcpEndpoint()},
	}
}
