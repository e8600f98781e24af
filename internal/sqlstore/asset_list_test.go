package sqlstore

// The library list on both engines: newest first with ties broken by id,
// pages that meet without a gap or a repeat, tags aggregated in the one
// row of each asset, deleted assets left out, and a plan that walks the
// house's (created_at, id) index without sorting.

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"studio/internal/asset"
	"studio/internal/ts"
)

func TestAssetListPages(t *testing.T) {
	forEachLedgerEngine(t, func(t *testing.T, e ledgerEngine) {
		ctx := context.Background()
		clock := newLedgerClock()
		db := openLedgerDB(t, e, clock.Now)
		user, house := newLedgerHouse(t, db)
		_, other := newLedgerHouse(t, db)
		folder := newFolder(t, db, house, nil)
		var want []string // newest first
		for i := range 9 {
			if i%3 == 0 {
				clock.Advance(time.Second) // three assets share each instant: the id breaks the tie
			}
			var f *string
			if i%2 == 0 {
				f = &folder.ID
			}
			a := newAsset(t, db, house, user, f, "")
			want = append([]string{a.ID}, want...)
		}
		newAsset(t, db, other, "", nil, "")
		gone := want[4]
		if n, err := db.DeleteAssets(ctx, house, []string{gone}, clock.Now()); n != 1 || err != nil {
			t.Fatal(n, err)
		}
		want = slices.DeleteFunc(want, func(id string) bool { return id == gone })
		if err := db.GroupAssets(ctx, house, want[:2], "g"); err != nil {
			t.Fatal(err)
		}

		whole, err := listAssets(db, house, asset.ListQuery{})
		if err != nil || !slices.Equal(ids(whole), want) {
			t.Fatalf("the whole list: %v %v; want %v", ids(whole), err, want)
		}
		for _, a := range whole {
			if a.Kind == nil || *a.Kind != asset.Clothes || a.SKU == nil || *a.SKU != "C-1" {
				t.Errorf("asset %s lost its tags: %+v", a.ID, a)
			}
		}
		if whole[0].GroupID == nil || *whole[0].GroupID != "g" || whole[2].GroupID != nil {
			t.Errorf("groups %v %v; want g on the first two only", whole[0].GroupID, whole[2].GroupID)
		}

		for _, limit := range []int{1, 2, 3, 8, 9} {
			var got []string
			var before *asset.Cursor
			for pages := 0; ; pages++ {
				if pages > 10 {
					t.Fatalf("limit %d: no end", limit)
				}
				page, err := listAssets(db, house, asset.ListQuery{Limit: limit, Before: before})
				if err != nil || len(page) > limit {
					t.Fatalf("limit %d: %d assets %v", limit, len(page), err)
				}
				got = append(got, ids(page)...)
				if len(page) < limit {
					break
				}
				c := asset.CursorOf(page[len(page)-1])
				before = &c
			}
			if !slices.Equal(got, want) {
				t.Errorf("pages of %d: %v; want %v", limit, got, want)
			}
		}

		inFolder, err := listAssets(db, house, asset.ListQuery{Folder: folder.ID, Limit: 2})
		if err != nil || len(inFolder) != 2 || *inFolder[0].FolderID != folder.ID {
			t.Fatalf("folder page: %v %v", ids(inFolder), err)
		}
		c := asset.CursorOf(inFolder[1])
		rest, _ := listAssets(db, house, asset.ListQuery{Folder: folder.ID, Before: &c})
		root, _ := listAssets(db, house, asset.ListQuery{Folder: asset.RootFolder})
		if len(inFolder)+len(rest)+len(root) != len(want) {
			t.Errorf("folder %d + %d and root %d; want %d in all", len(inFolder), len(rest), len(root), len(want))
		}
		for _, a := range root {
			if a.FolderID != nil {
				t.Errorf("root lists %s of folder %s", a.ID, *a.FolderID)
			}
		}
		if page, err := listAssets(db, other, asset.ListQuery{Before: &c}); err != nil || len(page) != 0 {
			t.Errorf("another house below this house's cursor: %v %v", ids(page), err)
		}

		// fn's error stops the read and comes back.
		stop := fmt.Errorf("stop")
		n := 0
		if err := db.ListAssets(ctx, house, asset.ListQuery{}, func(asset.Asset) error { n++; return stop }); err != stop || n != 1 {
			t.Errorf("stopping: %v after %d", err, n)
		}
	})
}

func ids(as []asset.Asset) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = a.ID
	}
	return out
}

