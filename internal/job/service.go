package job

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"studio/internal/asset"
	"studio/internal/auth"
	"studio/internal/engine"
	"studio/internal/errs"
	"studio/internal/ledger"
	"studio/internal/tool"
	"studio/internal/ts"
)

// Store is what jobs need from persistence.
type Store interface {
	// SubmitJob writes the hold, the job row and its first event in one
	// transaction. When the user already used j.IdempotencyKey in the
	// job's house it writes nothing and returns that job with replayed
	// true; keys are unique per (house, user, key), so the same key in
	// another house is another job.
	SubmitJob(ctx context.Context, j Job) (stored Job, replayed bool, err error)
	Job(ctx context.Context, house, id string) (Job, error)
	JobByKey(ctx context.Context, house, user, key string) (Job, error)
	// JobByResult returns the job of the house whose result is the asset.
	JobByResult(ctx context.Context, house, assetID string) (Job, error)
	JobsSince(ctx context.Context, house string, since int64, limit int) ([]Job, error)
	JobsCreatedSince(ctx context.Context, house string, after time.Time) ([]Job, error)
	RecentJobs(ctx context.Context, house string, status Status, limit int) ([]Job, error)
	// CancelQueued cancels those of the jobs still queued and voids their
	// holds, in one transaction; it returns the jobs it cancelled.
	CancelQueued(ctx context.Context, house string, ids []string) ([]Job, error)
	// Spendable is the house's spendable balance now.
	Spendable(ctx context.Context, house string) (int64, error)
	// Held is what the house's open holds reserve now.
	Held(ctx context.Context, house string) (int64, error)
}

// Assets is what jobs need of the library (asset.Service): uploaded inputs
// become house assets, and referenced inputs must be the house's live assets.
type Assets interface {
	// UploadInput files an uploaded input in the caller's house: the
	// house's asset with the same bytes when it has one (created false),
	// else a new asset of kind ("" leaves it without one).
	UploadInput(ctx context.Context, p auth.Principal, kind, filename string, data []byte) (assetID string, created bool, err error)
	// AllLive reports whether every id (repeats allowed) is a live asset
	// of the house.
	AllLive(ctx context.Context, house string, ids []string) (bool, error)
	// LiveSizes returns the stored size in bytes of each id (repeats
	// allowed) that is a live asset of the house; the others are absent.
	LiveSizes(ctx context.Context, house string, ids []string) (map[string]int64, error)
	// InputBytes reads the stored bytes of a live asset of the house
	// (a preflight hands them to the engine's measure).
	InputBytes(ctx context.Context, house, id string) ([]byte, error)
	// DiscardInputs removes inputs UploadInput made for a submit that did
	// not queue: their rows and their bytes, so a refused submit leaves
	// nothing behind; an input a job of the house already names (a
	// concurrent submit of the same bytes reused it) is kept.
	DiscardInputs(ctx context.Context, house string, ids []string)
}

// roleKinds files an uploaded input in the library by its role: a model as
// a model, a garment as clothes, a background as a background. Inputs in
// other roles (image, mask, base, item) get no kind.
var roleKinds = map[string]string{"model": "model", "garment": "clothes", "background": "background"}

// Notifier tells listeners that a job changed, after the change committed.
// The store has sent the change's event with its transaction
// (sqlstore.OnEvents); the worker tells its Notifier of what it ended, so
// that its process wakes the webhook senders when a frame lands.
type Notifier interface {
	JobChanged(ctx context.Context, j Job)
}

// Service runs the develop use cases shared by HTTP and MCP.
type Service struct {
	store   Store
	assets  Assets
	engines engine.Engine
	prices  ledger.Prices
	now     func() time.Time
	limiter Limiter // counts preflights; nil counts none
	// measured keeps the engine's recent answers to preflights.
	measured *measured
}

// NewService returns the job service.
func NewService(store Store, assets Assets, engines engine.Engine, prices ledger.Prices, now func() time.Time) *Service {
	return &Service{store: store, assets: assets, engines: engines, prices: prices, now: now, measured: &measured{}}
}

// Upload is an input sent as bytes; it becomes a house asset.
type Upload struct {
	Role     string
	Filename string
	Data     []byte
}

