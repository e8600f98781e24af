package httpapi_test

import (
	"bytes"
	"image"
	"image/png"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"studio/internal/app"
	"studio/internal/apptest"
)

// brokenPNG is a PNG whose header reads (64 x 64) but whose pixels do not:
// decoding it fails, so a submit that decoded it would answer 400.
func brokenPNG(t testing.TB) []byte {
	t.Helper()
	b := bytes.Clone(pngOf(t, 64, 64))
	i := bytes.Index(b, []byte("IDAT"))
	if i < 0 {
		t.Fatal("no IDAT chunk")
	}
	for j := i + 8; j < i+40 && j < len(b)-12; j++ {
		b[j] ^= 0x5a
	}
	return b
}

func blobFiles(t testing.TB, dir string) int {
	t.Helper()
	n := 0
	_ = filepath.WalkDir(filepath.Join(dir, "blobs"), func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		return nil
	})
	return n
}

// TestSubmitShortOfTokensReadsNoInput: the price is known from tool and
// tier, so a submit the balance cannot cover is 402 before its inputs are
// stored or decoded: no blob is written and a broken image is never looked
// at (a house that can pay gets 400 for it).
func TestSubmitShortOfTokensReadsNoInput(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		broken := brokenPNG(t)
		tryon := func(k apptest.Cred, img []byte) apptest.Resp {
			return a.Do(t, "POST", "/api/toolkit/jobs/submit", k, apptest.Multipart(t,
				apptest.Part{Name: "tool", Value: "tryon"}, apptest.Part{Name: "quality", Value: "4k"},
				apptest.Part{Name: "model", Filename: "m.png", Data: img}, apptest.Part{Name: "garment", Filename: "g.png", Data: img}))
		}
		rich := a.Key(t, a.SignUp(t, "rich"), "member")
		if res := tryon(rich, broken); res.Status != 400 {
			t.Fatalf("a house that can pay, broken image: %d %s; want 400 (the image is decoded)", res.Status, res.Body)
		}

		poor := a.SignUp(t, "poor")
		k := a.Key(t, poor, "member")
		for range 3 { // 3 x 18 of the 60 sign-up tokens
			if res := tryon(k, pngOf(t, 64, 64)); res.Status != 202 {
				t.Fatalf("spending: %d %s", res.Status, res.Body)
			}
		}
		assets, files := assetCount(t, a, k), blobFiles(t, e.DataDir)
		res := tryon(k, broken)
		m := res.Map(t)
		if res.Status != 402 || res.Code != "INSUFFICIENT_TOKENS" || m["need"] != float64(18) || m["spendable"] != float64(6) || m["held"] != float64(54) {
			t.Fatalf("got %d %s; want 402 with need 18, spendable 6 and held 54, before the image is read", res.Status, res.Body)
		}
		if n, f := assetCount(t, a, k), blobFiles(t, e.DataDir); n != assets || f != files {
			t.Errorf("assets %d -> %d, blob files %d -> %d; want nothing stored", assets, n, files, f)
		}
	})
}

// TestDevelopOverDecodeBudget: an input a develop cannot decode within the
// process's budget (its pixels plus the working copies) fails the job as an
// input fault, with its hold voided, instead of waiting for memory that
// will never be free.
func TestDevelopOverDecodeBudget(t *testing.T) {
	e := apptest.SQLite(t)
	a := apptest.New(t, e, func(c *app.Config) { c.DecodeMB = 16 })
	owner := a.SignUp(t, "deep")
	k := a.Key(t, owner, "member")
	var deep bytes.Buffer // 1,100 x 1,100 at 16 bits: 9.7 MB decoded, twice that to develop
	if err := png.Encode(&deep, image.NewNRGBA64(image.Rect(0, 0, 1100, 1100))); err != nil {
		t.Fatal(err)
	}
	res := a.Do(t, "POST", "/api/toolkit/jobs/submit", k, submitForm(t, "upscale", "image", deep.Bytes()))
	if res.Status != 202 {
		t.Fatalf("submit: %d %s", res.Status, res.Body)
	}
	develop(t, a)
	var jobs JobsResult
	a.Do(t, "GET", "/api/toolkit/jobs?since=0", k, nil).JSON(t, &jobs)
	if len(jobs.Jobs) != 1 || jobs.Jobs[0].Status != "failed" || jobs.Jobs[0].Error == nil || !strings.Contains(*jobs.Jobs[0].Error, "memory") {
		t.Fatalf("jobs = %+v; want one failed for want of memory", jobs.Jobs)
	}
	if b := houseBalance(t, a, owner.HouseID); b.Balance != 60 || b.Held != 0 {
		t.Errorf("balance %+v; want nothing charged", b)
	}
}
