package sqlstore

// The library's store methods on both engines: every method asked about
// another house's ids answers as if they did not exist, the classification
// hold is posted with the row or not at all, and concurrent folder moves
// never close a cycle.

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"studio/internal/asset"
	"studio/internal/errs"
	"studio/internal/ledger"
	"studio/internal/ts"
)

func newAsset(t testing.TB, db *DB, house, user string, folder *string, hold string) asset.Asset {
	t.Helper()
	id := uuid.Must(uuid.NewV7()).String()
	a := asset.Asset{ID: id, Name: "Coat", Kind: ptrTo(asset.Clothes), SKU: ptrTo("C-1"), FolderID: folder, URL: asset.FileURL(id),
		Mime: asset.MimeJPEG, Width: 8, Height: 6, Size: 100, CreatedAt: ts.Of(db.now())}
	f := asset.File{ID: id, HouseID: house, BlobKey: asset.BlobKey(house, id), Mime: a.Mime, ETag: `"abc"`, Size: 100, CreatedAt: a.CreatedAt}
	if err := db.InsertAsset(context.Background(), house, user, a, f, hold); err != nil {
		t.Fatalf("insert asset: %v", err)
	}
	return a
}

func newFolder(t testing.TB, db *DB, house string, parent *string) asset.Folder {
	t.Helper()
	f := asset.Folder{ID: uuid.Must(uuid.NewV7()).String(), Name: "Spring", ParentID: parent, CreatedAt: ts.Of(db.now())}
	if err := db.InsertFolder(context.Background(), house, "", f); err != nil {
		t.Fatalf("insert folder: %v", err)
	}
	return f
}

func ptrTo[T any](v T) *T { return &v }

// listAssets collects what ListAssets sends.
func listAssets(db *DB, house string, q asset.ListQuery) ([]asset.Asset, error) {
	var out []asset.Asset
	err := db.ListAssets(context.Background(), house, q, func(a asset.Asset) error {
		out = append(out, a)
		return nil
	})
	return out, err
}

func TestAssetStoreTenancy(t *testing.T) {
	forEachLedgerEngine(t, func(t *testing.T, e ledgerEngine) {
		ctx := context.Background()
		db := openLedgerDB(t, e, newLedgerClock().Now)
		userA, houseA := newLedgerHouse(t, db)
		_, houseB := newLedgerHouse(t, db)
		folderA := newFolder(t, db, houseA, nil)
		a := newAsset(t, db, houseA, userA, &folderA.ID, "")
		ids := []string{a.ID}
		isNotFound := func(name string, err error) {
			t.Helper()
			if !errors.Is(err, errs.NotFound) {
				t.Errorf("%s from house B: %v; want NOT_FOUND", name, err)
			}
		}

		_, err := db.GetAsset(ctx, houseB, a.ID)
		isNotFound("GetAsset", err)
		_, err = db.AssetFile(ctx, houseB, a.ID)
		isNotFound("AssetFile", err)
		_, err = db.UpdateAsset(ctx, houseB, a.ID, func(x *asset.Asset) error { x.Name = "Mine"; return nil })
		isNotFound("UpdateAsset", err)
		isNotFound("GroupAssets", db.GroupAssets(ctx, houseB, ids, "g"))
		_, err = db.GetFolder(ctx, houseB, folderA.ID)
		isNotFound("GetFolder", err)
		_, err = db.UpdateFolder(ctx, houseB, folderA.ID, asset.FolderPatch{Name: ptrTo("Mine")})
		isNotFound("UpdateFolder", err)
		isNotFound("InsertFolder under A's", db.InsertFolder(ctx, houseB, "", asset.Folder{ID: uuid.NewString(), Name: "x", ParentID: &folderA.ID, CreatedAt: ts.Of(db.now())}))
		b := asset.Asset{ID: uuid.NewString(), Name: "x", FolderID: &folderA.ID, Mime: asset.MimePNG, CreatedAt: ts.Of(db.now())}
		isNotFound("InsertAsset into A's folder", db.InsertAsset(ctx, houseB, "", b, asset.File{BlobKey: "k", ETag: `"e"`}, ""))
		_, err = db.BatchUpdateAssets(ctx, houseB, "", nil, asset.BatchChange{MoveFolder: true, FolderID: &folderA.ID}, db.now())
		isNotFound("BatchUpdateAssets into A's folder", err)

		if n, err := db.BatchUpdateAssets(ctx, houseB, "", ids, asset.BatchChange{SetApproved: true, Approved: true}, db.now()); n != 0 || err != nil {
			t.Errorf("BatchUpdateAssets from house B: %d, %v", n, err)
		}
		if n, err := db.DeleteAssets(ctx, houseB, ids, db.now()); n != 0 || err != nil {
			t.Errorf("DeleteAssets from house B: %d, %v", n, err)
		}
		if n, err := db.CountAssets(ctx, houseB, ids); n != 0 || err != nil {
			t.Errorf("CountAssets from house B: %d, %v", n, err)
		}
		for _, q := range []string{"", folderA.ID, asset.RootFolder} {
			if as, err := listAssets(db, houseB, asset.ListQuery{Folder: q}); len(as) != 0 || err != nil {
				t.Errorf("ListAssets(%q) from house B: %v, %v", q, as, err)
			}
		}
		if fs, err := db.ListFolders(ctx, houseB); len(fs) != 0 || err != nil {
			t.Errorf("ListFolders from house B: %v, %v", fs, err)
		}
		if house, err := db.AssetHouse(ctx, a.ID); house != houseA || err != nil {
			t.Errorf("AssetHouse = %q, %v", house, err)
		}

		got, err := db.GetAsset(ctx, houseA, a.ID)
		if err != nil || got.Name != "Coat" || got.Approved || *got.FolderID != folderA.ID || *got.Kind != asset.Clothes || *got.SKU != "C-1" {
			t.Errorf("house A's asset after house B tried: %+v, %v", got, err)
		}

		// The schema itself refuses a row of one house pointing into another.
		if _, err := db.RawExec(ctx, `INSERT INTO assets (id, organization_id, folder_id, name, mime, width, height, size_bytes, sha256, blob_key, created_at)
			VALUES (?, ?, ?, 'x', 'image/png', 1, 1, 1, 'e', 'k', 0)`, uuid.NewString(), houseB, folderA.ID); err == nil {
			t.Error("an asset of house B was filed in house A's folder")
		}
		if _, err := db.RawExec(ctx, `INSERT INTO asset_tags (organization_id, asset_id, tag) VALUES (?, ?, 'kind:model')`, houseB, a.ID); err == nil {
			t.Error("house B tagged house A's asset")
		}
	})
}

