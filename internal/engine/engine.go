package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"studio/internal/imagemem"
	"studio/internal/ledger"
	"studio/internal/tool"
)

// Shape is the width and height of an output destination. Only its aspect
// counts: a frame is composed for the shape and developed at the tier's
// pixels, never resampled to Width x Height.
type Shape struct {
	Width, Height int
}

// Input is the bytes of one house asset (jpeg, png or webp) in a role;
// AssetID names the asset, for the record of what a provider was sent.
type Input struct {
	Role    string
	Data    []byte
	AssetID string
}

// Request is one develop: a tool, its inputs by role (DECISIONS §5; "garment"
// may repeat for tryon), string options, the tier and an optional shape.
// Prompt is the direction the house gave (brand clause, standing notes, the
// frame's own prompt, direction and correction, composed by job.Director),
// which an engine passes to models that take a prompt; References ride with
// it, as pictures after the request's own to models that take several
// (Marks). The local engine reads neither: it follows only the few
// directions it declares, from params.direction (engine.Follower).
//
// Record, when set, hears what the engine sends its provider, right before
// it is sent (the local engine: what it would send); Tell calls it.
type Request struct {
	Tool       string
	Inputs     []Input
	Params     map[string]string
	Tier       ledger.Tier
	Shape      *Shape // nil keeps the input's own aspect
	Prompt     string
	References []Reference
	Record     func(Sent)
}

// Reference is a picture or text that rides with a develop (a logo
// rendition and its material, a cast model's sheet): its role, a label,
// its text, its bytes (nil for a text-only reference) and the house asset
// they are.
type Reference struct {
	Role    string
	Label   string
	Text    string
	Data    []byte
	AssetID string
}

// Sent is what a provider was asked (the local engine: what it would be
// asked): the words exactly as sent ("" for a model that takes none) and
// the pictures in the order the provider received them. It names pictures
// by role, label and house asset, never by their bytes or a URL.
type Sent struct {
	Prompt string
	Refs   []SentRef
}

// SentRef is one picture a provider received: its role ("image", "model",
// "item", "base", "mark"...), label, text (a mark's material) and asset.
type SentRef struct {
	Role    string
	Label   string
	Text    string
	AssetID string
}

// Tell hands s to r.Record, when set.
func (r Request) Tell(s Sent) {
	if r.Record != nil {
		r.Record(s)
	}
}

// Composed is what an engine that builds no prompt of its own would send:
// the direction as composed, the inputs in order, then the riding marks.
// The local engine records it as what it would send.
func (r Request) Composed() Sent {
	s := Sent{Prompt: r.Prompt, Refs: r.InputsSent()}
	for _, m := range r.Marks() {
		s.Refs = append(s.Refs, m.Sent())
	}
	return s
}

// Marks are the references that ride as pictures (those with bytes), in order.
func (r Request) Marks() []Reference {
	var out []Reference
	for _, ref := range r.References {
		if len(ref.Data) > 0 {
			out = append(out, ref)
		}
	}
	return out
}

// Sent names the input as a picture sent.
func (in Input) Sent() SentRef { return SentRef{Role: in.Role, AssetID: in.AssetID} }

// Sent names the reference as a picture sent.
func (ref Reference) Sent() SentRef {
	return SentRef{Role: ref.Role, Label: ref.Label, Text: ref.Text, AssetID: ref.AssetID}
}

// InputsSent names the request's inputs in the roles given, in order
// (every input when none is given), as pictures sent.
func (r Request) InputsSent(roles ...string) []SentRef {
	var out []SentRef
	for _, in := range r.Inputs {
		if len(roles) == 0 || slices.Contains(roles, in.Role) {
			out = append(out, in.Sent())
		}
	}
	return out
}

// Input returns the data of the first input in role, if any.
func (r Request) Input(role string) ([]byte, bool) {
	for _, in := range r.Inputs {
		if in.Role == role {
			return in.Data, true
		}
	}
	return nil, false
}

// All returns the data of every input in role, in order.
func (r Request) All(role string) [][]byte {
	var out [][]byte
	for _, in := range r.Inputs {
		if in.Role == role {
			out = append(out, in.Data)
		}
	}
	return out
}

