package lane_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/google/uuid"

	"studio/internal/account"
	"studio/internal/ai"
	"studio/internal/auth"
	"studio/internal/dbtest"
	"studio/internal/errs"
	"studio/internal/lane"
	"studio/internal/ledger"
	"studio/internal/sqlstore"
	"studio/internal/ts"
)

// sweptEndpoint answers every question, but only after the holds' sweep
// ran while the call was in flight (as when the process's lease lapsed, or
// the call outlived its deadline): the hold it pays for is voided first.
type sweptEndpoint struct {
	db  *sqlstore.DB
	t   *testing.T
	ran int
}

func (e *sweptEndpoint) Configured() bool { return true }

func (e *sweptEndpoint) JSON(ctx context.Context, _ ai.Request, out any) (ai.Usage, error) {
	n, err := e.db.VoidStrandedHolds(ctx, time.Now().Add(time.Hour))
	if err != nil || n != 1 {
		e.t.Errorf("the sweep during the call resolved %d holds (%v); want the call's one", n, err)
	}
	e.ran++
	return ai.Usage{Attempts: 1}, json.Unmarshal([]byte(`{"improved":"a linen coat, soft window light","notes":["added light"]}`), out)
}

// TestLateAnswerIsDropped: on each engine, a lane whose hold was voided
// while its call ran drops the answer when it comes (the lane's failure,
// AI_FAILED here) and charges nothing: the balance is what it was and the
// hold stays voided, resolved once.
func TestLateAnswerIsDropped(t *testing.T) {
	engines := map[string]string{"sqlite": ""}
	if base := os.Getenv("TEST_DATABASE_URL"); base != "" {
		engines["postgres"] = base
	}
	for name, base := range engines {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			opts := sqlstore.Options{DataDir: t.TempDir()}
			if base != "" {
				opts.DatabaseURL = dbtest.FreshSchema(t, base)
			}
			db, err := sqlstore.Open(ctx, opts)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			now := ts.Of(time.Now())
			u := account.User{ID: uuid.Must(uuid.NewV7()).String(), Name: "Late", Email: "late@example.com", CreatedAt: now}
			h := account.House{ID: uuid.Must(uuid.NewV7()).String(), Name: "Late's house", Personal: true, FounderUserID: u.ID, CreatedAt: now}
			if err := db.CreateUser(ctx, u, "x", h, false); err != nil {
				t.Fatal(err)
			}
			before, err := db.Balance(ctx, h.ID)
			if err != nil {
				t.Fatal(err)
			}
			ep := &sweptEndpoint{db: db, t: t}
			s := lane.NewService(lane.Options{Ledger: db, Prices: ledger.DefaultPrices(nil), AI: ep})
			p := auth.Principal{UserID: u.ID, HouseID: h.ID, Role: auth.Owner, Cred: auth.CredSession}
			_, err = s.PromptEnhancer(ctx, p, lane.EnhanceRequest{Prompt: "a linen coat"})
			if e, ok := errs.As(err); !ok || e.Code != "AI_FAILED" || !errors.Is(err, ledger.ErrHoldResolved) || ep.ran != 1 {
				t.Fatalf("late answer: %v; want AI_FAILED after the one call", err)
			}
			after, err := db.Balance(ctx, h.ID)
			if err != nil {
				t.Fatal(err)
			}
			if after.Balance != before.Balance || after.Held != 0 {
				t.Errorf("balance %+v after; %+v before: a dropped answer charged", after, before)
			}
			var posted, voided int
			_ = db.QueryTest(ctx, `SELECT COUNT(*) FROM ledger_holds WHERE state = 'posted'`, &posted)
			_ = db.QueryTest(ctx, `SELECT COUNT(*) FROM ledger_holds WHERE state = 'voided'`, &voided)
			if posted != 0 || voided != 1 {
				t.Errorf("holds: %d posted, %d voided; want 0 and 1", posted, voided)
			}
			if err := db.CheckLedger(ctx, h.ID); err != nil {
				t.Error(err)
			}
		})
	}
}
