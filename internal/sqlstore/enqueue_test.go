package sqlstore

// The enqueue on both engines: every store method that spends on develops
// files each hold under its job's tool, writes all of a request or none of
// it, and collapses concurrent retries under one key to one request.

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"studio/internal/job"
	"studio/internal/judge"
	"studio/internal/ledger"
	"studio/internal/look"
	"studio/internal/pipeline"
	"studio/internal/ts"
)

// toolJob is a queued develop of tool in the house costing cost tokens.
func toolJob(db *DB, house, user, tool string, cost int64) job.Job {
	return job.Job{ID: uuid.Must(uuid.NewV7()).String(), Tool: tool, Status: job.Queued, HouseID: house, UserID: user,
		Tier: ledger.Tier1K, Params: map[string]string{}, Inputs: []job.Input{}, Fingerprint: "f", Cost: cost, CreatedAt: ts.Of(db.now())}
}

// workflowOf is the workflow the job's hold is filed under.
func workflowOf(t *testing.T, db *DB, house, jobID string) string {
	t.Helper()
	h, err := db.JobHold(context.Background(), house, jobID)
	if err != nil {
		t.Fatalf("hold of job %s: %v", jobID, err)
	}
	return h.Workflow
}

func TestEnqueueFilesEachHoldUnderItsTool(t *testing.T) {
	forEachLedgerEngine(t, func(t *testing.T, e ledgerEngine) {
		ctx := context.Background()
		db := openLedgerDB(t, e, newLedgerClock().Now)
		user, house := newLedgerHouse(t, db) // 60 tokens
		want := map[string]string{}          // job id -> tool

		// submit, MCP start_develop, duplicate and redraw
		j, _, err := db.SubmitJob(ctx, toolJob(db, house, user, "upscale", 2))
		if err != nil {
			t.Fatal(err)
		}
		want[j.ID] = "upscale"

		// takes (filed under no workflow before the enqueue was one)
		takes := []job.Job{toolJob(db, house, user, "packshot", 4), toolJob(db, house, user, "color-change", 3)}
		rec := judge.TakeRecord{ID: uuid.NewString(), HouseID: house, UserID: user, Fingerprint: "fp", CreatedAt: db.now()}
		if _, _, err := db.SubmitTake(ctx, rec, takes, nil); err != nil {
			t.Fatal(err)
		}
		for _, j := range takes {
			want[j.ID] = j.Tool
		}

		// a look's develop-lock and variations
		a := newAsset(t, db, house, user, nil, "")
		l := look.Look{ID: uuid.Must(uuid.NewV7()).String(), OrganizationID: house, Name: "L", ModelAssetID: a.ID,
			Items: []look.Item{{AssetID: a.ID, Role: "top", Hero: true}}, Status: look.Draft,
			Preset:    look.Preset{Aesthetic: "noir", Background: look.Background{Kind: "preset", Value: "beach"}},
			CreatedAt: ts.Of(db.now()), UpdatedAt: ts.Of(db.now())}
		if err := db.InsertLooks(ctx, []look.Look{l}); err != nil {
			t.Fatal(err)
		}
		frames, _, err := db.SubmitLookJobs(ctx, house, l.ID, func(look.Look, look.State) error { return nil }, lookJobs(db, house, user, l.ID, 2, 8))
		if err != nil {
			t.Fatal(err)
		}
		for _, j := range frames {
			want[j.ID] = look.Tool
		}

		// a pipeline: its first step queued now, its second held now and
		// queued when the first lands, on the hold taken for it
		run := pipeline.Record{ID: uuid.NewString(), HouseID: house, UserID: user, Name: "P", AssetIDs: []string{a.ID},
			Steps:       []pipeline.Step{{Tool: "remove-background", Quality: ledger.Tier1K}, {Tool: "reframe", Quality: ledger.Tier1K}},
			Fingerprint: "fp", Cost: 5, CreatedAt: ts.Of(db.now())}
		for i, tokens := range []int64{2, 3} {
			state := pipeline.Waiting
			if i == 0 {
				state = pipeline.Started
			}
			run.Frames = append(run.Frames, pipeline.Frame{Step: i, SourceAssetID: a.ID, JobID: uuid.Must(uuid.NewV7()).String(), Tokens: tokens, State: state})
		}
		first := toolJob(db, house, user, "remove-background", 2)
		first.ID = run.Frames[0].JobID
		if _, _, err := db.StartPipeline(ctx, run, []job.Job{first}); err != nil {
			t.Fatal(err)
		}
		want[first.ID] = "remove-background"
		if got := workflowOf(t, db, house, run.Frames[1].JobID); got != "reframe" {
			t.Errorf("a pipeline's waiting step is held under %q; want reframe", got)
		}
		for {
			c, ok, err := db.Claim(ctx, "w", db.now().Add(time.Minute))
			if err != nil || !ok {
				t.Fatalf("claim the pipeline's first step: %v %v", ok, err)
			}
			if c.ID != first.ID {
				continue // the other develops, left running
			}
			if _, err := db.Finish(ctx, c, "w", frame(c)); err != nil {
				t.Fatal(err)
			}
			break
		}
		next, err := db.Job(ctx, house, run.Frames[1].JobID)
		if err != nil || next.Status != job.Queued {
			t.Fatalf("the pipeline's next step: %+v %v", next, err)
		}
		want[next.ID] = "reframe"

		for id, tool := range want {
			if got := workflowOf(t, db, house, id); got != tool {
				t.Errorf("the hold of a %s develop is filed under %q", tool, got)
			}
		}
		checkLedger(t, db, house)
	})
}