// MemoryCost is the most memory a develop of r holds in pictures: the
// NRGBA copy of each input the tools work on (four bytes a pixel; an EXIF
// rotation makes that copy, not one more: picture.Decode; a mask is read
// as grey, one byte: DecodeMask), the decoder's
// own pixels of the one input being decoded (the tools decode their inputs
// one at a time and drop the decoder's picture once copied, so the largest
// of them), and the frame's working set at its tier (FrameCost). An
// unreadable input counts nothing (it fails at decode). Callers take it
// from the process's imagemem.Budget before Run, so the budget bounds what
// develops hold, not only what they decode (issue 32); imagemem.Govern
// lets the heap grow to what the budgets handed out, so an overcount here
// is resident memory a develop did not need.
func MemoryCost(r Request) int64 {
	var copies, decoding int64
	for _, in := range r.Inputs {
		w, h, size, err := imagemem.Decoded(in.Data)
		if err != nil {
			continue
		}
		per := int64(4)
		if in.Role == "mask" {
			per = 1
		}
		copies += int64(w) * int64(h) * per
		decoding = max(decoding, size)
	}
	return copies + decoding + FrameCost(r)
}

// WorkingFrames is how many pictures the size of the frame a develop holds
// at once beyond its inputs: its working copy, a plane of the subject's
// matte or the filter's region, and its result (measured on the local
// tools at 4k, TestPeakRSS4K).
const WorkingFrames = 3

// FrameCost is the working set of a develop of r: WorkingFrames pictures
// of its frame (FrameSize: the tier's long edge at the shape's aspect, or
// the largest input's), four bytes a pixel; the tier's square frame when
// no input can be read.
func FrameCost(r Request) int64 {
	var frame int64
	for _, in := range r.Inputs {
		iw, ih, _, err := imagemem.Decoded(in.Data)
		if err != nil {
			continue
		}
		w, h, _, _ := FrameSize(r.Tier, r.Shape, iw, ih)
		frame = max(frame, int64(w)*int64(h))
	}
	if frame == 0 {
		p := int64(r.Tier.Pixels())
		frame = p * p
	}
	return WorkingFrames * frame * 4
}

// Param returns the trimmed option name, or "" when it is absent or the
// tool does not declare it (tool.Options): an option name no tool reads is kept
// on the job but never changes what an engine does (DECISIONS §10).
func (r Request) Param(name string) string {
	if !tool.Declared(r.Tool, name) {
		return ""
	}
	return strings.TrimSpace(r.Params[name])
}

// Direction is the written direction a take or a redraw carries
// (params.direction): the service's, not a tool option, so Param does not
// answer it; "" when there is none.
func (r Request) Direction() string {
	return strings.TrimSpace(r.Params["direction"])
}

// Result is a developed frame: encoded bytes, their media type and the
// frame's pixel size. For a still image the long edge equals the tier's pixels.
type Result struct {
	Data          []byte
	Mime          string
	Width, Height int
}

// Engine performs develops. Implementations are safe for concurrent use.
type Engine interface {
	// Name is a short lowercase name for logs and capabilities ("local", "fal").
	Name() string
	// Tools lists the tools the engine can honestly perform, sorted.
	Tools() []string
	// Can reports whether tool is in Tools.
	Can(tool string) bool
	// Run performs r and blocks until it is done or ctx ends. Its errors are
	// an *Error (input or provider fault), ErrUnsupported, or one wrapping
	// ctx.Err() when ctx ended first.
	Run(ctx context.Context, r Request) (Result, error)
}

// ErrUnsupported is returned by Run for a tool the engine cannot perform.
// Callers map it to 503 FAL_NOT_CONFIGURED (image tools) or AI_NOT_CONFIGURED
// (text tools), as DECISIONS §5 says.
var ErrUnsupported = errors.New("engine: tool not supported")

// Fault says whose fault a failed run is, which decides whether a retry can help.
type Fault uint8

const (
	// FaultInput: the inputs or params are bad (undecodable image, missing
	// role, bad option, no subject to find). The job fails; a retry is futile.
	FaultInput Fault = iota + 1
	// FaultProvider: the engine or its provider failed (network, non-2xx,
	// FAILED status, bad output). A retry may succeed.
	FaultProvider
)

func (f Fault) String() string {
	switch f {
	case FaultInput:
		return "input"
	case FaultProvider:
		return "provider"
	}
	return "unknown"
}

// Error is a failed run. Reason is one plain sentence that may be shown to a
// user (it becomes the job's error); Code, when set, names the failure for
// machines (the job's errorCode); Err is the cause, for the log.
type Error struct {
	Fault  Fault
	Tool   string
	Code   string
	Reason string
	Err    error
}

