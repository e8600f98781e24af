// Package renderwire is how a test binary has the local engines render in
// a process of their own, built without the race detector (the program
// internal/apptest/renderproc; apptest's render.go is the caller). The
// race detector slows the engines' pixel loops about twentyfold, and the
// end-to-end tests only need the bytes a render gives; the engines' own
// tests (internal/engine/local) still render under it.
//
// The two sides speak encoding/gob over the child's stdin and stdout: the
// caller writes one Call at a time; the child answers with a Reply for
// each record the engine told (Reply.Sent), as it tells it, then one with
// Done set, carrying the result or the error. Errors cross as Error and
// come back as what callers read in-process: an *engine.Error with the
// same fault, tool, code, reason and message (its cause as text), or an
// error that is ErrUnsupported (errors.Is) with the same message.
package renderwire

import (
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"sync"

	"studio/internal/engine"
)

// Call is one render: the engine that performs it (by Name: "local" or
// "lookbook") and the request (its Record is not sent: the records come
// back as replies).
type Call struct {
	Engine string
	Req    engine.Request
}

// Reply is one record the engine told (Sent), or, with Done, the end of
// the render: its result, or its error.
type Reply struct {
	Sent   *engine.Sent
	Done   bool
	Result engine.Result
	Err    *Error
}

// Error is a render's error as it crosses: its whole message, and what
// callers read of it (errors.As an *engine.Error, errors.Is
// engine.ErrUnsupported).
type Error struct {
	Msg         string
	Unsupported bool
	Engine      *EngineError // the *engine.Error within, if any
}

// EngineError is an *engine.Error's fields, its cause as text.
type EngineError struct {
	Fault              engine.Fault
	Tool, Code, Reason string
	Cause              string
	HasCause           bool
}

// Encode is err as it crosses; nil for nil.
func Encode(err error) *Error {
	if err == nil {
		return nil
	}
	w := &Error{Msg: err.Error(), Unsupported: errors.Is(err, engine.ErrUnsupported)}
	if e, ok := errors.AsType[*engine.Error](err); ok {
		w.Engine = &EngineError{Fault: e.Fault, Tool: e.Tool, Code: e.Code, Reason: e.Reason}
		if e.Err != nil {
			w.Engine.Cause, w.Engine.HasCause = e.Err.Error(), true
		}
	}
	return w
}

// Decode is the error w crossed for; nil for nil.
func (w *Error) Decode() error {
	if w == nil {
		return nil
	}
	var inner error
	if w.Engine != nil {
		e := &engine.Error{Fault: w.Engine.Fault, Tool: w.Engine.Tool, Code: w.Engine.Code, Reason: w.Engine.Reason}
		if w.Engine.HasCause {
			e.Err = &crossed{msg: w.Engine.Cause}
		}
		if e.Error() == w.Msg {
			return e
		}
		inner = e
	} else if w.Unsupported {
		inner = engine.ErrUnsupported
	}
	return &crossed{msg: w.Msg, inner: inner}
}

// crossed is an error that crossed as text, wrapping what callers read of
// it.
type crossed struct {
	msg   string
	inner error
}

func (c *crossed) Error() string { return c.msg }
func (c *crossed) Unwrap() error { return c.inner }

// Serve answers the Calls read from in with Replies written to out, one
// render at a time, each on the engine of engines its Call names, until
// in ends (nil) or a Call cannot be read or answered (the error; the
// caller then renders in its own process).
func Serve(in io.Reader, out io.Writer, engines map[string]engine.Engine) error {
	dec, enc := gob.NewDecoder(in), gob.NewEncoder(out)
	var mu sync.Mutex // an engine may tell from its own goroutines
	var werr error
	send := func(r Reply) {
		mu.Lock()
		defer mu.Unlock()
		if werr == nil {
			werr = enc.Encode(r)
		}
	}
	for {
		var c Call
		if err := dec.Decode(&c); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("renderwire: reading a call: %w", err)
		}
		e := engines[c.Engine]
		if e == nil {
			return fmt.Errorf("renderwire: no engine %q here", c.Engine)
		}
		c.Req.Record = func(s engine.Sent) { send(Reply{Sent: &s}) }
		res, err := e.Run(context.Background(), c.Req)
		send(Reply{Done: true, Result: res, Err: Encode(err)})
		if werr != nil {
			return fmt.Errorf("renderwire: answering: %w", werr)
		}
	}
}
