package job

import (
	"context"
	"strings"

	"github.com/google/uuid"

	"studio/internal/auth"
	"studio/internal/tool"
	"studio/internal/ts"
)

// Again prepares a job that develops src again with params (the caller's
// change of the source's params): the same tool, tier and inputs, at the
// source frame's own cost, with retryOfJobId set to src. It refuses a
// frame whose tool the engines no longer perform (UNKNOWN_TOOL, 422), whose
// options the tool's declaration does not admit (BAD_OPTION, CheckOptions)
// or whose inputs are gone (NO_INPUTS). Nothing is written: redraws Enqueue
// the job, takes write several at once.
func (s *Service) Again(ctx context.Context, p auth.Principal, src Job, params map[string]string, key string) (Job, error) {
	if !s.engines.Can(src.Tool) {
		return Job{}, ErrUnknownToolRun
	}
	// The source's options were checked when it was submitted; a value the
	// declaration no longer admits (or a frame older than it) is refused
	// here, before anything is held.
	if err := CheckOptions(src.Tool, params, src.Inputs); err != nil {
		return Job{}, err
	}
	if lostInputs(src) {
		return Job{}, ErrNoInputs
	}
	ids := make([]string, len(src.Inputs))
	digests := make([]string, 0, len(src.Inputs)+1)
	for i, in := range src.Inputs {
		ids[i] = in.AssetID
		digests = append(digests, in.Role+":asset:"+in.AssetID)
	}
	if len(ids) > 0 {
		switch ok, err := s.assets.AllLive(ctx, p.HouseID, ids); {
		case err != nil:
			return Job{}, err
		case !ok:
			return Job{}, ErrNoInputs
		}
	}
	digests = append(digests, "again:"+src.ID)
	return Job{
		ID: uuid.Must(uuid.NewV7()).String(), Tool: src.Tool, Status: Queued, BrandID: src.BrandID,
		CreatedAt: ts.Of(s.now()), HouseID: p.HouseID, UserID: p.UserID, Tier: src.Tier,
		Params: params, Inputs: src.Inputs, RetryOfJobID: src.ID, IdempotencyKey: key,
		Fingerprint: Fingerprint(src.Tool, src.Tier, digests, params), Cost: src.Cost,
	}, nil
}

// lostInputs reports whether a frame to develop again has no inputs though
// its tool requires some (a frame written before its inputs were kept).
func lostInputs(src Job) bool {
	t, _ := tool.Get(src.Tool)
	return len(src.Inputs) == 0 && len(t.Required()) > 0
}

// Enqueue writes a prepared job with its hold: the same idempotency key
// with the same request replays the first job with no second hold, with
// another request it is IDEMPOTENCY_KEY_REUSED.
func (s *Service) Enqueue(ctx context.Context, p auth.Principal, j Job) (Receipt, error) {
	if err := p.MaySpend(); err != nil {
		return Receipt{}, err
	}
	if rec, found, err := s.replay(ctx, p, j.IdempotencyKey, j.Fingerprint); found || err != nil {
		return rec, err
	}
	return s.enqueue(ctx, j)
}

// RunsOf gives, for each of srcs, the id of the develop run it belongs to
// as params.runId carries it (without its "run." prefix): the run a job
// made from it joins. A look frame's run follows from its params and needs
// none (""); a frame aged out of the runs' window is a run of its own.
func (s *Service) RunsOf(ctx context.Context, house string, srcs []Job) (map[string]string, error) {
	out := map[string]string{}
	var rest []Job
	for _, src := range srcs {
		if id := src.Params["runId"]; id != "" {
			out[src.ID] = id
		} else if key, _, _, _ := runKey(src); key != "" {
			out[src.ID] = ""
		} else {
			rest = append(rest, src)
		}
	}
	if len(rest) == 0 {
		return out, nil
	}
	runs, err := s.runs(ctx, house)
	if err != nil {
		return nil, err
	}
	of := map[string]string{}
	for _, r := range runs {
		for _, id := range r.JobIDs {
			of[id] = strings.TrimPrefix(r.ID, "run.")
		}
	}
	for _, src := range rest {
		if id, ok := of[src.ID]; ok {
			out[src.ID] = id
		} else {
			out[src.ID] = src.ID
		}
	}
	return out, nil
}
