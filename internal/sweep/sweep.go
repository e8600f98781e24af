// Package sweep removes what a crash leaves behind: holds whose owner can
// no longer resolve them (holds.go), and, in the blob store, bytes
// that no row refers to (a process killed between writing an asset's bytes
// and committing its row, or between clearing a pack's key and deleting its
// archive), and the temporary files of writes that never finished.
//
// Nothing younger than the grace period is touched, so bytes being written
// right now, whose row commits a moment later, are safe. Only keys of the
// shapes this package knows are considered: asset bytes
// ("assets/<house>/<asset id>", asset.BlobKey) and pack archives
// ("packs/<house>/<pack id>.zip", pack.BlobKey); a key of any other shape is
// never removed. A feature that stores bytes under a new prefix adds its
// shape and its rows here before its blobs can be swept.
//
// A key is removed only when no row of its house names it: an asset row
// (live or deleted; the inputs of queued and running jobs are assets) or a
// pack row that still holds its archive. Every instance may sweep; sweeps
// are idempotent.
package sweep

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"studio/internal/asset"
	"studio/internal/blob"
	"studio/internal/pack"
)

// Store tells which blob keys rows refer to.
type Store interface {
	// BlobsInUse returns, of the house's assets and packs named by id, the
	// blob keys their rows refer to.
	BlobsInUse(ctx context.Context, house string, assetIDs, packIDs []string) (map[string]bool, error)
}

// Defaults of Options.
const (
	DefaultGrace = time.Hour
	DefaultEvery = time.Hour
)

// Options configure a Sweeper; zero fields take the defaults.
type Options struct {
	Grace time.Duration // blobs and temporary files younger than this are kept
	Every time.Duration // how often Run sweeps
	Now   func() time.Time
	Log   *slog.Logger
}

// Sweeper removes orphaned blobs and stale temporary files.
type Sweeper struct {
	store Store
	blobs blob.Store
	opts  Options
}

// New returns a sweeper of blobs whose rows live in store.
func New(store Store, blobs blob.Store, opts Options) *Sweeper {
	if opts.Grace <= 0 {
		opts.Grace = DefaultGrace
	}
	if opts.Every <= 0 {
		opts.Every = DefaultEvery
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	return &Sweeper{store: store, blobs: blobs, opts: opts}
}

// Report says what a sweep did.
type Report struct {
	Blobs     int   // orphaned blobs removed
	BlobBytes int64 // their size
	Temps     int   // temporary files removed
	TempBytes int64
	Kept      int // blobs past the grace period that a row refers to
}

// batch is how many ids one BlobsInUse call asks about.
const batch = 500

// shape is a kind of key the sweeper understands.
type shape struct {
	prefix string
	// parse returns the house and id of key, or false for any other shape.
	parse func(key string) (house, id string, ok bool)
	asset bool // an asset's bytes (else a pack's archive)
}

var shapes = []shape{
	{prefix: "assets/", asset: true, parse: func(key string) (string, string, bool) {
		house, id, ok := houseAndName(key, "assets/")
		return house, id, ok && asset.BlobKey(house, id) == key
	}},
	{prefix: "packs/", parse: func(key string) (string, string, bool) {
		house, name, ok := houseAndName(key, "packs/")
		id, zip := strings.CutSuffix(name, ".zip")
		return house, id, ok && zip && pack.BlobKey(house, id) == key
	}},
}

// houseAndName splits "<prefix><house>/<name>".
func houseAndName(key, prefix string) (string, string, bool) {
	house, name, ok := strings.Cut(strings.TrimPrefix(key, prefix), "/")
	return house, name, ok && house != "" && name != "" && !strings.Contains(name, "/")
}

type candidate struct {
	key, id string
	size    int64
}

// Sweep removes, once, the orphaned blobs and the temporary files older
// than the grace period.
func (s *Sweeper) Sweep(ctx context.Context) (Report, error) {
	var r Report
	cutoff := s.opts.Now().Add(-s.opts.Grace)
	for _, sh := range shapes {
		pending := map[string][]candidate{} // by house
		flush := func(house string) error {
			err := s.removeOrphans(ctx, house, sh, pending[house], &r)
			delete(pending, house)
			return err
		}
		err := s.blobs.Walk(ctx, sh.prefix, func(key string, info blob.Info) error {
			if !info.ModTime.Before(cutoff) {
				return nil // maybe being written now; its row may be about to commit
			}
			house, id, ok := sh.parse(key)
			if !ok {
				return nil
			}
			pending[house] = append(pending[house], candidate{key: key, id: id, size: info.Size})
			if len(pending[house]) >= batch {
				return flush(house)
			}
			return nil
		})
		if err != nil {
			return r, fmt.Errorf("sweep %s: %w", sh.prefix, err)
		}
		for house := range pending {
			if err := flush(house); err != nil {
				return r, fmt.Errorf("sweep %s: %w", sh.prefix, err)
			}
		}
	}
	n, size, err := s.blobs.SweepTemp(ctx, cutoff)
	r.Temps, r.TempBytes = n, size
	if err != nil {
		return r, fmt.Errorf("sweep temporary files: %w", err)
	}
	return r, nil
}

func (s *Sweeper) removeOrphans(ctx context.Context, house string, sh shape, cs []candidate, r *Report) error {
	if len(cs) == 0 {
		return nil
	}
	ids := make([]string, len(cs))
	for i, c := range cs {
		ids[i] = c.id
	}
	var used map[string]bool
	var err error
	if sh.asset {
		used, err = s.store.BlobsInUse(ctx, house, ids, nil)
	} else {
		used, err = s.store.BlobsInUse(ctx, house, nil, ids)
	}
	if err != nil {
		return err
	}
	for _, c := range cs {
		if used[c.key] {
			r.Kept++
			continue
		}
		if err := s.blobs.Delete(ctx, c.key); err != nil {
			return err
		}
		r.Blobs++
		r.BlobBytes += c.size
	}
	return nil
}

// Run sweeps at once and then every Options.Every until ctx ends. A sweep
// that fails is logged and tried again at the next tick.
func (s *Sweeper) Run(ctx context.Context) error {
	t := time.NewTicker(s.opts.Every)
	defer t.Stop()
	for {
		r, err := s.Sweep(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			s.opts.Log.Error("sweep failed", "err", err, "blobs_removed", r.Blobs)
		case r.Blobs > 0 || r.Temps > 0:
			s.opts.Log.Info("swept orphaned blobs", "blobs", r.Blobs, "blob_bytes", r.BlobBytes,
				"temp_files", r.Temps, "temp_bytes", r.TempBytes, "kept", r.Kept)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}
