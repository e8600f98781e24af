package apptest

import (
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"sync"

	"studio/internal/apptest/renderwire"
	"studio/internal/engine"
	"studio/internal/tool"
)

// EnvRenderExec names the render program (internal/apptest/renderproc,
// built without -race from the same source: scripts/test.sh builds it and
// sets the variable for every test binary). With it set, the test apps'
// local renders that the memo does not answer run in that program rather
// than in the test binary: the race detector slows the engines' pixel
// loops about twentyfold, and most of the end-to-end tests' CPU was those
// loops. Everything around the render (the job, the money, the store, the
// socket, the judge, what a provider is told) still runs in the test
// binary under the race detector; the engines' own tests
// (internal/engine/local) still render under it, so races in their
// concurrent code are still found. Unset, renders run in the test binary,
// as they always did.
const EnvRenderExec = "STUDIO_RENDER_EXEC"

// renderProcs is how many render processes a test binary keeps: each
// renders one request at a time, on the machine's cores like the engine
// in-process.
const renderProcs = 2

var procs = newRenderPool(os.Getenv(EnvRenderExec), renderProcs)

// renderPool runs renders in up to n children of the program at path,
// started when first needed and kept for the next request. A child that
// cannot be started, dies or answers what cannot be read is dropped and
// that request rendered in this process (said once in the log), so a
// broken render program never fails a test; a context that ends while a
// child renders kills the child (the next request starts another).
type renderPool struct {
	path  string
	slots chan *renderChild // n of them; nil: none started in that slot
	warn  sync.Once
}

func newRenderPool(path string, n int) *renderPool {
	p := &renderPool{path: path, slots: make(chan *renderChild, n)}
	for range n {
		p.slots <- nil
	}
	return p
}

// run performs r on e: in a child when the pool has a program and e is one
// of the local engines it builds, else (and for a request whose context
// has already ended, which the engine answers at once) in this process.
func (p *renderPool) run(ctx context.Context, e engine.Engine, r engine.Request) (engine.Result, error) {
	name := e.Name()
	if p.path == "" || (name != tool.Local && name != tool.Lookbook) || ctx.Err() != nil {
		return e.Run(ctx, r)
	}
	var c *renderChild
	select {
	case c = <-p.slots:
	case <-ctx.Done():
		return e.Run(ctx, r)
	}
	if c == nil {
		var err error
		if c, err = startChild(p.path); err != nil {
			p.slots <- nil
			p.broken(err)
			return e.Run(ctx, r)
		}
	}
	out, broke := c.render(ctx, name, r)
	told := out.told
	switch {
	case broke == nil:
		p.slots <- c
		return out.res, out.err
	case ctx.Err() != nil:
		p.slots <- nil
		// What the engine answers when its context ends while it renders.
		return engine.Result{}, fmt.Errorf("engine: run stopped: %w", ctx.Err())
	}
	p.slots <- nil
	p.broken(broke)
	// The records the child told before it broke were told; the render
	// here tells the same ones first (the engine is deterministic).
	record := r.Record
	r.Record = func(s engine.Sent) {
		if told > 0 {
			told--
			return
		}
		if record != nil {
			record(s)
		}
	}
	return e.Run(ctx, r)
}

// broken says, once per test binary, that the render program failed.
func (p *renderPool) broken(err error) {
	p.warn.Do(func() {
		log.Printf("apptest: the render process %s failed (%v); rendering in the test binary instead", p.path, err)
	})
}

// renderChild is one running render program.
type renderChild struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	enc   *gob.Encoder
	dec   *gob.Decoder
}

func startChild(path string) (*renderChild, error) {
	cmd := exec.Command(path)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &renderChild{cmd: cmd, stdin: stdin, enc: gob.NewEncoder(stdin), dec: gob.NewDecoder(stdout)}, nil
}

// reply is one Reply read, or why none could be.
type reply struct {
	m   renderwire.Reply
	err error
}

// rendered is what a child answered: the result, the render's error, and
// how many records it told.
type rendered struct {
	res  engine.Result
	err  error
	told int
}

// render has the child perform r on the engine named: what it answered,
// the records told as the child's engine told them (r.Tell), and broke
// when the child could not answer (it is then stopped; a context that
// ended stops it too, and is broke).
func (c *renderChild) render(ctx context.Context, name string, r engine.Request) (out rendered, broke error) {
	replies := make(chan reply)
	go func() {
		defer close(replies)
		if err := c.enc.Encode(renderwire.Call{Engine: name, Req: r}); err != nil {
			replies <- reply{err: fmt.Errorf("writing the request: %w", err)}
			return
		}
		for {
			var m renderwire.Reply
			if err := c.dec.Decode(&m); err != nil {
				replies <- reply{err: fmt.Errorf("reading the answer: %w", err)}
				return
			}
			replies <- reply{m: m}
			if m.Done {
				return
			}
		}
	}()
	for {
		select {
		case <-ctx.Done():
			c.stop(replies)
			return out, ctx.Err()
		case got := <-replies:
			switch {
			case got.err != nil:
				broke = got.err
			case got.m.Sent != nil && !got.m.Done:
				r.Tell(*got.m.Sent)
				out.told++
				continue
			case got.m.Done && (got.m.Err != nil || len(got.m.Result.Data) > 0):
				out.res, out.err = got.m.Result, got.m.Err.Decode()
				if out.err == nil && ctx.Err() != nil {
					// The engine looks at its context once more after it
					// rendered, and answers that it ended.
					out.res, out.err = engine.Result{}, fmt.Errorf("engine: run stopped: %w", ctx.Err())
				}
				return out, nil
			default:
				broke = errors.New("an answer that is neither a record nor a render")
			}
			c.stop(replies)
			return out, broke
		}
	}
}

// stop kills the child and waits for it, once the reads of replies ended.
func (c *renderChild) stop(replies <-chan reply) {
	_ = c.cmd.Process.Kill()
	_ = c.stdin.Close()
	for range replies {
	}
	_ = c.cmd.Wait()
}
