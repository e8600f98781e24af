package asset_test

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/jpeg"
	"io"
	"testing"
	"time"

	"github.com/google/uuid"

	"studio/internal/account"
	"studio/internal/asset"
	"studio/internal/auth"
	"studio/internal/blob"
	"studio/internal/ledger"
	"studio/internal/sqlstore"
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
	db, err := sqlstore.Open(ctx, sqlstore.Options{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	now := ts.Of(time.Now())
	u := account.User{ID: uuid.NewString(), Name: "A", Email: "a@studio.test", CreatedAt: now}
	h := account.House{ID: uuid.NewString(), Name: "A's house", Personal: true, FounderUserID: u.ID, CreatedAt: now}
	if err := db.CreateUser(ctx, u, "x", h); err != nil {
		t.Fatal(err)
	}
	disk, err := blob.NewDisk(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer disk.Close()
	blobs, classifier := &failingBlobs{Store: disk}, &readAll{}
	svc := asset.NewService(db, asset.Options{Blobs: blobs, Ledger: db, Prices: ledger.DefaultPrices(), Classifier: classifier})
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
	if as, err := db.ListAssets(ctx, h.ID, ""); err != nil || len(as) != 0 {
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
