package pipeline

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/job"
	"studio/internal/ledger"
	"studio/internal/look"
	"studio/internal/tool"
	"studio/internal/ts"
)

// Store is what pipelines need from persistence.
type Store interface {
	PipelinePresets(ctx context.Context, house string) ([]Preset, error)
	PipelinePreset(ctx context.Context, house, id string) (Preset, error)
	// InsertPipelinePreset writes a preset; NAME_TAKEN when the house has
	// one of that name.
	InsertPipelinePreset(ctx context.Context, p Preset) error
	// ReplacePipelinePreset replaces a preset's name and steps whole;
	// NOT_FOUND, NAME_TAKEN.
	ReplacePipelinePreset(ctx context.Context, p Preset) (Preset, error)
	DeletePipelinePreset(ctx context.Context, house, id string) error
	// StartPipeline holds every frame of the run, writes the run, its
	// frames and the first step's develops, in one transaction: all or
	// nothing (INSUFFICIENT_TOKENS writes nothing). A run the user already
	// started under rec.IdempotencyKey is returned instead, replayed.
	StartPipeline(ctx context.Context, rec Record, first []job.Job) (Record, bool, error)
	PipelineRunByKey(ctx context.Context, house, user, key string) (Record, error)
	PipelineRun(ctx context.Context, house, id string) (Record, error)
	// PipelineRuns lists the house's runs newest first, below the run
	// before ("" for the newest); NOT_FOUND when before is not a run of it.
	PipelineRuns(ctx context.Context, house, before string, limit int) ([]Record, error)
	// CancelPipeline stops a run in one transaction: frames still waiting
	// are released, queued develops cancelled and released; rendering ones
	// finish and cost, and nothing follows them. It returns the run and
	// the develops it cancelled.
	CancelPipeline(ctx context.Context, house, id string) (Record, []job.Job, error)
	Spendable(ctx context.Context, house string) (int64, error)
	Held(ctx context.Context, house string) (int64, error)
}

// Assets tells whether assets are the house's live ones (asset.Service).
type Assets interface {
	AllLive(ctx context.Context, house string, ids []string) (bool, error)
}

// Service runs the pipeline use cases.
type Service struct {
	store  Store
	assets Assets
	prices ledger.Prices
	can    func(tool string) bool
	now    func() time.Time
}

// NewService returns the pipeline service; can reports whether the
// configured engines perform a tool.
func NewService(store Store, assets Assets, prices ledger.Prices, can func(string) bool, now func() time.Time) *Service {
	return &Service{store: store, assets: assets, prices: prices, can: can, now: now}
}

// Presets lists the house's presets, newest first.
func (s *Service) Presets(ctx context.Context, p auth.Principal) ([]Preset, error) {
	return s.store.PipelinePresets(ctx, p.HouseID)
}

func checkPreset(in PresetRequest) (string, []Step, error) {
	name := strings.TrimSpace(in.Name)
	if name == "" {
		return "", nil, ErrNameRequired
	}
	if utf8.RuneCountInString(name) > MaxName {
		return "", nil, ErrNameTooLong
	}
	steps, err := Check(in.Steps)
	return name, steps, err
}

// CreatePreset saves a plan under a name unique in the house.
func (s *Service) CreatePreset(ctx context.Context, p auth.Principal, in PresetRequest) (Preset, error) {
	if err := p.MayEdit(); err != nil {
		return Preset{}, err
	}
	name, steps, err := checkPreset(in)
	if err != nil {
		return Preset{}, err
	}
	now := ts.Of(s.now())
	pr := Preset{ID: uuid.Must(uuid.NewV7()).String(), HouseID: p.HouseID, Name: name, Steps: steps, CreatedAt: now, UpdatedAt: now}
	if p.UserID != "" {
		u := p.UserID
		pr.CreatedByUserID = &u
	}
	if err := s.store.InsertPipelinePreset(ctx, pr); err != nil {
		return Preset{}, err
	}
	return pr, nil
}

// ReplacePreset replaces a preset's name and plan whole.
func (s *Service) ReplacePreset(ctx context.Context, p auth.Principal, id string, in PresetRequest) (Preset, error) {
	if err := p.MayEdit(); err != nil {
		return Preset{}, err
	}
	if _, err := s.store.PipelinePreset(ctx, p.HouseID, id); err != nil {
		return Preset{}, err
	}
	name, steps, err := checkPreset(in)
	if err != nil {
		return Preset{}, err
	}
	return s.store.ReplacePipelinePreset(ctx, Preset{ID: id, HouseID: p.HouseID, Name: name, Steps: steps, UpdatedAt: ts.Of(s.now())})
}

// DeletePreset removes a preset; runs made from it keep their plan.
func (s *Service) DeletePreset(ctx context.Context, p auth.Principal, id string) error {
	if err := p.MayEdit(); err != nil {
		return err
	}
	return s.store.DeletePipelinePreset(ctx, p.HouseID, id)
}

