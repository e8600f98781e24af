package casting

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"image"
	"io"
	"log/slog"
	"slices"
	"time"

	"github.com/google/uuid"

	"studio/internal/asset"
	"studio/internal/auth"
	"studio/internal/blob"
	"studio/internal/errs"
	"studio/internal/imagemem"
	"studio/internal/picture"
	"studio/internal/ts"
)

// Own is a model a house made from its own photographs, as stored.
type Own struct {
	ID        string
	Name      string
	Traits    Traits
	Collage   string   // asset id of the collage
	Sheets    []string // asset ids, in order
	Originals []string // asset ids, in order
	CreatedAt ts.Time
	UpdatedAt ts.Time
}

// Dossier is the model's identity assets in dossier order.
func (o Own) Dossier() []string {
	return slices.Concat([]string{o.Collage}, o.Sheets, o.Originals)
}

// FaceImage is one stored image of a catalogue face.
type FaceImage struct {
	Key  string `json:"key"` // blob key
	Mime string `json:"mime"`
	Size int64  `json:"size"`
	Sum  string `json:"sha256"` // hex
}

// Face is one of the service's catalogue faces, as a house sees it.
type Face struct {
	ID             string
	Key            string // the manifest's key; importing it again updates the face
	Name           string
	Tier           Tier
	PriceCents     int64
	Currency       string
	Images         []FaceImage
	Traits         Traits
	CreatedAt      ts.Time
	Owned          bool // the house holds a live claim on the face
	ExclusiveYours bool // ... and it is the exclusive claim
}

// Store is what the casting board needs from persistence. Reads of a face
// name the house: a face another house holds exclusively is errs.NotFound.
type Store interface {
	OwnModels(ctx context.Context, house string) ([]Own, error)
	OwnModel(ctx context.Context, house, id string) (Own, error)
	// LiveAssets returns the live assets of the house among ids.
	LiveAssets(ctx context.Context, house string, ids []string) (map[string]asset.File, error)
	// InsertOwnModel writes the collage's asset row, the model and its
	// dossier in one transaction; errs.AssetNotFound when an asset of the
	// dossier is no longer a live asset of the house (nothing written).
	InsertOwnModel(ctx context.Context, house, user string, m Own, collage asset.Asset, f asset.File) error
	// UpdateOwnModel reads the model, lets edit change its traits and
	// sheets and stores them, in one transaction; errs.AssetNotFound when
	// a sheet is not a live asset of the house (nothing written).
	UpdateOwnModel(ctx context.Context, house, id string, edit func(*Own) error) (Own, error)
	// Faces lists the catalogue faces the house may see, with its claims.
	Faces(ctx context.Context, house string) ([]Face, error)
	// Face returns one face the house may see.
	Face(ctx context.Context, house, id string) (Face, error)
	// UpsertFaces writes faces by their key, all or none: a new key is a
	// new face, a known key keeps its id and creation time.
	UpsertFaces(ctx context.Context, faces []Face) error
	FaceCasts
}

// Options configure the service.
type Options struct {
	Blobs    blob.Store
	Decoding *imagemem.Budget // memory for decoded photographs; 1 GiB of its own when nil
	Now      func() time.Time
	Log      *slog.Logger
}

// Service runs the casting board's use cases.
type Service struct {
	store    Store
	blobs    blob.Store
	decoding *imagemem.Budget
	now      func() time.Time
	log      *slog.Logger
}

