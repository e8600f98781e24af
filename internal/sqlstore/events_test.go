package sqlstore

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"studio/internal/events"
	"studio/internal/job"
	"studio/internal/ledger"
	"studio/internal/ts"
)

// eventInstance is one process of TestEventsInSeqOrder: a store on the
// shared database, its relay and broker, and a subscription to the house.
type eventInstance struct {
	db  *DB
	sub func(house string) *events.Subscription
	// gate, when set, runs inside the transaction after its NOTIFY, before
	// the commit: the test holds a transaction open there.
	mu   sync.Mutex
	gate func() error
}

func newEventInstance(t *testing.T, url, channel string) *eventInstance {
	t.Helper()
	ctx := context.Background()
	db, err := Open(ctx, Options{DatabaseURL: url, DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	b := events.NewBroker(events.Options{Buffer: 256})
	r, err := events.NewPGRelay(ctx, url, b, slog.New(slog.DiscardHandler), events.RelayOptions{Channel: channel})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); b.Close(); db.Close() })
	in := &eventInstance{db: db}
	db.OnEvents(EventSink{Notify: func(ctx context.Context, tx *sql.Tx, house string, seq int64, msg []byte) error {
		if err := r.Notify(ctx, tx, house, seq, msg); err != nil {
			return err
		}
		in.mu.Lock()
		gate := in.gate
		in.gate = nil
		in.mu.Unlock()
		if gate != nil {
			return gate()
		}
		return nil
	}})
	in.sub = b.Subscribe
	return in
}

