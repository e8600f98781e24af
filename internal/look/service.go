package look

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/job"
	"studio/internal/ledger"
	"studio/internal/ts"
)

// Piece is a live asset of the house as looks need it.
type Piece struct {
	ID, Name, Kind string
}

// Frame is one of a look's jobs, joined to the job.
type Frame struct {
	JobID         string
	Stage         Stage
	Key           string
	BaseAssetID   string
	Status        job.Status
	ResultAssetID string
	Error         *string
}

// State is what a look's rules read besides the look: whether a develop is
// in flight, the frames its done jobs made (asset id -> job id) and the
// collage of the house's own model the look casts ("" when its model asset
// is in no model's dossier).
type State struct {
	InFlight     bool
	Frames       map[string]string
	ModelCollage string
}

// LookJob is a job of a look to insert with its hold.
type LookJob struct {
	Job         job.Job
	Stage       Stage
	Key         string
	BaseAssetID string
}

// Store is what looks need from persistence.
type Store interface {
	// Pieces returns the house's live assets among ids, by id.
	Pieces(ctx context.Context, house string, ids []string) (map[string]Piece, error)
	// BackgroundPieces lists the house's live assets filed as background, newest first.
	BackgroundPieces(ctx context.Context, house string) ([]Piece, error)
	InsertLooks(ctx context.Context, looks []Look) error
	Looks(ctx context.Context, house string, limit int) ([]Look, error)
	Look(ctx context.Context, house, id string) (Look, error)
	Frames(ctx context.Context, house, lookID string) ([]Frame, error)
	// UpdateLook reads the look and its state, lets edit change it, and
	// stores the change, in one transaction; edit's error writes nothing.
	UpdateLook(ctx context.Context, house, id string, edit func(*Look, State) error) (Look, error)
	// SubmitLookJobs checks the look with check and writes every job with
	// its hold and first event, in one transaction: all of them or none.
	// When the first job's idempotency key was used already it writes
	// nothing and returns the jobs stored under the jobs' keys, replayed.
	SubmitLookJobs(ctx context.Context, house, lookID string, check func(Look, State) error, jobs []LookJob) ([]job.Job, bool, error)
	// SubmitLookbook writes new looks and the first job of each with its
	// hold, first event and look link, in one transaction: all of them or
	// none (the holds are taken together, so a shortfall is
	// INSUFFICIENT_TOKENS for the whole with nothing written). When the
	// first job's idempotency key was used already it writes nothing and
	// returns the jobs stored under the jobs' keys, replayed.
	SubmitLookbook(ctx context.Context, house string, looks []Look, jobs []LookJob) ([]job.Job, bool, error)
	StandingPreset(ctx context.Context, house string) (StandingPreset, bool, error)
	SaveStandingPreset(ctx context.Context, house string, p StandingPreset) error
	PosturePrefs(ctx context.Context, house string) (Prefs, error)
	// UpdatePosturePrefs reads the prefs, lets edit change them and stores
	// them, in one transaction.
	UpdatePosturePrefs(ctx context.Context, house string, edit func(Prefs) (Prefs, error)) (Prefs, error)
	Balance(ctx context.Context, house string) (ledger.Balance, error)
}

// Service runs the lookbook use cases.
type Service struct {
	store  Store
	prices ledger.Prices
	now    func() time.Time
	caster Caster
	models *models
}

// NewService returns the lookbook service.
func NewService(store Store, prices ledger.Prices, now func() time.Time) *Service {
	return &Service{store: store, prices: prices, now: now}
}

// Caster turns a casting board id into the asset a look casts
// (casting.Service.CastAsset): errs.NotFound when it names no model the
// house may see.
type Caster interface {
	CastAsset(ctx context.Context, p auth.Principal, id string) (string, error)
}

// CastFrom lets a look's modelAssetId name a casting board entry (an own
// model, a catalogue face) as well as an asset; it returns s.
func (s *Service) CastFrom(c Caster) *Service {
	s.caster = c
	return s
}

// castModel answers the asset a look casts for model: model itself when it
// is a live asset of the house, else the asset of the casting board entry
// it names (an own model's collage, a usable face's cover kept in the
// library). Anything else is the one ASSET_NOT_FOUND; a face the house may
// not use is refused (403) before anything is held.
func (s *Service) castModel(ctx context.Context, p auth.Principal, model string) (string, error) {
	if model == "" || s.caster == nil {
		return model, nil
	}
	found, err := s.store.Pieces(ctx, p.HouseID, []string{model})
	if err != nil {
		return "", err
	}
	if _, ok := found[model]; ok {
		return model, nil
	}
	cast, err := s.caster.CastAsset(ctx, p, model)
	if errors.Is(err, errs.NotFound) {
		return "", ErrAssetNotFound
	}
	return cast, err
}