func TestEnqueueAllOrNone(t *testing.T) {
	forEachLedgerEngine(t, func(t *testing.T, e ledgerEngine) {
		ctx := context.Background()
		db := openLedgerDB(t, e, newLedgerClock().Now)
		user, house := newLedgerHouse(t, db) // 60 tokens
		written := func(jobs []job.Job) int {
			n := 0
			for _, j := range jobs {
				if _, err := db.Job(ctx, house, j.ID); err == nil {
					n++
				}
				if _, err := db.JobHold(ctx, house, j.ID); err == nil {
					n++
				}
			}
			return n
		}
		boom := errors.New("boom")
		for _, tt := range []struct {
			name  string
			jobs  []job.Job
			check func(*Tx) error
			after func(*Tx, enqueued) error
			want  error
		}{
			{"a check refuses", []job.Job{toolJob(db, house, user, "upscale", 2)}, func(*Tx) error { return boom }, nil, boom},
			{"a row after the jobs fails", []job.Job{toolJob(db, house, user, "upscale", 2), toolJob(db, house, user, "iron", 3)},
				nil, func(*Tx, enqueued) error { return boom }, boom},
			{"the last hold is short", []job.Job{toolJob(db, house, user, "upscale", 30), toolJob(db, house, user, "iron", 31)},
				nil, nil, ledger.ErrInsufficientTokens},
		} {
			_, _, err := db.enqueue(ctx, enqueue{house: house, spend: spend{Queue: tt.jobs, Hold: tt.jobs}, check: tt.check, record: tt.after})
			if !errors.Is(err, tt.want) {
				t.Errorf("%s: %v; want %v", tt.name, err, tt.want)
			}
			if n := written(tt.jobs); n != 0 {
				t.Errorf("%s: %d rows of its jobs and holds were written", tt.name, n)
			}
		}
		if got := partsOf(balanceOf(t, db, house)); got != (parts{Balance: 60, Grant: 60}) {
			t.Errorf("balance after refusals %+v", got)
		}

		// A queued job must have a hold.
		orphan := toolJob(db, house, user, "upscale", 2)
		if _, _, err := db.enqueue(ctx, enqueue{house: house, spend: spend{Queue: []job.Job{orphan}}}); err == nil || written([]job.Job{orphan}) != 0 {
			t.Errorf("a job queued without a hold: %v", err)
		}

		// Concurrent takes under one key collapse to one take, one hold per frame.
		var wg sync.WaitGroup
		replays := make([]bool, 6)
		errs := make([]error, 6)
		var jobs [][]job.Job
		for range replays {
			jobs = append(jobs, []job.Job{toolJob(db, house, user, "packshot", 4)})
		}
		for i := range replays {
			wg.Go(func() {
				rec := judge.TakeRecord{ID: uuid.NewString(), HouseID: house, UserID: user, IdempotencyKey: "same", Fingerprint: "fp", CreatedAt: db.now()}
				_, replays[i], errs[i] = db.SubmitTake(ctx, rec, jobs[i], nil)
			})
		}
		wg.Wait()
		won := 0
		for i := range replays {
			if errs[i] != nil {
				t.Fatalf("take %d: %v", i, errs[i])
			}
			if !replays[i] {
				won++
			}
		}
		if b := balanceOf(t, db, house); won != 1 || b.Held != 4 {
			t.Errorf("%d takes won the key, %d tokens held; want 1 and 4", won, b.Held)
		}
		checkLedger(t, db, house)
	})
}
