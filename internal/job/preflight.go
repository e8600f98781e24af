package job

import (
	"context"
	"slices"
	"time"

	"studio/internal/asset"
	"studio/internal/auth"
	"studio/internal/engine"
	"studio/internal/errs"
	"studio/internal/ledger"
	"studio/internal/ratelimit"
	"studio/internal/tool"
)

// Preflight (POST /api/toolkit/ai/preflight, MCP preflight_develop,
// DECISIONS §11): a submit asked whether it would be accepted, and whether
// the engine expects to deliver, without holding, queueing or keeping
// anything. It runs the checks submit runs, in submit's order and with
// submit's own functions (validate, checkInputs, the upload inspection,
// afford), each refusal becoming a problem with its code; then, when every
// check passed, the serving engine's own measure, when it has one
// (engine.Preflighter). Free, for any role; at most PreflightPerMinute a
// minute per house (429 RATE_LIMITED).

// PreflightPerMinute is how many preflights a house may ask a minute.
const PreflightPerMinute = 60

// Limiter counts events per key in fixed windows (ratelimit.Limiter).
type Limiter interface {
	Take(ctx context.Context, key string, limit int, window time.Duration) (allowed bool, retryAfter time.Duration, err error)
}

// LimitWith lets s count preflights with l; it returns s.
func (s *Service) LimitWith(l Limiter) *Service {
	s.limiter = l
	return s
}

// Problem is one reason a submit would be refused, or the engine would not
// deliver: the refusal's code and message, and the role or option it is
// about when it is about one.
type Problem struct {
	Code    string `json:"code" description:"The code submit would answer (UNKNOWN_TOOL, BAD_OPTION, NO_INPUTS, ASSET_NOT_FOUND, IMAGE_TOO_LARGE, INSUFFICIENT_TOKENS...) or the engine's."`
	Message string `json:"message"`
	Role    string `json:"role,omitempty" description:"The input role the problem is about."`
	Option  string `json:"option,omitempty" description:"The option the problem is about."`
}

// Preflight answers a preflight.
type Preflight struct {
	OK        bool      `json:"ok" description:"True when submit would accept the develop and the engine expects to deliver."`
	Tool      string    `json:"tool"`
	Engine    *string   `json:"engine" enum:"local,fal,image-api,fashn" description:"The engine that would perform it; null when none here can (or the tool is unknown)."`
	Price     *int64    `json:"price" description:"Tokens the develop would hold and settle at the quality; null for an unknown tool or quality."`
	Spendable int64     `json:"spendable" description:"The house's spendable tokens now."`
	Problems  []Problem `json:"problems" description:"Why it would be refused or not delivered; empty when ok."`
	Note      string    `json:"note" description:"What the engine makes of the tool (a proof, a composite), or how to read the answer."`
	Quality   string    `json:"quality" description:"The quality asked about (1k when none was); a value other than 1k, 2k or 4k is a BAD_QUALITY problem."`
}

// preflightNote is the note of a tool the engine performs fully.
const preflightNote = "Nothing was held, queued or stored. A preflight tells what submit would answer now; the balance may change before you submit."