func canEdit(p auth.Principal) error {
	if err := p.MayEdit(); err != nil {
		return err
	}
	return nil
}

// parseTier reads a quality; "" is 1k.
func parseTier(q string) (ledger.Tier, error) {
	t, ok := ledger.ParseTier(q)
	if !ok {
		return "", ErrBadQuality
	}
	return t, nil
}

// CreateRequest is the body of POST /api/toolkit/lookbook/looks.
type CreateRequest struct {
	Name         string     `json:"name" required:"true"`
	ModelAssetID string     `json:"modelAssetId" required:"true" description:"A model photograph of the house, or a casting board model's id: an own model casts its collage, a catalogue face the house may use (free, bought, or its exclusive claim) its cover, kept once in the library (403 FORBIDDEN for a face it may not use)."`
	Items        []Item     `json:"itemAssetIds" required:"true"`
	Background   Background `json:"background" required:"true"`
	Aesthetic    string     `json:"aesthetic" required:"true" description:"One of editorial, minimal, street, studio, romantic, noir."`
	BrandID      *string    `json:"brandId,omitempty"`
}

// draft validates the parts of a look without touching the store.
func draft(name, model string, items []Item, bg Background, aesthetic string) (Look, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return Look{}, ErrNameRequired
	}
	if utf8.RuneCountInString(name) > maxName {
		return Look{}, errs.Msg(ErrNameRequired, "A look's name is at most 120 characters.")
	}
	model = strings.TrimSpace(model)
	if model == "" {
		return Look{}, ErrModelRequired
	}
	items, err := CheckItems(items)
	if err != nil {
		return Look{}, err
	}
	if err := bg.Check(); err != nil {
		return Look{}, err
	}
	if err := CheckAesthetic(aesthetic); err != nil {
		return Look{}, err
	}
	l := Look{Name: name, ModelAssetID: model, Items: items, Preset: Preset{Aesthetic: aesthetic, Background: bg},
		Status: Draft, Variations: []string{}}
	if bg.Kind == "asset" {
		id := bg.AssetID
		l.BackgroundAssetID = &id
	}
	return l, nil
}

// assetIDs lists the assets a look draws on.
func (l Look) assetIDs() []string {
	ids := []string{l.ModelAssetID}
	for _, it := range l.Items {
		ids = append(ids, it.AssetID)
	}
	if l.BackgroundAssetID != nil {
		ids = append(ids, *l.BackgroundAssetID)
	}
	return ids
}

// resolve checks that every asset of the looks is a live asset of the
// house (ASSET_NOT_FOUND otherwise) and fills missing labels from names.
func (s *Service) resolve(ctx context.Context, house string, looks []Look) error {
	var ids []string
	for _, l := range looks {
		ids = append(ids, l.assetIDs()...)
	}
	found, err := s.store.Pieces(ctx, house, ids)
	if err != nil {
		return err
	}
	for i := range looks {
		for _, id := range looks[i].assetIDs() {
			if _, ok := found[id]; !ok {
				return ErrAssetNotFound
			}
		}
		for j, it := range looks[i].Items {
			if it.Label == "" {
				looks[i].Items[j].Label = cleanLabel(found[it.AssetID].Name)
			}
		}
	}
	return nil
}

func (s *Service) stamp(p auth.Principal, l *Look, brand *string) {
	now := ts.Of(s.now())
	l.ID = uuid.Must(uuid.NewV7()).String()
	l.OrganizationID = p.HouseID
	if p.UserID != "" {
		u := p.UserID
		l.CreatedByUserID = &u
	}
	if brand != nil && strings.TrimSpace(*brand) != "" {
		b := strings.TrimSpace(*brand)
		l.BrandID = &b
	}
	l.CreatedAt, l.UpdatedAt = now, now
}

// Create makes a draft look; nothing is developed or charged.
func (s *Service) Create(ctx context.Context, p auth.Principal, in CreateRequest) (Look, error) {
	if err := canEdit(p); err != nil {
		return Look{}, err
	}
	l, err := draft(in.Name, in.ModelAssetID, in.Items, in.Background, in.Aesthetic)
	if err != nil {
		return Look{}, err
	}
	if l.ModelAssetID, err = s.castModel(ctx, p, l.ModelAssetID); err != nil {
		return Look{}, err
	}
	looks := []Look{l}
	if err := s.resolve(ctx, p.HouseID, looks); err != nil {
		return Look{}, err
	}
	s.stamp(p, &looks[0], in.BrandID)
	if err := s.store.InsertLooks(ctx, looks); err != nil {
		return Look{}, err
	}
	return looks[0], nil
}