func TestAssetStoreClassificationHold(t *testing.T) {
	forEachLedgerEngine(t, func(t *testing.T, e ledgerEngine) {
		ctx := context.Background()
		db := openLedgerDB(t, e, newLedgerClock().Now)
		user, house := newLedgerHouse(t, db)

		h := ledger.NewHold("", 1)
		if err := db.TakeHold(ctx, house, h); err != nil {
			t.Fatal(err)
		}
		a := newAsset(t, db, house, user, nil, h.ID)
		if got, err := db.Hold(ctx, house, h.ID); err != nil || got.State != ledger.Posted {
			t.Errorf("hold after the row: %+v, %v; want posted", got, err)
		}
		if b := balanceOf(t, db, house); b.Balance != ledger.SignupTokens-1 || b.Held != 0 {
			t.Errorf("balance %+v; want one token spent", b)
		}

		// The same id again: the row fails, so the second hold stays pending.
		h2 := ledger.NewHold("", 1)
		if err := db.TakeHold(ctx, house, h2); err != nil {
			t.Fatal(err)
		}
		err := db.InsertAsset(ctx, house, user, a, asset.File{BlobKey: "k", ETag: `"e"`}, h2.ID)
		if err == nil {
			t.Fatal("a duplicate asset row was written")
		}
		if got, err := db.Hold(ctx, house, h2.ID); err != nil || got.State != ledger.Pending {
			t.Errorf("hold after a failed row: %+v, %v; want still pending", got, err)
		}
		if err := db.VoidHold(ctx, house, h2.ID); err != nil {
			t.Fatal(err)
		}
		checkLedger(t, db, house)
	})
}

func TestAssetStoreFolderMovesNeverCycle(t *testing.T) {
	forEachLedgerEngine(t, func(t *testing.T, e ledgerEngine) {
		ctx := context.Background()
		db := openLedgerDB(t, e, time.Now)
		_, house := newLedgerHouse(t, db)
		x, y := newFolder(t, db, house, nil), newFolder(t, db, house, nil)
		var cycles, moves int
		var mu sync.Mutex
		for round := range 20 {
			var wg sync.WaitGroup
			for _, mv := range [][2]string{{x.ID, y.ID}, {y.ID, x.ID}} {
				wg.Go(func() {
					_, err := db.UpdateFolder(ctx, house, mv[0], asset.FolderPatch{MoveParent: true, ParentID: &mv[1]})
					mu.Lock()
					defer mu.Unlock()
					switch {
					case errors.Is(err, asset.ErrFolderCycle):
						cycles++
					case err == nil:
						moves++
					default:
						t.Errorf("round %d: %v", round, err)
					}
				})
			}
			wg.Wait()
			if err := checkNoCycle(ctx, db, house); err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
			for _, f := range []string{x.ID, y.ID} {
				if _, err := db.UpdateFolder(ctx, house, f, asset.FolderPatch{MoveParent: true}); err != nil {
					t.Fatal(err)
				}
			}
		}
		if moves != 20 || cycles != 20 {
			t.Errorf("%d moves and %d refusals; want one of each per round", moves, cycles)
		}
	})
}

