package mcp

import (
	"slices"

	"studio/internal/asset"
)

// The protocol versions this server speaks, and the rules that differ
// between them (DECISIONS §11):
//
//   - initialize echoes 2025-11-25, 2025-06-18 or 2025-03-26 when the
//     client offers one of them, and answers DefaultVersion otherwise (a
//     client that offers anything else decides whether it can speak it).
//   - A request after initialize names its version in the
//     MCP-Protocol-Version header; without one it is taken as 2025-03-26,
//     as the Streamable HTTP transport of 2025-06-18 says a server should.
//   - JSON-RPC batches are accepted only under 2025-03-26: 2025-06-18
//     removed them and 2025-11-25 did not bring them back.
//   - Arguments that do not match a tool's inputSchema (a member of the
//     wrong JSON type, a required one missing) are a protocol error
//     (-32602) up to 2025-06-18, and a tool result with isError from
//     2025-11-25 on (SEP-1303: the model sees the message and corrects).
const (
	Version20250326 = "2025-03-26"
	Version20250618 = "2025-06-18"
	Version20251125 = "2025-11-25"
	// DefaultVersion is what initialize answers a client offering a
	// version not in Versions (SPEC §9).
	DefaultVersion = Version20250618
	// assumedVersion is the version of a request without the header.
	assumedVersion = Version20250326
)

// Versions are the versions initialize echoes, newest first.
var Versions = []string{Version20251125, Version20250618, Version20250326}

// HeaderVersions are the values of the MCP-Protocol-Version header a
// request may carry: the versions initialize echoes and 2024-11-05, which
// an older client may still send. Any other value is refused with HTTP 400.
var HeaderVersions = append(slices.Clone(Versions), "2024-11-05")

// AcceptsHeaderVersion reports whether v is an MCP-Protocol-Version header
// value this server takes.
func AcceptsHeaderVersion(v string) bool { return slices.Contains(HeaderVersions, v) }

// Rules are what one request's protocol version allows.
type Rules struct {
	Version string
}

// RulesFor returns the rules of a request whose MCP-Protocol-Version header
// is header ("" when it sent none).
func RulesFor(header string) Rules {
	if header == "" {
		return Rules{Version: assumedVersion}
	}
	return Rules{Version: header}
}

// Batches reports whether a JSON-RPC batch is accepted.
func (r Rules) Batches() bool { return r.Version == Version20250326 }

// ArgumentErrorsAsResults reports whether arguments that do not match a
// tool's inputSchema are answered as a tool result with isError (true) or
// as the protocol error -32602 (false).
func (r Rules) ArgumentErrorsAsResults() bool { return r.Version >= Version20251125 }

// negotiate is the version initialize answers a client that offers v.
func negotiate(v string) string {
	if slices.Contains(Versions, v) {
		return v
	}
	return DefaultVersion
}

// MaxBody is the largest request body an endpoint should read for a caller
// with a valid credential: a 12 MB image in base64 (upload_asset's data)
// and a megabyte for the message around it.
const MaxBody = (asset.MaxBytes+2)/3*4 + 1<<20

// ErrInitializeInBatch answers an initialize sent inside a batch, which
// 2025-03-26 forbids.
var ErrInitializeInBatch = rpcError(CodeInvalidRequest, "Invalid request: initialize may not be part of a batch; send it alone.")

// ErrBatchRefused answers a batch under a version that has none.
func ErrBatchRefused(r Rules) *Error {
	return rpcError(CodeInvalidRequest, "Invalid request: batches are not part of MCP "+r.Version+
		" (2025-06-18 removed JSON-RPC batching); send one message per POST.")
}
