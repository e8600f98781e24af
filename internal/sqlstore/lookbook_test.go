package sqlstore

// SubmitLookbook on both engines: the looks and their base-frame jobs are
// written with every hold or not at all, a key used again answers the
// first jobs and holds nothing more, and concurrent calls with one key
// make one lookbook.

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"testing"

	"github.com/google/uuid"

	"studio/internal/errs"
	"studio/internal/job"
	"studio/internal/ledger"
	"studio/internal/look"
	"studio/internal/ts"
)

// lookbookOf builds n draft looks on asset and the base-frame job of each,
// of cost tokens, under key.
func lookbookOf(db *DB, house, user, asset, key string, n int, cost int64) ([]look.Look, []look.LookJob) {
	looks := make([]look.Look, n)
	jobs := make([]look.LookJob, n)
	for i := range n {
		l := look.Look{ID: uuid.Must(uuid.NewV7()).String(), OrganizationID: house, Name: "Look " + strconv.Itoa(i+1), ModelAssetID: asset,
			Items: []look.Item{{AssetID: asset, Role: "top", Hero: true}}, Status: look.Draft, Variations: []string{},
			Preset:    look.Preset{Aesthetic: "noir", Background: look.Background{Kind: "preset", Value: "beach"}},
			CreatedAt: ts.Of(db.now()), UpdatedAt: ts.Of(db.now())}
		looks[i] = l
		jobs[i] = look.LookJob{Stage: look.StageLock, Key: "lock", Job: job.Job{ID: uuid.Must(uuid.NewV7()).String(), Tool: look.Tool,
			Status: job.Queued, HouseID: house, UserID: user, Tier: ledger.Tier1K, Params: map[string]string{"lookId": l.ID},
			Inputs: []job.Input{{Role: "model", AssetID: asset}}, IdempotencyKey: key + "#" + strconv.Itoa(i), Fingerprint: "f" + strconv.Itoa(i),
			Cost: cost, CreatedAt: ts.Of(db.now())}}
	}
	return looks, jobs
}

func TestSubmitLookbook(t *testing.T) {
	forEachLedgerEngine(t, func(t *testing.T, e ledgerEngine) {
		ctx := context.Background()
		db := openLedgerDB(t, e, newLedgerClock().Now)
		user, house := newLedgerHouse(t, db)
		otherUser, other := newLedgerHouse(t, db)
		a := newAsset(t, db, house, user, nil, "")

		// 60 tokens: four frames of 16 are one token short, refused whole.
		looks, jobs := lookbookOf(db, house, user, a.ID, "short", 4, 16)
		_, _, err := db.SubmitLookbook(ctx, house, looks, jobs)
		e2, _ := errs.As(err)
		if !errors.Is(err, ledger.ErrInsufficientTokens) || e2 == nil ||
			e2.Fields["need"] != int64(64) || e2.Fields["spendable"] != int64(60) || e2.Fields["held"] != int64(0) {
			t.Fatalf("4 x 16 tokens: %v; want INSUFFICIENT_TOKENS with need 64, spendable 60, held 0", err)
		}
		if b := balanceOf(t, db, house); b.Held != 0 {
			t.Errorf("a refused lookbook held %d", b.Held)
		}
		for _, l := range looks {
			if _, err := db.Look(ctx, house, l.ID); err == nil {
				t.Errorf("a refused lookbook left look %s", l.Name)
			}
		}

		looks, jobs = lookbookOf(db, house, user, a.ID, "book", 3, 15)
		stored, replayed, err := db.SubmitLookbook(ctx, house, looks, jobs)
		if err != nil || replayed || len(stored) != 3 {
			t.Fatalf("3 x 15 tokens: %d %v %v", len(stored), replayed, err)
		}
		for i, j := range stored {
			if got, err := db.Look(ctx, house, looks[i].ID); err != nil || got.Name != looks[i].Name {
				t.Errorf("look %d: %+v %v", i, got, err)
			}
			if fs, err := db.Frames(ctx, house, looks[i].ID); err != nil || len(fs) != 1 || fs[0].JobID != j.ID || fs[0].Stage != look.StageLock {
				t.Errorf("look %d frames: %+v %v; want its lock job %s", i, fs, err, j.ID)
			}
			if h, err := db.JobHold(ctx, house, j.ID); err != nil || h.Tokens != 15 || h.State != ledger.Pending {
				t.Errorf("job %d hold: %+v %v", i, h, err)
			}
		}
		if b := balanceOf(t, db, house); b.Held != 45 || b.Balance != 15 {
			t.Errorf("balance %+v; want 45 held, 15 spendable", b)
		}

		// The same key again: the first jobs, nothing more written or held.
		again, more := lookbookOf(db, house, user, a.ID, "book", 3, 15)
		replay, replayed, err := db.SubmitLookbook(ctx, house, again, more)
		if err != nil || !replayed || len(replay) != 3 || replay[0].ID != stored[0].ID || replay[2].ID != stored[2].ID {
			t.Fatalf("replay: %v %v %v; want the first three jobs", replay, replayed, err)
		}
		if _, err := db.Look(ctx, house, again[0].ID); err == nil {
			t.Error("a replay wrote a look")
		}
		if b := balanceOf(t, db, house); b.Held != 45 {
			t.Errorf("a replay held more: %+v", b)
		}

		// Another house's key space is its own; its refusal is its own.
		ol, oj := lookbookOf(db, other, otherUser, a.ID, "book", 1, 61)
		if _, _, err := db.SubmitLookbook(ctx, other, ol, oj); !errors.Is(err, ledger.ErrInsufficientTokens) {
			t.Errorf("another house's lookbook: %v", err)
		}

		// Concurrent calls with one key make one lookbook.
		var wg sync.WaitGroup
		ids := make([]string, 4)
		for i := range ids {
			wg.Go(func() {
				l, j := lookbookOf(db, house, user, a.ID, "race", 1, 2)
				got, _, err := db.SubmitLookbook(ctx, house, l, j)
				if err != nil || len(got) != 1 {
					t.Errorf("racer %d: %v %v", i, got, err)
					return
				}
				ids[i] = got[0].ID
			})
		}
		wg.Wait()
		for _, id := range ids[1:] {
			if id != ids[0] {
				t.Errorf("racers made different jobs: %v", ids)
			}
		}
		if b := balanceOf(t, db, house); b.Held != 47 {
			t.Errorf("held %d after the race; want 47 (one more frame of 2)", b.Held)
		}
		if err := db.CheckLedger(ctx, house); err != nil {
			t.Error(err)
		}
	})
}
