package job

import (
	"context"
	"maps"

	"github.com/google/uuid"

	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/ts"
)

// Runs lists the house's develop runs of the last 30 days, newest first:
// state "active" keeps the runs still queued or developing. Counts are
// always whole.
func (s *Service) Runs(ctx context.Context, p auth.Principal, state string, limit int) ([]*Run, error) {
	if state == "" {
		state = "all"
	}
	if state != "active" && state != "all" {
		return nil, ErrBadState
	}
	if limit == 0 {
		limit = 20
	}
	if limit < 1 || limit > 100 {
		return nil, ErrBadLimit
	}
	runs, err := s.runs(ctx, p.HouseID)
	if err != nil {
		return nil, err
	}
	out := []*Run{}
	for _, r := range runs {
		if state == "active" && !r.Active() {
			continue
		}
		if out = append(out, r); len(out) == limit {
			break
		}
	}
	return out, nil
}

func (s *Service) runs(ctx context.Context, house string) ([]*Run, error) {
	jobs, err := s.store.JobsCreatedSince(ctx, house, s.now().Add(-RunAge))
	if err != nil {
		return nil, err
	}
	return Group(jobs, s.prices), nil
}

// RunCancel is the answer to a run cancel.
type RunCancel struct {
	ID              string   `json:"id"`
	Cancelled       bool     `json:"cancelled"`
	CancelledJobIDs []string `json:"cancelledJobIds"`
	StillRendering  int      `json:"stillRendering"`
	TokensReleased  int64    `json:"tokensReleased"`
	Run             *Run     `json:"run"`
}

// CancelRun cancels a run's queued frames and releases their holds;
// rendering frames finish and cost. Runs older than 30 days are NOT_FOUND.
func (s *Service) CancelRun(ctx context.Context, p auth.Principal, id string) (RunCancel, error) {
	if err := p.MayEdit(); err != nil {
		return RunCancel{}, err
	}
	run, err := s.findRun(ctx, p.HouseID, id)
	if err != nil {
		return RunCancel{}, err
	}
	var queued []string
	for _, j := range run.Jobs() {
		if j.Status == Queued {
			queued = append(queued, j.ID)
		}
	}
	out := RunCancel{ID: id, CancelledJobIDs: []string{}}
	if len(queued) > 0 {
		cancelled, err := s.store.CancelQueued(ctx, p.HouseID, queued)
		if err != nil {
			return RunCancel{}, err
		}
		for _, j := range cancelled {
			out.CancelledJobIDs = append(out.CancelledJobIDs, j.ID)
			out.TokensReleased += j.Cost
		}
	}
	if run, err = s.findRun(ctx, p.HouseID, id); err != nil {
		return RunCancel{}, err
	}
	out.Cancelled = len(out.CancelledJobIDs) > 0
	out.StillRendering = run.Counts.Active
	out.Run = run
	return out, nil
}

func (s *Service) findRun(ctx context.Context, house, id string) (*Run, error) {
	runs, err := s.runs(ctx, house)
	if err != nil {
		return nil, err
	}
	for _, r := range runs {
		if r.ID == id {
			return r, nil
		}
	}
	return nil, errs.NotFound
}

// Duplicate develops a job again: the same tool, tier, inputs and params
// (copied verbatim, a look's destination included), with a fresh hold of
// what the source frame cost. Any tool the engines perform can be
// duplicated, look frames too, not only the submit route's tools.
func (s *Service) Duplicate(ctx context.Context, p auth.Principal, id, idempotencyKey string) (Receipt, error) {
	if err := CheckKey(idempotencyKey); err != nil {
		return Receipt{}, err
	}
	src, err := s.store.Job(ctx, p.HouseID, id)
	if err != nil {
		return Receipt{}, err
	}
	if err := p.MaySpend(); err != nil {
		return Receipt{}, err
	}
	if !s.engines.Can(src.Tool) {
		return Receipt{}, ErrUnknownToolRun
	}
	if lostInputs(src) {
		return Receipt{}, ErrNoInputs
	}
	if err := CheckOptions(src.Tool, src.Params, src.Inputs); err != nil {
		return Receipt{}, err
	}
	ids := make([]string, len(src.Inputs))
	digests := make([]string, len(src.Inputs))
	for i, in := range src.Inputs {
		ids[i] = in.AssetID
		digests[i] = in.Role + ":asset:" + in.AssetID
	}
	if len(ids) > 0 {
		switch ok, err := s.assets.AllLive(ctx, p.HouseID, ids); {
		case err != nil:
			return Receipt{}, err
		case !ok:
			return Receipt{}, ErrNoInputs
		}
	}
	params := maps.Clone(src.Params)
	fp := Fingerprint(src.Tool, src.Tier, digests, params)
	if rec, found, err := s.replay(ctx, p, idempotencyKey, fp); found || err != nil {
		return rec, err
	}
	return s.enqueue(ctx, Job{
		ID: uuid.Must(uuid.NewV7()).String(), Tool: src.Tool, Status: Queued, BrandID: src.BrandID,
		CreatedAt: ts.Of(s.now()), HouseID: p.HouseID, UserID: p.UserID, Tier: src.Tier,
		Params: params, Inputs: src.Inputs, IdempotencyKey: idempotencyKey, Fingerprint: fp, Cost: src.Cost,
	})
}
