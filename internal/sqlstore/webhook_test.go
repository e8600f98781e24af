package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/pressly/goose/v3"

	"studio/internal/dbtest"
	"studio/internal/errs"
	"studio/internal/ts"
	"studio/internal/webhook"
)

func newEndpoint(house, url string, at time.Time) webhook.Endpoint {
	return webhook.Endpoint{ID: uuid.Must(uuid.NewV7()).String(), HouseID: house, URL: url,
		Events: []string{webhook.DevelopDone}, Active: true, Secret: "whsec_x", CreatedAt: ts.Of(at)}
}

// TestEndpointCapUnderRace: 30 registrations racing in one house leave
// exactly MaxEndpoints endpoints; the others are TOO_MANY_ENDPOINTS with
// max; another house is not counted against it.
func TestEndpointCapUnderRace(t *testing.T) {
	forEachLedgerEngine(t, func(t *testing.T, e ledgerEngine) {
		clock := newLedgerClock()
		db := openLedgerDB(t, e, clock.Now)
		_, house := newLedgerHouse(t, db)
		_, other := newLedgerHouse(t, db)
		if err := db.CreateEndpoint(context.Background(), newEndpoint(other, "https://o.example/h", clock.Now()), webhook.MaxEndpoints); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		var made, refused int
		for i := range 30 {
			wg.Go(func() {
				err := db.CreateEndpoint(context.Background(), newEndpoint(house, fmt.Sprintf("https://h%d.example/h", i), clock.Now()), webhook.MaxEndpoints)
				mu.Lock()
				defer mu.Unlock()
				switch e, _ := errs.As(err); {
				case err == nil:
					made++
				case errors.Is(err, webhook.ErrTooManyEndpoints) && e.Fields["max"] == webhook.MaxEndpoints:
					refused++
				default:
					t.Errorf("create: %v", err)
				}
			})
		}
		wg.Wait()
		eps, err := db.Endpoints(context.Background(), house)
		if err != nil {
			t.Fatal(err)
		}
		if made != webhook.MaxEndpoints || refused != 10 || len(eps) != webhook.MaxEndpoints {
			t.Errorf("made %d, refused %d, registered %d; want %d, 10, %d", made, refused, len(eps), webhook.MaxEndpoints, webhook.MaxEndpoints)
		}
	})
}

