package look

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"

	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/job"
	"studio/internal/ledger"
)

// A lookbook in one call (DECISIONS §11, MCP develop_lookbook): from a
// cast model and up to MaxLookbookGarments garments, the looks are planned
// as the factory plans them (propose), created as drafts and every base
// frame (the lock develop) is queued, the whole cost held at once: all of
// it or nothing. The same idempotency key answers the same looks and
// holds nothing more. Choices where the contract is silent:
//
//   - looks (the look count) defaults to one look per garment (the
//     factory's plan); fewer looks deal the further garments round the
//     looks as extra pieces, in order; more looks than the plan makes is
//     BAD_LOOK_COUNT. A look over six pieces is TOO_MANY_ITEMS.
//   - brief picks the aesthetic and the background when it names one of
//     them (an aesthetic's word, a background preset's name or id); the
//     standing preset's stand otherwise. Its text is not kept.
//   - quality defaults to the standing preset's, as the factory's;
//     frames are developed for the default destination (web-tile).
//   - The looks keep the standing preset's variation keys as their plan;
//     no variation is developed until the caller locks a look.

// MaxLookbookGarments is the most garments one lookbook takes.
const MaxLookbookGarments = 12

// maxBrief is the longest brief, in characters.
const maxBrief = 600

// Codes raised by lookbooks.
var (
	ErrGarmentsRequired = errs.New(errs.KindInvalid, "GARMENTS_REQUIRED", "Name at least one garment (garmentAssetIds).")
	ErrTooManyGarments  = errs.New(errs.KindInvalid, "TOO_MANY_GARMENTS", "A lookbook takes at most 12 garments.")
	ErrBadLookCount     = errs.New(errs.KindInvalid, "BAD_LOOK_COUNT", "looks is a whole number from 1 to the number of looks the garments make (one per garment).")
	ErrBadBrief         = errs.New(errs.KindInvalid, "BAD_BRIEF", "A brief is plain text of at most 600 characters.")
)

// LookbookRequest asks for a lookbook.
type LookbookRequest struct {
	ModelAssetID    string   `json:"modelAssetId" required:"true" description:"A model photograph of the house, or a casting board model's id, as a look's."`
	GarmentAssetIDs []string `json:"garmentAssetIds" required:"true" minItems:"1" maxItems:"12" description:"The house's garments, accessories and jewelry; each garment leads a look."`
	Brief           string   `json:"brief,omitempty" maxLength:"600" description:"Plain words; an aesthetic or a background preset it names is used."`
	Looks           int      `json:"looks,omitempty" minimum:"1" description:"How many looks; default one per garment."`
	Quality         string   `json:"quality,omitempty" enum:"1k,2k,4k" description:"Default: the standing preset's."`
	IdempotencyKey  string   `json:"idempotencyKey,omitempty" description:"The same key and request answer the same looks and hold nothing more."`
}

// Lookbook answers a lookbook: the looks created, each with the job of its
// base frame, and what the whole holds.
type Lookbook struct {
	BatchID        string         `json:"batchId"`
	Quality        ledger.Tier    `json:"quality" enum:"1k,2k,4k"`
	Aesthetic      string         `json:"aesthetic"`
	Background     Background     `json:"background"`
	Looks          []LookbookLook `json:"looks"`
	TokensHeld     int64          `json:"tokensHeld" description:"What the base frames hold together; a replay answers the first call's figure and holds nothing more."`
	IdempotencyKey string         `json:"idempotencyKey"`
}

// LookbookLook is one look of a lookbook and the develop of its base frame.
type LookbookLook struct {
	LookID        string   `json:"lookId"`
	Name          string   `json:"name"`
	JobID         string   `json:"jobId" description:"The base frame's develop: watch it, then lock the look on its frame."`
	Items         []Item   `json:"itemAssetIds"`
	VariationKeys []string `json:"variationKeys"`
}

