package apptest

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"syscall"
	"testing"

	"studio/internal/apptest/renderwire"
	"studio/internal/engine"
	"studio/internal/engine/local"
	"studio/internal/ledger"
)

// renderProgram is the render program the tests run: $STUDIO_RENDER_EXEC,
// else one built (without -race) into a folder of t's.
func renderProgram(t *testing.T) string {
	if path := os.Getenv(EnvRenderExec); path != "" {
		return path
	}
	// go test puts its own go first on the test's PATH.
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("no go to build the render program with: %v", err)
	}
	path := filepath.Join(t.TempDir(), "renderproc")
	if out, err := exec.Command(goTool, "build", "-o", path, "studio/internal/apptest/renderproc").CombinedOutput(); err != nil {
		t.Fatalf("building the render program: %v\n%s", err, out)
	}
	return path
}

// testPicture is a small PNG whose pixels are not all alike.
func testPicture(t *testing.T, w, h int) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.NRGBA{uint8(x * 255 / w), uint8(y * 255 / h), uint8((x + y) % 256), 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// told renders r on e through p (in-process when p is nil) and keeps what
// the engine told.
func told(ctx context.Context, p *renderPool, e engine.Engine, r engine.Request) (engine.Result, []engine.Sent, error) {
	var sent []engine.Sent
	r.Record = func(s engine.Sent) { sent = append(sent, s) }
	if p == nil {
		res, err := e.Run(ctx, r)
		return res, sent, err
	}
	res, err := p.run(ctx, e, r)
	return res, sent, err
}

// TestRenderProcess: a render in the render program gives the bytes and
// the records of the same render in the test binary, and its errors are
// the same errors; a context that ends while it renders stops it at once
// and the next request is answered; a program that dies mid-way or
// answers what cannot be read, or cannot be started, costs only a render
// here, never a failure.
func TestRenderProcess(t *testing.T) {
	pic, mark := testPicture(t, 96, 64), testPicture(t, 16, 16)
	lk, book := local.New(), local.NewLookbook()
	requests := []struct {
		name string
		e    engine.Engine
		r    engine.Request
	}{
		{"upscale", lk, engine.Request{Tool: "upscale", Tier: ledger.Tier1K, Prompt: "crisp",
			Inputs:     []engine.Input{{Role: "image", Data: pic, AssetID: "as_1"}},
			References: []engine.Reference{{Role: "mark", Label: "logo", Text: "embroidered", Data: mark, AssetID: "as_2"}}}},
		{"reframe to a shape", lk, engine.Request{Tool: "reframe", Tier: ledger.Tier1K, Shape: &engine.Shape{Width: 1600, Height: 900},
			Params: map[string]string{"fill": "blur", "run": "bookkeeping"},
			Inputs: []engine.Input{{Role: "image", Data: pic, AssetID: "as_3"}}}},
		{"unreadable input", lk, engine.Request{Tool: "upscale", Tier: ledger.Tier1K,
			Inputs: []engine.Input{{Role: "image", Data: []byte("not a picture"), AssetID: "as_4"}}}},
		{"missing role", lk, engine.Request{Tool: "reframe", Tier: ledger.Tier1K, Params: map[string]string{"aspect": "1:1"}}},
		{"unsupported", lk, engine.Request{Tool: "lookbook", Tier: ledger.Tier1K}},
		{"lookbook unsupported", book, engine.Request{Tool: "upscale", Tier: ledger.Tier1K}},
		// Told what it would send, then refused with a code: no figure.
		{"look without a figure", book, engine.Request{Tool: "lookbook", Tier: ledger.Tier1K, Prompt: "a look",
			Inputs: []engine.Input{{Role: "model", Data: pic, AssetID: "as_5"}}}},
	}
	type want struct {
		res  engine.Result
		sent []engine.Sent
		err  error
	}
	wants := make([]want, len(requests))
	for i, c := range requests {
		res, sent, err := told(t.Context(), nil, c.e, c.r)
		wants[i] = want{res, sent, err}
	}
	same := func(t *testing.T, i int, res engine.Result, sent []engine.Sent, err error) {
		t.Helper()
		w := wants[i]
		if !reflect.DeepEqual(res, w.res) {
			t.Errorf("%s: result %s %dx%d (%d bytes), in-process %s %dx%d (%d bytes)", requests[i].name,
				res.Mime, res.Width, res.Height, len(res.Data), w.res.Mime, w.res.Width, w.res.Height, len(w.res.Data))
		}
		if !reflect.DeepEqual(sent, w.sent) {
			t.Errorf("%s: told %+v, in-process %+v", requests[i].name, sent, w.sent)
		}
		if (err == nil) != (w.err == nil) {
			t.Fatalf("%s: error %v, in-process %v", requests[i].name, err, w.err)
		}
		if err == nil {
			return
		}
		if err.Error() != w.err.Error() || engine.IsInput(err) != engine.IsInput(w.err) || engine.IsProvider(err) != engine.IsProvider(w.err) ||
			errors.Is(err, engine.ErrUnsupported) != errors.Is(w.err, engine.ErrUnsupported) {
			t.Errorf("%s: error %q (input %v, unsupported %v), in-process %q", requests[i].name,
				err, engine.IsInput(err), errors.Is(err, engine.ErrUnsupported), w.err)
		}
		e, ok := errors.AsType[*engine.Error](err)
		we, wok := errors.AsType[*engine.Error](w.err)
		if ok != wok || ok && (e.Fault != we.Fault || e.Tool != we.Tool || e.Code != we.Code || e.Reason != we.Reason ||
			(e.Err == nil) != (we.Err == nil)) {
			t.Errorf("%s: engine error %+v, in-process %+v", requests[i].name, e, we)
		}
	}
	if wants[0].err != nil || len(wants[0].sent) != 1 || len(wants[0].sent[0].Refs) != 2 || !engine.IsInput(wants[2].err) ||
		!engine.IsInput(wants[3].err) || !errors.Is(wants[4].err, engine.ErrUnsupported) || !errors.Is(wants[5].err, engine.ErrUnsupported) ||
		!engine.IsInput(wants[6].err) || len(wants[6].sent) != 1 {
		t.Fatalf("the in-process renders are not the cases this test means: %+v", wants)
	}
	program := renderProgram(t)

	t.Run("same answers", func(t *testing.T) {
		p := newRenderPool(program, 2)
		for i, c := range requests {
			res, sent, err := told(t.Context(), p, c.e, c.r)
			same(t, i, res, sent, err)
		}
	})

	t.Run("cancelled while it renders", func(t *testing.T) {
		p := newRenderPool(program, 1)
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		big := requests[0].r
		big.Tier = ledger.Tier4K
		// The engine tells what it would send as it starts rendering.
		big.Record = func(engine.Sent) { cancel() }
		if _, err := p.run(ctx, lk, big); !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled render: %v, want one wrapping context.Canceled", err)
		}
		res, sent, err := told(t.Context(), p, lk, requests[0].r)
		same(t, 0, res, sent, err)
	})

	t.Run("killed mid-way", func(t *testing.T) {
		p := newRenderPool(program, 1)
		if _, _, err := told(t.Context(), p, lk, requests[2].r); !engine.IsInput(err) {
			t.Fatalf("warming the child: %v", err)
		}
		c := <-p.slots
		pid := c.cmd.Process.Pid
		p.slots <- c
		// The look is told, then refused: killed in between, it is told
		// once and refused here.
		r := requests[6].r
		var sent []engine.Sent
		r.Record = func(s engine.Sent) {
			if len(sent) == 0 {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			sent = append(sent, s)
		}
		res, err := p.run(t.Context(), book, r)
		same(t, 6, res, sent, err)
		res, sent, err = told(t.Context(), p, lk, requests[1].r)
		same(t, 1, res, sent, err)
	})

	t.Run("broken programs", func(t *testing.T) {
		cat, err := exec.LookPath("cat")
		if err != nil {
			t.Skip("no cat to stand for a program that answers garbage")
		}
		for _, path := range []string{cat, filepath.Join(t.TempDir(), "missing")} {
			p := newRenderPool(path, 1)
			for _, i := range []int{2, 4} {
				res, sent, err := told(t.Context(), p, requests[i].e, requests[i].r)
				same(t, i, res, sent, err)
			}
		}
	})
}

// TestRenderErrorsCross: an error crosses as what callers read of it.
func TestRenderErrorsCross(t *testing.T) {
	cause := errors.New("png: invalid format")
	input := &engine.Error{Fault: engine.FaultInput, Tool: "tryon", Code: engine.CodeNoFigure, Reason: "No figure.", Err: cause}
	for _, err := range []error{
		input,
		engine.ProviderError("upscale", "The local engine failed on this image.", nil),
		&wrapped{input},
		engine.Unsupported("local", "lookbook"),
		errors.New("plain"),
	} {
		got := renderwire.Encode(err).Decode()
		if got.Error() != err.Error() || engine.IsInput(got) != engine.IsInput(err) || engine.IsProvider(got) != engine.IsProvider(err) ||
			errors.Is(got, engine.ErrUnsupported) != errors.Is(err, engine.ErrUnsupported) {
			t.Errorf("%q crossed as %q", err, got)
		}
		if e, ok := errors.AsType[*engine.Error](err); ok {
			g, _ := errors.AsType[*engine.Error](got)
			if g == nil || g.Fault != e.Fault || g.Tool != e.Tool || g.Code != e.Code || g.Reason != e.Reason || g.Error() != e.Error() {
				t.Errorf("%q crossed as engine error %+v", err, g)
			}
		}
	}
	if renderwire.Encode(nil).Decode() != nil {
		t.Error("no error crossed as one")
	}
}

type wrapped struct{ err error }

func (w *wrapped) Error() string { return "job: " + w.err.Error() }
func (w *wrapped) Unwrap() error { return w.err }