// SubmitRequest commissions one frame.
type SubmitRequest struct {
	Tool           string
	Tier           ledger.Tier
	Inputs         []Input  // existing house assets by role
	Uploads        []Upload // bytes by role (HTTP multipart)
	Params         map[string]string
	IdempotencyKey string
	BrandID        string
	RetryOfJobID   string
}

// Receipt is what a submit answers.
type Receipt struct {
	Job            Job
	TokensHeld     int64 // 0 on a replay
	Replayed       bool
	IdempotencyKey string
}

// Capability is a develop tool with its price per tier, the engine that
// serves it (nil when none configured here can: its note then names every
// setting that would serve it, as the catalog's does, issue 27), its
// options and, for a tool an engine performs only as a proof or a
// composite, a note (DECISIONS §10).
type Capability struct {
	Tool    string       `json:"tool"`
	Prices  []TierPrice  `json:"prices"`
	Engine  *string      `json:"engine" enum:"local,fal,image-api,fashn" description:"The configured engine that performs the tool; null when none here can."`
	Options []OptionSpec `json:"options" description:"The options the tool reads, sent as params (MCP) or form fields (submit)."`
	Note    string       `json:"note,omitempty" description:"What the engine makes of the tool when it performs it only as a proof or a composite; for a tool no engine here performs, the settings that would serve it."`
}

// TierPrice is a tool's price at one resolution.
type TierPrice struct {
	Resolution ledger.Tier `json:"resolution"`
	Tokens     int64       `json:"tokens"`
}

// Capabilities lists the submit tools with their live prices, engines,
// options and notes; a tool no configured engine performs is listed with
// no engine and a note saying what would serve it.
func (s *Service) Capabilities() []Capability {
	out := []Capability{}
	for _, name := range tool.SubmitTools() {
		c := Capability{Tool: name, Prices: make([]TierPrice, 0, len(ledger.Tiers))}
		served, note := engine.Provider(s.engines, name)
		if served != "" {
			c.Engine, c.Note = &served, note
		} else if t, ok := tool.Get(name); ok {
			c.Note = t.Unserved()
		}
		c.Options = OptionSpecs(name, served)
		for _, t := range ledger.Tiers {
			c.Prices = append(c.Prices, TierPrice{Resolution: t, Tokens: s.prices.Tool(name, t)})
		}
		out = append(out, c)
	}
	return out
}

// CatalogTool is a row of the billing catalog's price table with the
// engine that serves the tool, its options and note.
type CatalogTool struct {
	Tool    string            `json:"tool"`
	Prices  ledger.TierPrices `json:"prices"`
	Engine  *string           `json:"engine" enum:"local,fal,image-api,fashn" description:"The configured engine that performs the tool; null when none here can."`
	Options []OptionSpec      `json:"options" description:"The options the tool reads. Look frames (lookbook) take theirs from the look routes."`
	Note    string            `json:"note,omitempty" description:"What the engine makes of the tool when it performs it only as a proof or a composite."`
}

// Catalog is the body of GET /api/toolkit/ai/billing/catalog: the live
// price list, each tool with its engine, options and note.
type Catalog struct {
	Tiers        []ledger.Tier      `json:"tiers" description:"Quality tiers, cheapest first: 1k, 2k and 4k pixels on the long edge."`
	Tools        []CatalogTool      `json:"tools" description:"Tokens a develop holds and settles, per tool and tier, with the engine that performs the tool and its options."`
	DefaultPrice int64              `json:"defaultPrice" description:"Tokens a develop with a tool not listed in tools costs, at every tier."`
	Lanes        []ledger.Flat      `json:"lanes" description:"Flat AI lanes: one price at every tier, charged per call."`
	TextTools    []ledger.Flat      `json:"textTools" description:"Text tools: one price, charged only when the call succeeds."`
	Plans        []ledger.PlanOffer `json:"plans" description:"Monthly plans, trial first."`
	TopUps       []ledger.TopUpPack `json:"topUps" description:"Token packs sold once; their tokens never expire."`
}

