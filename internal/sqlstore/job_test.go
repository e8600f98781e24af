package sqlstore

// The job store on both engines: submit with its hold, idempotent replay
// per (house, user, key), claim, heartbeat, settle, fail, release, cancel,
// rescue, the house's event order, and another house's ids answering as if
// they did not exist. Every hold ends posted or voided exactly once.

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"studio/internal/asset"
	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/job"
	"studio/internal/ledger"
	"studio/internal/look"
	"studio/internal/ts"
)

// newJob is a queued upscale of the house costing cost tokens, under key
// ("" for none).
func newJob(db *DB, house, user, key string, cost int64) job.Job {
	return job.Job{ID: uuid.Must(uuid.NewV7()).String(), Tool: "upscale", Status: job.Queued, HouseID: house, UserID: user,
		Tier: ledger.Tier1K, Params: map[string]string{"scale": "2"}, Inputs: []job.Input{{Role: "image", AssetID: "a"}},
		IdempotencyKey: key, Fingerprint: "fp-" + key, Cost: cost, CreatedAt: ts.Of(db.now())}
}

func submit(t *testing.T, db *DB, j job.Job) (job.Job, bool) {
	t.Helper()
	got, replayed, err := db.SubmitJob(context.Background(), j)
	if err != nil {
		t.Fatalf("submit %s: %v", j.IdempotencyKey, err)
	}
	return got, replayed
}

// holdOf returns the state and tokens of the job's hold.
func holdOf(t *testing.T, db *DB, house, jobID string) (ledger.HoldState, int64) {
	t.Helper()
	h, err := db.JobHold(context.Background(), house, jobID)
	if err != nil {
		t.Fatalf("hold of job %s: %v", jobID, err)
	}
	return h.State, h.Tokens
}

func frame(j job.Job) job.Frame {
	id := uuid.Must(uuid.NewV7()).String()
	return job.Frame{AssetID: id, Name: asset.FrameName(j.Tool, id), BlobKey: asset.BlobKey(j.HouseID, id),
		Mime: "image/png", Width: 4, Height: 3, Size: 10, SHA256: "00ff"}
}

