package sqlstore

// The judge's store on both engines: one verdict per job ever, judging
// claims with a lease, the shared feedback row, notes, takes written whole
// or not at all, opinions raised once, and another house seeing nothing.

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"studio/internal/errs"
	"studio/internal/job"
	"studio/internal/judge"
	"studio/internal/ledger"
	"studio/internal/notify"
	"studio/internal/ts"
)

func TestJudgeStore(t *testing.T) {
	forEachLedgerEngine(t, func(t *testing.T, e ledgerEngine) {
		ctx := context.Background()
		clock := newLedgerClock()
		db := openLedgerDB(t, e, clock.Now)
		userA, houseA := newLedgerHouse(t, db)
		userB, houseB := newLedgerHouse(t, db)
		jobID := uuid.Must(uuid.NewV7()).String()

		// Judging: the task is claimed with a lease, deferred, claimed again, ended by the verdict.
		if err := db.write(ctx, func(tx *Tx) error { return enqueueJudging(ctx, tx, houseA, jobID, clock.Now().UnixMilli()) }); err != nil {
			t.Fatal(err)
		}
		task, ok, err := db.ClaimJudging(ctx, "w1", clock.Now(), clock.Now().Add(time.Minute))
		if err != nil || !ok || task.JobID != jobID || task.HouseID != houseA || task.Attempts != 1 {
			t.Fatalf("claim: %+v %v %v", task, ok, err)
		}
		if _, ok, _ := db.ClaimJudging(ctx, "w2", clock.Now(), clock.Now().Add(time.Minute)); ok {
			t.Error("a leased task was claimed twice")
		}
		if err := db.DeferJudging(ctx, task, "w1", clock.Now().Add(time.Hour), "the endpoint failed"); err != nil {
			t.Fatal(err)
		}
		if _, ok, _ := db.ClaimJudging(ctx, "w2", clock.Now(), clock.Now().Add(time.Minute)); ok {
			t.Error("a deferred task was claimed before its time")
		}
		clock.Advance(2 * time.Hour)
		if task, ok, _ = db.ClaimJudging(ctx, "w2", clock.Now(), clock.Now().Add(time.Minute)); !ok || task.Attempts != 2 {
			t.Fatalf("the task after its wait: %+v %v", task, ok)
		}
		score := 65
		v := judge.Verdict{JobID: jobID, HouseID: houseA, Score: &score, Flagged: true, ShowScore: true, RetryFutile: true, RubricVersion: 1,
			Findings: []judge.Finding{{Code: judge.SoftFocus, Where: "all", Confidence: judge.Sure, FromInput: true}}, Judge: "pixels",
			Note: "measured", CreatedAt: ts.Of(clock.Now())}
		if written, err := db.WriteVerdict(ctx, v); err != nil || !written {
			t.Fatalf("write: %v %v", written, err)
		}
		other := v
		other.Score, other.Findings = ptrTo(100), nil
		if written, err := db.WriteVerdict(ctx, other); err != nil || written {
			t.Errorf("a second verdict for the job: written %v %v", written, err)
		}
		got, err := db.Verdict(ctx, houseA, jobID)
		if err != nil || *got.Score != 65 || !got.Findings[0].FromInput || got.Findings[0].Label != "The frame is soft or blurred." || got.Answer != nil {
			t.Errorf("stored verdict: %+v %v", got, err)
		}
		if _, ok, _ := db.ClaimJudging(ctx, "w3", clock.Now().Add(time.Hour), clock.Now().Add(2*time.Hour)); ok {
			t.Error("the verdict did not end the task")
		}
		if _, err := db.Verdict(ctx, houseB, jobID); !errors.Is(err, errs.NotFound) {
			t.Errorf("another house reads the verdict: %v", err)
		}
		if vs, _ := db.Verdicts(ctx, houseB, []string{jobID}); len(vs) != 0 {
			t.Errorf("another house lists the verdict: %+v", vs)
		}

		// The feedback row: the last answer wins, another house cannot answer.
		note := "cuff"
		if err := db.AnswerVerdict(ctx, houseB, userB, jobID, judge.Label{Agrees: true}, clock.Now()); !errors.Is(err, errs.NotFound) {
			t.Errorf("another house answers: %v", err)
		}
		if err := db.AnswerVerdict(ctx, houseA, userA, uuid.NewString(), judge.Label{Agrees: true}, clock.Now()); !errors.Is(err, errs.NotFound) {
			t.Errorf("answer without a verdict: %v", err)
		}
		for _, l := range []judge.Label{{Agrees: true, Rating: ptrTo(4)}, {Agrees: false, Note: &note}} {
			if err := db.AnswerVerdict(ctx, houseA, userA, jobID, l, clock.Now()); err != nil {
				t.Fatal(err)
			}
		}
		if got, _ := db.Verdict(ctx, houseA, jobID); got.Answer == nil || got.Answer.Agrees || got.Answer.Note != "cuff" {
			t.Errorf("answer: %+v", got.Answer)
		}

		// Notes: the same sentence on the same scope once; another house sees none.
		n := judge.Note{ID: uuid.NewString(), HouseID: houseA, UserID: userA, Text: "Crisp collar.", Norm: "crisp collar", ScopeTools: []string{"packshot"},
			ScopePhrase: "packshot develops", EvidenceJobIDs: []string{}, ActiveFrom: ts.Of(clock.Now())}
		if _, created, err := db.InsertNote(ctx, n); err != nil || !created {
			t.Fatal(err)
		}
		twin := n
		twin.ID = uuid.NewString()
		if got, created, err := db.InsertNote(ctx, twin); err != nil || created || got.ID != n.ID {
			t.Errorf("the same sentence again: %+v %v %v", got, created, err)
		}
		if _, err := db.Note(ctx, houseB, n.ID); !errors.Is(err, errs.NotFound) {
			t.Errorf("another house reads the note: %v", err)
		}
		if _, err := db.UpdateNote(ctx, houseB, n.ID, func(*judge.Note) error { return nil }); !errors.Is(err, errs.NotFound) {
			t.Errorf("another house updates the note: %v", err)
		}
		if ns, _ := db.Notes(ctx, houseB); len(ns) != 0 {
			t.Errorf("another house lists notes: %+v", ns)
		}

		// A take is written whole or not at all.
		takeJobs := func(n int, cost int64) []job.Job {
			out := make([]job.Job, n)
			for i := range out {
				out[i] = job.Job{ID: uuid.Must(uuid.NewV7()).String(), Tool: "upscale", Status: job.Queued, HouseID: houseA, UserID: userA,
					Tier: ledger.Tier1K, Params: map[string]string{}, Inputs: []job.Input{}, Fingerprint: "f", Cost: cost, CreatedAt: ts.Of(clock.Now())}
			}
			return out
		}
		rec := judge.TakeRecord{ID: uuid.NewString(), HouseID: houseA, UserID: userA, IdempotencyKey: "t1", Fingerprint: "fp", CreatedAt: clock.Now()}
		big := takeJobs(7, 9)
		if _, _, err := db.SubmitTake(ctx, rec, big, []judge.Direction{{HouseID: houseA, JobID: big[0].ID, SourceJobID: jobID, Tool: "upscale",
			Said: "x", Norm: "x", TakeID: rec.ID, Shoot: "run.x", At: clock.Now()}}); !errors.Is(err, ledger.ErrInsufficientTokens) {
			t.Fatalf("7 x 9 tokens: %v", err)
		}
		if b := balanceOf(t, db, houseA); b.Held != 0 {
			t.Errorf("a refused take held %d", b.Held)
		}
		if _, err := db.TakeByKey(ctx, houseA, userA, "t1"); !errors.Is(err, errs.NotFound) {
			t.Errorf("a refused take kept its key: %v", err)
		}
		if ds, _ := db.Directions(ctx, houseA, "x", 10); len(ds) != 0 {
			t.Errorf("a refused take kept its directions: %+v", ds)
		}
		small := takeJobs(2, 3)
		if _, replayed, err := db.SubmitTake(ctx, rec, small, nil); err != nil || replayed {
			t.Fatalf("take: %v %v", replayed, err)
		}
		if got, replayed, err := db.SubmitTake(ctx, judge.TakeRecord{ID: uuid.NewString(), HouseID: houseA, UserID: userA, IdempotencyKey: "t1",
			Fingerprint: "other"}, takeJobs(2, 3), nil); err != nil || !replayed || got.Fingerprint != "fp" {
			t.Errorf("the key again: %+v %v %v", got, replayed, err)
		}
		if b := balanceOf(t, db, houseA); b.Held != 6 {
			t.Errorf("held %d; want the one take's 6", b.Held)
		}
		if _, err := db.TakeByKey(ctx, houseB, userA, "t1"); !errors.Is(err, errs.NotFound) {
			t.Errorf("another house reads the take: %v", err)
		}
		checkLedger(t, db, houseA)

		// Opinions: one per settlement; a notification another house cannot read.
		op := notify.New(uuid.NewString(), houseA, "", notify.KindDevelopOpinion, "run", "run.x", nil, clock.Now())
		if raised, err := db.RaiseOpinion(ctx, houseA, "run.x", jobID, op); err != nil || !raised {
			t.Fatalf("raise: %v %v", raised, err)
		}
		again := notify.New(uuid.NewString(), houseA, "", notify.KindDevelopOpinion, "run", "run.x", nil, clock.Now())
		if raised, err := db.RaiseOpinion(ctx, houseA, "run.x", jobID, again); err != nil || raised {
			t.Errorf("raised twice: %v %v", raised, err)
		}
		if _, err := db.Notification(ctx, houseB, userB, op.ID); !errors.Is(err, errs.NotFound) {
			t.Errorf("another house reads the opinion: %v", err)
		}
		if _, err := db.Notification(ctx, houseA, userA, again.ID); !errors.Is(err, errs.NotFound) {
			t.Errorf("the second raise wrote a notification: %v", err)
		}
	})
}