// Catalog renders the live price list with each tool's engine, options
// and note. Any caller may read it.
func (s *Service) Catalog() Catalog {
	c := s.prices.Catalog()
	out := Catalog{Tiers: c.Tiers, DefaultPrice: c.DefaultPrice, Lanes: c.Lanes, TextTools: c.TextTools, Plans: c.Plans, TopUps: c.TopUps,
		Tools: make([]CatalogTool, len(c.Tools))}
	for i, t := range c.Tools {
		row := CatalogTool{Tool: t.Tool, Prices: t.Prices}
		name, note := engine.Provider(s.engines, t.Tool)
		if name != "" {
			row.Engine, row.Note = &name, note
		} else if d, ok := tool.Get(t.Tool); ok {
			row.Note = d.Unserved()
		}
		row.Options = OptionSpecs(t.Tool, name)
		out.Tools[i] = row
	}
	return out
}

// validate checks a submit before anything is read, stored or held: the
// tool, the tier, the roles, that the engines can do it, and its options.
func (s *Service) validate(in *SubmitRequest) error {
	if in.Tool == "" {
		return errs.With(ErrNoTool, "legal", tool.SubmitTools())
	}
	t, ok := tool.Get(in.Tool)
	if !ok || !t.Submit {
		return errs.With(ErrUnknownTool, "legal", tool.SubmitTools())
	}
	if in.Tier == "" {
		in.Tier = ledger.Tier1K
	}
	if !in.Tier.Valid() {
		return ErrBadQuality
	}
	have := map[string]int{}
	for _, i := range in.Inputs {
		if !t.Takes(i.Role) {
			return wrongRole(t, i.Role)
		}
		have[i.Role]++
	}
	for _, u := range in.Uploads {
		if !t.Takes(u.Role) {
			return wrongRole(t, u.Role)
		}
		if len(u.Data) == 0 {
			return ErrEmptyImage
		}
		have[u.Role]++
	}
	for role, n := range have {
		if r, _ := t.Role(role); n > r.Limit() {
			return errs.Msg(errs.BadForm, fmt.Sprintf("The tool %s takes at most %d %s input(s).", t.Name, r.Limit(), role))
		}
	}
	for _, r := range t.Required() {
		if have[r] == 0 {
			return errs.Msg(ErrNoImage, "The tool "+t.Name+" needs an input named "+r+".")
		}
	}
	if !s.engines.Can(in.Tool) {
		return errs.Msg(ErrFalNotConfigure, t.Unserved())
	}
	in.Params = CleanParams(in.Params)
	roles := slices.Clone(in.Inputs)
	for _, u := range in.Uploads {
		roles = append(roles, Input{Role: u.Role})
	}
	return CheckOptions(in.Tool, in.Params, roles)
}

// wrongRole refuses an input in a role the tool does not take, naming the
// roles it takes (legal).
func wrongRole(t tool.Tool, role string) error {
	roles := t.RoleNames()
	msg := fmt.Sprintf("The tool %s takes no %s input; it takes %s.", t.Name, role, andList(roles))
	return errs.With(errs.Msg(ErrNoImage, msg), "legal", roles)
}