// judgeTasks counts the judging tasks raised for a job of the house.
func judgeTasks(t *testing.T, db *DB, house, jobID string) int {
	t.Helper()
	var n int
	if err := db.read().QueryRow(context.Background(), `SELECT COUNT(*) FROM judge_tasks WHERE organization_id = ? AND job_id = ?`,
		house, jobID).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestJobStoreLifecycle(t *testing.T) {
	forEachLedgerEngine(t, func(t *testing.T, e ledgerEngine) {
		ctx := context.Background()
		clock := newLedgerClock()
		db := openLedgerDB(t, e, clock.Now)
		user, house := newLedgerHouse(t, db) // 60 tokens
		userB, houseB := newLedgerHouse(t, db)

		// Submit: the hold, the row and the first event, together.
		a, replayed := submit(t, db, newJob(db, house, user, "a", 5))
		if replayed || a.Status != job.Queued || a.EventSeq != 1 {
			t.Fatalf("first submit: %+v replayed %v", a, replayed)
		}
		if st, n := holdOf(t, db, house, a.ID); st != ledger.Pending || n != 5 {
			t.Errorf("hold %s %d; want pending 5", st, n)
		}
		if got := partsOf(balanceOf(t, db, house)); got != (parts{Balance: 55, Grant: 60, Held: 5}) {
			t.Errorf("balance after submit %+v", got)
		}

		// The same key replays the first job and holds nothing more.
		again, replayed := submit(t, db, newJob(db, house, user, "a", 5))
		if !replayed || again.ID != a.ID {
			t.Errorf("replay: %s replayed %v; want %s", again.ID, replayed, a.ID)
		}
		if b := balanceOf(t, db, house); b.Held != 5 || len(b.Holds) != 1 {
			t.Errorf("a replay held: %+v", b)
		}
		if got, err := db.JobByKey(ctx, house, user, "a"); err != nil || got.ID != a.ID {
			t.Errorf("JobByKey: %v %v", got.ID, err)
		}

		// A refused submit writes nothing.
		poor := newJob(db, house, user, "poor", 1000)
		if _, _, err := db.SubmitJob(ctx, poor); !errors.Is(err, ledger.ErrInsufficientTokens) {
			t.Errorf("submit past the balance: %v", err)
		}
		if _, err := db.Job(ctx, house, poor.ID); !errors.Is(err, errs.NotFound) {
			t.Errorf("a refused submit left its job: %v", err)
		}

		clock.Advance(time.Millisecond)
		b, _ := submit(t, db, newJob(db, house, user, "", 7))
		clock.Advance(time.Millisecond)
		c, _ := submit(t, db, newJob(db, house, user, "", 3))
		other := newJob(db, houseB, userB, "a", 1) // another house's job under the same key, queued last
		other.CreatedAt = ts.Of(clock.Now().Add(time.Hour))
		submit(t, db, other)

		// Another house sees none of it.
		if _, err := db.Job(ctx, houseB, a.ID); !errors.Is(err, errs.NotFound) {
			t.Errorf("house B reads A's job: %v", err)
		}
		if _, err := db.JobByKey(ctx, houseB, user, "a"); !errors.Is(err, errs.NotFound) {
			t.Errorf("house B reads A's key: %v", err)
		}
		if _, err := db.JobHold(ctx, houseB, a.ID); !errors.Is(err, errs.NotFound) {
			t.Errorf("house B reads A's hold: %v", err)
		}
		if got, err := db.CancelQueued(ctx, houseB, []string{a.ID, b.ID}); err != nil || len(got) != 0 {
			t.Errorf("house B cancels A's jobs: %d %v", len(got), err)
		}
		if js, err := db.JobsSince(ctx, houseB, 0, 100); err != nil || len(js) != 1 || js[0].ID != other.ID {
			t.Errorf("house B's replay: %v %v", js, err)
		}
		if js, err := db.RecentJobs(ctx, houseB, "", 100); err != nil || len(js) != 1 {
			t.Errorf("house B's recent jobs: %d %v", len(js), err)
		}

		// Claims take the oldest queued job first, each with the next event.
		lease := clock.Now().Add(30 * time.Second)
		var claimed []job.Job
		for _, w := range []string{"w1", "w2", "w1"} {
			j, ok, err := db.Claim(ctx, w, lease)
			if err != nil || !ok {
				t.Fatalf("claim: %v %v", ok, err)
			}
			if j.Status != job.Running || j.StartedAt == nil {
				t.Errorf("claimed %+v", j)
			}
			claimed = append(claimed, j)
		}
		if claimed[0].ID != a.ID || claimed[1].ID != b.ID || claimed[2].ID != c.ID {
			t.Fatalf("claim order %s %s %s; want a b c", claimed[0].ID, claimed[1].ID, claimed[2].ID)
		}
		if claimed[0].EventSeq <= c.EventSeq || claimed[1].EventSeq <= claimed[0].EventSeq {
			t.Errorf("claim events %d, %d after %d", claimed[0].EventSeq, claimed[1].EventSeq, c.EventSeq)
		}

		// Heartbeats extend only the holder's lease, in its own house.
		for _, hb := range []struct {
			house, worker string
			want          bool
		}{{house, "w1", true}, {house, "w2", false}, {houseB, "w1", false}} {
			if ok, err := db.Heartbeat(ctx, hb.house, a.ID, hb.worker, lease.Add(time.Minute)); err != nil || ok != hb.want {
				t.Errorf("heartbeat %s by %s: %v %v; want %v", hb.house, hb.worker, ok, err, hb.want)
			}
		}

		// Cancel: only queued jobs; running ones keep their holds.
		if got, err := db.CancelQueued(ctx, house, []string{a.ID}); err != nil || len(got) != 0 {
			t.Errorf("cancel of a running job: %v %v", got, err)
		}

		// Settle: the frame, the posted hold and the event commit together;
		// a worker that lost the lease writes nothing.
		f := frame(a)
		if _, err := db.Finish(ctx, a, "w2", f); !errors.Is(err, job.ErrLeaseLost) {
			t.Errorf("finish by another worker: %v", err)
		}
		if _, err := db.GetAsset(ctx, house, f.AssetID); !errors.Is(err, errs.NotFound) {
			t.Errorf("a lost finish left its asset: %v", err)
		}
		done, err := db.Finish(ctx, a, "w1", f)
		if err != nil || done.Status != job.Done || done.ResultAssetID != f.AssetID || done.Settled != 5 || done.FinishedAt == nil {
			t.Fatalf("finish: %+v %v", done, err)
		}
		if got, err := db.GetAsset(ctx, house, f.AssetID); err != nil || got.Name != f.Name || got.Tool == nil || *got.Tool != "upscale" {
			t.Errorf("frame asset %+v %v", got, err)
		}
		if st, _ := holdOf(t, db, house, a.ID); st != ledger.Posted {
			t.Errorf("hold of a done job is %s", st)
		}
		if n := judgeTasks(t, db, house, a.ID); n != 1 {
			t.Errorf("a landed picture has %d judging tasks; want 1", n)
		}
		if _, err := db.Finish(ctx, a, "w1", frame(a)); !errors.Is(err, job.ErrLeaseLost) {
			t.Errorf("a second finish: %v", err)
		}

		// Fail voids; release requeues with the try given back.
		failed, err := db.Fail(ctx, b, "w2", job.Failure{Code: "PROVIDER_KEY_REFUSED", Reason: "The develop failed. Nothing was charged."})
		if err != nil || failed.Status != job.Failed || failed.Error == nil || failed.ErrorCode == nil || *failed.ErrorCode != "PROVIDER_KEY_REFUSED" {
			t.Fatalf("fail: %+v %v", failed, err)
		}
		if got, _ := db.Job(ctx, house, b.ID); got.ErrorCode == nil || *got.ErrorCode != "PROVIDER_KEY_REFUSED" {
			t.Errorf("the failed job reads back with code %v", got.ErrorCode)
		}
		if st, _ := holdOf(t, db, house, b.ID); st != ledger.Voided {
			t.Errorf("hold of a failed job is %s", st)
		}
		if _, err := db.Fail(ctx, b, "w2", job.Failure{Reason: "again"}); !errors.Is(err, job.ErrLeaseLost) {
			t.Errorf("a second fail: %v", err)
		}
		if _, err := db.Release(ctx, c, "w2"); !errors.Is(err, job.ErrLeaseLost) {
			t.Errorf("release by another worker: %v", err)
		}
		rel, err := db.Release(ctx, c, "w1")
		if err != nil || rel.Status != job.Queued {
			t.Fatalf("release: %+v %v", rel, err)
		}
		if st, _ := holdOf(t, db, house, c.ID); st != ledger.Pending {
			t.Errorf("hold of a released job is %s", st)
		}

		// Cancel the released job: cancelled, hold voided, once.
		got, err := db.CancelQueued(ctx, house, []string{c.ID, c.ID})
		if err != nil || len(got) != 1 || got[0].Status != job.Cancelled {
			t.Fatalf("cancel: %v %v", got, err)
		}
		if st, _ := holdOf(t, db, house, c.ID); st != ledger.Voided {
			t.Errorf("hold of a cancelled job is %s", st)
		}
		if got := partsOf(balanceOf(t, db, house)); got != (parts{Balance: 55, Grant: 55}) {
			t.Errorf("balance after one settle, a fail and a cancel: %+v; want 55 and nothing held", got)
		}

		// Rescue: a lapsed lease is requeued while tries remain, then failed
		// with its hold voided.
		d, _ := submit(t, db, newJob(db, house, user, "d", 4))
		for try := 1; try <= 3; try++ {
			clock.Advance(time.Minute)
			j, ok, err := db.Claim(ctx, "crashy", clock.Now().Add(time.Second))
			if err != nil || !ok || j.ID != d.ID {
				t.Fatalf("claim %d: %s %v %v; want d", try, j.ID, ok, err)
			}
			clock.Advance(2 * time.Second)
			rescued, err := db.Rescue(ctx, clock.Now(), 3, func(string) time.Duration { return time.Hour })
			if err != nil || len(rescued) != 1 || rescued[0].ID != d.ID {
				t.Fatalf("rescue %d: %v %v", try, rescued, err)
			}
			want := job.Queued
			if try == 3 {
				want = job.Failed
			}
			if rescued[0].Status != want {
				t.Errorf("rescue %d left %s; want %s", try, rescued[0].Status, want)
			}
		}
		if st, _ := holdOf(t, db, house, d.ID); st != ledger.Voided {
			t.Errorf("hold of a job failed by rescue is %s", st)
		}
		if got, _ := db.Job(ctx, house, d.ID); got.ErrorCode != nil {
			t.Errorf("a job failed after its tries has code %v; want none", *got.ErrorCode)
		}

		// The queue spans houses: house B's job comes last and settles in B.
		ob, ok, err := db.Claim(ctx, "w1", lease)
		if err != nil || !ok || ob.ID != other.ID || ob.HouseID != houseB {
			t.Fatalf("claim of house B's job: %+v %v %v", ob, ok, err)
		}
		video := frame(ob) // a video lands; the judge reads pictures only (judge.Judges)
		video.Mime = "video/mp4"
		if _, err := db.Finish(ctx, ob, "w1", video); err != nil {
			t.Fatalf("finish in house B: %v", err)
		}
		if n := judgeTasks(t, db, houseB, ob.ID); n != 0 {
			t.Errorf("a landed video has %d judging tasks; want none", n)
		}
		if st, _ := holdOf(t, db, houseB, other.ID); st != ledger.Posted {
			t.Errorf("house B's hold is %s", st)
		}
		if _, ok, err := db.Claim(ctx, "w1", lease); ok || err != nil {
			t.Errorf("claim from an empty queue: %v %v", ok, err)
		}

		// The replay: every job once, with its latest state, ascending by
		// event seq, and each seq taken once in the house.
		js, err := db.JobsSince(ctx, house, 0, 100)
		if err != nil || len(js) != 4 {
			t.Fatalf("replay: %d jobs %v", len(js), err)
		}
		for i := 1; i < len(js); i++ {
			if js[i].EventSeq <= js[i-1].EventSeq {
				t.Errorf("replay out of order at %d: %d after %d", i, js[i].EventSeq, js[i-1].EventSeq)
			}
		}
		last := js[len(js)-1]
		if last.ID != d.ID || last.Status != job.Failed {
			t.Errorf("the latest change is %s %s; want d failed", last.ID, last.Status)
		}
		if bySeq, err := db.JobBySeq(ctx, house, last.EventSeq); err != nil || bySeq.ID != d.ID {
			t.Errorf("JobBySeq: %v %v", bySeq.ID, err)
		}
		if tail, _ := db.JobsSince(ctx, house, js[1].EventSeq, 100); len(tail) != 2 {
			t.Errorf("since the second: %d jobs; want 2", len(tail))
		}
		checkLedger(t, db, house, houseB)
	})
}

// TestJobKeysPerHouse: a user seated in two houses reuses idempotency keys
// in each. Every way a develop is queued (a submit, a duplicate and an MCP
// start_develop all go through SubmitJob; a develop-lock and variations
// through SubmitLookJobs) gives one job and one hold per house, replays in
// its own house only, and concurrent retries in one house collapse to one.
func TestJobKeysPerHouse(t *testing.T) {
	forEachLedgerEngine(t, func(t *testing.T, e ledgerEngine) {
		ctx := context.Background()
		db := openLedgerDB(t, e, newLedgerClock().Now)
		user, houseA := newLedgerHouse(t, db)
		_, houseB := newLedgerHouse(t, db)
		if err := db.AddSeat(ctx, houseB, user, auth.Member); err != nil {
			t.Fatal(err)
		}

		inA, _ := submit(t, db, newJob(db, houseA, user, "same", 5))
		inB, replayed := submit(t, db, newJob(db, houseB, user, "same", 5))
		if replayed || inB.ID == inA.ID || inB.HouseID != houseB {
			t.Fatalf("the key in house B gave %s (replayed %v); want a new job of B", inB.ID, replayed)
		}
		for _, h := range []string{houseA, houseB} {
			if b := balanceOf(t, db, h); b.Held != 5 || len(b.Holds) != 1 {
				t.Errorf("house %s holds %d in %d holds; want 5 in 1", h, b.Held, len(b.Holds))
			}
		}
		for _, c := range []struct{ house, want string }{{houseA, inA.ID}, {houseB, inB.ID}} {
			got, replayed := submit(t, db, newJob(db, c.house, user, "same", 5))
			if !replayed || got.ID != c.want {
				t.Errorf("replay in %s: %s (replayed %v); want %s", c.house, got.ID, replayed, c.want)
			}
			if got, err := db.JobByKey(ctx, c.house, user, "same"); err != nil || got.ID != c.want {
				t.Errorf("JobByKey in %s: %s %v; want %s", c.house, got.ID, err, c.want)
			}
		}

		// Concurrent retries of one new key in both houses at once: one job
		// and one hold in each house.
		var wg sync.WaitGroup
		ids := make(chan [2]string, 16)
		for i := range 16 {
			h := []string{houseA, houseB}[i%2]
			wg.Go(func() {
				j, _, err := db.SubmitJob(ctx, newJob(db, h, user, "race", 2))
				if err != nil {
					t.Errorf("racing submit: %v", err)
					return
				}
				ids <- [2]string{h, j.ID}
			})
		}
		wg.Wait()
		close(ids)
		won := map[string]map[string]bool{}
		for p := range ids {
			if won[p[0]] == nil {
				won[p[0]] = map[string]bool{}
			}
			won[p[0]][p[1]] = true
		}
		for _, h := range []string{houseA, houseB} {
			if len(won[h]) != 1 {
				t.Errorf("house %s: %d jobs for one key; want 1", h, len(won[h]))
			}
			if b := balanceOf(t, db, h); b.Held != 7 {
				t.Errorf("house %s holds %d after the race; want 7", h, b.Held)
			}
		}

		// Looks: a develop-lock (one frame) and variations (two) under the
		// same keys in each house.
		for _, h := range []string{houseA, houseB} {
			a := newAsset(t, db, h, user, nil, "")
			l := look.Look{ID: uuid.Must(uuid.NewV7()).String(), OrganizationID: h, Name: "L", ModelAssetID: a.ID,
				Items: []look.Item{{AssetID: a.ID, Role: "top", Hero: true}}, Status: look.Draft,
				Preset:    look.Preset{Aesthetic: "noir", Background: look.Background{Kind: "preset", Value: "beach"}},
				CreatedAt: ts.Of(db.now()), UpdatedAt: ts.Of(db.now())}
			if err := db.InsertLooks(ctx, []look.Look{l}); err != nil {
				t.Fatal(err)
			}
			ok := func(look.Look, look.State) error { return nil }
			for _, shot := range []struct {
				stage look.Stage
				keys  []string
			}{{look.StageLock, []string{"lock-key"}}, {look.StageVariation, []string{"var-key:front", "var-key:back"}}} {
				jobs := lookJobs(db, h, user, l.ID, len(shot.keys), 3)
				for i := range jobs {
					jobs[i].Stage, jobs[i].Job.IdempotencyKey = shot.stage, shot.keys[i]
				}
				stored, replayed, err := db.SubmitLookJobs(ctx, h, l.ID, ok, jobs)
				if err != nil || replayed || len(stored) != len(shot.keys) {
					t.Fatalf("%s in %s: %d jobs, replayed %v, %v", shot.stage, h, len(stored), replayed, err)
				}
				if _, replayed, err := db.SubmitLookJobs(ctx, h, l.ID, ok, lookJobs(db, h, user, l.ID, 1, 3)); err != nil || replayed {
					t.Errorf("a fresh key in %s: replayed %v %v; want a new develop", h, replayed, err)
				}
				for i := range jobs {
					jobs[i].Job.ID = uuid.Must(uuid.NewV7()).String()
				}
				replay, replayed, err := db.SubmitLookJobs(ctx, h, l.ID, ok, jobs)
				if err != nil || !replayed || len(replay) != len(stored) || replay[0].ID != stored[0].ID {
					t.Errorf("replay of %s in %s: %d jobs, replayed %v, %v", shot.stage, h, len(replay), replayed, err)
				}
			}
		}
		// Each house: 5 + 2 (race) + 3 (lock) + 3 (fresh) + 6 (variations) + 3 (fresh).
		for _, h := range []string{houseA, houseB} {
			if b := balanceOf(t, db, h); b.Held != 22 {
				t.Errorf("house %s holds %d; want 22", h, b.Held)
			}
		}
		checkLedger(t, db, houseA, houseB)
	})
}

// TestRescuePastDeadline: the rescuer fails a lapsed job past its render
// deadline (counted from its first claim) with PROVIDER_TIMEOUT and voids
// its hold, on its first try; a lapsed job within its deadline returns to
// the queue and keeps its first claim's time; a job handed back on
// shutdown starts its deadline again at its next claim.
func TestRescuePastDeadline(t *testing.T) {
	forEachLedgerEngine(t, func(t *testing.T, e ledgerEngine) {
		ctx := context.Background()
		clock := newLedgerClock()
		db := openLedgerDB(t, e, clock.Now)
		user, house := newLedgerHouse(t, db) // 60 tokens
		deadlines := func(tool string) time.Duration {
			if tool == "lookbook-video" {
				return time.Hour
			}
			return 10 * time.Minute
		}
		slow, _ := submit(t, db, newJob(db, house, user, "slow", 4))
		clock.Advance(time.Millisecond)
		video := newJob(db, house, user, "video", 9)
		video.Tool = "lookbook-video"
		video, _ = submit(t, db, video)

		first := clock.Now()
		for _, want := range []string{slow.ID, video.ID} {
			if j, ok, err := db.Claim(ctx, "crashy", clock.Now().Add(30*time.Second)); err != nil || !ok || j.ID != want {
				t.Fatalf("claim: %s %v %v; want %s", j.ID, ok, err, want)
			}
		}
		// Five minutes on, both leases have lapsed and both are within
		// their deadlines: they go back to the queue.
		clock.Advance(5 * time.Minute)
		rescued, err := db.Rescue(ctx, clock.Now(), 3, deadlines)
		if err != nil || len(rescued) != 2 || rescued[0].Status != job.Queued || rescued[1].Status != job.Queued {
			t.Fatalf("rescue within the deadlines: %+v %v", rescued, err)
		}
		// Claimed again, each keeps its first claim's time.
		for range 2 {
			j, ok, err := db.Claim(ctx, "crashy", clock.Now().Add(30*time.Second))
			if err != nil || !ok || j.StartedAt == nil || !j.StartedAt.Equal(ts.Of(first).Time) {
				t.Fatalf("second claim: %+v %v %v; want started at the first claim, %v", j.StartedAt, ok, err, first)
			}
		}
		// Eleven minutes after the first claim, the upscale is past its
		// deadline and fails; the video, whose tool declares an hour, is
		// requeued.
		clock.Advance(6 * time.Minute)
		rescued, err = db.Rescue(ctx, clock.Now(), 3, deadlines)
		if err != nil || len(rescued) != 2 {
			t.Fatalf("rescue past the deadline: %+v %v", rescued, err)
		}
		byID := map[string]job.Job{rescued[0].ID: rescued[0], rescued[1].ID: rescued[1]}
		failed := byID[slow.ID]
		if failed.Status != job.Failed || failed.ErrorCode == nil || *failed.ErrorCode != job.CodeProviderTimeout ||
			failed.Error == nil || *failed.Error != job.TimedOut(10*time.Minute).Reason {
			t.Errorf("the lapsed upscale: %s %v %v; want failed PROVIDER_TIMEOUT", failed.Status, failed.ErrorCode, failed.Error)
		}
		if st, _ := holdOf(t, db, house, slow.ID); st != ledger.Voided {
			t.Errorf("its hold is %s; want voided", st)
		}
		if byID[video.ID].Status != job.Queued {
			t.Errorf("the video within its own deadline is %s; want queued", byID[video.ID].Status)
		}

		// Released on shutdown, the video's next claim starts its deadline again.
		j, ok, err := db.Claim(ctx, "w1", clock.Now().Add(30*time.Second))
		if err != nil || !ok || j.ID != video.ID {
			t.Fatalf("claim of the video: %s %v %v", j.ID, ok, err)
		}
		if _, err := db.Release(ctx, j, "w1"); err != nil {
			t.Fatal(err)
		}
		clock.Advance(time.Minute)
		j, ok, err = db.Claim(ctx, "w1", clock.Now().Add(30*time.Second))
		if err != nil || !ok || j.StartedAt == nil || !j.StartedAt.Equal(ts.Of(clock.Now()).Time) {
			t.Errorf("claim after a release: %+v %v %v; want started now, %v", j.StartedAt, ok, err, clock.Now())
		}
		if got := partsOf(balanceOf(t, db, house)); got.Held != 9 {
			t.Errorf("balance %+v; want only the video's 9 held", got)
		}
	})
}