// NewService returns the casting board service.
func NewService(store Store, opts Options) *Service {
	s := &Service{store: store, blobs: opts.Blobs, decoding: opts.Decoding, now: opts.Now, log: opts.Log}
	if s.decoding == nil {
		s.decoding = imagemem.New(0)
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	return s
}

// ownModel is an own model on the wire.
func ownModel(o Own) Model {
	m := Model{ID: o.ID, Name: o.Name, Tier: Exclusive, Currency: OwnCurrency, Owned: true, Mine: true, Usable: true,
		ExclusiveYours: true, IdentityAssetIDs: o.Dossier(), SheetAssetIDs: o.Sheets, Traits: o.Traits, CreatedAt: o.CreatedAt}
	if o.Collage == "" { // the collage was removed from the library
		m.IdentityAssetIDs = m.IdentityAssetIDs[1:]
	}
	if m.SheetAssetIDs == nil {
		m.SheetAssetIDs = []string{}
	}
	m.urls(len(m.IdentityAssetIDs))
	return m
}

// faceModel is a catalogue face on the wire.
func faceModel(f Face) Model {
	m := Model{ID: f.ID, Name: f.Name, Tier: f.Tier, PriceCents: f.PriceCents, Currency: f.Currency, Owned: f.Owned,
		Usable: f.Tier == Free || f.Owned, ExclusiveYours: f.ExclusiveYours, IdentityAssetIDs: []string{}, SheetAssetIDs: []string{},
		Traits: f.Traits, CreatedAt: f.CreatedAt, band: 1 + slices.Index(Tiers, f.Tier)}
	if f.Owned {
		m.band = 0
	}
	m.urls(len(f.Images))
	return m
}

// List is the board: the house's own models and the faces it holds, then
// free, sale and exclusive faces, newest first in each band.
func (s *Service) List(ctx context.Context, p auth.Principal) ([]Model, error) {
	owns, err := s.store.OwnModels(ctx, p.HouseID)
	if err != nil {
		return nil, err
	}
	faces, err := s.store.Faces(ctx, p.HouseID)
	if err != nil {
		return nil, err
	}
	out := make([]Model, 0, len(owns)+len(faces))
	for _, o := range owns {
		out = append(out, ownModel(o))
	}
	for _, f := range faces {
		out = append(out, faceModel(f))
	}
	slices.SortStableFunc(out, func(a, b Model) int {
		return cmp.Or(cmp.Compare(a.band, b.band), b.CreatedAt.Compare(a.CreatedAt.Time), cmp.Compare(b.ID, a.ID))
	})
	return out, nil
}

// Get returns one model the house may see: its own, or a face no other
// house holds exclusively.
func (s *Service) Get(ctx context.Context, p auth.Principal, id string) (Model, error) {
	o, err := s.store.OwnModel(ctx, p.HouseID, id)
	if err == nil {
		return ownModel(o), nil
	}
	if !errors.Is(err, errs.NotFound) {
		return Model{}, err
	}
	f, err := s.store.Face(ctx, p.HouseID, id)
	if err != nil {
		return Model{}, err
	}
	return faceModel(f), nil
}

// Image is where the n-th image of a model the house may see is kept: an
// own model's n-th live identity asset, a face's n-th image.
func (s *Service) Image(ctx context.Context, p auth.Principal, id string, n int) (asset.File, error) {
	o, err := s.store.OwnModel(ctx, p.HouseID, id)
	if err == nil {
		m := ownModel(o)
		if n >= len(m.IdentityAssetIDs) {
			return asset.File{}, errs.NotFound
		}
		files, err := s.store.LiveAssets(ctx, p.HouseID, m.IdentityAssetIDs[n:n+1])
		if err != nil {
			return asset.File{}, err
		}
		f, ok := files[m.IdentityAssetIDs[n]]
		if !ok {
			return asset.File{}, errs.NotFound
		}
		return f, nil
	}
	if !errors.Is(err, errs.NotFound) {
		return asset.File{}, err
	}
	f, err := s.store.Face(ctx, p.HouseID, id)
	if err != nil {
		return asset.File{}, err
	}
	if n >= len(f.Images) {
		return asset.File{}, errs.NotFound
	}
	im := f.Images[n]
	return asset.File{ID: f.ID, BlobKey: im.Key, Mime: im.Mime, ETag: `"` + im.Sum + `"`, Size: im.Size, CreatedAt: f.CreatedAt}, nil
}

// Open opens the stored bytes of an image; missing bytes are the one NOT_FOUND.
func (s *Service) Open(ctx context.Context, f asset.File) (blob.Object, error) {
	obj, err := s.blobs.Open(ctx, f.BlobKey)
	if errors.Is(err, blob.ErrNotFound) {
		return nil, errs.NotFound
	}
	return obj, err
}

// OwnRequest is the body of POST /api/toolkit/models/own.
type OwnRequest struct {
	Name     string   `json:"name" required:"true" maxLength:"120"`
	AssetIDs []string `json:"assetIds" required:"true" minItems:"1" maxItems:"12" uniqueItems:"true" description:"The house's photographs of the model: its originals, in order."`
}

// Validate trims the name and checks the ids.
func (r *OwnRequest) Validate() error {
	name, err := cleanName(r.Name)
	if err != nil {
		return err
	}
	ids, err := cleanIDs(r.AssetIDs, 1, MaxAssets, ErrBadAssetIDs)
	if err != nil {
		return err
	}
	r.Name, r.AssetIDs = name, ids
	return nil
}

// CreateOwn makes a model of the house from its own photographs: the
// collage is composed from them and stored as an asset (kind model), and
// the model, its dossier and the collage's row are written together. It
// is free; a refusal or a failure leaves nothing behind.
func (s *Service) CreateOwn(ctx context.Context, p auth.Principal, in OwnRequest) (Model, error) {
	if err := p.MayEdit(); err != nil {
		return Model{}, err
	}
	files, err := s.store.LiveAssets(ctx, p.HouseID, in.AssetIDs)
	if err != nil {
		return Model{}, err
	}
	tiles := make([]image.Image, 0, len(in.AssetIDs))
	for _, id := range in.AssetIDs {
		f, ok := files[id]
		if !ok {
			return Model{}, errs.AssetNotFound
		}
		t, err := s.tile(ctx, f)
		if err != nil {
			return Model{}, err
		}
		tiles = append(tiles, t)
	}
	data, w, h, err := Collage(tiles)
	if err != nil {
		return Model{}, err
	}
	now := ts.Of(s.now())
	id := uuid.Must(uuid.NewV7()).String()
	sum := sha256.Sum256(data)
	kind, tool := asset.Model, "casting"
	collage := asset.Asset{ID: uuid.Must(uuid.NewV7()).String(), Name: clip(in.Name+" collage", MaxName), Kind: &kind, Tool: &tool,
		Mime: CollageFormat, Width: w, Height: h, Size: int64(len(data)), CreatedAt: now}
	collage.URL = asset.FileURL(collage.ID)
	f := asset.File{ID: collage.ID, HouseID: p.HouseID, BlobKey: asset.BlobKey(p.HouseID, collage.ID), Mime: CollageFormat,
		ETag: `"` + hex.EncodeToString(sum[:]) + `"`, Size: collage.Size, CreatedAt: now}
	o := Own{ID: id, Name: in.Name, Collage: collage.ID, Sheets: []string{}, Originals: in.AssetIDs, CreatedAt: now, UpdatedAt: now}
	if _, err := s.blobs.Put(ctx, f.BlobKey, bytes.NewReader(data)); err != nil {
		return Model{}, err
	}
	if err := s.store.InsertOwnModel(ctx, p.HouseID, p.UserID, o, collage, f); err != nil {
		if derr := s.blobs.Delete(context.WithoutCancel(ctx), f.BlobKey); derr != nil {
			s.log.ErrorContext(ctx, "delete the collage of a model not made", "key", f.BlobKey, "err", derr)
		}
		return Model{}, err
	}
	return ownModel(o), nil
}

// tile reads one photograph of the house, upright, as a collage tile,
// within the process's budget of decoded pixels.
func (s *Service) tile(ctx context.Context, f asset.File) (image.Image, error) {
	obj, err := s.Open(ctx, f)
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(obj, asset.MaxBytes+1))
	obj.Close()
	if err != nil {
		return nil, err
	}
	// The library checked these bytes when they were uploaded: a failure
	// to read them now is the service's own, not the caller's.
	info, err := asset.Inspect(data)
	if err != nil {
		return nil, fmt.Errorf("casting: asset %s: %w", f.ID, err)
	}
	_, _, size, err := imagemem.Decoded(data)
	if err != nil {
		return nil, fmt.Errorf("casting: asset %s: %w", f.ID, err)
	}
	release, err := s.decoding.Acquire(ctx, size)
	if err != nil {
		return nil, fmt.Errorf("casting: decode asset %s: %w", f.ID, err)
	}
	defer release()
	img, err := asset.Decode(info.Mime, data)
	if err != nil {
		return nil, fmt.Errorf("casting: asset %s: %w", f.ID, err)
	}
	return Tile(picture.Upright(img, info.Orientation)), nil
}