// Lookbook plans, creates and develops a lookbook (see above).
func (s *Service) Lookbook(ctx context.Context, p auth.Principal, in LookbookRequest) (Lookbook, error) {
	if err := canEdit(p); err != nil {
		return Lookbook{}, err
	}
	model := strings.TrimSpace(in.ModelAssetID)
	if model == "" {
		return Lookbook{}, ErrModelRequired
	}
	switch n := len(in.GarmentAssetIDs); {
	case n == 0:
		return Lookbook{}, ErrGarmentsRequired
	case n > MaxLookbookGarments:
		return Lookbook{}, errs.With(ErrTooManyGarments, "max", MaxLookbookGarments)
	}
	garments := make([]string, len(in.GarmentAssetIDs))
	for i, id := range in.GarmentAssetIDs {
		garments[i] = strings.TrimSpace(id)
		if garments[i] == "" || slices.Contains(garments[:i], garments[i]) {
			return Lookbook{}, errs.With(errs.Msg(ErrBadItem, "Each garment is a distinct asset id."), "legal", ItemRoles)
		}
	}
	brief := strings.TrimSpace(in.Brief)
	if utf8.RuneCountInString(brief) > maxBrief || strings.ContainsAny(brief, "\x00\r") {
		return Lookbook{}, errs.With(ErrBadBrief, "max", maxBrief)
	}
	if in.Looks < 0 {
		return Lookbook{}, ErrBadLookCount
	}
	preset, err := s.Preset(ctx, p)
	if err != nil {
		return Lookbook{}, err
	}
	quality := in.Quality
	if quality == "" {
		quality = string(preset.Quality)
	}
	sh, err := s.parseShot(quality, nil, in.IdempotencyKey)
	if err != nil {
		return Lookbook{}, err
	}
	aesthetic, bg := fromBrief(brief, preset.Aesthetic, preset.Background)
	fp := lookbookDigest(model, garments, in.Looks, sh.tier, brief)

	found, err := s.store.Pieces(ctx, p.HouseID, garments)
	if err != nil {
		return Lookbook{}, err
	}
	pieces := make([]Piece, len(garments))
	for i, id := range garments {
		pc, ok := found[id]
		if !ok {
			return Lookbook{}, ErrAssetNotFound
		}
		pieces[i] = pc
	}
	cast, err := s.castModel(ctx, p, model)
	if err != nil {
		return Lookbook{}, err
	}
	if err := s.checkModel(ctx, p.HouseID, cast); err != nil {
		return Lookbook{}, err
	}
	proposed, _ := propose(pieces, &cast, bg, preset.VariationKeys)
	if proposed, err = deal(proposed, in.Looks); err != nil {
		return Lookbook{}, err
	}

	batch := uuid.Must(uuid.NewV7()).String()
	looks := make([]Look, len(proposed))
	jobs := make([]LookJob, len(proposed))
	for i, pl := range proposed {
		l, err := draft(pl.Name, cast, pl.Items, bg, aesthetic)
		if err != nil {
			return Lookbook{}, errs.With(asErr(err), "look", i)
		}
		l.Variations = pl.VariationKeys
		s.stamp(p, &l, nil)
		l.BatchID = &batch
		looks[i] = l
	}
	if err := s.resolve(ctx, p.HouseID, looks); err != nil { // the preset's background asset may be gone
		return Lookbook{}, err
	}
	for i, l := range looks {
		jobs[i] = s.frameJob(p, l, sh, StageLock, string(StageLock), sh.key+"#"+strconv.Itoa(i), Postures{})
		jobs[i].Job.Fingerprint = job.Fingerprint(Tool, sh.tier, []string{"lookbook:" + fp, "look:" + strconv.Itoa(i)}, nil)
	}
	stored, replay, err := s.store.SubmitLookbook(ctx, p.HouseID, looks, jobs)
	if err != nil {
		return Lookbook{}, err
	}
	if replay {
		return s.replayLookbook(ctx, p, jobs, stored, sh.key)
	}
	out := Lookbook{BatchID: batch, Quality: sh.tier, Aesthetic: aesthetic, Background: bg, Looks: make([]LookbookLook, len(looks)),
		IdempotencyKey: sh.key}
	for i, j := range stored {
		out.TokensHeld += j.Cost
		out.Looks[i] = LookbookLook{LookID: looks[i].ID, Name: looks[i].Name, JobID: j.ID, Items: looks[i].Items, VariationKeys: looks[i].Variations}
	}
	return out, nil
}