// Preflight checks in as submit would, and asks the serving engine when it
// can tell more. Nothing is held, queued or stored: an upload is inspected,
// never kept.
func (s *Service) Preflight(ctx context.Context, p auth.Principal, in SubmitRequest) (Preflight, error) {
	if s.limiter != nil {
		ok, retry, err := s.limiter.Take(ctx, "preflight:"+p.HouseID, PreflightPerMinute, time.Minute)
		if err != nil {
			return Preflight{}, err
		}
		if !ok {
			return Preflight{}, ratelimit.Refused(retry)
		}
	}
	if in.Tier == "" {
		in.Tier = ledger.Tier1K
	}
	out := Preflight{Tool: in.Tool, Problems: []Problem{}, Note: preflightNote}
	spendable, err := s.store.Spendable(ctx, p.HouseID)
	if err != nil {
		return Preflight{}, err
	}
	out.Spendable = spendable
	add := func(err error) error {
		e, ok := errs.As(err)
		if !ok || e.Kind == errs.KindInternal {
			return err
		}
		pr := Problem{Code: e.Code, Message: e.Message}
		pr.Role, _ = e.Fields["role"].(string)
		pr.Option, _ = e.Fields["option"].(string)
		out.Problems = append(out.Problems, pr)
		return nil
	}
	if err := p.MaySpend(); err != nil {
		_ = add(err)
	}
	if err := CheckKey(in.IdempotencyKey); err != nil {
		_ = add(err)
	}
	verr := s.validate(&in)
	out.Tool, out.Quality = in.Tool, string(in.Tier)
	if t, known := tool.Get(in.Tool); known && t.Submit {
		if name, note := engine.Provider(s.engines, in.Tool); name != "" {
			out.Engine = &name
			if note != "" {
				out.Note = note + " " + preflightNote
			}
		}
		if in.Tier.Valid() {
			price := s.prices.Tool(in.Tool, in.Tier)
			out.Price = &price
		}
	}
	if verr != nil {
		if err := add(verr); err != nil {
			return Preflight{}, err
		}
	}
	if err := s.checkInputs(ctx, p.HouseID, in.Inputs); err != nil {
		if err := add(err); err != nil {
			return Preflight{}, err
		}
	}
	for _, u := range in.Uploads {
		if len(u.Data) == 0 {
			continue // validate said EMPTY_IMAGE
		}
		if _, err := asset.Inspect(u.Data); err != nil {
			if err := add(errs.With(asErr(err), "role", u.Role)); err != nil {
				return Preflight{}, err
			}
		}
	}
	if out.Price != nil {
		if err := s.afford(ctx, p.HouseID, *out.Price); err != nil {
			if err := add(err); err != nil {
				return Preflight{}, err
			}
		}
	}
	if len(out.Problems) == 0 {
		measured, err := s.measure(ctx, p, in)
		if err != nil {
			return Preflight{}, err
		}
		out.Problems = append(out.Problems, measured...)
	}
	out.OK = len(out.Problems) == 0
	return out, nil
}

// measure asks the engine that would serve in whether it expects to
// deliver, when it can say (engine.Preflighter): its problems, with the
// inputs' bytes read as a worker would read them. An equal request asked
// lately is answered as the engine answered it then (measured).
func (s *Service) measure(ctx context.Context, p auth.Principal, in SubmitRequest) ([]Problem, error) {
	pf, ok := engine.Serving(s.engines, in.Tool).(engine.Preflighter)
	if !ok {
		return nil, nil
	}
	req := engine.Request{Tool: in.Tool, Params: in.Params, Tier: in.Tier}
	for _, i := range in.Inputs {
		data, err := s.assets.InputBytes(ctx, p.HouseID, i.AssetID)
		if err != nil {
			return nil, err
		}
		req.Inputs = append(req.Inputs, engine.Input{Role: i.Role, Data: data, AssetID: i.AssetID})
	}
	for _, u := range in.Uploads {
		req.Inputs = append(req.Inputs, engine.Input{Role: u.Role, Data: u.Data})
	}
	slices.SortStableFunc(req.Inputs, func(a, b engine.Input) int { return roleOrder(in.Tool, a.Role) - roleOrder(in.Tool, b.Role) })
	key := measuredKey(req)
	found, ok := s.measured.get(key)
	if !ok {
		var err error
		if found, err = pf.Preflight(ctx, req); err != nil {
			return nil, err
		}
		s.measured.put(key, found)
	}
	out := make([]Problem, len(found))
	for i, f := range found {
		out[i] = Problem{Code: f.Code, Message: f.Message, Role: f.Role, Option: f.Option}
	}
	return out, nil
}

// roleOrder places a role as the tool declares it: required first.
func roleOrder(name, role string) int {
	t, _ := tool.Get(name)
	return slices.Index(t.RoleNames(), role)
}

// asErr returns the *errs.Error of a refusal.
func asErr(err error) *errs.Error {
	if e, ok := errs.As(err); ok {
		return e
	}
	return errs.Wrap(errs.Internal, err)
}
