package asset

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"image"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"studio/internal/ai"
	"studio/internal/auth"
	"studio/internal/blob"
	"studio/internal/errs"
	"studio/internal/imagemem"
	"studio/internal/ledger"
	"studio/internal/ts"
	"studio/internal/urlguard"
)

// Ledger is what the library needs from the token ledger: a hold for a
// classification, released when nothing was read (it is posted by
// Store.InsertAsset, with the row), and the balance for quotes.
type Ledger interface {
	// TakeHold reserves the hold's tokens; ledger.ErrInsufficientTokens
	// (402) when the house is short, and nothing is held.
	TakeHold(ctx context.Context, house string, h ledger.Hold) error
	// VoidHold releases a pending hold: nothing is spent.
	VoidHold(ctx context.Context, house, holdID string) error
	// Balance derives the house's balance parts.
	Balance(ctx context.Context, house string) (ledger.Balance, error)
}

// ClassifyLane names the flat lane of a classification on upload (SPEC §8).
const ClassifyLane = "classify"

// ClassifyTimeout bounds one classification.
const ClassifyTimeout = 60 * time.Second

// Options configure the service.
type Options struct {
	Blobs      blob.Store
	Ledger     Ledger
	Prices     ledger.Prices    // the live price list
	Classifier Classifier       // nil when no AI endpoint is configured
	Calls      ai.CallLog       // where what each classify=1 read asked of the AI endpoint is recorded; nil records nothing
	Decoding   *imagemem.Budget // memory for decoded images, shared by the process; 1 GiB of its own when nil
	Fetch      *urlguard.Guard  // the way out to an image named by URL (Fetch); FetchGuard() when nil
	Now        func() time.Time
	Log        *slog.Logger
}

// Service runs the library's use cases. Role rules live here.
type Service struct {
	store      Store
	blobs      blob.Store
	ledger     Ledger
	prices     ledger.Prices
	classifier Classifier
	calls      ai.CallLog
	now        func() time.Time
	log        *slog.Logger
	decoding   *imagemem.Budget
	fetch      *urlguard.Guard
}