// TestEventsInSeqOrder: two processes on one PostgreSQL database change the
// same house, the first holding its transaction open after its NOTIFY; the
// second waits on the house's seq, and both processes' sockets receive the
// events in eventSeq order, whichever process goes first. Before, each
// process notified after its own commit, and a later seq could overtake an
// earlier one. A transaction whose NOTIFY fails rolls back and sends
// nothing; changes racing from both processes still arrive in order.
func TestEventsInSeqOrder(t *testing.T) {
	base := ""
	for _, e := range ledgerEngines() {
		base = e.url
	}
	if base == "" {
		t.Skip("TEST_DATABASE_URL is not set")
	}
	ctx := context.Background()
	url := migratedDatabase(t, base)
	var raw [6]byte
	_, _ = rand.Read(raw[:])
	channel := "studio_events_test_" + hex.EncodeToString(raw[:])
	one, two := newEventInstance(t, url, channel), newEventInstance(t, url, channel)
	user, house := newLedgerHouse(t, one.db)
	subOne, subTwo := one.sub(house), two.sub(house)
	var last [2]int64 // the last seq each subscription received
	if err := one.db.QueryTest(ctx, `SELECT event_seq FROM organizations WHERE id = '`+house+`'`, &last[0]); err != nil {
		t.Fatal(err)
	}
	last[1] = last[0]
	// want reads n events from both subscriptions and checks that their
	// seqs rise by one from the last, and returns the jobs they carried.
	want := func(n int) [][]job.Job {
		t.Helper()
		var out [][]job.Job
		for i, s := range []*events.Subscription{subOne, subTwo} {
			var got []job.Job
			for range n {
				select {
				case m := <-s.C():
					var msg struct {
						Job job.Job `json:"job"`
					}
					if err := json.Unmarshal(m.Data, &msg); err != nil {
						t.Fatal(err)
					}
					if m.Seq != last[i]+1 || msg.Job.EventSeq != m.Seq {
						t.Errorf("instance %d: seq %d (job's %d) after %d", i+1, m.Seq, msg.Job.EventSeq, last[i])
					}
					last[i] = m.Seq
					got = append(got, msg.Job)
				case <-time.After(10 * time.Second):
					t.Fatalf("instance %d: %d of %d events arrived", i+1, len(got), n)
				}
			}
			out = append(out, got)
		}
		return out
	}
	submit := func(in *eventInstance) job.Job {
		t.Helper()
		j := job.Job{ID: uuid.Must(uuid.NewV7()).String(), Tool: "upscale", Status: job.Queued, HouseID: house, UserID: user,
			Tier: ledger.Tier1K, Params: map[string]string{}, Inputs: []job.Input{}, Fingerprint: uuid.NewString(),
			Cost: 2, CreatedAt: ts.Of(time.Now())}
		stored, _, err := in.db.SubmitJob(ctx, j)
		if err != nil {
			t.Fatal(err)
		}
		return stored
	}

	for _, order := range []struct {
		name          string
		first, second *eventInstance
	}{{"one then two", one, two}, {"two then one", two, one}} {
		a, b := submit(order.first), submit(order.second)
		want(2)
		entered, release := make(chan struct{}), make(chan struct{})
		order.first.mu.Lock()
		order.first.gate = func() error { close(entered); <-release; return nil }
		order.first.mu.Unlock()
		var wg sync.WaitGroup
		wg.Go(func() {
			if _, err := order.first.db.CancelQueued(ctx, house, []string{a.ID}); err != nil {
				t.Error(err)
			}
		})
		<-entered
		wg.Go(func() {
			if _, err := order.second.db.CancelQueued(ctx, house, []string{b.ID}); err != nil {
				t.Error(err)
			}
		})
		waitForLockWaiter(t, one.db)
		close(release)
		wg.Wait()
		for i, got := range want(2) {
			if got[0].ID != a.ID || got[1].ID != b.ID || got[0].Status != job.Cancelled || got[1].Status != job.Cancelled {
				t.Errorf("%s: instance %d got %s %s, %s %s; want %s then %s cancelled",
					order.name, i+1, got[0].ID, got[0].Status, got[1].ID, got[1].Status, a.ID, b.ID)
			}
		}
	}

	// A NOTIFY that fails rolls its transaction back: nothing changes,
	// nothing is sent, and the seq is not spent.
	failed := submit(one)
	want(1)
	one.mu.Lock()
	one.gate = func() error { return errors.New("the NOTIFY failed") }
	one.mu.Unlock()
	if _, err := one.db.CancelQueued(ctx, house, []string{failed.ID}); err == nil {
		t.Fatal("a change whose NOTIFY failed committed")
	}
	if j, err := one.db.JobBySeq(ctx, house, last[0]); err != nil || j.ID != failed.ID || j.Status != job.Queued {
		t.Fatalf("after the failed NOTIFY the job is %v, %v; want still queued at seq %d", j, err, last[0])
	}

	// Changes racing from both processes arrive in seq order everywhere.
	var ids []string
	for range 10 {
		ids = append(ids, submit(one).ID)
	}
	want(10)
	var wg sync.WaitGroup
	for i, id := range ids {
		in := []*eventInstance{one, two}[i%2]
		wg.Go(func() {
			if _, err := in.db.CancelQueued(ctx, house, []string{id}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	want(len(ids))
}

// waitForLockWaiter returns once a session of the test's database waits on
// a lock: the second transaction, on the house's seq row.
func waitForLockWaiter(t *testing.T, db *DB) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		var n int
		if err := db.QueryTest(context.Background(), `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock'`, &n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			return
		}
	}
	t.Fatal("the second transaction never waited on the house's seq")
}

// TestEventsSince: a relay's replay after a dropped connection finds each
// job changed after the seq in its present state, in seq order, as a
// client's since= does, and stops at the limit.
func TestEventsSince(t *testing.T) {
	forEachLedgerEngine(t, func(t *testing.T, e ledgerEngine) {
		ctx := context.Background()
		db := openLedgerDB(t, e, time.Now)
		user, house := newLedgerHouse(t, db)
		var start int64
		if err := db.QueryTest(ctx, `SELECT event_seq FROM organizations WHERE id = '`+house+`'`, &start); err != nil {
			t.Fatal(err)
		}
		var ids []string
		for range 3 {
			j := job.Job{ID: uuid.Must(uuid.NewV7()).String(), Tool: "upscale", Status: job.Queued, HouseID: house, UserID: user,
				Tier: ledger.Tier1K, Params: map[string]string{}, Inputs: []job.Input{}, Fingerprint: uuid.NewString(),
				Cost: 2, CreatedAt: ts.Of(time.Now())}
			if _, _, err := db.SubmitJob(ctx, j); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, j.ID)
		}
		if _, err := db.CancelQueued(ctx, house, ids[:1]); err != nil {
			t.Fatal(err)
		}
		got, err := db.EventsSince(ctx, house, start+1, 10)
		if err != nil {
			t.Fatal(err)
		}
		want := []struct {
			id, status string
			seq        int64
		}{{ids[1], "queued", start + 2}, {ids[2], "queued", start + 3}, {ids[0], "cancelled", start + 4}}
		if len(got) != len(want) {
			t.Fatalf("%d events since %d; want %d", len(got), start+1, len(want))
		}
		for i, w := range want {
			var m struct {
				Job struct {
					ID, Status string
					EventSeq   int64
				}
			}
			if err := json.Unmarshal(got[i].Data, &m); err != nil {
				t.Fatal(err)
			}
			if got[i].Seq != w.seq || m.Job.ID != w.id || m.Job.Status != w.status || m.Job.EventSeq != w.seq {
				t.Errorf("event %d: seq %d, %s; want %s %s at %d", i, got[i].Seq, got[i].Data, w.id, w.status, w.seq)
			}
		}
		if got, err := db.EventsSince(ctx, house, start, 2); err != nil || len(got) != 2 || got[1].Seq != start+3 {
			t.Errorf("with a limit of 2: %d events, %v", len(got), err)
		}
	})
}
