package pack

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync/atomic"
	"time"
	"unicode"

	"github.com/google/uuid"

	"studio/internal/auth"
	"studio/internal/blob"
	"studio/internal/errs"
	"studio/internal/imagemem"
	"studio/internal/notify"
	"studio/internal/ts"
)

// Store is what packs need from persistence. Every method but the
// builder's claim names the house.
type Store interface {
	// PackEntries returns the live assets of the house among ids, in the
	// order of ids, each once.
	PackEntries(ctx context.Context, house string, ids []string) ([]Entry, error)
	// InsertPack records a pack.
	InsertPack(ctx context.Context, p Pack) error
	// GetPack returns a pack of the house created at or after since;
	// errs.NotFound otherwise.
	GetPack(ctx context.Context, house, id string, since time.Time) (Pack, error)
	// ClaimPack takes the oldest queued pack (or one whose builder's lease
	// ran out) for worker until leaseUntil; ok is false when none waits.
	ClaimPack(ctx context.Context, worker string, leaseUntil time.Time) (p Pack, ok bool, err error)
	// FinishPack marks a pack the worker holds ready with the archive's
	// size and raises n, in one transaction; it returns n with its event
	// sequence number.
	FinishPack(ctx context.Context, p Pack, worker string, size int64, n notify.Notification) error
	// FailPack marks a pack the worker holds failed with the reason.
	FailPack(ctx context.Context, p Pack, worker, reason string) error
	// ExpiredPackBlobs returns up to limit packs, of any house, created
	// before before that still keep an archive.
	ExpiredPackBlobs(ctx context.Context, before time.Time, limit int) ([]Pack, error)
	// ForgetPackBlob records that a pack of the house keeps no archive.
	ForgetPackBlob(ctx context.Context, house, id string) error
}

// Options configure the service.
type Options struct {
	Limits   Limits           // zero fields: the SPEC's values
	Lease    time.Duration    // how long a builder holds a pack; 15 min when zero
	Poll     time.Duration    // how often an idle builder looks for work; 5 s when zero
	Attempts int              // builds tried before a pack fails; 3 when zero
	Decoding *imagemem.Budget // memory for decoding frames into renditions; 1 GiB of its own when nil
	Now      func() time.Time
	Log      *slog.Logger
}

// Service records, builds and serves packs.
type Service struct {
	store    Store
	blobs    blob.Store
	limits   atomic.Pointer[Limits]
	lease    time.Duration
	poll     time.Duration
	attempts int
	now      func() time.Time
	log      *slog.Logger
	worker   string
	wake     chan struct{}
	decoding *imagemem.Budget
}

