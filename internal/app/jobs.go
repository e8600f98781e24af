package app

import (
	"context"
	"encoding/json"
	"log/slog"

	"studio/internal/asset"
	"studio/internal/auth"
	"studio/internal/blob"
	"studio/internal/events"
	"studio/internal/job"
	"studio/internal/ledger"
	"studio/internal/sqlstore"
)

// jobEvents tells every listener that a job changed, after the change
// committed: this instance's sockets through the broker, the other
// instances' through the PostgreSQL relay. The message is encoded once.
type jobEvents struct {
	broker *events.Broker
	relay  *events.PGRelay
	db     *sqlstore.DB
	log    *slog.Logger
}

// jobMessage is the socket message of a job change (DECISIONS §1b).
type jobMessage struct {
	Type string  `json:"type"`
	Job  job.Job `json:"job"`
}

func encodeJob(j job.Job) ([]byte, error) { return json.Marshal(jobMessage{Type: "job", Job: j}) }

func (e *jobEvents) JobChanged(ctx context.Context, j job.Job) {
	msg, err := encodeJob(j)
	if err != nil {
		e.log.Error("encode job event", "job", j.ID, "err", err)
		return
	}
	e.broker.Publish(j.HouseID, j.EventSeq, msg)
	if err := e.relay.Notify(context.WithoutCancel(ctx), e.db.Pool(), j.HouseID, j.EventSeq, msg); err != nil {
		// The other instances' clients replay with ?since= on their next reconnect.
		e.log.Warn("relay job event", "job", j.ID, "err", err)
	}
}

// fetchJobEvent rebuilds a message too large for a NOTIFY payload.
func fetchJobEvent(db *sqlstore.DB) events.FetchFunc {
	return func(ctx context.Context, house string, seq int64) ([]byte, error) {
		j, err := db.JobBySeq(ctx, house, seq)
		if err != nil {
			return nil, err
		}
		return encodeJob(j)
	}
}

// jobAssets lets jobs use the library: uploaded inputs become house
// assets (filed by their role), referenced inputs must be live assets of
// the house.
type jobAssets struct {
	assets *asset.Service
	db     *sqlstore.DB
	blobs  blob.Store
	log    *slog.Logger
}

var roleKinds = map[string]string{"model": "model", "garment": "clothes", "background": "background"}

func (a jobAssets) CreateInput(ctx context.Context, p auth.Principal, role, filename string, data []byte) (string, error) {
	x, err := a.assets.Upload(ctx, p, asset.Upload{Data: data, Filename: filename, Kind: roleKinds[role]})
	if err != nil {
		return "", err
	}
	return x.ID, nil
}

func (a jobAssets) CheckOwned(ctx context.Context, house string, ids []string) error {
	distinct := map[string]bool{}
	for _, id := range ids {
		distinct[id] = true
	}
	list := make([]string, 0, len(distinct))
	for id := range distinct {
		list = append(list, id)
	}
	n, err := a.db.CountAssets(ctx, house, list)
	if err != nil {
		return err
	}
	if n != len(list) {
		return job.ErrAssetNotFound
	}
	return nil
}

func (a jobAssets) DiscardInputs(ctx context.Context, house string, ids []string) {
	keys, err := a.db.PurgeInputs(ctx, house, ids)
	if err != nil {
		a.log.Error("discard the inputs of a refused submit", "house", house, "assets", ids, "err", err)
		return
	}
	for _, k := range keys {
		if err := a.blobs.Delete(ctx, k); err != nil {
			a.log.Error("discard an input's bytes", "key", k, "err", err)
		}
	}
}

// jobPrice prices a develop from the live table; a tool without a row
// costs the default, so every price is known.
func jobPrice(prices ledger.Prices) job.PriceFunc {
	return func(tool string, tier ledger.Tier) (int64, bool) {
		return prices.Tool(tool, tier), true
	}
}