// StepPrice is one step's share of a preview.
type StepPrice struct {
	Step      int         `json:"step"`
	Tool      string      `json:"tool"`
	Quality   ledger.Tier `json:"quality"`
	UnitPrice int64       `json:"unitPrice" description:"Tokens one frame of the step costs."`
	Frames    int         `json:"frames"`
	Tokens    int64       `json:"tokens"`
}

// Preview prices a plan over assets; nothing is held.
type Preview struct {
	Steps      []StepPrice `json:"steps"`
	Assets     int         `json:"assets"`
	Frames     int         `json:"frames" description:"Planned frames: steps x assets; a run holds each."`
	Total      int64       `json:"total" description:"What a run holds up front; frames that never run are released."`
	Spendable  int64       `json:"spendable"`
	Held       int64       `json:"held" description:"What the house's open holds already reserve."`
	Affordable bool        `json:"affordable"`
}

// plan resolves a request's plan (inline or a preset) and assets.
type plan struct {
	steps    []Step
	preset   Preset
	assetIDs []string
}

func (s *Service) resolve(ctx context.Context, p auth.Principal, in PlanRequest) (plan, error) {
	var pl plan
	switch {
	case len(in.Steps) > 0 && in.PresetID != "":
		return pl, ErrPlanTwice
	case in.PresetID != "":
		pr, err := s.store.PipelinePreset(ctx, p.HouseID, in.PresetID)
		if err != nil {
			return pl, err
		}
		pl.preset, pl.steps = pr, pr.Steps
	default:
		steps, err := Check(in.Steps)
		if err != nil {
			return pl, err
		}
		pl.steps = steps
	}
	for i, st := range pl.steps {
		if !s.can(st.Tool) {
			d, _ := tool.Get(st.Tool)
			return pl, errs.With(errs.Msg(job.ErrFalNotConfigure, d.Unserved()), "step", i)
		}
	}
	for _, id := range in.AssetIDs {
		if id != "" && !slices.Contains(pl.assetIDs, id) {
			pl.assetIDs = append(pl.assetIDs, id)
		}
	}
	switch {
	case len(pl.assetIDs) == 0:
		return pl, errs.Msg(look.ErrAssetsRequired, "Name at least one asset (assetIds).")
	case len(pl.assetIDs) > MaxAssets:
		return pl, ErrTooManyAssets
	}
	ok, err := s.assets.AllLive(ctx, p.HouseID, pl.assetIDs)
	if err != nil {
		return pl, err
	}
	if !ok {
		return pl, ErrAssetNotFound
	}
	return pl, nil
}

// Preview prices a plan over the assets without holding anything.
func (s *Service) Preview(ctx context.Context, p auth.Principal, in PlanRequest) (Preview, error) {
	pl, err := s.resolve(ctx, p, in)
	if err != nil {
		return Preview{}, err
	}
	out := Preview{Assets: len(pl.assetIDs), Steps: make([]StepPrice, len(pl.steps))}
	for i, st := range pl.steps {
		unit := s.prices.Tool(st.Tool, st.Quality)
		out.Steps[i] = StepPrice{Step: i, Tool: st.Tool, Quality: st.Quality, UnitPrice: unit, Frames: out.Assets, Tokens: unit * int64(out.Assets)}
		out.Total += out.Steps[i].Tokens
		out.Frames += out.Assets
	}
	if out.Spendable, err = s.store.Spendable(ctx, p.HouseID); err != nil {
		return Preview{}, err
	}
	if out.Held, err = s.store.Held(ctx, p.HouseID); err != nil {
		return Preview{}, err
	}
	out.Affordable = out.Spendable >= out.Total
	return out, nil
}

// Receipt answers a run start: the run, and whether the idempotency key
// replayed an earlier one (nothing held then).
type Receipt struct {
	Run      Run  `json:"run"`
	Replayed bool `json:"replayed" description:"True when the idempotency key returned an earlier run; nothing was held."`
}