// NewService returns the pack service.
func NewService(store Store, blobs blob.Store, opts Options) *Service {
	s := &Service{store: store, blobs: blobs, lease: opts.Lease, poll: opts.Poll, attempts: opts.Attempts,
		now: opts.Now, log: opts.Log, worker: "pack-" + uuid.NewString(), wake: make(chan struct{}, 1), decoding: opts.Decoding}
	if s.decoding == nil {
		s.decoding = imagemem.New(0)
	}
	if s.lease <= 0 {
		s.lease = 15 * time.Minute
	}
	if s.poll <= 0 {
		s.poll = 5 * time.Second
	}
	if s.attempts <= 0 {
		s.attempts = 3
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	s.SetLimits(opts.Limits)
	return s
}

// SetLimits replaces the limits (zero fields: the SPEC's values). Tests
// use it to reach the ceilings with a few small images.
func (s *Service) SetLimits(l Limits) {
	l = l.withDefaults()
	s.limits.Store(&l)
}

// Limits returns the limits in force.
func (s *Service) Limits() Limits { return *s.limits.Load() }

// Wake tells the builder that a pack is queued.
func (s *Service) Wake() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Create records a pack of the caller's house's live assets among the
// ids: instant and ready when it is small, queued for the builder when it
// is larger, refused with PACK_TOO_LARGE past the ceiling. Nothing is
// written on a refusal.
func (s *Service) Create(ctx context.Context, p auth.Principal, in Request) (Created, error) {
	if err := in.Validate(); err != nil {
		return Created{}, err
	}
	entries, err := s.store.PackEntries(ctx, p.HouseID, distinct(in.AssetIDs))
	if err != nil {
		return Created{}, err
	}
	if len(entries) == 0 {
		return Created{}, errs.NotFound
	}
	l := s.Limits()
	est := Estimate(entries, in.Sizes)
	if len(entries) > l.MaxFrames || est > l.MaxBytes {
		return Created{}, errs.With(ErrTooLarge, "frames", len(entries), "bytes", est, "maxFrames", l.MaxFrames, "maxBytes", l.MaxBytes)
	}
	now := s.now()
	pk := Pack{ID: uuid.Must(uuid.NewV7()).String(), HouseID: p.HouseID, UserID: p.UserID, Mode: Instant, Status: StatusReady,
		Name: in.Name, Filename: filename(in.Name, now), Sizes: slices.Clone(in.Sizes), Items: len(entries), Bytes: est,
		CreatedAt: now}
	if pk.Sizes == nil {
		pk.Sizes = []Size{}
	}
	for _, e := range entries {
		pk.AssetIDs = append(pk.AssetIDs, e.ID)
	}
	seconds := 0
	if len(entries) >= l.InstantFrames || est >= l.InstantBytes {
		pk.Mode, pk.Status, pk.BlobKey = Queued, StatusQueued, BlobKey(p.HouseID, pk.ID)
		seconds = int(max(1, (est+64<<20-1)/(64<<20)))
	}
	if err := s.store.InsertPack(ctx, pk); err != nil {
		return Created{}, err
	}
	if pk.Mode == Queued {
		s.Wake()
	}
	return Created{PackID: pk.ID, Mode: pk.Mode, Status: pk.Status, Items: pk.Items, Bytes: pk.Bytes, Href: FileURL(pk.ID),
		Filename: pk.Filename, Seconds: seconds}, nil
}

func distinct(ids []string) []string {
	seen := make(map[string]bool, len(ids))
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// filename names the archive after the pack's name, made safe for a
// Content-Disposition header, or after the moment it was asked.
func filename(name string, now time.Time) string {
	s := strings.Map(func(r rune) rune {
		switch {
		case r < 0x80 && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_' || r == '.'):
			return r
		case r == ' ':
			return '-'
		}
		return -1
	}, name)
	s = strings.Trim(s, ".-")
	if len(s) > 100 {
		s = s[:100]
	}
	if s == "" {
		s = "pack-" + now.UTC().Format("20060102-150405")
	}
	return s + ".zip"
}

// Get reports where a pack of the caller's house got to; an expired,
// foreign or unknown pack is errs.NotFound.
func (s *Service) Get(ctx context.Context, p auth.Principal, id string) (View, error) {
	pk, err := s.live(ctx, p, id)
	if err != nil {
		return View{}, err
	}
	v := View{PackID: pk.ID, Mode: pk.Mode, Status: pk.Status, Items: pk.Items, Bytes: pk.Bytes, Href: FileURL(pk.ID),
		Filename: pk.Filename, ExpiresAt: ts.Of(pk.CreatedAt.Add(s.Limits().Life))}
	if pk.Error != "" {
		v.Error = &pk.Error
	}
	return v, nil
}

func (s *Service) live(ctx context.Context, p auth.Principal, id string) (Pack, error) {
	if _, err := uuid.Parse(id); err != nil {
		return Pack{}, errs.NotFound
	}
	return s.store.GetPack(ctx, p.HouseID, id, s.now().Add(-s.Limits().Life))
}

// Download is a pack's archive, ready to send: a stored archive (Object)
// for a built queued pack, or one written on the fly (Write) for an
// instant pack.
type Download struct {
	Filename string
	ModTime  time.Time
	Object   blob.Object             // nil for an instant pack; the caller closes it
	Write    func(w io.Writer) error // nil for a stored archive
}

// Download opens the archive of a pack of the caller's house: 404 when it
// is expired, foreign, unknown or (instant) has no live frame left, 409
// NOT_READY while a queued pack is not built or when it failed.
func (s *Service) Download(ctx context.Context, p auth.Principal, id string) (Download, error) {
	pk, err := s.live(ctx, p, id)
	if err != nil {
		return Download{}, err
	}
	d := Download{Filename: pk.Filename, ModTime: pk.CreatedAt}
	switch pk.Status {
	case StatusReady:
	case StatusFailed:
		return Download{}, errs.With(errs.Msg(ErrNotReady, "The pack failed to build; ask for it again."), "status", pk.Status)
	default:
		return Download{}, errs.With(ErrNotReady, "status", pk.Status)
	}
	if pk.Mode == Queued {
		obj, err := s.blobs.Open(ctx, pk.BlobKey)
		if errors.Is(err, blob.ErrNotFound) {
			return Download{}, errs.NotFound
		}
		if err != nil {
			return Download{}, err
		}
		d.Object = obj
		return d, nil
	}
	entries, err := s.store.PackEntries(ctx, p.HouseID, pk.AssetIDs)
	if err != nil {
		return Download{}, err
	}
	if len(entries) == 0 {
		return Download{}, errs.NotFound
	}
	d.Write = func(w io.Writer) error { return WriteArchive(ctx, w, entries, pk.Sizes, s.open, s.decoding) }
	return d, nil
}

func (s *Service) open(ctx context.Context, key string) (io.ReadCloser, error) {
	return s.blobs.Open(ctx, key)
}

// Run builds queued packs until ctx ends: one at a time, woken by Create
// or every poll interval. Every poll it also deletes the archives of
// expired packs.
func (s *Service) Run(ctx context.Context) error {
	t := time.NewTicker(s.poll)
	defer t.Stop()
	for {
		if _, err := s.Sweep(ctx); err != nil && ctx.Err() == nil {
			s.log.ErrorContext(ctx, "pack sweep", "err", err)
		}
		for {
			did, err := s.One(ctx)
			if err != nil && ctx.Err() == nil {
				s.log.ErrorContext(ctx, "pack builder", "err", err)
			}
			if !did || err != nil {
				break
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-s.wake:
		case <-t.C:
		}
	}
}

// One builds the oldest queued pack, if any, and reports whether it took
// one. A pack past its life or its attempts fails; a build that fails
// marks the pack failed with the reason.
func (s *Service) One(ctx context.Context) (bool, error) {
	now := s.now()
	pk, ok, err := s.store.ClaimPack(ctx, s.worker, now.Add(s.lease))
	if err != nil || !ok {
		return false, err
	}
	fail := func(reason string) error {
		return s.store.FailPack(context.WithoutCancel(ctx), pk, s.worker, reason)
	}
	switch {
	case pk.CreatedAt.Before(now.Add(-s.Limits().Life)):
		return true, fail("The pack expired before it was built.")
	case pk.Attempts > s.attempts:
		return true, fail(fmt.Sprintf("The pack could not be built in %d attempts.", s.attempts))
	}
	entries, err := s.store.PackEntries(ctx, pk.HouseID, pk.AssetIDs)
	if err != nil {
		return true, err // the lease runs out and the pack is tried again
	}
	if len(entries) == 0 {
		return true, fail("Every frame of the pack was removed.")
	}
	size, err := s.build(ctx, pk, entries)
	if err != nil {
		if ctx.Err() != nil {
			return true, err // shutting down: another builder takes it once the lease runs out
		}
		s.log.WarnContext(ctx, "pack build failed", "pack", pk.ID, "house", pk.HouseID, "err", err)
		return true, fail("The archive could not be written.")
	}
	n := notify.New(uuid.Must(uuid.NewV7()).String(), pk.HouseID, pk.UserID, notify.KindPackReady, "pack", pk.ID,
		map[string]any{"packId": pk.ID, "filename": pk.Filename, "items": pk.Items, "bytes": size, "href": FileURL(pk.ID)}, s.now())
	if err := s.store.FinishPack(context.WithoutCancel(ctx), pk, s.worker, size, n); err != nil {
		return true, err
	}
	return true, nil
}

// build streams the archive into the blob store and returns its size.
func (s *Service) build(ctx context.Context, pk Pack, entries []Entry) (int64, error) {
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := WriteArchive(ctx, pw, entries, pk.Sizes, s.open, s.decoding)
		pw.CloseWithError(err)
		done <- err
	}()
	size, err := s.blobs.Put(ctx, pk.BlobKey, pr)
	pr.CloseWithError(errors.New("pack: blob store stopped reading"))
	werr := <-done
	return size, errors.Join(err, werr)
}

// sweepBatch bounds the archives one sweep deletes.
const sweepBatch = 100

// Sweep deletes the stored archives of expired packs, at most a batch at a
// time, and returns how many it deleted. The rows stay: their routes
// already answer 404.
func (s *Service) Sweep(ctx context.Context) (int, error) {
	packs, err := s.store.ExpiredPackBlobs(ctx, s.now().Add(-s.Limits().Life), sweepBatch)
	if err != nil {
		return 0, err
	}
	for i, pk := range packs {
		if err := s.blobs.Delete(ctx, pk.BlobKey); err != nil {
			return i, err
		}
		if err := s.store.ForgetPackBlob(ctx, pk.HouseID, pk.ID); err != nil {
			return i, err
		}
	}
	return len(packs), nil
}