// replayLookbook answers a key used before with what its first call
// answered, read back from the jobs and looks it made; a key used for
// another request is IDEMPOTENCY_KEY_REUSED.
func (s *Service) replayLookbook(ctx context.Context, p auth.Principal, want []LookJob, got []job.Job, key string) (Lookbook, error) {
	if len(want) != len(got) {
		return Lookbook{}, job.ErrKeyReused
	}
	out := Lookbook{Looks: make([]LookbookLook, len(got)), IdempotencyKey: key}
	for i, j := range got {
		if j.Fingerprint != want[i].Job.Fingerprint {
			return Lookbook{}, job.ErrKeyReused
		}
		l, err := s.store.Look(ctx, p.HouseID, j.Params["lookId"])
		if err != nil {
			return Lookbook{}, err
		}
		if l.BatchID != nil {
			out.BatchID = *l.BatchID
		}
		out.Quality, out.Aesthetic, out.Background = j.Tier, l.Preset.Aesthetic, l.Preset.Background
		out.TokensHeld += j.Cost
		out.Looks[i] = LookbookLook{LookID: l.ID, Name: l.Name, JobID: j.ID, Items: l.Items, VariationKeys: l.Variations}
	}
	return out, nil
}

// deal makes n looks of the plan (0: as many as it proposes): the first n
// keep their hero and extras, and the heroes of the others join them in
// turn, in order. More looks than the plan has is BAD_LOOK_COUNT; a look
// left with more than MaxItems pieces is TOO_MANY_ITEMS.
func deal(plan []ProposedLook, n int) ([]ProposedLook, error) {
	if n == 0 {
		n = len(plan)
	}
	if n > len(plan) {
		return nil, errs.With(ErrBadLookCount, "max", len(plan))
	}
	out := plan[:n]
	for i, extra := range plan[n:] {
		l := &out[i%n]
		hero := extra.Items[0]
		hero.Hero = false
		l.Items = append(l.Items, hero)
		if len(l.Items) > MaxItems {
			return nil, errs.With(errs.Msg(ErrTooManyItems, "A look takes at most 6 pieces: ask for more looks, or name fewer garments."), "max", MaxItems)
		}
	}
	return out, nil
}

// fromBrief returns the aesthetic and the background a brief names, else
// the ones given.
func fromBrief(brief, aesthetic string, bg Background) (string, Background) {
	words := " " + strings.Join(strings.FieldsFunc(strings.ToLower(brief), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}), " ") + " "
	for _, a := range Aesthetics {
		if strings.Contains(words, " "+a+" ") {
			aesthetic = a
			break
		}
	}
	for _, b := range BackgroundLibrary {
		name := " " + strings.ToLower(b.Name) + " "
		id := " " + strings.ReplaceAll(b.ID, "-", " ") + " "
		if strings.Contains(words, name) || strings.Contains(words, id) {
			bg = Background{Kind: "preset", Value: b.ID}
			break
		}
	}
	return aesthetic, bg
}

// lookbookDigest identifies a lookbook request for its idempotency key.
func lookbookDigest(model string, garments []string, looks int, tier ledger.Tier, brief string) string {
	h := sha256.New()
	for _, s := range append([]string{model, strconv.Itoa(looks), string(tier), brief}, garments...) {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}
