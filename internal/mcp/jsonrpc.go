package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
)

// JSON-RPC 2.0 error codes this server answers.
const (
	CodeParseError     = -32700 // the body is not JSON
	CodeInvalidRequest = -32600 // JSON, but not one JSON-RPC 2.0 message
	CodeMethodNotFound = -32601 // no such method
	CodeInvalidParams  = -32602 // the method's params are not what it takes
	CodeInternalError  = -32603 // the server failed; the cause is logged, never sent
)

// Error is a JSON-RPC error object: a protocol failure, never a tool
// refusal (those are results with isError true).
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// Error returns the message.
func (e *Error) Error() string { return e.Message }

func rpcError(code int, message string) *Error { return &Error{Code: code, Message: message} }

// ID is a request id exactly as the client sent it: a JSON string or
// number. The zero ID encodes as null, the id of an answer to a message
// whose own id could not be read.
type ID json.RawMessage

// MarshalJSON writes the id as the client sent it, or null.
func (id ID) MarshalJSON() ([]byte, error) {
	if len(id) == 0 {
		return []byte("null"), nil
	}
	return id, nil
}

// JSONSchemaBytes documents the id for the OpenAPI document.
func (ID) JSONSchemaBytes() ([]byte, error) {
	return []byte(`{"type":["string","integer","null"],"description":"The request's id, echoed; null when it could not be read."}`), nil
}

// Kind tells the three JSON-RPC message kinds apart.
type Kind uint8

const (
	KindRequest      Kind = iota + 1 // method and id: answered with a response
	KindNotification                 // method, no id: never answered
	KindReply                        // id and result or error, no method: a client's answer, never answered
)

// Message is one decoded JSON-RPC 2.0 message.
type Message struct {
	Kind   Kind
	ID     ID              // set for requests and replies
	Method string          // set for requests and notifications
	Params json.RawMessage // the raw params, nil when absent or null
}

// envelope is a message's members as encoding/json reads them; a member is
// present when its raw value is non-empty (a JSON null reads as "null").
type envelope struct {
	JSONRPC json.RawMessage `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  json.RawMessage `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// Split reads a POST body as JSON-RPC 2.0 wants it read: one message, or
// (batch true) a JSON array of them (a batch, which only MCP 2025-03-26
// allows: the caller decides, see Rules). A body that is not JSON is a parse
// error; an empty array is an invalid request. Each element is still to be
// decoded with Decode.
//
// A single message is handed on unread (Decode reads it once: a body may
// carry a 12 MB image in base64, and every pass over it counts).
func Split(body []byte) (parts []json.RawMessage, batch bool, err *Error) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 || body[0] != '[' {
		return []json.RawMessage{body}, false, nil
	}
	if !json.Valid(body) {
		return nil, false, rpcError(CodeParseError, "Parse error: the body is not valid JSON.")
	}
	if json.Unmarshal(body, &parts) != nil || len(parts) == 0 {
		return nil, true, rpcError(CodeInvalidRequest, "Invalid request: a batch is a non-empty array of JSON-RPC 2.0 messages.")
	}
	return parts, true, nil
}

// Decode reads one JSON-RPC 2.0 message from a request body or from one
// element of a batch. A body that is not JSON is a parse error; a JSON
// array (a batch in a batch, or a batch Split did not take apart) and
// anything that is not one well-formed message are invalid requests. On an
// invalid request whose id could be read, the returned Message carries
// that id so the answer can echo it.
func Decode(body []byte) (Message, *Error) {
	body = bytes.TrimSpace(body)
	parseError := rpcError(CodeParseError, "Parse error: the body is not valid JSON.")
	var env envelope
	switch {
	case len(body) > 0 && body[0] == '{':
		// One pass: the object is checked as it is read.
		if err := json.Unmarshal(body, &env); err != nil {
			if _, syntax := errors.AsType[*json.SyntaxError](err); syntax || !json.Valid(body) {
				return Message{}, parseError
			}
			return Message{}, rpcError(CodeInvalidRequest, "Invalid request: the body must be a JSON-RPC 2.0 message object.")
		}
	case !json.Valid(body):
		return Message{}, parseError
	case body[0] == '[':
		return Message{}, rpcError(CodeInvalidRequest, "Invalid request: a batch is not accepted here; send one message per POST.")
	default:
		return Message{}, rpcError(CodeInvalidRequest, "Invalid request: the body must be a JSON-RPC 2.0 message object.")
	}
	var m Message
	hasID := len(env.ID) > 0
	if hasID {
		id, ok := readID(env.ID)
		if !ok {
			return Message{}, rpcError(CodeInvalidRequest, "Invalid request: id must be a string or an integer.")
		}
		m.ID = id
	}
	var version string
	if json.Unmarshal(env.JSONRPC, &version) != nil || version != "2.0" {
		return m, rpcError(CodeInvalidRequest, `Invalid request: jsonrpc must be "2.0".`)
	}
	if len(env.Params) > 0 && !isNull(env.Params) {
		m.Params = env.Params
	}
	if len(env.Method) == 0 {
		if hasID && (len(env.Result) > 0 || len(env.Error) > 0) {
			m.Kind = KindReply
			return m, nil
		}
		return m, rpcError(CodeInvalidRequest, "Invalid request: method is required.")
	}
	if json.Unmarshal(env.Method, &m.Method) != nil || m.Method == "" {
		return m, rpcError(CodeInvalidRequest, "Invalid request: method must be a non-empty string.")
	}
	if hasID {
		m.Kind = KindRequest
	} else {
		m.Kind = KindNotification
	}
	return m, nil
}

// readID returns raw as an id when it is one MCP allows: a string or an
// integer (JSON-RPC's null id is refused by MCP). A string is encoded
// afresh, so that the id echoed is valid UTF-8 whatever bytes it came in.
func readID(raw json.RawMessage) (ID, bool) {
	switch raw[0] {
	case '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil, false
		}
		b, err := json.Marshal(s)
		return ID(b), err == nil
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return ID(raw), !bytes.ContainsAny(raw, ".eE")
	}
	return nil, false
}

func isNull(raw json.RawMessage) bool { return bytes.Equal(raw, []byte("null")) }

// Response is one JSON-RPC 2.0 answer: a result or an error.
type Response struct {
	JSONRPC string `json:"jsonrpc" enum:"2.0"`
	ID      ID     `json:"id"`
	Result  any    `json:"result,omitempty" description:"The method's result; absent on an error."`
	Error   *Error `json:"error,omitempty" description:"A protocol error; absent on success. Tool refusals are results with isError true."`
}

// Success answers a request with its result.
func Success(id ID, result any) Response { return Response{JSONRPC: "2.0", ID: id, Result: result} }

// Failure answers a request with a protocol error.
func Failure(id ID, e *Error) Response { return Response{JSONRPC: "2.0", ID: id, Error: e} }
