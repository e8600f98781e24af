package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/job"
	"studio/internal/ledger"
	"studio/internal/text"
)

// tool is one MCP tool: what tools/list tells of it and what runs it.
type tool struct {
	name, title, description string
	input                    schema
	output                   schema // the success shape; tools/list adds the refusal branch
	readOnly                 bool
	destructive              bool // it may undo or end something (annotations.destructiveHint)
	idempotent               bool // calling it again with the same arguments changes nothing more
	run                      func(s *Server, ctx context.Context, p auth.Principal, args json.RawMessage) (any, error)
	// notFound is the refusal of an id the tool is asked about that is not
	// one of the house's (nil: the service's own).
	notFound *errs.Error
	// internal answers an error of ours (nil: INTERNAL).
	internal *errs.Error
	// spends names what the tool holds tokens for, in an
	// INSUFFICIENT_TOKENS message ("The develop").
	spends string
	// priced names the billing catalog's tool whose prices the
	// description states, read live when tools/list answers.
	priced string
}

// Limits of the list tools (SPEC §8).
const (
	AssetsDefault   = 50
	AssetsMax       = 200
	DevelopsDefault = 20
	DevelopsMax     = 100
)

// Codes the tools raise besides their services' own.
var (
	// ErrBadArguments refuses arguments of the wrong type.
	ErrBadArguments = errs.New(errs.KindInvalid, "BAD_ARGUMENTS", "The arguments do not match the tool's inputSchema.")
	// ErrBadStatus refuses a list_develops status that is not a job status.
	ErrBadStatus = errs.Msg(errs.BadStatus, "status must be queued, running, done, failed or cancelled.")
	// ErrEnqueueFailed answers any failure of start_develop on our side:
	// nothing was written or charged.
	ErrEnqueueFailed = errs.New(errs.KindInternal, "ENQUEUE_FAILED", "The develop could not be queued; nothing was charged and it is safe to retry.")
)

const capabilitiesNote = "Prices are tokens per frame at each resolution (long edge 1k = 1,024 px, 2k = 2,048 px, " +
	"4k = 4,096 px); start_develop's quality picks the resolution. A tool with no price rows charges the default of " +
	"5 tokens. The listed price is the price that settles; a failed or cancelled develop charges nothing."

// order is the order tools/list gives the tools: SPEC §4.2's six, then
// DECISIONS §11's.
var order = []string{
	"list_capabilities", "check_balance", "list_assets", "start_develop", "get_develop", "list_develops",
	"upload_asset", "cancel_develop", "preflight_develop", "create_look", "get_look", "develop_look", "lock_look",
	"develop_variations", "get_verdict", "share_frames", "get_asset", "develop_lookbook",
}

// tools lists the tools in order.
func tools() []*tool {
	all := slices.Concat(developTools(), libraryTools(), lookTools())
	slices.SortStableFunc(all, func(a, b *tool) int {
		return slices.Index(order, a.name) - slices.Index(order, b.name)
	})
	return all
}

// decodeArgs reads a tool's arguments into T: absent arguments are the
// zero T, unknown members are ignored, a member of the wrong type is
// BAD_ARGUMENTS naming it.
func decodeArgs[T any](raw json.RawMessage) (T, error) {
	var v T
	if raw == nil {
		return v, nil
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) && typeErr.Field != "" {
			return v, errs.Msg(ErrBadArguments, "The argument "+typeErr.Field+" has the wrong type; see the tool's inputSchema.")
		}
		return v, ErrBadArguments
	}
	if !text.CleanJSON(raw) {
		return v, errs.Msg(ErrBadArguments, "Arguments must be text without control characters.")
	}
	return v, nil
}

// limitArg reads a limit: absent or null is def; a value that is not a
// whole JSON number is BAD_ARGUMENTS (its schema says integer); a whole
// number outside 1 to hi is BAD_LIMIT.
func limitArg(raw json.RawMessage, def, hi int) (int, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || isNull(raw) {
		return def, nil
	}
	var f float64
	if json.Unmarshal(raw, &f) != nil || f != math.Trunc(f) {
		return 0, errs.Msg(ErrBadArguments, "The argument limit must be a whole number.")
	}
	if f < 1 || f > float64(hi) {
		return 0, errs.Msg(job.ErrBadLimit, fmt.Sprintf("limit must be a whole number from 1 to %d.", hi))
	}
	return int(f), nil
}

