package local

import (
	"context"
	"errors"
	"fmt"
	"image"
	"runtime/debug"

	"studio/internal/engine"
	"studio/internal/tool"
)

// Engine is the embedded engine: real image processing in this process, with
// no network and no randomness, so the same request gives the same bytes.
type Engine struct{}

type runFunc func(ctx context.Context, r engine.Request) (engine.Result, error)

// runs perform the tools the registry says the local engine serves
// (tool.ServedBy(tool.Local)); a test keeps the two the same.
var runs = map[string]runFunc{
	"upscale":           runUpscale,
	"reframe":           runReframe,
	"packshot":          runPackshot,
	"remove-background": runRemoveBackground,
	"camera-lens":       runCameraLens,
	"harmonize":         runHarmonize,
	"iron":              runIron,
	"cleanup":           runCleanup,
	"color-change":      runColorChange,
	"fit-adjust":        runFitAdjust,
	"tryon":             runTryon,
}

// New returns the local engine.
func New() *Engine { return &Engine{} }

// Name is "local".
func (l *Engine) Name() string { return tool.Local }

// Tools lists the tools the local engine performs, sorted: those the
// registry says it serves.
func (l *Engine) Tools() []string { return tool.ServedBy(tool.Local) }

// Can reports whether the local engine performs the tool.
func (l *Engine) Can(name string) bool { return tool.Serves(tool.Local, name) && runs[name] != nil }

// Run validates r and performs it. A tool the engine does not perform gives
// ErrUnsupported; bad inputs give input faults; a failure of the engine itself
// (including a panic in image code) gives a provider fault. When ctx ends
// between stages, the error wraps ctx.Err().
func (l *Engine) Run(ctx context.Context, r engine.Request) (res engine.Result, err error) {
	run, ok := runs[r.Tool]
	if !ok || !l.Can(r.Tool) {
		return engine.Result{}, engine.Unsupported(l.Name(), r.Tool)
	}
	if err := engine.Validate(r); err != nil {
		return engine.Result{}, err
	}
	if err := alive(ctx); err != nil {
		return engine.Result{}, err
	}
	// It follows only the directions it declares (Directions), after the
	// tool; it records what a provider would be sent.
	r.Tell(r.Composed())
	defer func() {
		if p := recover(); p != nil {
			res = engine.Result{}
			err = engine.ProviderError(r.Tool, "The local engine failed on this image.", fmt.Errorf("panic: %v\n%s", p, debug.Stack()))
		}
	}()
	res, err = run(ctx, r)
	if err == nil && !checking(ctx) {
		res, err = directed(r, res)
	}
	if err != nil {
		if e, ok := errors.AsType[*engine.Error](err); ok && e.Tool == "" {
			e.Tool = r.Tool
		}
		return engine.Result{}, err
	}
	if err := alive(ctx); err != nil {
		return engine.Result{}, err
	}
	return res, nil
}

// alive returns an error wrapping ctx.Err() once ctx has ended.
func alive(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("engine: run stopped: %w", err)
	}
	return nil
}

// decodeRole decodes the first input in role (engine.DecodeInput), tagging
// its faults with the tool and the role.
func decodeRole(r engine.Request, role string) (*image.NRGBA, error) {
	data, ok := r.Input(role)
	if !ok {
		return nil, engine.InputError(r.Tool, fmt.Sprintf("The %s tool needs an input in the %s role.", r.Tool, role), nil)
	}
	return engine.DecodeInput(r.Tool, role, data)
}

// strengthParam reads params.strength, or def when it is absent.
func strengthParam(r engine.Request, def float64) float64 {
	if s := r.Param("strength"); s != "" {
		if v, err := engine.ParseStrength(s); err == nil {
			return v
		}
	}
	return def
}
