package httpapi_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"

	"studio/internal/apptest"
)

// BenchmarkAssetList measures GET /api/toolkit/assets in process (the
// server's whole handler: key lookup, role, the query, encoding, the log
// line) for a house of 10,000 assets with two tags each, next to a neighbour
// of 2,000, against a bare program reading the same rows with a plain query
// on its own connection and marshalling them at once:
//
//	go test -run='^$' -bench=AssetList -benchtime=20x ./internal/httpapi/
//
// route is the whole list, page the first 100, bare the ceiling.
func BenchmarkAssetList(b *testing.B) {
	for _, e := range apptest.Engines(b) {
		b.Run(e.Name, func(b *testing.B) {
			a := apptest.New(b, e)
			owner, neighbour := a.SignUp(b, "bench"), a.SignUp(b, "neighbour")
			key := a.Key(b, owner, "member")
			seedLibrary(b, a, owner.HouseID, 10000)
			seedLibrary(b, a, neighbour.HouseID, 2000)
			get := func(b *testing.B, path string, want int) {
				req := httptest.NewRequest("GET", path, nil)
				req.Header.Set("Authorization", "Bearer "+key.Key)
				rec := httptest.NewRecorder()
				a.Server.ServeHTTP(rec, req)
				if rec.Code != 200 || !strings.HasPrefix(rec.Body.String(), `{"assets":[`) {
					b.Fatalf("%s: %d %.200s", path, rec.Code, rec.Body)
				}
				if n := strings.Count(rec.Body.String(), `"url":`); n != want {
					b.Fatalf("%s: %d assets; want %d", path, n, want)
				}
				b.SetBytes(int64(rec.Body.Len()))
			}
			// report adds wall and CPU milliseconds per call: on a busy
			// machine the process's CPU time is the steadier figure.
			var cpu0 time.Duration
			start := func(b *testing.B) { cpu0 = cpuTime(b) }
			report := func(b *testing.B) {
				b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/op")
				b.ReportMetric(float64((cpuTime(b)-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
			}
			b.Run("route", func(b *testing.B) {
				start(b)
				for b.Loop() {
					get(b, "/api/toolkit/assets", 10000)
				}
				report(b)
			})
			b.Run("page", func(b *testing.B) {
				start(b)
				for b.Loop() {
					get(b, "/api/toolkit/assets?limit=100", 100)
				}
				report(b)
			})
			b.Run("bare", func(b *testing.B) {
				db := bareDB(b, e)
				start(b)
				for b.Loop() {
					n, size := bareList(b, db, e.DatabaseURL != "", owner.HouseID)
					if n != 10000 {
						b.Fatalf("bare: %d assets", n)
					}
					b.SetBytes(int64(size))
				}
				report(b)
			})
		})
	}
}

// cpuTime is the CPU time the process has used, user and system.
func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// seedLibrary writes n assets of the house, a kind and a SKU tag each, with
// one statement per table; creation instants step one millisecond every
// fourth asset, so ties are broken by id.
func seedLibrary(tb testing.TB, a *apptest.App, house string, n int) {
	tb.Helper()
	ctx := context.Background()
	series := fmt.Sprintf(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < %d)`, n)
	prefix := uuid.NewString() + "-"
	now := time.Now().Add(-time.Hour).UnixMilli()
	for _, q := range []string{
		`INSERT INTO assets (id, organization_id, name, mime, width, height, size_bytes, sha256, blob_key, created_at) ` + series +
			` SELECT '` + prefix + `' || CAST(i AS TEXT), ?, 'Wool coat ' || CAST(i AS TEXT), 'image/jpeg', 1600, 2400, 734003,
			'9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08', 'assets/x', ` + fmt.Sprint(now) + ` + i / 4 FROM n`,
		`INSERT INTO asset_tags (organization_id, asset_id, tag) ` + series + ` SELECT ?, '` + prefix + `' || CAST(i AS TEXT), 'kind:clothes' FROM n`,
		`INSERT INTO asset_tags (organization_id, asset_id, tag) ` + series + ` SELECT ?, '` + prefix + `' || CAST(i AS TEXT), 'sku:SKU-' || CAST(i AS TEXT) FROM n`,
	} {
		if _, err := a.DB.RawExec(ctx, q, house); err != nil {
			tb.Fatalf("seed: %v", err)
		}
	}
	for _, table := range []string{"assets", "asset_tags"} {
		if _, err := a.DB.RawExec(ctx, "ANALYZE "+table); err != nil {
			tb.Fatal(err)
		}
	}
}

// bareDB opens a connection of the bare program's own to the engine.
func bareDB(tb testing.TB, e apptest.Engine) *sql.DB {
	tb.Helper()
	driver, dsn := "sqlite", "file:"+filepath.Join(e.DataDir, "studio.db")+"?mode=ro&_pragma=busy_timeout(5000)"
	if e.DatabaseURL != "" {
		driver, dsn = "pgx", e.DatabaseURL
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

// bareAsset is the wire's fields, filled as plainly as possible.
type bareAsset struct {
	ID            string  `json:"id"`
	Name          string  `json:"name"`
	SKU           *string `json:"sku"`
	Kind          *string `json:"kind"`
	URL           string  `json:"url"`
	FolderID      *string `json:"folderId"`
	GroupID       *string `json:"groupId"`
	Fit           *string `json:"fit"`
	Wearer        *string `json:"wearer"`
	FitGuessed    bool    `json:"fitGuessed"`
	WearerGuessed bool    `json:"wearerGuessed"`
	MarkGuessed   bool    `json:"markGuessed"`
	CarriesMark   bool    `json:"carriesMark"`
	Mime          string  `json:"mime"`
	Tool          *string `json:"tool"`
	Width         int     `json:"width"`
	Height        int     `json:"height"`
	Size          int64   `json:"size"`
	CreatedAt     string  `json:"createdAt"`
	Approved      bool    `json:"approved"`
	ApprovedBy    *string `json:"approvedBy"`
	ApprovedAt    *string `json:"approvedAt"`
}

// bareList is the ceiling: one plain query of the same rows (tags joined
// in a second column list), scanned into a slice and marshalled at once.
func bareList(tb testing.TB, db *sql.DB, pg bool, house string) (int, int) {
	q := `SELECT a.id, a.name, a.folder_id, a.mime, a.width, a.height, a.size_bytes, a.tool, a.fit_guessed, a.wearer_guessed,
		a.mark_guessed, a.carries_mark, a.approved_by_user_id, a.created_at,
		(SELECT string_agg(t.tag, ',') FROM asset_tags t WHERE t.asset_id = a.id)
		FROM assets a WHERE a.organization_id = ? AND a.deleted_at IS NULL ORDER BY a.created_at DESC, a.id DESC`
	if pg {
		q = strings.Replace(q, "?", "$1", 1)
	}
	rows, err := db.Query(q, house)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	out := []bareAsset{}
	for rows.Next() {
		var x bareAsset
		var created int64
		var tags sql.NullString
		if err := rows.Scan(&x.ID, &x.Name, &x.FolderID, &x.Mime, &x.Width, &x.Height, &x.Size, &x.Tool, &x.FitGuessed,
			&x.WearerGuessed, &x.MarkGuessed, &x.CarriesMark, &x.ApprovedBy, &created, &tags); err != nil {
			tb.Fatal(err)
		}
		x.URL = "/api/toolkit/assets/" + x.ID + "/file"
		x.CreatedAt = time.UnixMilli(created).UTC().Format("2006-01-02T15:04:05.000Z")
		for tag := range strings.SplitSeq(tags.String, ",") {
			if v, ok := strings.CutPrefix(tag, "kind:"); ok {
				x.Kind = &v
			} else if v, ok := strings.CutPrefix(tag, "sku:"); ok {
				x.SKU = &v
			}
		}
		out = append(out, x)
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	body, err := json.Marshal(map[string]any{"assets": out})
	if err != nil {
		tb.Fatal(err)
	}
	w := httptest.NewRecorder()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
	return len(out), len(body)
}