func (e *Error) Error() string {
	s := "engine: " + e.Fault.String() + " fault"
	if e.Tool != "" {
		s += " in " + e.Tool
	}
	s += ": " + e.Reason
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// InputError returns an input fault of tool with a plain reason and an optional cause.
func InputError(tool, reason string, cause error) *Error {
	return &Error{Fault: FaultInput, Tool: tool, Reason: reason, Err: cause}
}

// ProviderError returns a provider fault of tool with a plain reason and an optional cause.
func ProviderError(tool, reason string, cause error) *Error {
	return &Error{Fault: FaultProvider, Tool: tool, Reason: reason, Err: cause}
}

// IsInput reports whether err is, or wraps, an input fault.
func IsInput(err error) bool {
	e, ok := errors.AsType[*Error](err)
	return ok && e.Fault == FaultInput
}

// IsProvider reports whether err is, or wraps, a provider fault.
func IsProvider(err error) bool {
	e, ok := errors.AsType[*Error](err)
	return ok && e.Fault == FaultProvider
}

// Unsupported is ErrUnsupported for tool on the named engine.
func Unsupported(engine, tool string) error {
	return fmt.Errorf("%w: %s cannot perform %q", ErrUnsupported, engine, tool)
}

// Chain returns an engine that runs each tool on the first of engines that
// can perform it, so a configured fal engine can stand in front of the local
// one. Its Tools are the union of theirs.
func Chain(engines ...Engine) Engine {
	return chain(slices.Clone(engines))
}

type chain []Engine

func (c chain) Name() string {
	names := make([]string, len(c))
	for i, e := range c {
		names[i] = e.Name()
	}
	return strings.Join(names, "+")
}

func (c chain) Tools() []string {
	var tools []string
	for _, e := range c {
		tools = append(tools, e.Tools()...)
	}
	slices.Sort(tools)
	return slices.Compact(tools)
}

func (c chain) Can(tool string) bool {
	return slices.ContainsFunc(c, func(e Engine) bool { return e.Can(tool) })
}

func (c chain) Run(ctx context.Context, r Request) (Result, error) {
	for _, e := range c {
		if e.Can(r.Tool) {
			return e.Run(ctx, r)
		}
	}
	return Result{}, Unsupported(c.Name(), r.Tool)
}

// Preflighter is an engine that can tell, before a develop is queued,
// whether it expects to deliver it (a preflight, DECISIONS §11): the
// problems it foresees with r (its inputs' bytes read), none when it
// expects to deliver. It holds, sends and stores nothing.
type Preflighter interface {
	Preflight(ctx context.Context, r Request) ([]Problem, error)
}

// Problem is what an engine foresees going wrong with a develop: a code
// (its own, upper case), a plain sentence, and the input role or option it
// is about, when it is about one.
type Problem struct {
	Code    string
	Message string
	Role    string
	Option  string
}

// Serving returns the engine within e that performs tool (for a chain,
// the first that can), or nil when none can.
func Serving(e Engine, tool string) Engine {
	if c, ok := e.(chain); ok {
		for _, x := range c {
			if s := Serving(x, tool); s != nil {
				return s
			}
		}
		return nil
	}
	if e == nil || !e.Can(tool) {
		return nil
	}
	return e
}

// Provider names, for the wire, the engine within e that performs tool:
// local, fal, image-api or fashn ("" when none can), and what the tool's
// declaration says of it on that engine when it performs it only as a
// proof or a composite (tool.Tool.Notes). The local engine's lookbook tool
// is the local engine.
func Provider(e Engine, name string) (engine, note string) {
	s := Serving(e, name)
	if s == nil {
		return "", ""
	}
	t, _ := tool.Get(name)
	engine, note = s.Name(), t.Note(s.Name())
	if Restores(s, name) {
		note = t.Restored[s.Name()]
	}
	if engine == tool.Lookbook {
		engine = tool.Local
	}
	return engine, note
}

// Prices is the live price table of a process developing with e: p with
// each tool's row set to what the engine within e that serves it charges
// (tool.Priced), so the local engine's look frames, proofs, cost a proof's
// price, and an answer an engine enlarges beyond what it delivers (the
// image endpoint's 2k and 4k characters, without a restoration model)
// costs the quality delivered, while one a restoration model enlarges
// (Restores) costs the tier asked. The chain picks a tool's engine once,
// when it is built, and a develop never falls over to another engine, so
// the hold a submit takes at this price is the price of the engine that
// renders it.
func Prices(e Engine, p ledger.Prices) ledger.Prices {
	return tool.Priced(p, func(name string) (string, bool) {
		if s := Serving(e, name); s != nil {
			return s.Name(), Restores(s, name)
		}
		return "", false
	})
}
