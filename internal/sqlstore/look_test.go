package sqlstore

// The look store on both engines: another house's look answers as if it
// did not exist, and a multi-frame submit writes every job and hold or none.

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/google/uuid"

	"studio/internal/errs"
	"studio/internal/job"
	"studio/internal/ledger"
	"studio/internal/look"
	"studio/internal/ts"
)

func lookJobs(db *DB, house, user, lookID string, n int, cost int64) []look.LookJob {
	out := make([]look.LookJob, n)
	for i := range out {
		id := uuid.Must(uuid.NewV7()).String()
		out[i] = look.LookJob{Stage: look.StageVariation, Key: "front", Job: job.Job{ID: id, Tool: look.Tool, Status: job.Queued,
			HouseID: house, UserID: user, Tier: ledger.Tier1K, Params: map[string]string{"lookId": lookID}, Inputs: []job.Input{},
			IdempotencyKey: "k-" + id, Fingerprint: "f", Cost: cost, CreatedAt: ts.Of(db.now())}}
	}
	return out
}

func TestLookStore(t *testing.T) {
	forEachLedgerEngine(t, func(t *testing.T, e ledgerEngine) {
		ctx := context.Background()
		db := openLedgerDB(t, e, newLedgerClock().Now)
		userA, houseA := newLedgerHouse(t, db)
		userB, houseB := newLedgerHouse(t, db)
		a := newAsset(t, db, houseA, userA, nil, "")
		l := look.Look{ID: uuid.Must(uuid.NewV7()).String(), OrganizationID: houseA, Name: "L", ModelAssetID: a.ID,
			Items: []look.Item{{AssetID: a.ID, Role: "top", Hero: true}}, Status: look.Draft,
			Preset:    look.Preset{Aesthetic: "noir", Background: look.Background{Kind: "preset", Value: "beach"}},
			CreatedAt: ts.Of(db.now()), UpdatedAt: ts.Of(db.now())}
		if err := db.InsertLooks(ctx, []look.Look{l}); err != nil {
			t.Fatal(err)
		}
		if got, err := db.Look(ctx, houseA, l.ID); err != nil || got.Name != "L" || got.Variations == nil {
			t.Fatalf("own look: %+v %v", got, err)
		}
		if _, err := db.Look(ctx, houseB, l.ID); !errors.Is(err, errs.NotFound) {
			t.Errorf("another house reads the look: %v", err)
		}
		if _, err := db.UpdateLook(ctx, houseB, l.ID, func(*look.Look, look.State) error { return nil }); !errors.Is(err, errs.NotFound) {
			t.Errorf("another house updates the look: %v", err)
		}
		ok := func(look.Look, look.State) error { return nil }
		if _, _, err := db.SubmitLookJobs(ctx, houseB, l.ID, ok, lookJobs(db, houseB, userB, l.ID, 1, 1)); !errors.Is(err, errs.NotFound) {
			t.Errorf("another house submits on the look: %v", err)
		}
		if p, _ := db.Pieces(ctx, houseB, []string{a.ID}); len(p) != 0 {
			t.Errorf("another house sees the piece: %v", p)
		}
		if fs, err := db.Frames(ctx, houseB, l.ID); err != nil || len(fs) != 0 {
			t.Errorf("another house sees frames: %v %v", fs, err)
		}

		// 60 tokens: 7 frames of 9 are refused whole; 6 of 9 pass whole.
		_, _, err := db.SubmitLookJobs(ctx, houseA, l.ID, ok, lookJobs(db, houseA, userA, l.ID, 7, 9))
		if !errors.Is(err, ledger.ErrInsufficientTokens) {
			t.Fatalf("7 x 9 tokens: %v", err)
		}
		if b := balanceOf(t, db, houseA); b.Held != 0 {
			t.Errorf("a refused submit held %d", b.Held)
		}
		if fs, _ := db.Frames(ctx, houseA, l.ID); len(fs) != 0 {
			t.Errorf("a refused submit left %d frames", len(fs))
		}
		jobs := lookJobs(db, houseA, userA, l.ID, 6, 9)
		stored, replayed, err := db.SubmitLookJobs(ctx, houseA, l.ID, ok, jobs)
		if err != nil || replayed || len(stored) != 6 {
			t.Fatalf("6 x 9 tokens: %d %v %v", len(stored), replayed, err)
		}
		if b := balanceOf(t, db, houseA); b.Held != 54 {
			t.Errorf("held %d; want 54", b.Held)
		}
		again, replayed, err := db.SubmitLookJobs(ctx, houseA, l.ID, ok, jobs)
		if err != nil || !replayed || len(again) != 6 || again[0].ID != stored[0].ID {
			t.Errorf("replay: %d %v %v", len(again), replayed, err)
		}
		var st look.State
		if _, err := db.UpdateLook(ctx, houseA, l.ID, func(_ *look.Look, s look.State) error { st = s; return nil }); err != nil || !st.InFlight {
			t.Errorf("state %+v %v; want a develop in flight", st, err)
		}
		checkLedger(t, db, houseA, houseB)

		// Two requests race for the last tokens of house B (60): each needs
		// 36, so exactly one is written whole and the other holds nothing.
		b := newAsset(t, db, houseB, userB, nil, "")
		lb := l
		lb.ID, lb.OrganizationID, lb.ModelAssetID = uuid.Must(uuid.NewV7()).String(), houseB, b.ID
		if err := db.InsertLooks(ctx, []look.Look{lb}); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errc := make(chan error, 2)
		for range 2 {
			wg.Go(func() {
				_, _, err := db.SubmitLookJobs(ctx, houseB, lb.ID, ok, lookJobs(db, houseB, userB, lb.ID, 4, 9))
				errc <- err
			})
		}
		wg.Wait()
		close(errc)
		won, lost := 0, 0
		for err := range errc {
			switch {
			case err == nil:
				won++
			case errors.Is(err, ledger.ErrInsufficientTokens):
				lost++
			default:
				t.Errorf("racing submit: %v", err)
			}
		}
		if won != 1 || lost != 1 {
			t.Errorf("%d won, %d lost; want one of each", won, lost)
		}
		if fs, _ := db.Frames(ctx, houseB, lb.ID); len(fs) != 4 {
			t.Errorf("%d frames after the race; want 4", len(fs))
		}
		if got := balanceOf(t, db, houseB); got.Held != 36 {
			t.Errorf("held %d after the race; want 36", got.Held)
		}
		checkLedger(t, db, houseA, houseB)
	})
}