// PatchRequest is the body of PATCH /api/toolkit/models/{id}; an empty
// body changes nothing.
type PatchRequest struct {
	SheetAssetIDs *[]string    `json:"sheetAssetIds,omitempty" maxItems:"12" uniqueItems:"true" description:"Replaces the sheets: live assets of the house, in order."`
	Traits        *TraitsPatch `json:"traits,omitempty" description:"Merged into the stored traits: a trait named replaces it, null clears it, the rest stay."`
}

// Validate checks the sheet ids.
func (r *PatchRequest) Validate() error {
	if r.SheetAssetIDs != nil {
		ids, err := cleanIDs(*r.SheetAssetIDs, 0, MaxAssets, ErrBadSheetIDs)
		if err != nil {
			return err
		}
		*r.SheetAssetIDs = ids
	}
	return nil
}

// Patch changes an own model's sheets and traits; a catalogue face is
// FORBIDDEN, and a face the house may not see the one NOT_FOUND.
func (s *Service) Patch(ctx context.Context, p auth.Principal, id string, in PatchRequest) (Model, error) {
	if err := p.MayEdit(); err != nil {
		return Model{}, err
	}
	if _, err := s.store.OwnModel(ctx, p.HouseID, id); errors.Is(err, errs.NotFound) {
		if _, err := s.store.Face(ctx, p.HouseID, id); err != nil {
			return Model{}, err
		}
		return Model{}, ErrNotYours
	} else if err != nil {
		return Model{}, err
	}
	o, err := s.store.UpdateOwnModel(ctx, p.HouseID, id, func(o *Own) error {
		if in.Traits != nil {
			t := o.Traits.Merge(*in.Traits)
			if err := t.Validate(); err != nil {
				return err
			}
			o.Traits = t
		}
		if in.SheetAssetIDs != nil {
			o.Sheets = *in.SheetAssetIDs
		}
		o.UpdatedAt = ts.Of(s.now()) // written only when the traits or sheets changed
		return nil
	})
	if err != nil {
		return Model{}, err
	}
	return ownModel(o), nil
}

// clip cuts s to n characters.
func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}
