package worker_test

import (
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"studio/internal/job"
	"studio/internal/ledger"
	"studio/internal/tool"
	"studio/internal/worker"
)

// wantTimedOut checks that j failed with PROVIDER_TIMEOUT after limit, its
// hold voided.
func (f *fixture) wantTimedOut(t *testing.T, id string, limit time.Duration) {
	t.Helper()
	j := f.job(t, id)
	want := job.TimedOut(limit)
	if j.Status != job.Failed || j.ErrorCode == nil || *j.ErrorCode != job.CodeProviderTimeout || j.Error == nil || *j.Error != want.Reason {
		t.Errorf("job %s: %s, code %v, error %v; want failed %s %q", id, j.Status, j.ErrorCode, j.Error, job.CodeProviderTimeout, want.Reason)
	}
	if h := f.hold(t, id); h.State != ledger.Voided {
		t.Errorf("job %s: hold %s; want voided", id, h.State)
	}
}

// TestRenderDeadline: with one worker and a one-minute deadline, a render
// that never finishes fails with PROVIDER_TIMEOUT at exactly one minute,
// its hold voided and its engine's context ended (the provider told to
// cancel); a render that ignores its context fails at its deadline all
// the same, and the worker, free at that instant, claims and develops
// another house's job meanwhile. The ignoring render landing later
// changes nothing.
func TestRenderDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t)
		other, otherUser := f.newHouse(t, "Ines")
		stuck := f.submit(t, "hold")
		deaf := f.submit(t, "3m")
		theirs := f.submitIn(t, other, otherUser, "")
		eng := newFakeEngine()
		start := time.Now()
		f.pool(t, eng, worker.Options{Concurrency: 1, Deadline: time.Minute, Poll: 10 * time.Second})

		time.Sleep(time.Minute)
		f.await(t, stuck.ID, job.Failed)
		if got := f.job(t, stuck.ID); got.FinishedAt == nil || got.FinishedAt.Sub(start) != time.Minute {
			t.Errorf("the stuck render ended at %v; want one minute after the start", got.FinishedAt)
		}
		f.wantTimedOut(t, stuck.ID, time.Minute)
		if got := <-eng.stopped; got != "hold" {
			t.Errorf("the context of render %q ended; want the stuck one's", got)
		}

		time.Sleep(time.Minute)
		f.await(t, theirs.ID, job.Done)
		if got := f.job(t, theirs.ID); got.FinishedAt == nil || got.FinishedAt.Sub(start) != 2*time.Minute {
			t.Errorf("the other house's develop landed at %v; want two minutes after the start, when the deaf render's deadline freed the worker", got.FinishedAt)
		}
		f.wantTimedOut(t, deaf.ID, time.Minute)
		if h := f.hold(t, theirs.ID); h.State != ledger.Posted {
			t.Errorf("the other house's hold is %s; want posted", h.State)
		}

		time.Sleep(2 * time.Minute) // the deaf render lands, long after its deadline
		f.settled(t)
		f.wantTimedOut(t, deaf.ID, time.Minute)
		if got := f.frames(t); len(got) != 1 {
			t.Errorf("the blob store holds %d frames; want only the other house's", len(got))
		}
		if b := f.balance(t); b.Balance != 60 || b.Held != 0 {
			t.Errorf("balance %d, held %d; want 60 and 0: nothing charged", b.Balance, b.Held)
		}
		if got := f.told(t, stuck.ID); !slices.Equal(got, []job.Status{job.Queued, job.Running, job.Failed}) {
			t.Errorf("the sockets were told %v for the stuck job", got)
		}
		f.wantNoErrors(t)
	})
}

// TestToolDeadline: a tool's own deadline (the registry's, through
// DeadlineOf) replaces the default for its develops only.
func TestToolDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t)
		video := f.submitTool(t, f.house, f.user, "lookbook-video", "hold")
		still := f.submit(t, "hold")
		eng := newFakeEngine()
		start := time.Now()
		f.pool(t, eng, worker.Options{Concurrency: 2, Deadline: time.Minute, DeadlineOf: func(tool string) time.Duration {
			if tool == "lookbook-video" {
				return 3 * time.Minute
			}
			return 0
		}, Poll: 10 * time.Second})
		time.Sleep(time.Minute)
		f.await(t, still.ID, job.Failed)
		if got := f.job(t, video.ID); got.Status != job.Running {
			t.Fatalf("at the default deadline the video is %s; want still running", got.Status)
		}
		time.Sleep(2 * time.Minute)
		f.await(t, video.ID, job.Failed)
		if got := f.job(t, video.ID); got.FinishedAt == nil || got.FinishedAt.Sub(start) != 3*time.Minute {
			t.Errorf("the video failed at %v; want three minutes after the start", got.FinishedAt)
		}
		f.wantTimedOut(t, still.ID, time.Minute)
		f.wantTimedOut(t, video.ID, 3*time.Minute)
		f.wantNoErrors(t)
	})
}

// TestDeclaredDeadline: without DeadlineOf, a tool's deadline is its
// declaration's (lookbook-video's is longer than the default).
func TestDeclaredDeadline(t *testing.T) {
	video, _ := tool.Get("lookbook-video")
	if video.Deadline <= time.Minute {
		t.Fatalf("lookbook-video declares %v", video.Deadline)
	}
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t)
		v := f.submitTool(t, f.house, f.user, "lookbook-video", "hold")
		still := f.submit(t, "hold")
		f.pool(t, newFakeEngine(), worker.Options{Concurrency: 2, Deadline: time.Minute, Poll: 10 * time.Second})
		time.Sleep(video.Deadline)
		f.await(t, v.ID, job.Failed)
		f.wantTimedOut(t, still.ID, time.Minute)
		f.wantTimedOut(t, v.ID, video.Deadline)
		f.wantNoErrors(t)
	})
}

// TestRescuedKeepsItsDeadline: a job whose worker died is requeued by the
// rescuer while within its deadline, and the worker that claims it again
// has only what is left of the deadline counted from the first claim: it
// fails at one minute after the dead worker's claim, not a minute after
// its own. A restart never renders a develop past its deadline.
func TestRescuedKeepsItsDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t)
		j := f.submit(t, "hold")
		first := time.Now()
		if claimed, ok, err := f.db.Claim(t.Context(), "dead-worker", first.Add(30*time.Second)); err != nil || !ok || claimed.ID != j.ID {
			t.Fatalf("claim: %v %v", ok, err)
		}
		eng := newFakeEngine()
		f.pool(t, eng, worker.Options{Concurrency: 1, Lease: 30 * time.Second, Deadline: time.Minute, Poll: 10 * time.Second})
		time.Sleep(40 * time.Second) // the lease lapses; the rescuer looks every 10 s
		if got := <-eng.runs; got != "hold" {
			t.Fatalf("the job was not developed again after the rescue")
		}
		time.Sleep(time.Until(first.Add(time.Minute)))
		f.await(t, j.ID, job.Failed)
		if got := f.job(t, j.ID); got.FinishedAt == nil || got.FinishedAt.Sub(first) != time.Minute || f.attempts(t, j.ID) != 2 {
			t.Errorf("failed at %v after %d tries; want one minute after the first claim, on the second try", got.FinishedAt, f.attempts(t, j.ID))
		}
		f.wantTimedOut(t, j.ID, time.Minute)
		f.wantNoErrors(t)
	})
}
