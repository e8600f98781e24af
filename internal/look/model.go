package look

import (
	"context"
	"errors"

	"studio/internal/engine"
	"studio/internal/errs"
)

// ErrNoFigure refuses a look's base develop, before anything is held,
// when the engine that renders its frames cannot stand a figure on the
// look's model photo (the local engine's proofs stand a figure it separates from a
// plain ground, as try-on does): the message is the engine's reason.
var ErrNoFigure = errs.Msg(errs.NoFigure, "The look's model photo has no standing figure the engine can separate.")

// ModelBytes reads a live asset's stored bytes (asset.Service.InputBytes).
type ModelBytes interface {
	InputBytes(ctx context.Context, house, id string) ([]byte, error)
}

// models is what checks a look's model photo: the engines and the assets.
type models struct {
	engines engine.Engine
	assets  ModelBytes
}

// CheckModelsOn lets the develops of a look's base frame (develop-lock, a
// lookbook) ask the engine within e that renders look frames whether it
// can stand the look's model photo, read from assets, before they hold
// anything (engine.ModelChecker); it returns s.
func (s *Service) CheckModelsOn(e engine.Engine, assets ModelBytes) *Service {
	s.models = &models{engines: e, assets: assets}
	return s
}

// checkModel answers ErrNoFigure, with the engine's reason, when the
// engine that renders look frames says it cannot stand a figure on the
// model photo; nil when it can, when it does not say (a generating
// provider draws any model), or when the photo is unreadable or gone (the
// develop then fails on it, its hold voided, as before).
func (s *Service) checkModel(ctx context.Context, house, model string) error {
	if s.models == nil {
		return nil
	}
	c, ok := engine.Serving(s.models.engines, Tool).(engine.ModelChecker)
	if !ok {
		return nil
	}
	data, err := s.models.assets.InputBytes(ctx, house, model)
	if e, ok := errs.As(err); ok && (e.Kind == errs.KindNotFound || e.Kind == errs.KindTooLarge) {
		return nil
	}
	if err != nil {
		return err
	}
	err = c.CheckModel(ctx, data)
	if e, ok := errors.AsType[*engine.Error](err); ok && e.Fault == engine.FaultInput && e.Code == engine.CodeNoFigure {
		return errs.Msg(ErrNoFigure, e.Reason)
	}
	if err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	return nil
}