// List returns the house's newest looks, at most 50.
func (s *Service) List(ctx context.Context, p auth.Principal) ([]Look, error) {
	return s.store.Looks(ctx, p.HouseID, ListLimit)
}

// Get returns a look with its variation frames and its newest lock develop.
func (s *Service) Get(ctx context.Context, p auth.Principal, id string) (Detail, error) {
	l, err := s.store.Look(ctx, p.HouseID, id)
	if err != nil {
		return Detail{}, err
	}
	frames, err := s.store.Frames(ctx, p.HouseID, id)
	if err != nil {
		return Detail{}, err
	}
	prefs, err := s.store.PosturePrefs(ctx, p.HouseID)
	if err != nil {
		return Detail{}, err
	}
	ps := Postures{Custom: prefs.Custom}
	d := Detail{Look: l, Variations: []Variation{}}
	for _, f := range frames { // oldest first
		switch f.Stage {
		case StageLock:
			d.LockDevelop = &LockDevelop{ID: f.JobID, Status: string(f.Status), ResultAssetID: optional(f.ResultAssetID), Error: f.Error}
		case StageVariation:
			d.Variations = append(d.Variations, Variation{Key: f.Key, Framing: Framing(f.Key, ps), JobID: f.JobID,
				AssetID: optional(f.ResultAssetID), Locked: l.LookBaseAssetID != nil && *l.LookBaseAssetID == f.BaseAssetID,
				Status: string(f.Status), Error: f.Error})
		}
	}
	return d, nil
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// DevelopRequest is the body of POST .../develop-lock.
type DevelopRequest struct {
	Quality        string          `json:"quality,omitempty" enum:"1k,2k,4k"`
	Output         json.RawMessage `json:"output,omitempty" description:"An output destination: a name, or {destination, width?, height?}; default web-tile."`
	IdempotencyKey string          `json:"idempotencyKey,omitempty" description:"Generated when omitted; the same key returns the same job with no second hold."`
}

// Receipt answers a develop-lock.
type Receipt struct {
	JobID          string     `json:"jobId"`
	Status         job.Status `json:"status" enum:"queued,running,done,failed,cancelled"`
	Tokens         int64      `json:"tokens" description:"Tokens held for the frame, restoration pass included (0 on a replay)."`
	IdempotencyKey string     `json:"idempotencyKey"`
}

// frameCost prices one look frame: the lookbook price at the tier plus a
// restoration pass when the destination needs one.
func (s *Service) frameCost(t ledger.Tier, restore bool) int64 {
	c := s.prices.Tool(Tool, t)
	if restore {
		c += s.prices.Tool("upscale", nextTier(t))
	}
	return c
}

// shot is what every frame of one request shares.
type shot struct {
	tier    ledger.Tier
	dest    Destination
	restore bool
	key     string // the request's idempotency key
}

func (s *Service) parseShot(quality string, output json.RawMessage, key string) (shot, error) {
	t, err := parseTier(quality)
	if err != nil {
		return shot{}, err
	}
	d, err := ParseOutput(output)
	if err != nil {
		return shot{}, err
	}
	restore, err := Restoration(d, t)
	if err != nil {
		return shot{}, err
	}
	key = strings.TrimSpace(key)
	if err := job.CheckKey(key); err != nil {
		return shot{}, err
	}
	if key == "" {
		key = uuid.NewString()
	}
	return shot{tier: t, dest: d, restore: restore, key: key}, nil
}

// frameJob builds the job of one frame of l.
func (s *Service) frameJob(p auth.Principal, l Look, sh shot, stage Stage, key, idem string, ps Postures) LookJob {
	inputs := []job.Input{{Role: "model", AssetID: l.ModelAssetID}}
	roles := make([]string, 0, len(l.Items))
	labels := make([]string, 0, len(l.Items))
	for _, it := range l.Items {
		inputs = append(inputs, job.Input{Role: "item", AssetID: it.AssetID})
		roles = append(roles, it.Role)
		labels = append(labels, it.Label)
	}
	bg := l.Preset.Background
	params := map[string]string{
		"lookId": l.ID, "stage": string(stage), "key": key,
		"outputWidth": itoa(sh.dest.Width), "outputHeight": itoa(sh.dest.Height), "destination": sh.dest.Name,
		"aesthetic": l.Preset.Aesthetic, "background": bg.Value, "roles": strings.Join(roles, ","),
		"labels": jsonList(labels),
	}
	if bg.Kind == "asset" {
		params["background"] = "asset"
		inputs = append(inputs, job.Input{Role: "background", AssetID: bg.AssetID})
	} else {
		params["tone"] = Tone(bg.Value)
		params["scene"] = Scene(bg.Value)
	}
	base := ""
	if stage == StageVariation && l.LookBaseAssetID != nil {
		base = *l.LookBaseAssetID
		inputs = append(inputs, job.Input{Role: "base", AssetID: base})
	}
	if id, ok := strings.CutPrefix(key, PosturePrefix); ok {
		params["posture"] = ps.Directive(id)
	}
	if sh.restore {
		params["restore"] = "1"
	}
	digests := make([]string, len(inputs))
	for i, in := range inputs {
		digests[i] = in.Role + ":asset:" + in.AssetID
	}
	j := job.Job{
		ID: uuid.Must(uuid.NewV7()).String(), Tool: Tool, Status: job.Queued, CreatedAt: ts.Of(s.now()),
		HouseID: p.HouseID, UserID: p.UserID, Tier: sh.tier, Params: params, Inputs: inputs,
		IdempotencyKey: idem, Fingerprint: job.Fingerprint(Tool, sh.tier, digests, params), Cost: s.frameCost(sh.tier, sh.restore),
	}
	if l.BrandID != nil {
		j.BrandID = *l.BrandID
	}
	return LookJob{Job: j, Stage: stage, Key: key, BaseAssetID: base}
}

// jsonList writes a list of strings as a JSON array (params.labels).
func jsonList(s []string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// replayed checks a replay matches the request: the same frames, each
// with the same fingerprint; otherwise the key was reused.
func replayed(want []LookJob, got []job.Job) error {
	if len(want) != len(got) {
		return job.ErrKeyReused
	}
	byKey := map[string]job.Job{}
	for _, j := range got {
		byKey[j.IdempotencyKey] = j
	}
	for _, w := range want {
		g, ok := byKey[w.Job.IdempotencyKey]
		if !ok || g.Params["lookId"] != w.Job.Params["lookId"] || g.Tier != w.Job.Tier ||
			g.Params["key"] != w.Job.Params["key"] || g.Params["destination"] != w.Job.Params["destination"] ||
			g.Params["outputWidth"] != w.Job.Params["outputWidth"] || g.Params["outputHeight"] != w.Job.Params["outputHeight"] {
			return job.ErrKeyReused
		}
	}
	return nil
}

// DevelopLock queues the lock develop of a draft look, holding the tier's
// price plus any restoration pass the destination forces.
func (s *Service) DevelopLock(ctx context.Context, p auth.Principal, id string, in DevelopRequest) (Receipt, error) {
	if err := canEdit(p); err != nil {
		return Receipt{}, err
	}
	sh, err := s.parseShot(in.Quality, in.Output, in.IdempotencyKey)
	if err != nil {
		return Receipt{}, err
	}
	l, err := s.store.Look(ctx, p.HouseID, id)
	if err != nil {
		return Receipt{}, err
	}
	if err := s.checkModel(ctx, p.HouseID, l.ModelAssetID); err != nil {
		return Receipt{}, err
	}
	lj := s.frameJob(p, l, sh, StageLock, string(StageLock), sh.key, Postures{})
	stored, replay, err := s.store.SubmitLookJobs(ctx, p.HouseID, id, func(cur Look, st State) error {
		switch {
		case cur.Status != Draft:
			return ErrLookLocked
		case st.InFlight:
			return ErrDevelopInFlight
		}
		return nil
	}, []LookJob{lj})
	if err != nil {
		return Receipt{}, err
	}
	if replay {
		if err := replayed([]LookJob{lj}, stored); err != nil {
			return Receipt{}, err
		}
		return Receipt{JobID: stored[0].ID, Status: stored[0].Status, IdempotencyKey: sh.key}, nil
	}
	return Receipt{JobID: stored[0].ID, Status: stored[0].Status, Tokens: stored[0].Cost, IdempotencyKey: sh.key}, nil
}

// LockRequest is the body of POST .../lock.
type LockRequest struct {
	AssetID string `json:"assetId" required:"true" description:"A frame one of this look's develops made."`
}

// Lock freezes the look base on a frame one of the look's develops made.
func (s *Service) Lock(ctx context.Context, p auth.Principal, id string, in LockRequest) (Look, error) {
	if err := canEdit(p); err != nil {
		return Look{}, err
	}
	asset := strings.TrimSpace(in.AssetID)
	if asset == "" {
		return Look{}, ErrAssetRequired
	}
	return s.store.UpdateLook(ctx, p.HouseID, id, func(l *Look, st State) error {
		if st.InFlight {
			return ErrDevelopInFlight
		}
		jobID, ok := st.Frames[asset]
		if !ok {
			return ErrNotALookFrame
		}
		l.Status, l.LookBaseAssetID, l.LookBaseJobID = Locked, &asset, &jobID
		l.LookBaseParentAssetID = nil
		if st.ModelCollage != "" {
			parent := st.ModelCollage
			l.LookBaseParentAssetID = &parent
		}
		l.UpdatedAt = ts.Of(s.now())
		return nil
	})
}

// Unlock returns a locked look to draft, keeping its look-base fields
// until the next lock supersedes them; a draft look is answered unchanged.
func (s *Service) Unlock(ctx context.Context, p auth.Principal, id string) (Look, error) {
	if err := canEdit(p); err != nil {
		return Look{}, err
	}
	return s.store.UpdateLook(ctx, p.HouseID, id, func(l *Look, st State) error {
		if l.Status == Draft {
			return nil
		}
		if st.InFlight {
			return ErrDevelopInFlight
		}
		l.Status = Draft
		l.UpdatedAt = ts.Of(s.now())
		return nil
	})
}

// VariationsRequest is the body of POST .../variations.
type VariationsRequest struct {
	Quality        string            `json:"quality,omitempty" enum:"1k,2k,4k"`
	Output         json.RawMessage   `json:"output,omitempty" description:"An output destination: a name, or {destination, width?, height?}; default web-tile."`
	IdempotencyKey string            `json:"idempotencyKey,omitempty"`
	Keys           []string          `json:"keys" required:"true" description:"Variation keys (front, back, side, three-quarter, walking, seated, detail, close-up) or posture:<posture_id>; at most 12."`
	Controls       map[string]string `json:"controls,omitempty" description:"Posture axis id to stop id, applied to posture keys."`
}

// KeyJob is one variation frame queued.
type KeyJob struct {
	Key   string `json:"key"`
	JobID string `json:"jobId"`
}

// Variations queues one frame per key from the locked look base, holding
// every frame's tokens in one transaction or none.
func (s *Service) Variations(ctx context.Context, p auth.Principal, id string, in VariationsRequest) ([]KeyJob, error) {
	if err := canEdit(p); err != nil {
		return nil, err
	}
	sh, err := s.parseShot(in.Quality, in.Output, in.IdempotencyKey)
	if err != nil {
		return nil, err
	}
	prefs, err := s.store.PosturePrefs(ctx, p.HouseID)
	if err != nil {
		return nil, err
	}
	ps := Postures{Custom: prefs.Custom}
	if err := CheckKeys(in.Keys, ps); err != nil {
		return nil, err
	}
	for axis, stop := range in.Controls {
		if !validStop(axis, stop) {
			return nil, errs.Msg(errs.BadBody, "controls maps a posture axis to one of its stops.")
		}
	}
	l, err := s.store.Look(ctx, p.HouseID, id)
	if err != nil {
		return nil, err
	}
	if l.Status != Locked || l.LookBaseAssetID == nil {
		return nil, ErrLockRequired
	}
	jobs := make([]LookJob, len(in.Keys))
	for i, k := range in.Keys {
		jobs[i] = s.frameJob(p, l, sh, StageVariation, k, sh.key+"#"+k, ps)
		for axis, stop := range in.Controls {
			jobs[i].Job.Params["control."+axis] = stop
		}
	}
	base := *l.LookBaseAssetID
	stored, replay, err := s.store.SubmitLookJobs(ctx, p.HouseID, id, func(cur Look, st State) error {
		switch {
		case cur.Status != Locked || cur.LookBaseAssetID == nil || *cur.LookBaseAssetID != base:
			return ErrLockRequired
		case st.InFlight:
			return ErrDevelopInFlight
		}
		return nil
	}, jobs)
	if err != nil {
		return nil, err
	}
	if replay {
		if err := replayed(jobs, stored); err != nil {
			return nil, err
		}
	}
	out := make([]KeyJob, len(stored))
	for i, j := range stored {
		out[i] = KeyJob{Key: j.Params["key"], JobID: j.ID}
	}
	return out, nil
}
