package brand

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"time"

	"github.com/google/uuid"

	"studio/internal/ai"
	"studio/internal/asset"
	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/imagemem"
	"studio/internal/job"
	"studio/internal/ledger"
	"studio/internal/ts"
)

// Endpoint is what a DNA read asks of the AI endpoint (package ai/openai
// implements it): whether it is set, and one question with a JSON answer.
type Endpoint interface {
	Configured() bool
	JSON(ctx context.Context, req ai.Request, out any) (ai.Usage, error)
}

// Options configure the service.
type Options struct {
	AI       Endpoint         // the vision endpoint of DNA reads; nil or unconfigured answers AI_NOT_CONFIGURED
	Ledger   Ledger           // the re-read's hold
	Calls    ai.CallLog       // where a failed read's use of the AI endpoint is recorded (a read is in brand_dna_reads); nil records nothing
	Decoding *imagemem.Budget // memory for decoded images, shared by the process; 1 GiB of its own when nil
	Now      func() time.Time
	Log      *slog.Logger
}

// Service runs the brand's use cases. Role rules live here.
type Service struct {
	store    Store
	ai       Endpoint
	ledger   Ledger
	calls    ai.CallLog
	decoding *imagemem.Budget
	now      func() time.Time
	log      *slog.Logger
}

// NewService returns the brand service.
func NewService(store Store, opts Options) *Service {
	s := &Service{store: store, ai: opts.AI, ledger: opts.Ledger, calls: opts.Calls, decoding: opts.Decoding, now: opts.Now, log: opts.Log}
	if s.now == nil {
		s.now = time.Now
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.decoding == nil {
		s.decoding = imagemem.New(0)
	}
	return s
}

// Profile returns the house's profile, empty defaults when it has none.
func (s *Service) Profile(ctx context.Context, p auth.Principal) (Profile, error) {
	return s.profile(ctx, p.HouseID)
}

func (s *Service) profile(ctx context.Context, house string) (Profile, error) {
	pr, err := s.store.Profile(ctx, house)
	if err != nil {
		return Profile{}, err
	}
	pr.Clamp()
	return pr, nil
}

// Patch merges in into the profile and clamps it. A viewer may not.
func (s *Service) Patch(ctx context.Context, p auth.Principal, in PatchRequest) (Profile, error) {
	if err := p.MayEdit(); err != nil {
		return Profile{}, err
	}
	pr, err := s.store.EditProfile(ctx, p.HouseID, func(pr *Profile) { in.apply(pr) })
	if err != nil {
		return Profile{}, err
	}
	pr.Clamp()
	return pr, nil
}

// ReadDNA reads the house's visual DNA from photographs and stores it,
// answering the profile and what the read charged. The first successful
// read of a house is free; each later one holds RereadPrice before the
// model is asked, posted with the read and voided when it fails. Nothing
// is held when the request is refused or the endpoint is unconfigured. A
// viewer may not: a read changes the profile (and may spend tokens).
func (s *Service) ReadDNA(ctx context.Context, p auth.Principal, req DNARequest) (Profile, int64, error) {
	if err := p.MayEdit(); err != nil {
		return Profile{}, 0, err
	}
	in, err := req.check()
	if err != nil {
		return Profile{}, 0, err
	}
	if s.ai == nil || !s.ai.Configured() {
		return Profile{}, 0, ai.ErrNotConfigured
	}
	r := Read{ID: uuid.Must(uuid.NewV7()).String(), UserID: p.UserID, Images: len(in.images)}
	if r.Claimed, err = s.store.ClaimFirstRead(ctx, p.HouseID, r.ID, s.now().Add(ClaimTTL)); err != nil {
		return Profile{}, 0, err
	}
	if !r.Claimed {
		h := ledger.NewHold("", RereadPrice)
		h.UserID, h.Workflow = p.UserID, Workflow
		if err := s.ledger.TakeHold(ctx, p.HouseID, h); err != nil {
			return Profile{}, 0, err
		}
		r.HoldID, r.Charged = h.ID, RereadPrice
	}
	stored, usage, err := s.read(ctx, p.HouseID, in, r)
	if err != nil {
		s.undo(context.WithoutCancel(ctx), p.HouseID, r)
		s.recordFailed(context.WithoutCancel(ctx), p, usage)
		return Profile{}, 0, err
	}
	stored.Clamp()
	return stored, r.Charged, nil
}

// read looks at the photographs, asks the model and stores the read; it
// answers what the model was asked, stored or not.
func (s *Service) read(ctx context.Context, house string, in dnaInput, r Read) (Profile, ai.Usage, error) {
	previews, samples, err := s.look(ctx, in)
	if err != nil {
		return Profile{}, ai.Usage{}, err
	}
	palette := MeasurePalette(samples)
	got, usage, err := ask(ctx, s.ai, in, previews, palette)
	r.Usage = usage
	if err != nil {
		return Profile{}, usage, err
	}
	r.Profile = Profile{VisionEn: got.VisionEn, Vibe: slices.Concat(in.vibe, got.Vibe), Palette: palette,
		SignatureKeywords: got.SignatureKeywords}
	r.Profile.Clamp()
	stored, err := s.store.SaveRead(ctx, house, r)
	return stored, usage, err
}

// recordFailed keeps what a failed read asked of the AI endpoint (a
// provider bills a bad answer too) under the re-reads' workflow, beside
// the stored reads; a read that asked nothing records nothing.
func (s *Service) recordFailed(ctx context.Context, p auth.Principal, u ai.Usage) {
	if s.calls == nil || u.Attempts == 0 {
		return
	}
	c := ai.Call{ID: uuid.Must(uuid.NewV7()).String(), UserID: p.UserID, Lane: Workflow, Usage: u, At: s.now()}
	if err := s.calls.RecordAICall(ctx, p.HouseID, c); err != nil {
		s.log.ErrorContext(ctx, "record a failed DNA read's AI call", "err", err)
	}
}

// undo gives back what a failed read took: its hold or its claim.
func (s *Service) undo(ctx context.Context, house string, r Read) {
	if r.HoldID != "" {
		if err := s.ledger.VoidHold(ctx, house, r.HoldID); err != nil {
			s.log.ErrorContext(ctx, "void the hold of a failed DNA read", "hold", r.HoldID, "err", err)
		}
	}
	if r.Claimed {
		if err := s.store.ReleaseFirstRead(ctx, house, r.ID); err != nil {
			s.log.ErrorContext(ctx, "give back the free read of a failed DNA read", "read", r.ID, "err", err)
		}
	}
}

// look decodes each photograph within the process's budget, one at a
// time, and keeps what the read needs of it: its palette sample and an
// upright preview for the model.
func (s *Service) look(ctx context.Context, in dnaInput) ([][]byte, []Sample, error) {
	previews := make([][]byte, 0, len(in.images))
	samples := make([]Sample, 0, len(in.images))
	for i, data := range in.images {
		_, _, size, err := imagemem.Decoded(data)
		if err != nil {
			return nil, nil, errs.Wrap(asset.ErrUnreadable, err)
		}
		release, err := s.decoding.Acquire(ctx, size)
		if errors.Is(err, imagemem.ErrOverBudget) {
			return nil, nil, errs.Msg(asset.ErrTooLarge, "An image needs more memory to decode than this server allows.")
		}
		if err != nil {
			return nil, nil, err
		}
		img, err := asset.Decode(in.infos[i].Mime, data)
		if err != nil {
			release()
			return nil, nil, errs.Wrap(asset.ErrUnreadable, err)
		}
		samples = append(samples, SampleOf(img))
		preview, err := asset.Preview(img, in.infos[i].Orientation, PreviewEdge)
		release()
		if err != nil {
			return nil, nil, err
		}
		previews = append(previews, preview)
	}
	return previews, samples, nil
}

// mayEditMarks refuses a viewer any change of the house's marks, with the
// marks' own code (SPEC: role_cannot_edit_marks).
func mayEditMarks(p auth.Principal) error {
	if p.MayEdit() != nil {
		return ErrCannotEditMarks
	}
	return nil
}

// Marks lists the house set and, when collection is given, that
// collection's override, and says which set rides with its frames.
func (s *Service) Marks(ctx context.Context, p auth.Principal, collection string) (MarksList, error) {
	out := MarksList{Collection: []Mark{}, Riding: "house"}
	var err error
	if out.House, err = s.store.Marks(ctx, p.HouseID, ""); err != nil {
		return MarksList{}, err
	}
	if collection == "" {
		return out, nil
	}
	ok, err := s.store.HasCollection(ctx, p.HouseID, collection)
	if err != nil {
		return MarksList{}, err
	}
	if !ok {
		return MarksList{}, ErrNoCollection
	}
	if out.Collection, err = s.store.Marks(ctx, p.HouseID, collection); err != nil {
		return MarksList{}, err
	}
	if len(out.Collection) > 0 {
		out.Riding = "collection"
	}
	return out, nil
}

// Register registers a mark of the house set or of a collection's
// override. It is free.
func (s *Service) Register(ctx context.Context, p auth.Principal, in RegisterRequest) (Mark, error) {
	if err := mayEditMarks(p); err != nil {
		return Mark{}, err
	}
	m := Mark{ID: uuid.Must(uuid.NewV7()).String(), AssetID: *in.AssetID, CollectionID: in.CollectionID,
		Material: *in.Material, Placement: in.Placement, Note: in.Note, SortOrder: -1, CreatedAt: ts.Of(s.now())}
	if in.SortOrder != nil {
		m.SortOrder = *in.SortOrder
	}
	return s.store.InsertMark(ctx, p.HouseID, p.UserID, m)
}

// PatchMark changes a mark; an empty patch answers it unchanged.
func (s *Service) PatchMark(ctx context.Context, p auth.Principal, id string, in MarkPatch) (Mark, error) {
	if err := mayEditMarks(p); err != nil {
		return Mark{}, err
	}
	if in.Empty() {
		return s.store.GetMark(ctx, p.HouseID, id)
	}
	return s.store.UpdateMark(ctx, p.HouseID, id, in.apply)
}

// DeleteMark removes a mark; its asset stays in the library.
func (s *Service) DeleteMark(ctx context.Context, p auth.Principal, id string) error {
	if err := mayEditMarks(p); err != nil {
		return err
	}
	return s.store.DeleteMark(ctx, p.HouseID, id)
}

// primaryRoles are the input roles whose first asset files a develop in
// its collection, in the order they are looked for.
var primaryRoles = []string{"image", "garment", "item"}

// Riding returns the marks that ride with a develop of the house whose
// inputs are given: those of the collection of its primary input when that
// collection has marks, else the house set; at most Riding of them.
func (s *Service) Riding(ctx context.Context, house string, inputs []job.Input) ([]Mark, error) {
	collection := ""
	for _, role := range primaryRoles {
		i := slices.IndexFunc(inputs, func(in job.Input) bool { return in.Role == role })
		if i < 0 {
			continue
		}
		var err error
		if collection, err = s.store.AssetFolder(ctx, house, inputs[i].AssetID); err != nil {
			return nil, err
		}
		break
	}
	if collection != "" {
		set, err := s.store.Marks(ctx, house, collection)
		if err != nil {
			return nil, err
		}
		if len(set) > 0 {
			return ride(set), nil
		}
	}
	set, err := s.store.Marks(ctx, house, "")
	if err != nil {
		return nil, err
	}
	return ride(set), nil
}