// TestAssetListPlan: the list walks the house's (created_at, id) index
// backwards, a page below a cursor starts inside it, and neither engine
// sorts. The house has 2,000 assets (600 under -race; a neighbour a
// quarter of that), analyzed.
func TestAssetListPlan(t *testing.T) {
	forEachLedgerEngine(t, func(t *testing.T, e ledgerEngine) {
		ctx := context.Background()
		db := openLedgerDB(t, e, newLedgerClock().Now)
		user, house := newLedgerHouse(t, db)
		_, other := newLedgerHouse(t, db)
		folder := newFolder(t, db, house, nil)
		n := 2000
		if ledgerRace {
			n = 600 // instrumented SQLite writes slowly; the plans are the same
		}
		seedAssets(t, db, house, user, folder.ID, n)
		seedAssets(t, db, other, "", "", n/4)
		for _, table := range []string{"assets", "asset_tags"} {
			if _, err := db.RawExec(ctx, "ANALYZE "+table); err != nil {
				t.Fatal(err)
			}
		}
		page, err := listAssets(db, house, asset.ListQuery{Limit: 50})
		if err != nil || len(page) != 50 {
			t.Fatal(len(page), err)
		}
		c := asset.CursorOf(page[49])
		cases := []struct {
			name  string
			q     asset.ListQuery
			index string
		}{
			{"whole", asset.ListQuery{}, "assets_house_created"},
			{"page", asset.ListQuery{Limit: 50}, "assets_house_created"},
			{"below a cursor", asset.ListQuery{Limit: 50, Before: &c}, "assets_house_created"},
			{"folder page", asset.ListQuery{Folder: folder.ID, Limit: 50, Before: &c}, "assets_house_folder"},
			{"root page", asset.ListQuery{Folder: asset.RootFolder, Limit: 50}, "assets_house_"}, // either: most assets are at the root
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				query, args := listAssetsQuery(house, tc.q)
				plan := strings.Join(ledgerPlan(t, db, false, query, args...), "\n")
				if !strings.Contains(plan, tc.index) {
					t.Errorf("the plan does not use %s:\n%s", tc.index, plan)
				}
				if strings.Contains(plan, "TEMP B-TREE") || strings.Contains(plan, "Sort") {
					t.Errorf("the plan sorts:\n%s", plan)
				}
				if e.url != "" && tc.q.Limit > 0 {
					for _, m := range pgRows.FindAllStringSubmatch(plan, -1) {
						if m[1] != "" && m[2] == "1" && atoi(m[1]) > tc.q.Limit+1 {
							t.Errorf("a step of a page of %d read %s rows:\n%s", tc.q.Limit, m[1], plan)
						}
					}
				}
			})
		}
	})
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

// seedAssets writes n assets of the house (every third in folder, when
// given), each with a kind and a SKU tag, in one statement per table.
func seedAssets(t testing.TB, db *DB, house, user, folder string, n int) {
	t.Helper()
	ctx := context.Background()
	now := ts.Of(db.now()).UnixMilli()
	series := fmt.Sprintf(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < %d)`, n)
	prefix := uuid.NewString()[:8] + "-"
	folderExpr := "NULL"
	if folder != "" {
		folderExpr = "CASE WHEN i % 3 = 0 THEN '" + folder + "' ELSE NULL END"
	}
	for _, q := range []string{
		`INSERT INTO assets (id, organization_id, created_by_user_id, folder_id, name, mime, width, height, size_bytes, sha256,
			blob_key, created_at) ` + series + ` SELECT '` + prefix + `' || CAST(i AS TEXT), ?, ` + nullLit(user) + `, ` + folderExpr + `,
			'Asset ' || CAST(i AS TEXT), 'image/jpeg', 800, 1200, 123456, 'abc', 'k', ` + fmt.Sprint(now) + ` + i / 4 FROM n`,
		`INSERT INTO asset_tags (organization_id, asset_id, tag) ` + series + ` SELECT ?, '` + prefix + `' || CAST(i AS TEXT), 'kind:clothes' FROM n`,
		`INSERT INTO asset_tags (organization_id, asset_id, tag) ` + series + ` SELECT ?, '` + prefix + `' || CAST(i AS TEXT), 'sku:SKU-' || CAST(i AS TEXT) FROM n`,
	} {
		if _, err := db.RawExec(ctx, q, house); err != nil {
			t.Fatalf("seed: %v", err)
		}
	}
}

func nullLit(s string) string {
	if s == "" {
		return "NULL"
	}
	return "'" + s + "'"
}
