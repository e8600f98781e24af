package httpapi_test

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/rand"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/uuid"

	"studio/internal/apptest"
	"studio/internal/asset"
)

// fakeAsset stores size random bytes as a JPEG asset of the house, straight
// into the blob store and the assets table: the pack never decodes an
// original, so the bytes need not be an image.
func fakeAsset(tb testing.TB, a *apptest.App, house string, size int) string {
	tb.Helper()
	ctx := context.Background()
	id := uuid.Must(uuid.NewV7()).String()
	data := make([]byte, size)
	_, _ = rand.Read(data)
	key := asset.BlobKey(house, id)
	if _, err := a.Blobs.Put(ctx, key, bytes.NewReader(data)); err != nil {
		tb.Fatal(err)
	}
	if _, err := a.DB.RawExec(ctx, `INSERT INTO assets (id, organization_id, name, mime, width, height, size_bytes, sha256, blob_key,
		fit_guessed, wearer_guessed, mark_guessed, carries_mark, created_at) VALUES (?, ?, ?, 'image/jpeg', 4000, 3000, ?, ?, ?, 0, 0, 0, 0, ?)`,
		id, house, "frame-"+id[len(id)-6:], size, "00", key, time.Now().UnixMilli()); err != nil {
		tb.Fatal(err)
	}
	return id
}

// BenchmarkPackThroughput compares an instant pack of 20 frames of 5 MB,
// streamed through GET /api/toolkit/packs/{id}/file to io.Discard, with a
// bare net/http handler streaming a zip of the same blobs over loopback
// (bare-zip, the ceiling) and a plain copy of the blobs to io.Discard. Run:
//
//	go test ./internal/httpapi/ -run '^$' -bench PackThroughput -benchtime 20x
func BenchmarkPackThroughput(b *testing.B) {
	const frames, size = 20, 5 << 20
	a := apptest.New(b, apptest.Engines(b)[0])
	owner := a.SignUp(b, "owner")
	ids := make([]string, frames)
	for i := range ids {
		ids[i] = fakeAsset(b, a, owner.HouseID, size)
	}
	p := createPack(b, a, owner.Session(), map[string]any{"assetIds": ids}, http.StatusOK)
	key := a.Key(b, owner, "viewer").Key

	b.Run("pack", func(b *testing.B) {
		b.SetBytes(frames * size)
		for b.Loop() {
			req, _ := http.NewRequest("GET", a.URL+p.Href, nil)
			req.Header.Set("Authorization", "Bearer "+key)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			n, err := io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if err != nil || res.StatusCode != 200 || n < frames*size {
				b.Fatalf("download: %d %d %v", res.StatusCode, n, err)
			}
		}
	})
	// bare: a plain net/http program streaming a zip of the same blobs
	// (stored entries, as the pack's) over loopback: the pack's ceiling.
	bare := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/zip")
		zw := zip.NewWriter(w)
		for _, id := range ids {
			obj, err := a.Blobs.Open(r.Context(), asset.BlobKey(owner.HouseID, id))
			if err != nil {
				panic(http.ErrAbortHandler)
			}
			fw, err := zw.CreateHeader(&zip.FileHeader{Name: id + ".jpg", Method: zip.Store})
			if err == nil {
				_, err = io.Copy(fw, obj)
			}
			obj.Close()
			if err != nil {
				panic(http.ErrAbortHandler)
			}
		}
		_ = zw.Close()
	}))
	defer bare.Close()
	b.Run("bare-zip", func(b *testing.B) {
		b.SetBytes(frames * size)
		for b.Loop() {
			res, err := http.Get(bare.URL)
			if err != nil {
				b.Fatal(err)
			}
			n, err := io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if err != nil || res.StatusCode != 200 || n < frames*size {
				b.Fatalf("download: %d %d %v", res.StatusCode, n, err)
			}
		}
	})
	b.Run("copy", func(b *testing.B) {
		b.SetBytes(frames * size)
		ctx := context.Background()
		for b.Loop() {
			for _, id := range ids {
				obj, err := a.Blobs.Open(ctx, asset.BlobKey(owner.HouseID, id))
				if err != nil {
					b.Fatal(err)
				}
				if _, err := io.Copy(io.Discard, obj); err != nil {
					b.Fatal(err)
				}
				obj.Close()
			}
		}
	})
}
