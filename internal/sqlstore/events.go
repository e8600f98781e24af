package sqlstore

// The events of a house (SPEC §6, the job socket). Every change a client
// hears of takes the house's next event seq (nextSeq) in its transaction,
// and the store itself sends the change's message, so that every socket of
// the house receives them in eventSeq order across jobs and processes: a
// client that keeps its highest eventSeq as its `since=` cursor then never
// skips a lower one it had not received yet.
//
// On PostgreSQL the message leaves as a NOTIFY inside the transaction that
// took the seq, just before it commits. PostgreSQL delivers notifications
// in the order their transactions committed, and the house's seq row stays
// locked from nextSeq to the commit, so commit order is seq order; every
// instance, this one included, delivers to its sockets from its LISTEN
// (events.PGRelay). On SQLite (one process) the messages are published in
// process after the commit, before the next transaction that took a seq
// may commit.

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"

	"studio/internal/events"
	"studio/internal/job"
	"studio/internal/notify"
)

// EventSink is where the store sends the events of committed changes.
type EventSink struct {
	// Notify runs on PostgreSQL inside the transaction that took seq, once
	// per event in seq order, before it commits; an error rolls the
	// transaction back. It sends the NOTIFY (events.PGRelay.Notify).
	Notify func(ctx context.Context, tx *sql.Tx, house string, seq int64, msg []byte) error
	// Publish runs on SQLite after the commit, once per event in seq
	// order, for every house (events.Broker.Publish). It must not block.
	Publish func(house string, seq int64, msg []byte)
}

// OnEvents sets where the events of committed changes go. Set it before the
// store serves; without it no event is sent.
func (db *DB) OnEvents(s EventSink) { db.events = s }

// event is one change's message at its house's seq.
type event struct {
	house string
	seq   int64
	msg   []byte
}

// tookSeq notes that tx took seq of house, for the event it sends.
func (t *Tx) tookSeq(house string, seq int64) {
	t.seqs = append(t.seqs, houseSeq{house, seq})
}

type houseSeq struct {
	house string
	seq   int64
}

// hasEvents reports whether tx has events for the sink of its engine.
func (t *Tx) hasEvents() bool {
	if len(t.seqs) == 0 {
		return false
	}
	if t.db.engine == Postgres {
		return t.db.events.Notify != nil
	}
	return t.db.events.Publish != nil
}

// eventsOf reads the message of each change tx made at a seq it took, in
// seq order: the job or the notification that holds the seq now. A job
// the transaction changed twice holds only its later seq; its earlier
// change was never visible to anyone, and no event is sent for it.
//
// The seqs a transaction took of one house are consecutive (the first
// nextSeq locks the house's row until the commit), so one range read per
// house and table finds them.
func (t *Tx) eventsOf(ctx context.Context) ([]event, error) {
	ranges := map[string][2]int64{}
	var houses []string
	for _, s := range t.seqs {
		r, ok := ranges[s.house]
		if !ok {
			houses = append(houses, s.house)
			r = [2]int64{s.seq, s.seq}
		}
		r[0], r[1] = min(r[0], s.seq), max(r[1], s.seq)
		ranges[s.house] = r
	}
	var out []event
	for _, house := range houses {
		of, err := t.eventsIn(ctx, house, ranges[house])
		if err != nil {
			return nil, err
		}
		out = append(out, of...)
	}
	return out, nil
}

// eventsIn reads the messages of the house's jobs and notifications whose
// seq is in r (inclusive), in seq order.
func (t *Tx) eventsIn(ctx context.Context, house string, r [2]int64) ([]event, error) {
	jobs, err := eventRows(ctx, t, `SELECT `+jobCols+` FROM jobs WHERE organization_id = ? AND event_seq >= ? AND event_seq <= ?`,
		house, r, func(rows *sql.Rows) (int64, []byte, error) {
			j, err := scanJob(t.db.publicURL, rows)
			if err != nil {
				return 0, nil, err
			}
			msg, err := job.Message(j)
			return j.EventSeq, msg, err
		})
	if err != nil {
		return nil, err
	}
	notes, err := eventRows(ctx, t, `SELECT `+notificationCols+` FROM notifications WHERE organization_id = ? AND event_seq >= ? AND event_seq <= ?`,
		house, r, func(rows *sql.Rows) (int64, []byte, error) {
			n, err := scanNotification(rows)
			if err != nil {
				return 0, nil, err
			}
			msg, err := notify.Message(n)
			return n.EventSeq, msg, err
		})
	if err != nil {
		return nil, err
	}
	of := append(jobs, notes...)
	slices.SortFunc(of, func(a, b event) int { return cmp.Compare(a.seq, b.seq) })
	return of, nil
}

// eventRows runs one range read of eventsOf and encodes each row with scan.
func eventRows(ctx context.Context, t *Tx, query, house string, r [2]int64,
	scan func(*sql.Rows) (int64, []byte, error)) ([]event, error) {
	rows, err := t.Query(ctx, query, house, r[0], r[1])
	if err != nil {
		return nil, fmt.Errorf("events: %w", err)
	}
	defer rows.Close()
	var out []event
	for rows.Next() {
		seq, msg, err := scan(rows)
		if err != nil {
			return nil, fmt.Errorf("events: %w", err)
		}
		out = append(out, event{house, seq, msg})
	}
	return out, rows.Err()
}

// EventsSince returns the messages of the house's changes after seq, in seq
// order, at most limit of them: each job and notification changed since,
// in its present state, as a client's replay with since= finds them. A
// relay that lost its LISTEN connection replays them to its sockets
// (events.RelayOptions.Replay).
func (db *DB) EventsSince(ctx context.Context, house string, seq int64, limit int) ([]events.Message, error) {
	evs, err := db.read().eventsIn(ctx, house, [2]int64{seq + 1, math.MaxInt64})
	if err != nil {
		return nil, err
	}
	out := make([]events.Message, 0, min(len(evs), limit))
	for _, e := range evs[:min(len(evs), limit)] {
		out = append(out, events.Message{Seq: e.seq, Data: e.msg})
	}
	return out, nil
}
