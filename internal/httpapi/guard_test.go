package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"studio/internal/apptest"
	"studio/internal/asset"
	"studio/internal/ts"
)

// TestHeavyRoutesGuarded: while a house holds all its heavy turns, its next
// heavy request waits its bounded time and is answered 429 RATE_LIMITED
// with Retry-After; another house's heavy request and /health are served
// at once; once the turns are back the house is served again.
func TestHeavyRoutesGuarded(t *testing.T) {
	a := apptest.New(t, apptest.SQLite(t))
	houseA, houseB := a.SignUp(t, "house-a"), a.SignUp(t, "house-b")
	for _, rt := range a.Server.Routes() {
		if !rt.Heavy {
			continue
		}
		t.Run(rt.Pattern(), func(t *testing.T) {
			reqA, reqB := samples[rt.Pattern()](t, a, houseA), samples[rt.Pattern()](t, a, houseB)
			release := a.Server.HoldHeavy(houseA.HouseID, 50*time.Millisecond)
			res := a.Do(t, rt.Method, reqA.path, houseA.Session(), reqA.body)
			if res.Status != http.StatusTooManyRequests || res.Code != "RATE_LIMITED" || res.Header.Get("Retry-After") != "1" {
				t.Errorf("house A while its turns are taken: got %d %s (Retry-After %q); want 429 RATE_LIMITED, Retry-After 1",
					res.Status, res.Body, res.Header.Get("Retry-After"))
			}
			if res := a.Do(t, rt.Method, reqB.path, houseB.Session(), reqB.body); res.Status >= 300 {
				t.Errorf("house B meanwhile: got %d %s", res.Status, res.Body)
			}
			if res := a.Do(t, "GET", "/health", apptest.Anonymous, nil); res.Status != http.StatusOK {
				t.Errorf("/health meanwhile: got %d %s", res.Status, res.Body)
			}
			release()
			if res := a.Do(t, rt.Method, reqA.path, houseA.Session(), reqA.body); res.Status >= 300 {
				t.Errorf("house A after: got %d %s", res.Status, res.Body)
			}
			if n := a.Server.HeavyInFlight(houseA.HouseID); n != 0 {
				t.Errorf("%d turns still held", n)
			}
		})
	}
}

// TestHeavyFloodLeavesOthersServed: one house sends 100 list requests of
// its 2,000-asset library at once; meanwhile another house's requests and
// /health stay fast, and the flooding house gets its answers or 429s.
// Before the guard, the flood held every database connection and the other
// house waited behind it.
func TestHeavyFloodLeavesOthersServed(t *testing.T) {
	a := apptest.New(t, apptest.SQLite(t))
	houseA, houseB := a.SignUp(t, "house-a"), a.SignUp(t, "house-b")
	keyA, keyB := a.Key(t, houseA, "member"), a.Key(t, houseB, "member")
	const assets = 2000
	start := time.Now()
	for i := range assets {
		id := uuid.Must(uuid.NewV7()).String()
		a1 := asset.Asset{ID: id, Name: fmt.Sprintf("piece %d", i), Mime: asset.MimeJPEG, Width: 16, Height: 12, Size: 100, CreatedAt: ts.Of(time.Now())}
		f := asset.File{ID: id, HouseID: houseA.HouseID, BlobKey: asset.BlobKey(houseA.HouseID, id), Mime: asset.MimeJPEG, ETag: `"00"`, Size: 100}
		if err := a.DB.InsertAsset(context.Background(), houseA.HouseID, houseA.ID, a1, f, ""); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d assets written in %v", assets, time.Since(start))
	upload(t, a, keyB, jpegOf(t, 16, 12))

	t0 := time.Now()
	if res := a.Do(t, "GET", "/api/toolkit/assets", keyA, nil); res.Status != http.StatusOK {
		t.Fatalf("list: %d %s", res.Status, res.Body)
	}
	one := time.Since(t0)
	t.Logf("one list of %d assets: %v", assets, one)

	const flood = 100
	var wg sync.WaitGroup
	statuses := make([]int, flood)
	began := make(chan struct{})
	for i := range flood {
		wg.Go(func() {
			<-began
			req, _ := http.NewRequest("GET", a.URL+"/api/toolkit/assets", nil)
			req.Header.Set("Authorization", "Bearer "+keyA.Key)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			res.Body.Close()
			statuses[i] = res.StatusCode
		})
	}
	close(began)
	time.Sleep(100 * time.Millisecond) // the flood is in
	var worst time.Duration
	for range 5 {
		for _, try := range []struct {
			path string
			cred apptest.Cred
		}{{"/api/toolkit/assets", keyB}, {"/posts", keyB}, {"/health", apptest.Anonymous}} {
			t0 := time.Now()
			if res := a.Do(t, "GET", try.path, try.cred, nil); res.Status != http.StatusOK {
				t.Errorf("%s during the flood: %d %s", try.path, res.Status, res.Body)
			}
			worst = max(worst, time.Since(t0))
		}
	}
	wg.Wait()
	served, refused := 0, 0
	for _, st := range statuses {
		switch st {
		case http.StatusOK:
			served++
		case http.StatusTooManyRequests:
			refused++
		default:
			t.Errorf("a flood request answered %d", st)
		}
	}
	t.Logf("flood: %d served, %d refused; the other house's slowest request %v", served, refused, worst)
	if served == 0 {
		t.Error("no flood request was served")
	}
	// The bound scales with the machine: a few lists' time. Unguarded, the
	// other house waited behind the whole flood (2.2 s for 50 on this machine).
	if bound := max(5*one, 300*time.Millisecond); worst > bound {
		t.Errorf("the other house's slowest request during the flood took %v; want under %v", worst, bound)
	}
}
