package local

import (
	"context"
	"errors"
	"fmt"
	"image"
	"runtime/debug"
	"slices"

	"studio/internal/engine"
)

// Engine is the embedded engine: real image processing in this process, with
// no network and no randomness, so the same request gives the same bytes.
type Engine struct {
	tools map[string]tool
}

type tool func(ctx context.Context, r engine.Request) (engine.Result, error)

// New returns the local engine.
func New() *Engine {
	return &Engine{tools: map[string]tool{
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
	}}
}

// Name is "local".
func (l *Engine) Name() string { return "local" }

// Tools lists the tools the local engine performs, sorted.
func (l *Engine) Tools() []string {
	out := make([]string, 0, len(l.tools))
	for t := range l.tools {
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}

// Can reports whether the local engine performs tool.
func (l *Engine) Can(tool string) bool {
	_, ok := l.tools[tool]
	return ok
}

// Run validates r and performs it. A tool the engine does not perform gives
// ErrUnsupported; bad inputs give input faults; a failure of the engine itself
// (including a panic in image code) gives a provider fault. When ctx ends
// between stages, the error wraps ctx.Err().
func (l *Engine) Run(ctx context.Context, r engine.Request) (res engine.Result, err error) {
	run, ok := l.tools[r.Tool]
	if !ok {
		return engine.Result{}, engine.Unsupported(l.Name(), r.Tool)
	}
	if err := engine.Validate(r); err != nil {
		return engine.Result{}, err
	}
	if err := alive(ctx); err != nil {
		return engine.Result{}, err
	}
	// It follows no words, but records what a provider would be sent.
	r.Tell(r.Composed())
	defer func() {
		if p := recover(); p != nil {
			res = engine.Result{}
			err = engine.ProviderError(r.Tool, "The local engine failed on this image.", fmt.Errorf("panic: %v\n%s", p, debug.Stack()))
		}
	}()
	res, err = run(ctx, r)
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

// Note says what the local engine makes of the one tool it performs only
// as a composite: try-on lays the garments on the model, it does not
// re-drape them.
func (l *Engine) Note(tool string) string {
	if tool == "tryon" {
		return "Composite: the local engine lays each garment, cut out and scaled, over the model; it does not drape or re-fit it. Set FAL_KEY for a generative try-on."
	}
	return ""
}