// andList writes names as a sentence does: "a", "a and b", "a, b and c".
func andList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// Submit validates, resolves inputs to house assets, takes the hold and
// queues the job; the same idempotency key returns the same job with no
// second hold, and with a different request is IDEMPOTENCY_KEY_REUSED.
func (s *Service) Submit(ctx context.Context, p auth.Principal, in SubmitRequest) (Receipt, error) {
	if err := p.MaySpend(); err != nil {
		return Receipt{}, err
	}
	if err := CheckKey(in.IdempotencyKey); err != nil {
		return Receipt{}, err
	}
	if err := s.validate(&in); err != nil {
		return Receipt{}, err
	}
	cost := s.prices.Tool(in.Tool, in.Tier)
	digests := make([]string, 0, len(in.Inputs)+len(in.Uploads))
	for _, i := range in.Inputs {
		digests = append(digests, i.Role+":asset:"+i.AssetID)
	}
	for _, u := range in.Uploads {
		sum := sha256.Sum256(u.Data)
		digests = append(digests, u.Role+":bytes:"+hex.EncodeToString(sum[:]))
	}
	fp := Fingerprint(in.Tool, in.Tier, digests, in.Params)
	if rec, found, err := s.replay(ctx, p, in.IdempotencyKey, fp); found || err != nil {
		return rec, err
	}
	if err := s.checkInputs(ctx, p.HouseID, in.Inputs); err != nil {
		return Receipt{}, err
	}
	if len(in.Uploads) > 0 {
		// Uploads are stored and decoded before the hold is taken: refuse a
		// submit the balance cannot cover before any of that work.
		if err := s.afford(ctx, p.HouseID, cost); err != nil {
			return Receipt{}, err
		}
	}
	inputs := slices.Clone(in.Inputs)
	var created []string
	queued := false
	defer func() {
		if !queued && len(created) > 0 {
			s.assets.DiscardInputs(context.WithoutCancel(ctx), p.HouseID, created)
		}
	}()
	for _, u := range in.Uploads {
		id, isNew, err := s.assets.UploadInput(ctx, p, roleKinds[u.Role], u.Filename, u.Data)
		if err != nil {
			return Receipt{}, err
		}
		if isNew {
			created = append(created, id)
		}
		inputs = append(inputs, Input{Role: u.Role, AssetID: id})
	}
	j := Job{
		ID: uuid.Must(uuid.NewV7()).String(), Tool: in.Tool, Status: Queued, BrandID: in.BrandID,
		CreatedAt: ts.Of(s.now()), HouseID: p.HouseID, UserID: p.UserID, Tier: in.Tier,
		Params: in.Params, Inputs: inputs, RetryOfJobID: in.RetryOfJobID,
		IdempotencyKey: in.IdempotencyKey, Fingerprint: fp, Cost: cost,
	}
	rec, err := s.enqueue(ctx, j)
	queued = err == nil && !rec.Replayed
	return rec, err
}

// ErrInputTooLarge refuses an input named by id whose stored bytes are
// over the image limit (SPEC §8: 12 MB per image, uploaded or named).
var ErrInputTooLarge = errs.Msg(asset.ErrTooLarge, "An input asset is larger than 12 MB, the most a develop takes.")

// checkInputs refuses inputs named by id that are not live assets of the
// house (ASSET_NOT_FOUND) or whose stored bytes are over the image limit
// (IMAGE_TOO_LARGE with maxMb), before anything is read or held. An upload
// is held to the same limit where its bytes are inspected.
func (s *Service) checkInputs(ctx context.Context, house string, inputs []Input) error {
	if len(inputs) == 0 {
		return nil
	}
	ids := make([]string, len(inputs))
	for i, x := range inputs {
		ids[i] = x.AssetID
	}
	sizes, err := s.assets.LiveSizes(ctx, house, ids)
	if err != nil {
		return err
	}
	for _, in := range inputs {
		if _, ok := sizes[in.AssetID]; !ok {
			return errs.With(ErrAssetNotFound, "role", in.Role)
		}
	}
	for _, in := range inputs {
		if sizes[in.AssetID] > asset.MaxBytes {
			return errs.With(ErrInputTooLarge, "role", in.Role)
		}
	}
	return nil
}

// afford refuses, with INSUFFICIENT_TOKENS, a cost the house's balance
// cannot cover now. The hold Submit takes stays the authority (the balance
// may change in between); this only spares the work before it.
func (s *Service) afford(ctx context.Context, house string, cost int64) error {
	spendable, err := s.store.Spendable(ctx, house)
	if err != nil {
		return err
	}
	if spendable < cost {
		held, err := s.store.Held(ctx, house)
		if err != nil {
			return err
		}
		return ledger.Insufficient(cost, spendable, held)
	}
	return nil
}

// replay returns the job the user already submitted under key, when there
// is one: found with the same request (fp), IDEMPOTENCY_KEY_REUSED with
// another.
func (s *Service) replay(ctx context.Context, p auth.Principal, key, fp string) (Receipt, bool, error) {
	if key == "" {
		return Receipt{}, false, nil
	}
	prior, err := s.store.JobByKey(ctx, p.HouseID, p.UserID, key)
	switch {
	case errors.Is(err, errs.NotFound):
		return Receipt{}, false, nil
	case err != nil:
		return Receipt{}, false, err
	case prior.Fingerprint != fp:
		return Receipt{}, false, ErrKeyReused
	}
	return Receipt{Job: prior, Replayed: true, IdempotencyKey: key}, true, nil
}