// stringParams reads params, whose schema says every value is a string:
// a string is kept, null drops the name (as an absent argument), and any
// other JSON type is BAD_ARGUMENTS naming the member.
func stringParams(in map[string]json.RawMessage) (map[string]string, error) {
	out := make(map[string]string, len(in))
	for k, raw := range in {
		raw = bytes.TrimSpace(raw)
		if isNull(raw) {
			continue
		}
		var v string
		if raw[0] != '"' || json.Unmarshal(raw, &v) != nil {
			return nil, errs.Msg(ErrBadArguments, "params."+clip(k)+" must be a string (send numbers and booleans as text, e.g. \"7\").")
		}
		out[k] = v
	}
	return out, nil
}

// refuse turns a tool's error into its refusal: structuredContent
// {error: "<CODE>: <message>", code, message, and the fields the HTTP
// route's error body carries (need, spendable, held, legal, max, maxMb...)},
// its text the same JSON, the error first. A not-found of the tool's key is
// the tool's own (t.notFound: ASSET_NOT_FOUND for assets, NOT_FOUND with a
// sentence for the rest); another house's id answers exactly as a missing
// one. An error of ours is logged here, once, and answered without its
// text: t.internal (ENQUEUE_FAILED on start_develop: nothing was charged),
// INTERNAL elsewhere.
func (s *Server) refuse(ctx context.Context, t *tool, err error) CallResult {
	e, ok := errs.As(err)
	if !ok || e.Kind == errs.KindInternal {
		if !errors.Is(err, context.Canceled) {
			s.opts.Log(ctx).ErrorContext(ctx, "mcp tool failed", "tool", t.name, "err", err)
		}
		e = errs.Internal
		if t.internal != nil {
			e = t.internal
		}
	} else if e.Err != nil {
		s.opts.Log(ctx).WarnContext(ctx, "mcp tool refused", "tool", t.name, "code", e.Code, "err", e.Err)
	}
	code, msg := e.Code, e.Message
	switch {
	case e.Kind == errs.KindNotFound && t.notFound != nil && (e.Code == errs.NotFound.Code || t.notFound.Code == e.Code):
		code, msg = t.notFound.Code, t.notFound.Message
	case errors.Is(e, job.ErrNoImage) || errors.Is(e, job.ErrEmptyImage):
		code = job.ErrNoInputs.Code
	case errors.Is(e, ledger.ErrInsufficientTokens) && e.Fields["need"] != nil && e.Fields["spendable"] != nil && e.Fields["held"] != nil:
		msg = fmt.Sprintf("%s needs %v tokens; the house can spend %v and already holds %v for develops in flight.",
			t.spends, e.Fields["need"], e.Fields["spendable"], e.Fields["held"])
	case errors.Is(e, job.ErrUnknownTool):
		msg = strings.TrimSuffix(msg, ".") + "; list_capabilities names the tools."
	}
	return refusalResult(code, msg, e.Fields)
}

// refusalResult renders a refusal's JSON with the error first, then code and
// message, then the fields in sorted order.
func refusalResult(code, msg string, fields map[string]any) CallResult {
	var b bytes.Buffer
	put := func(k string, v any) {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		key, _ := json.Marshal(k)
		val, err := json.Marshal(v)
		if err != nil {
			val = []byte("null")
		}
		b.Write(key)
		b.WriteByte(':')
		b.Write(val)
	}
	put("error", code+": "+msg)
	put("code", code)
	put("message", msg)
	keys := make([]string, 0, len(fields))
	for k := range fields {
		if k != "error" && k != "code" && k != "message" {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		put(k, fields[k])
	}
	text := "{" + b.String() + "}"
	return CallResult{Content: []Content{{Type: "text", Text: text}}, StructuredContent: json.RawMessage(text), IsError: true}
}