// TestClaimPerHost: with deliveries due to six endpoints on one host and
// four on another, the claims take PerHost of each and then none, however
// many senders ask at once; NextDue then has nothing claimable; when one
// send to a host is recorded, that host's next delivery can be claimed.
func TestClaimPerHost(t *testing.T) {
	forEachLedgerEngine(t, func(t *testing.T, e ledgerEngine) {
		ctx := context.Background()
		clock := newLedgerClock()
		db := openLedgerDB(t, e, clock.Now)
		_, house := newLedgerHouse(t, db)
		now := clock.Now()
		for i := range 10 {
			host := "a.example"
			if i >= 6 {
				host = "B.example."
			}
			ep := newEndpoint(house, fmt.Sprintf("https://%s:%d/h%d", host, 8000+i, i), now)
			if err := db.CreateEndpoint(ctx, ep, webhook.MaxEndpoints); err != nil {
				t.Fatal(err)
			}
			if _, err := db.writer().Exec(ctx, `INSERT INTO webhook_deliveries (id, organization_id, endpoint_id, message_id,
				event, body, status, next_at, created_at) VALUES (?, ?, ?, ?, 'develop.done', '{}', 'pending', ?, ?)`,
				uuid.NewString(), house, ep.ID, fmt.Sprint("msg_", i), now.UnixMilli()-int64(i), now.UnixMilli()); err != nil {
				t.Fatal(err)
			}
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		type claim struct {
			d      webhook.Delivery
			worker string
		}
		claimed := map[string][]claim{}
		for i := range 8 {
			wg.Go(func() {
				worker := fmt.Sprint("w", i)
				d, ok, err := db.ClaimDelivery(ctx, worker, now, now.Add(time.Minute), webhook.PerHost)
				if err != nil {
					t.Error(err)
					return
				}
				if ok {
					mu.Lock()
					claimed[webhook.Host(d.URL)] = append(claimed[webhook.Host(d.URL)], claim{d, worker})
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		if len(claimed["a.example"]) != webhook.PerHost || len(claimed["b.example"]) != webhook.PerHost {
			t.Fatalf("claimed %d to a.example and %d to b.example; want %d each", len(claimed["a.example"]), len(claimed["b.example"]), webhook.PerHost)
		}
		if _, ok, _ := db.NextDue(ctx, webhook.PerHost); ok {
			t.Error("NextDue names a delivery no sender may claim")
		}
		c := claimed["a.example"][0]
		if err := db.RecordAttempt(ctx, c.d, c.worker, webhook.Attempt{At: now, Status: webhook.Delivered, HTTPStatus: 200}); err != nil {
			t.Fatal(err)
		}
		next, ok, err := db.ClaimDelivery(ctx, "w9", now, now.Add(time.Minute), webhook.PerHost)
		if err != nil || !ok || webhook.Host(next.URL) != "a.example" {
			t.Errorf("after one send to a.example ended: %+v %v %v; want a.example's next", next, ok, err)
		}
		// A lapsed lease does not count: its sender is gone.
		later := now.Add(2 * time.Minute)
		if d, ok, err := db.ClaimDelivery(ctx, "w10", later, later.Add(time.Minute), webhook.PerHost); err != nil || !ok {
			t.Errorf("after the leases lapsed: %+v %v %v", d, ok, err)
		}
	})
}

// TestWebhookHostsMigration: endpoints registered before migration 110
// get their host from their URL.
func TestWebhookHostsMigration(t *testing.T) {
	forEachLedgerEngine(t, func(t *testing.T, e ledgerEngine) {
		ctx := context.Background()
		driver, dsn, dialect, engine := "sqlite", "file:"+filepath.Join(t.TempDir(), "m.db")+"?"+sqlitePragmas, goose.DialectSQLite3, SQLite
		if e.url != "" {
			driver, dsn, dialect, engine = "pgx", dbtest.FreshSchema(t, e.url), goose.DialectPostgres, Postgres
		}
		raw, err := sql.Open(driver, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer raw.Close()
		raw.SetMaxOpenConns(1)
		sub, _ := fs.Sub(migrations, "migrations")
		p, err := goose.NewProvider(dialect, raw, sub, goose.WithGoMigrations(searchMigration(engine), webhookHostsMigration(engine)),
			goose.WithAllowOutofOrder(true))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.UpTo(ctx, webhookHostsVersion-1); err != nil {
			t.Fatal(err)
		}
		db := &DB{engine: engine, w: raw, r: raw, now: time.Now}
		for _, q := range []string{
			`INSERT INTO organizations (id, name, created_at) VALUES ('h', 'H', 1)`,
			`INSERT INTO webhook_endpoints (id, organization_id, url, events, secret, created_at)
				VALUES ('e1', 'h', 'https://Hooks.Example.com:8443/p?q=1', '[]', 's', 1), ('e2', 'h', 'https://other.example/', '[]', 's', 2)`,
		} {
			if _, err := db.writer().Exec(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		if _, err := p.Up(ctx); err != nil {
			t.Fatal(err)
		}
		for id, want := range map[string]string{"e1": "hooks.example.com", "e2": "other.example"} {
			var host string
			if err := db.read().QueryRow(ctx, `SELECT host FROM webhook_endpoints WHERE id = ?`, id).Scan(&host); err != nil || host != want {
				t.Errorf("%s: host %q %v; want %q", id, host, err, want)
			}
		}
		if _, err := p.DownTo(ctx, webhookHostsVersion-1); err != nil {
			t.Errorf("down: %v", err)
		}
	})
}