// enqueue writes the hold, the job and its event, and tells the listeners.
// A concurrent retry that won the idempotency key is returned as a replay.
func (s *Service) enqueue(ctx context.Context, j Job) (Receipt, error) {
	stored, replayed, err := s.store.SubmitJob(ctx, j)
	if err != nil {
		return Receipt{}, err
	}
	if replayed {
		if stored.Fingerprint != j.Fingerprint {
			return Receipt{}, ErrKeyReused
		}
		return Receipt{Job: stored, Replayed: true, IdempotencyKey: j.IdempotencyKey}, nil
	}
	return Receipt{Job: stored, TokensHeld: j.Cost, IdempotencyKey: j.IdempotencyKey}, nil
}

// Get returns one job of the caller's house.
func (s *Service) Get(ctx context.Context, p auth.Principal, id string) (Job, error) {
	return s.store.Job(ctx, p.HouseID, id)
}

// FrameJob returns the develop of the caller's house that made the frame
// assetID; errs.NotFound when no develop of the house made it.
func (s *Service) FrameJob(ctx context.Context, p auth.Principal, assetID string) (Job, error) {
	return s.store.JobByResult(ctx, p.HouseID, assetID)
}

// Since returns the jobs changed after the cursor, ascending by eventSeq.
func (s *Service) Since(ctx context.Context, p auth.Principal, since int64) ([]Job, error) {
	if since < 0 {
		return nil, ErrBadSince
	}
	return s.store.JobsSince(ctx, p.HouseID, since, 1000)
}

// Recent lists the newest jobs, optionally of one status.
func (s *Service) Recent(ctx context.Context, p auth.Principal, status Status, limit int) ([]Job, error) {
	return s.store.RecentJobs(ctx, p.HouseID, status, limit)
}

// CancelResult is the answer to a job cancel.
type CancelResult struct {
	ID             string `json:"id"`
	Cancelled      bool   `json:"cancelled"`
	State          Status `json:"state" enum:"queued,running,done,failed,cancelled"`
	TokensReleased int64  `json:"tokensReleased"`
	Reason         string `json:"reason,omitempty" enum:"ALREADY_RENDERING,ALREADY_SETTLED"`
}

// Cancel cancels a queued job and releases its hold. A rendering frame
// finishes and still costs; a settled one is unchanged.
func (s *Service) Cancel(ctx context.Context, p auth.Principal, id string) (CancelResult, error) {
	if err := p.MayEdit(); err != nil {
		return CancelResult{}, err
	}
	j, err := s.store.Job(ctx, p.HouseID, id)
	if err != nil {
		return CancelResult{}, err
	}
	if j.Status == Queued {
		done, err := s.store.CancelQueued(ctx, p.HouseID, []string{id})
		if err != nil {
			return CancelResult{}, err
		}
		if len(done) == 1 {
			return CancelResult{ID: id, Cancelled: true, State: Cancelled, TokensReleased: done[0].Cost}, nil
		}
		if j, err = s.store.Job(ctx, p.HouseID, id); err != nil { // a worker claimed it meanwhile
			return CancelResult{}, err
		}
	}
	reason := "ALREADY_SETTLED"
	if j.Status == Running || j.Status == Queued {
		reason = "ALREADY_RENDERING"
	}
	return CancelResult{ID: id, State: j.Status, Reason: reason}, nil
}

// EngineNote is the note of the engine that serves tool here: what it
// makes of a tool it performs only as a proof or a composite ("" for one
// it performs fully, or that no engine here performs).
func (s *Service) EngineNote(tool string) string {
	_, note := engine.Provider(s.engines, tool)
	return note
}

// Follows reports whether the engine that serves tool follows the written
// direction (DECISIONS §11), and the directions it follows when it keeps
// a vocabulary: an engine that passes words to a model follows any.
func (s *Service) Follows(tool, direction string) ([]string, bool) {
	return engine.Follows(s.engines, tool, direction)
}

// Literal reports whether the engine that serves tool renders the same
// frame from the same inputs, following only its declared directions (the
// local engine): a redraw there mends only what a direction can.
func (s *Service) Literal(tool string) bool {
	_, ok := engine.Serving(s.engines, tool).(engine.Follower)
	return ok
}
