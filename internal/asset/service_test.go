package asset_test

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/jpeg"
	"image/png"
	"io"
	"testing"
	"time"

	"github.com/google/uuid"

	"studio/internal/account"
	"studio/internal/asset"
	"studio/internal/auth"
	"studio/internal/blob"
	"studio/internal/errs"
	"studio/internal/imagemem"
	"studio/internal/sqlstore"
	"studio/internal/tool"
	"studio/internal/ts"
)

// failingBlobs is a blob store whose Put fails after reading part of the
// bytes, as a full disk or a dropped S3 connection would.
type failingBlobs struct {
	blob.Store
	puts int
}

func (f *failingBlobs) Put(_ context.Context, _ string, r io.Reader) (int64, error) {
	f.puts++
	_, _ = io.CopyN(io.Discard, r, 10)
	return 0, errors.New("disk full")
}

// readAll is a classifier that always reads the image.
type readAll struct{ calls int }

func (c *readAll) Classify(context.Context, []byte) (asset.Classification, error) {
	c.calls++
	return asset.Classification{Kind: asset.Clothes, Name: "Coat"}, nil
}

// TestUploadLeavesNothingWhenTheBlobFails: a blob store that fails means
// no row and no hold: the classification's token is back.
func TestUploadLeavesNothingWhenTheBlobFails(t *testing.T) {
	ctx := context.Background()
	db, err := sqlstore.Open(ctx, sqlstore.Options{DataDir: migratedDir(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	now := ts.Of(time.Now())
	u := account.User{ID: uuid.NewString(), Name: "A", Email: "a@studio.test", CreatedAt: now}
	h := account.House{ID: uuid.NewString(), Name: "A's house", Personal: true, FounderUserID: u.ID, CreatedAt: now}
	if err := db.CreateUser(ctx, u, "x", h, false); err != nil {
		t.Fatal(err)
	}
	disk, err := blob.NewDisk(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer disk.Close()
	blobs, classifier := &failingBlobs{Store: disk}, &readAll{}
	svc := asset.NewService(db, asset.Options{Blobs: blobs, Ledger: db, Prices: tool.DefaultPrices(), Classifier: classifier})
	p := auth.Principal{UserID: u.ID, HouseID: h.ID, Role: auth.Owner, Cred: auth.CredSession}

	var img bytes.Buffer
	if err := jpeg.Encode(&img, image.NewGray(image.Rect(0, 0, 8, 8)), nil); err != nil {
		t.Fatal(err)
	}
	before, err := db.Balance(ctx, h.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Upload(ctx, p, asset.Upload{Data: img.Bytes(), Filename: "coat.jpg", Classify: true}); err == nil {
		t.Fatal("the upload succeeded without its bytes")
	}
	if blobs.puts != 1 || classifier.calls != 0 {
		t.Errorf("puts %d, classifications %d; want 1 and 0", blobs.puts, classifier.calls)
	}
	if as, _, err := svc.List(ctx, p, asset.ListQuery{}); err != nil || len(as) != 0 {
		t.Errorf("assets after a failed upload: %v, %v", as, err)
	}
	after, err := db.Balance(ctx, h.ID)
	if err != nil || after.Balance != before.Balance || after.Held != 0 || len(after.Holds) != 0 {
		t.Errorf("balance %+v -> %+v, %v; want unchanged, nothing held", before, after, err)
	}

	// A viewer is refused before anything happens.
	p.Role = auth.Viewer
	if _, err := svc.Upload(ctx, p, asset.Upload{Data: img.Bytes()}); err == nil || blobs.puts != 1 {
		t.Errorf("viewer upload: %v, %d puts", err, blobs.puts)
	}
}

// newLibrary is the asset service on real SQLite and disk blobs with the
// given decoding budget, and a principal of a fresh house.
func newLibrary(t *testing.T, budget *imagemem.Budget) (*asset.Service, auth.Principal) {
	t.Helper()
	ctx := context.Background()
	db, err := sqlstore.Open(ctx, sqlstore.Options{DataDir: migratedDir(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	now := ts.Of(time.Now())
	u := account.User{ID: uuid.NewString(), Name: "A", Email: "a@studio.test", CreatedAt: now}
	h := account.House{ID: uuid.NewString(), Name: "A's house", Personal: true, FounderUserID: u.ID, CreatedAt: now}
	if err := db.CreateUser(ctx, u, "x", h, false); err != nil {
		t.Fatal(err)
	}
	disk, err := blob.NewDisk(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { disk.Close() })
	svc := asset.NewService(db, asset.Options{Blobs: disk, Ledger: db, Prices: tool.DefaultPrices(), Decoding: budget})
	return svc, auth.Principal{UserID: u.ID, HouseID: h.ID, Role: auth.Owner, Cred: auth.CredSession}
}

// png16 is a w x h 16-bit RGBA PNG: small on the wire (it is flat), 8 bytes
// a pixel once decoded.
func png16(t *testing.T, w, h int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&buf, image.NewNRGBA64(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestDecodeBudget: decoding takes the decoded size from the process's
// budget, not a slot: an upload waits while the budget is spent elsewhere,
// and an image larger than the whole budget is refused, not awaited.
func TestDecodeBudget(t *testing.T) {
	budget := imagemem.New(8 << 20) // 8 MiB
	svc, p := newLibrary(t, budget)
	ctx := context.Background()

	big := png16(t, 1100, 1000) // 8.8 MB decoded, a few KB sent
	if len(big) > 64<<10 {
		t.Fatalf("the 16-bit PNG is %d bytes; want a small file that decodes large", len(big))
	}
	_, err := svc.Upload(ctx, p, asset.Upload{Data: big, Filename: "deep.png"})
	if e, ok := errs.As(err); !ok || e.Code != "IMAGE_TOO_LARGE" {
		t.Fatalf("an image over the whole budget: %v; want IMAGE_TOO_LARGE", err)
	}

	small := png16(t, 500, 500)                // 2 MB decoded
	release, err := budget.Acquire(ctx, 7<<20) // someone else decodes 7 MiB
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := svc.Upload(ctx, p, asset.Upload{Data: small, Filename: "small.png"})
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("the upload decoded while the budget was spent: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	release()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the upload did not go on once the budget was free")
	}
	// Everything was given back.
	all, err := budget.Acquire(ctx, budget.Total())
	if err != nil {
		t.Fatal(err)
	}
	all()
}