// NewService returns the library service.
func NewService(store Store, opts Options) *Service {
	s := &Service{store: store, blobs: opts.Blobs, ledger: opts.Ledger, prices: opts.Prices, classifier: opts.Classifier,
		calls: opts.Calls, now: opts.Now, log: opts.Log, decoding: opts.Decoding, fetch: opts.Fetch}
	if s.fetch == nil {
		s.fetch = FetchGuard()
	}
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

// Upload is an upload's form as the HTTP layer read it.
type Upload struct {
	Data     []byte
	Filename string
	Kind     string // "" when not given
	FolderID string // "" is the root
	Name     string // "" when not given
	SKU      string // "" when not given
	Classify bool
}

// Validate checks the form fields; the bytes are checked by Inspect.
func (u *Upload) Validate() error {
	if u.Kind != "" {
		if _, err := ParseKind(u.Kind, UploadKinds); err != nil {
			return err
		}
	}
	if u.SKU != "" {
		if err := CheckSKU(u.SKU); err != nil {
			return err
		}
	}
	if u.Name != "" {
		name, err := CleanName(u.Name)
		if err != nil {
			return errs.Msg(errs.BadForm, "name must be 1 to 200 characters.")
		}
		u.Name = name
	}
	return nil
}

// defaultName names an upload after its file, without the extension.
func defaultName(filename string) string {
	if i := strings.LastIndexAny(filename, `/\`); i >= 0 {
		filename = filename[i+1:]
	}
	if i := strings.LastIndexByte(filename, '.'); i > 0 {
		filename = filename[:i]
	}
	if r := []rune(strings.TrimSpace(filename)); len(r) > 120 {
		filename = string(r[:120])
	}
	if name, err := CleanName(filename); err == nil {
		return name
	}
	return "Untitled"
}

// Upload stores an image as an asset of the house. The bytes are sniffed
// and checked before anything is written; the blob is written first, under
// a key derived from the new id, then the row; on any failure nothing is
// left: no row, no blob, no hold. With Classify and an AI endpoint, one
// token is held and spent only when the classification was read; supplied
// name and kind are never overwritten.
func (s *Service) Upload(ctx context.Context, p auth.Principal, u Upload) (Asset, error) {
	a, _, err := s.upload(ctx, p, u, false)
	return a, err
}

// upload is Upload; an input of a submit (input) reuses the house's asset
// with the same bytes when one is written meanwhile (Store.InsertInput),
// and then answers that asset's id only, with created false.
func (s *Service) upload(ctx context.Context, p auth.Principal, u Upload, input bool) (_ Asset, created bool, _ error) {
	if err := p.MayEdit(); err != nil {
		return Asset{}, false, err
	}
	if err := u.Validate(); err != nil {
		return Asset{}, false, err
	}
	info, err := Inspect(u.Data)
	if err != nil {
		return Asset{}, false, err
	}
	if u.FolderID != "" {
		if _, err := s.store.GetFolder(ctx, p.HouseID, u.FolderID); err != nil {
			return Asset{}, false, err
		}
	}
	img, doneDecoding, err := s.decode(ctx, info.Mime, u.Data)
	if err != nil {
		return Asset{}, false, err
	}
	defer doneDecoding() // the pixels' memory is given back once the image is no longer read
	if !u.Classify || s.classifier == nil {
		img = nil
		doneDecoding()
	}

	id := uuid.Must(uuid.NewV7()).String()
	sum := sha256.Sum256(u.Data)
	f := File{ID: id, HouseID: p.HouseID, BlobKey: BlobKey(p.HouseID, id), Mime: info.Mime,
		ETag: `"` + hex.EncodeToString(sum[:]) + `"`, Size: int64(len(u.Data)), CreatedAt: ts.Of(s.now())}
	a := Asset{ID: id, Name: u.Name, URL: FileURL(id), Mime: info.Mime, Width: info.Width, Height: info.Height,
		Size: f.Size, CreatedAt: f.CreatedAt}
	if a.Name == "" {
		a.Name = defaultName(u.Filename)
	}
	if u.SKU != "" {
		a.SKU = ptr(u.SKU)
	}
	if u.Kind != "" {
		a.Kind = ptr(Kind(u.Kind))
	}
	if u.FolderID != "" {
		a.FolderID = ptr(u.FolderID)
	}

	var hold string
	if u.Classify && s.classifier != nil {
		price, ok := s.prices.Flat(ClassifyLane)
		if !ok {
			price = 1
		}
		h := ledger.NewHold("", price)
		h.UserID, h.Workflow = p.UserID, ClassifyLane
		if err := s.ledger.TakeHold(ctx, p.HouseID, h); err != nil {
			return Asset{}, false, err
		}
		hold = h.ID
	}
	bg := context.WithoutCancel(ctx)
	release := func() {
		if hold != "" {
			if err := s.ledger.VoidHold(bg, p.HouseID, hold); err != nil {
				s.log.ErrorContext(ctx, "release classify hold", "hold", hold, "err", err)
			}
			hold = ""
		}
	}
	if _, err := s.blobs.Put(ctx, f.BlobKey, bytes.NewReader(u.Data)); err != nil {
		release()
		return Asset{}, false, err
	}
	if hold != "" {
		c, err := s.classify(ctx, p, img, info.Orientation)
		if err != nil {
			// A failed read is still an upload: unclassified, and free.
			s.log.WarnContext(ctx, "classification not read", "asset", id, "err", err)
			release()
		} else {
			c.applyTo(&a, u)
		}
	}
	doneDecoding()
	// The row, its tags and the posting of the hold commit together.
	dropBlob := func() {
		if derr := s.blobs.Delete(bg, f.BlobKey); derr != nil {
			s.log.ErrorContext(ctx, "delete blob of a failed upload", "key", f.BlobKey, "err", derr)
		}
	}
	if input {
		got, err := s.store.InsertInput(ctx, p.HouseID, p.UserID, a, f)
		if err != nil || got != a.ID {
			dropBlob() // failed, or the same bytes were filed meanwhile
		}
		if err != nil {
			return Asset{}, false, err
		}
		return Asset{ID: got}, got == a.ID, nil
	}
	if err := s.store.InsertAsset(ctx, p.HouseID, p.UserID, a, f, hold); err != nil {
		dropBlob()
		release()
		return Asset{}, false, err
	}
	return a, true, nil
}

// applyTo files a with what was read, never over what the uploader gave.
func (c Classification) applyTo(a *Asset, u Upload) {
	if u.Kind == "" && c.Kind != "" {
		a.Kind = ptr(c.Kind)
	}
	if u.Name == "" && c.Name != "" {
		a.Name = c.Name
	}
	if a.Kind != nil && *a.Kind == Clothes {
		if c.Fit != "" {
			a.Fit, a.FitGuessed = ptr(c.Fit), true
		}
		if c.Wearer != "" && c.Wearer != Unisex {
			a.Wearer, a.WearerGuessed = ptr(c.Wearer), true
		}
	}
}

// decode decodes an image within the process's budget of decoded pixels;
// done gives the memory back (once, however often it is called). An image
// that needs more than the whole budget is IMAGE_TOO_LARGE.
func (s *Service) decode(ctx context.Context, mime string, data []byte) (img image.Image, done func(), err error) {
	_, _, size, err := imagemem.Decoded(data)
	if err != nil {
		return nil, nil, errs.Wrap(ErrUnreadable, err)
	}
	release, err := s.decoding.Acquire(ctx, size)
	if errors.Is(err, imagemem.ErrOverBudget) {
		return nil, nil, errs.Msg(ErrTooLarge, "The image needs more memory to decode than this server allows.")
	}
	if err != nil {
		return nil, nil, err
	}
	done = sync.OnceFunc(release)
	img, err = Decode(mime, data)
	if err != nil {
		done()
		return nil, nil, errs.Wrap(ErrUnreadable, err)
	}
	return img, done, nil
}

// classify reads the upload's preview; what the read asked of the AI
// endpoint is metered and recorded under the classify lane, read or not.
func (s *Service) classify(ctx context.Context, p auth.Principal, img image.Image, orientation int) (Classification, error) {
	preview, err := Preview(img, orientation, PreviewEdge)
	if err != nil {
		return Classification{}, err
	}
	cctx, cancel := context.WithTimeout(ctx, ClassifyTimeout)
	defer cancel()
	meter := &ai.Meter{}
	c, err := s.classifier.Classify(ai.WithMeter(cctx, meter), preview)
	if u := meter.Usage(); s.calls != nil && u.Attempts > 0 {
		call := ai.Call{ID: uuid.Must(uuid.NewV7()).String(), UserID: p.UserID, Lane: ClassifyLane, Usage: u, OK: err == nil, At: s.now()}
		if rerr := s.calls.RecordAICall(context.WithoutCancel(ctx), p.HouseID, call); rerr != nil {
			s.log.ErrorContext(ctx, "record a classify read's AI call", "err", rerr)
		}
	}
	return c, err
}

// Get returns one live asset of the house.
func (s *Service) Get(ctx context.Context, p auth.Principal, id string) (Asset, error) {
	return s.store.GetAsset(ctx, p.HouseID, id)
}

// File describes a live asset of the house whose bytes are stored.
func (s *Service) File(ctx context.Context, p auth.Principal, id string) (File, error) {
	return s.store.AssetFile(ctx, p.HouseID, id)
}

// LegacyFile is File for the legacy bytes route, which answers 403 rather
// than 404 for another house's asset (SPEC §4.4, DECISIONS §1).
func (s *Service) LegacyFile(ctx context.Context, p auth.Principal, id string) (File, error) {
	house, err := s.store.AssetHouse(ctx, id)
	if err != nil {
		return File{}, err
	}
	if house != p.HouseID {
		return File{}, errs.Msg(errs.Forbidden, "The asset belongs to another house.")
	}
	return s.store.AssetFile(ctx, p.HouseID, id)
}

// Open opens the stored bytes of f; missing bytes are the one NOT_FOUND.
func (s *Service) Open(ctx context.Context, f File) (blob.Object, error) {
	obj, err := s.blobs.Open(ctx, f.BlobKey)
	if errors.Is(err, blob.ErrNotFound) {
		return nil, errs.NotFound
	}
	return obj, err
}

// Patch changes one asset; an empty patch changes nothing and answers the asset.
func (s *Service) Patch(ctx context.Context, p auth.Principal, id string, in PatchRequest) (Asset, error) {
	if err := p.MayEdit(); err != nil {
		return Asset{}, err
	}
	if in.Empty() {
		return s.store.GetAsset(ctx, p.HouseID, id)
	}
	return s.store.UpdateAsset(ctx, p.HouseID, id, func(a *Asset) error {
		in.Apply(a)
		return nil
	})
}

// Batch applies one change to many assets; ids of other houses and
// deleted assets are skipped. It returns how many assets it changed.
func (s *Service) Batch(ctx context.Context, p auth.Principal, in BatchRequest) (int, error) {
	if err := p.MayEdit(); err != nil {
		return 0, err
	}
	return s.store.BatchUpdateAssets(ctx, p.HouseID, p.UserID, dedupe(in.AssetIDs), in.Change(), s.now())
}

// Delete soft-deletes assets of the house and returns how many it deleted.
func (s *Service) Delete(ctx context.Context, p auth.Principal, ids []string) (int, error) {
	if err := p.MayEdit(); err != nil {
		return 0, err
	}
	return s.store.DeleteAssets(ctx, p.HouseID, dedupe(ids), s.now())
}

// Group puts assets in a new group, replacing their prior groups; all of
// them or none.
func (s *Service) Group(ctx context.Context, p auth.Principal, in GroupRequest) (string, error) {
	if err := p.MayEdit(); err != nil {
		return "", err
	}
	group := uuid.Must(uuid.NewV7()).String()
	if err := s.store.GroupAssets(ctx, p.HouseID, in.AssetIDs, group); err != nil {
		return "", err
	}
	return group, nil
}

// Quote prices an operation over assets of the house at the live price
// table. It reads only.
func (s *Service) Quote(ctx context.Context, p auth.Principal, in QuoteRequest) (Quote, error) {
	items, err := s.store.CountAssets(ctx, p.HouseID, dedupe(in.AssetIDs))
	if err != nil {
		return Quote{}, err
	}
	tier := ledger.Tier(in.Quality)
	per := s.prices.Tool(OpRemoveBackground, ledger.Tier1K)
	if in.Operation == OpPackshot {
		per = s.prices.Tool(OpPackshot, tier)
		if in.AlsoRemoveBackground {
			per += s.prices.Tool(OpRemoveBackground, tier)
		}
	}
	bal, err := s.ledger.Balance(ctx, p.HouseID)
	if err != nil {
		return Quote{}, err
	}
	q := Quote{Operation: in.Operation, Items: items, PerItem: per, Tokens: int64(items) * per, Spendable: bal.Balance}
	q.Affordable = q.Spendable >= q.Tokens
	return q, nil
}

// Folders lists the house's collections, flat, newest first.
func (s *Service) Folders(ctx context.Context, p auth.Principal) ([]Folder, error) {
	return s.store.ListFolders(ctx, p.HouseID)
}

// CreateFolder makes a collection, at the root or inside one of the house's.
func (s *Service) CreateFolder(ctx context.Context, p auth.Principal, in CreateFolderRequest) (Folder, error) {
	if err := p.MayEdit(); err != nil {
		return Folder{}, err
	}
	f := Folder{ID: uuid.Must(uuid.NewV7()).String(), Name: in.Name, ParentID: in.ParentID, CreatedAt: ts.Of(s.now())}
	if err := s.store.InsertFolder(ctx, p.HouseID, p.UserID, f); err != nil {
		return Folder{}, err
	}
	return f, nil
}

// UpdateFolder renames or moves a collection. Moving it under itself or
// one of its own descendants is refused with FOLDER_CYCLE.
func (s *Service) UpdateFolder(ctx context.Context, p auth.Principal, id string, in UpdateFolderRequest) (Folder, error) {
	if err := p.MayEdit(); err != nil {
		return Folder{}, err
	}
	return s.store.UpdateFolder(ctx, p.HouseID, id, in.Patch())
}