// checkNoCycle walks up from every folder of the house.
func checkNoCycle(ctx context.Context, db *DB, house string) error {
	fs, err := db.ListFolders(ctx, house)
	if err != nil {
		return err
	}
	parent := map[string]*string{}
	for _, f := range fs {
		parent[f.ID] = f.ParentID
	}
	for _, f := range fs {
		seen := map[string]bool{}
		for cur := &f.ID; cur != nil; cur = parent[*cur] {
			if seen[*cur] {
				return fmt.Errorf("folder %s sits in a cycle", f.ID)
			}
			seen[*cur] = true
		}
	}
	return nil
}

func TestAssetStoreListOrderAndTags(t *testing.T) {
	forEachLedgerEngine(t, func(t *testing.T, e ledgerEngine) {
		ctx := context.Background()
		clock := newLedgerClock()
		db := openLedgerDB(t, e, clock.Now)
		user, house := newLedgerHouse(t, db)
		var ids []string
		for range 5 {
			ids = append(ids, newAsset(t, db, house, user, nil, "").ID)
			clock.Advance(time.Millisecond)
		}
		if err := db.GroupAssets(ctx, house, ids[:3], "g1"); err != nil {
			t.Fatal(err)
		}
		if n, err := db.BatchUpdateAssets(ctx, house, user, ids, asset.BatchChange{SetKind: true, Kind: ptrTo(asset.Model)}, db.now()); n != 5 || err != nil {
			t.Fatalf("batch: %d, %v", n, err)
		}
		as, err := listAssets(db, house, asset.ListQuery{})
		if err != nil || len(as) != 5 {
			t.Fatalf("list: %d, %v", len(as), err)
		}
		for i, a := range as {
			if a.ID != ids[4-i] {
				t.Errorf("position %d: %s; want newest first", i, a.ID)
			}
			wantGroup := i >= 2
			if (a.GroupID != nil) != wantGroup || *a.Kind != asset.Model || *a.SKU != "C-1" {
				t.Errorf("asset %d: group %v kind %v sku %v", i, a.GroupID, *a.Kind, *a.SKU)
			}
		}
	})
}

// TestAssetStoreConcurrentGroups: two groupings over overlapping assets
// queue on the rows, so no asset ever holds two group tags, and batch
// deletes racing them neither deadlock nor fail.
func TestAssetStoreConcurrentGroups(t *testing.T) {
	forEachLedgerEngine(t, func(t *testing.T, e ledgerEngine) {
		ctx := context.Background()
		db := openLedgerDB(t, e, time.Now)
		user, house := newLedgerHouse(t, db)
		var ids []string
		for range 4 {
			ids = append(ids, newAsset(t, db, house, user, nil, "").ID)
		}
		for round := range 15 {
			var wg sync.WaitGroup
			for i, set := range [][]string{{ids[0], ids[1], ids[2]}, {ids[2], ids[1], ids[3]}} {
				wg.Go(func() {
					if err := db.GroupAssets(ctx, house, set, fmt.Sprintf("g%d-%d", round, i)); err != nil {
						t.Errorf("round %d: %v", round, err)
					}
				})
			}
			wg.Go(func() {
				if _, err := db.BatchUpdateAssets(ctx, house, user, []string{ids[3], ids[0]}, asset.BatchChange{SetKind: true, Kind: ptrTo(asset.Jewelry)}, time.Now()); err != nil {
					t.Errorf("round %d: %v", round, err)
				}
			})
			wg.Wait()
			var worst int
			if err := db.read().QueryRow(ctx, `SELECT COALESCE(MAX(n), 0) FROM (SELECT asset_id, COUNT(*) AS n FROM asset_tags
				WHERE organization_id = ? AND (tag LIKE 'group:%' OR tag LIKE 'kind:%') GROUP BY asset_id, substr(tag, 1, 5)) x`, house).Scan(&worst); err != nil {
				t.Fatal(err)
			}
			if worst != 1 {
				t.Fatalf("round %d: an asset holds %d tags of one reserved prefix", round, worst)
			}
		}
	})
}
