package httpapi_test

import (
	"bytes"
	"image"
	"image/png"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"studio/internal/apptest"
	"studio/internal/asset"
)

// noisePNG is an opaque PNG of random pixels: deflate cannot shrink it, so
// w x h x 3 bytes of pixels make a file of about that size.
func noisePNG(tb testing.TB, w, h int) []byte {
	tb.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < len(img.Pix); i += 4 {
		v := r.Uint32()
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = byte(v), byte(v>>8), byte(v>>16), 255
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

// BenchmarkAssetFile measures the bytes per second of the file route for a
// 5 MB image (key lookup, the house's read, the blob store, the caching
// headers, http.ServeContent, logging) against a bare http.ServeContent of
// the same file on disk, both over loopback HTTP:
//
//	go test -run='^$' -bench=AssetFile -benchtime=200x ./internal/httpapi/
func BenchmarkAssetFile(b *testing.B) {
	e := apptest.Engines(b)[0]
	a := apptest.New(b, e)
	owner := a.SignUp(b, "bench")
	key := a.Key(b, owner, "member")
	data := noisePNG(b, 1300, 1300)
	got := upload(b, a, key, data)
	path := filepath.Join(e.DataDir, "blobs", asset.BlobKey(owner.HouseID, got.ID))
	if fi, err := os.Stat(path); err != nil || fi.Size() != int64(len(data)) {
		b.Fatalf("blob on disk: %v", err)
	}
	bare := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f, err := os.Open(path)
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		defer f.Close()
		w.Header().Set("Content-Type", "image/png")
		http.ServeContent(w, r, "", time.Time{}, f)
	}))
	defer bare.Close()

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	run := func(b *testing.B, url, bearer string) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			req, _ := http.NewRequest("GET", url, nil)
			if bearer != "" {
				req.Header.Set("Authorization", "Bearer "+bearer)
			}
			res, err := client.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			n, err := io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if err != nil || res.StatusCode != 200 || n != int64(len(data)) {
				b.Fatalf("status %d, %d bytes, %v", res.StatusCode, n, err)
			}
		}
	}
	b.Logf("image: %d bytes", len(data))
	b.Run("studio", func(b *testing.B) { run(b, a.URL+got.URL, key.Key) })
	b.Run("ServeContent", func(b *testing.B) { run(b, bare.URL, "") })
}