// Start holds every planned frame and queues the first step for every
// asset; the same idempotency key returns the same run with no second hold.
func (s *Service) Start(ctx context.Context, p auth.Principal, in PlanRequest) (Receipt, error) {
	if err := p.MaySpend(); err != nil {
		return Receipt{}, err
	}
	if err := job.CheckKey(in.IdempotencyKey); err != nil {
		return Receipt{}, err
	}
	pl, err := s.resolve(ctx, p, in)
	if err != nil {
		return Receipt{}, err
	}
	fp := fingerprint(pl.steps, pl.assetIDs)
	if in.IdempotencyKey != "" {
		prior, err := s.store.PipelineRunByKey(ctx, p.HouseID, p.UserID, in.IdempotencyKey)
		switch {
		case err == nil && prior.Fingerprint != fp:
			return Receipt{}, job.ErrKeyReused
		case err == nil:
			return Receipt{Run: View(prior), Replayed: true}, nil
		case !errors.Is(err, errs.NotFound):
			return Receipt{}, err
		}
	}
	now := ts.Of(s.now())
	rec := Record{ID: uuid.Must(uuid.NewV7()).String(), HouseID: p.HouseID, UserID: p.UserID, PresetID: pl.preset.ID,
		Name: pl.preset.Name, Steps: pl.steps, AssetIDs: pl.assetIDs, IdempotencyKey: in.IdempotencyKey, Fingerprint: fp, CreatedAt: now}
	if rec.Name == "" {
		rec.Name = title(pl.steps)
	}
	first := make([]job.Job, 0, len(pl.assetIDs))
	for a, asset := range pl.assetIDs {
		for i, st := range pl.steps {
			f := Frame{AssetIndex: a, Step: i, SourceAssetID: asset, JobID: uuid.Must(uuid.NewV7()).String(),
				Tokens: s.prices.Tool(st.Tool, st.Quality), State: Waiting}
			rec.Cost += f.Tokens
			if i == 0 {
				f.State = Started
				params := st.params(rec.ID)
				first = append(first, job.Job{ID: f.JobID, Tool: st.Tool, Status: job.Queued, CreatedAt: now, HouseID: p.HouseID,
					UserID: p.UserID, Tier: st.Quality, Params: params, Inputs: []job.Input{{Role: "image", AssetID: asset}}, Cost: f.Tokens,
					Fingerprint: job.Fingerprint(st.Tool, st.Quality, []string{"image:asset:" + asset}, params)})
			}
			rec.Frames = append(rec.Frames, f)
		}
	}
	stored, replayed, err := s.store.StartPipeline(ctx, rec, first)
	if err != nil {
		return Receipt{}, err
	}
	if replayed {
		if stored.Fingerprint != fp {
			return Receipt{}, job.ErrKeyReused
		}
		return Receipt{Run: View(stored), Replayed: true}, nil
	}
	return Receipt{Run: View(stored)}, nil
}

// Get returns one run of the house.
func (s *Service) Get(ctx context.Context, p auth.Principal, id string) (Run, error) {
	rec, err := s.store.PipelineRun(ctx, p.HouseID, id)
	if err != nil {
		return Run{}, err
	}
	return View(rec), nil
}

// ErrBadCursor refuses a before that is not a run of the house.
var ErrBadCursor = errs.Msg(errs.BadCursor, "before must be a nextCursor this list answered.")

// List pages the house's runs newest first; next is the cursor of the
// page after, "" on the last.
func (s *Service) List(ctx context.Context, p auth.Principal, before string, limit int) ([]Run, string, error) {
	recs, err := s.store.PipelineRuns(ctx, p.HouseID, before, limit+1)
	if errors.Is(err, errs.NotFound) {
		return nil, "", ErrBadCursor
	}
	if err != nil {
		return nil, "", err
	}
	next := ""
	if len(recs) > limit {
		recs = recs[:limit]
		next = recs[limit-1].ID
	}
	out := make([]Run, len(recs))
	for i, r := range recs {
		out[i] = View(r)
	}
	return out, next, nil
}

// Cancelled answers a run cancel.
type Cancelled struct {
	Run             Run      `json:"run"`
	CancelledJobIDs []string `json:"cancelledJobIds" description:"Queued develops cancelled now."`
	StillRendering  int      `json:"stillRendering" description:"Develops rendering now: they finish and cost; nothing follows them."`
	TokensReleased  int64    `json:"tokensReleased" description:"Released by this cancel: queued develops and steps that will not run."`
}

// Cancel stops a run: queued and waiting frames are released, rendering
// ones finish and cost. A second cancel changes nothing.
func (s *Service) Cancel(ctx context.Context, p auth.Principal, id string) (Cancelled, error) {
	if err := p.MayEdit(); err != nil {
		return Cancelled{}, err
	}
	before, err := s.store.PipelineRun(ctx, p.HouseID, id)
	if err != nil {
		return Cancelled{}, err
	}
	rec, jobs, err := s.store.CancelPipeline(ctx, p.HouseID, id)
	if err != nil {
		return Cancelled{}, err
	}
	out := Cancelled{Run: View(rec), CancelledJobIDs: []string{}}
	for _, j := range jobs {
		out.CancelledJobIDs = append(out.CancelledJobIDs, j.ID)
	}
	out.TokensReleased = out.Run.Tokens.Released - View(before).Tokens.Released
	for _, a := range out.Run.Assets {
		for _, st := range a.Steps {
			if st.Status == "running" {
				out.StillRendering++
			}
		}
	}
	return out, nil
}
