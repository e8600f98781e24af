package httpapi_test

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"image"
	_ "image/jpeg"
	_ "image/png"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"studio/internal/apptest"
	"studio/internal/blob"
	"studio/internal/pack"
)

// packsWalk is the packs area's part of the route walk (walk_test.go).
var packsWalk = walkArea{
	samples: map[string]sampleFunc{
		"POST /api/toolkit/assets/pack": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/toolkit/assets/pack", map[string]any{"assetIds": []string{assetID(t, a, u)}}}
		},
		"GET /api/toolkit/packs/{id}": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/toolkit/packs/" + packID(t, a, u), nil}
		},
		"GET /api/toolkit/packs/{id}/file": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/toolkit/packs/" + packID(t, a, u) + "/file", nil}
		},
	},
}

// wirePack is the answer of the pack routes as tests read it.
type wirePack struct {
	PackID    string  `json:"packId"`
	Mode      string  `json:"mode"`
	Status    string  `json:"status"`
	Items     int     `json:"items"`
	Bytes     int64   `json:"bytes"`
	Href      string  `json:"href"`
	Filename  string  `json:"filename"`
	Seconds   int     `json:"seconds"`
	ExpiresAt string  `json:"expiresAt"`
	Error     *string `json:"error"`
}

// packID makes an instant pack of one fresh asset for u's house.
func packID(t *testing.T, a *apptest.App, u *apptest.User) string {
	t.Helper()
	return createPack(t, a, u.Session(), map[string]any{"assetIds": []string{assetID(t, a, u)}}, http.StatusOK).PackID
}

func createPack(t testing.TB, a *apptest.App, c apptest.Cred, body any, want int) wirePack {
	t.Helper()
	res := a.Do(t, "POST", "/api/toolkit/assets/pack", c, body)
	if res.Status != want {
		t.Fatalf("pack: got %d %s; want %d", res.Status, res.Body, want)
	}
	var p wirePack
	res.JSON(t, &p)
	return p
}

// fileBytes reads an asset's stored bytes through its file route.
func fileBytes(t testing.TB, a *apptest.App, c apptest.Cred, id string) []byte {
	t.Helper()
	res := a.Do(t, "GET", "/api/toolkit/assets/"+id+"/file", c, nil)
	if res.Status != http.StatusOK {
		t.Fatalf("file %s: %d", id, res.Status)
	}
	return res.Body
}

// unzip downloads a pack's archive and returns its entries by name, in order.
func unzip(t testing.TB, a *apptest.App, c apptest.Cred, href string) ([]string, map[string][]byte) {
	t.Helper()
	res := a.Do(t, "GET", href, c, nil)
	if res.Status != http.StatusOK {
		t.Fatalf("download %s: %d %s", href, res.Status, res.Body)
	}
	if ct := res.Header.Get("Content-Type"); ct != "application/zip" {
		t.Errorf("Content-Type %q", ct)
	}
	if cd := res.Header.Get("Content-Disposition"); !strings.HasPrefix(cd, "attachment; filename=") {
		t.Errorf("Content-Disposition %q", cd)
	}
	zr, err := zip.NewReader(bytes.NewReader(res.Body), int64(len(res.Body)))
	if err != nil {
		t.Fatalf("unzip: %v", err)
	}
	var names []string
	files := map[string][]byte{}
	for _, f := range zr.File {
		if f.Method != zip.Store {
			t.Errorf("%s: method %d; want store", f.Name, f.Method)
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		names = append(names, f.Name)
		files[f.Name] = b
	}
	return names, files
}

func TestPackInstant(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner, other := a.SignUp(t, "owner"), a.SignUp(t, "other")
		c := owner.Session()
		look := upload(t, a, c, jpegOf(t, 40, 30), "name", "Look")
		same := upload(t, a, c, jpegOf(t, 20, 10), "name", "Look")
		flat := upload(t, a, c, pngOf(t, 64, 48), "name", "Flat/lay")
		gone := upload(t, a, c, jpegOf(t, 8, 8))
		if res := a.Do(t, "POST", "/api/toolkit/assets/batch/delete", c, map[string]any{"assetIds": []string{gone.ID}}); res.Status != 200 {
			t.Fatalf("delete: %d %s", res.Status, res.Body)
		}
		foreign := upload(t, a, other.Session(), jpegOf(t, 8, 8))

		ids := []string{look.ID, foreign.ID, same.ID, gone.ID, uuid.NewString(), flat.ID, look.ID}
		p := createPack(t, a, c, map[string]any{"assetIds": ids, "name": "Spring drop"}, http.StatusOK)
		if p.Mode != "instant" || p.Status != "ready" || p.Items != 3 || p.Error != nil || p.Seconds != 0 {
			t.Errorf("pack %+v; want instant, ready, 3 items", p)
		}
		if p.Href != "/api/toolkit/packs/"+p.PackID+"/file" || p.Filename != "Spring-drop.zip" || p.Bytes <= look.Size+same.Size+flat.Size {
			t.Errorf("pack %+v", p)
		}

		names, files := unzip(t, a, c, p.Href)
		want := []string{"Look.jpg", "Look (2).jpg", "Flat-lay.png"}
		if strings.Join(names, "|") != strings.Join(want, "|") {
			t.Fatalf("entries %q; want %q", names, want)
		}
		for name, id := range map[string]string{"Look.jpg": look.ID, "Look (2).jpg": same.ID, "Flat-lay.png": flat.ID} {
			if !bytes.Equal(files[name], fileBytes(t, a, c, id)) {
				t.Errorf("%s differs from the asset's bytes", name)
			}
		}
		// Built again on each download, the same archive.
		names2, _ := unzip(t, a, c, p.Href)
		if strings.Join(names2, "|") != strings.Join(names, "|") {
			t.Errorf("second download %q", names2)
		}

		res := a.Do(t, "GET", "/api/toolkit/packs/"+p.PackID, c, nil)
		var v wirePack
		res.JSON(t, &v)
		if res.Status != 200 || v.Status != "ready" || v.Mode != "instant" || v.Items != 3 || v.Error != nil {
			t.Errorf("get: %d %s", res.Status, res.Body)
		}
		exp, err := time.Parse(time.RFC3339, v.ExpiresAt)
		if err != nil || time.Until(exp) < 6*24*time.Hour || time.Until(exp) > 7*24*time.Hour {
			t.Errorf("expiresAt %q", v.ExpiresAt)
		}
		// The other house sees neither the pack nor its file.
		for _, path := range []string{"/api/toolkit/packs/" + p.PackID, p.Href} {
			if res := a.Do(t, "GET", path, other.Session(), nil); res.Status != 404 || res.Code != "NOT_FOUND" {
				t.Errorf("%s by another house: %d %s", path, res.Status, res.Body)
			}
		}
		// A viewer key may pack: it changes nothing and costs nothing.
		createPack(t, a, a.Key(t, owner, "viewer"), map[string]any{"assetIds": []string{look.ID}}, http.StatusOK)
	})
}

func TestPackNoneOwned(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner, other := a.SignUp(t, "owner"), a.SignUp(t, "other")
		foreign := upload(t, a, other.Session(), jpegOf(t, 8, 8))
		gone := upload(t, a, owner.Session(), jpegOf(t, 8, 8))
		a.Do(t, "POST", "/api/toolkit/assets/batch/delete", owner.Session(), map[string]any{"assetIds": []string{gone.ID}})
		res := a.Do(t, "POST", "/api/toolkit/assets/pack", owner.Session(), map[string]any{"assetIds": []string{foreign.ID, gone.ID, "nope"}})
		if res.Status != 404 || res.Code != "NOT_FOUND" {
			t.Errorf("got %d %s; want 404", res.Status, res.Body)
		}
		if n := countPacks(t, a, owner.HouseID); n != 0 {
			t.Errorf("%d packs written", n)
		}
	})
}

func countPacks(t testing.TB, a *apptest.App, house string) int {
	t.Helper()
	var n int
	if err := a.DB.QueryTest(context.Background(), "SELECT COUNT(*) FROM packs WHERE organization_id = '"+house+"'", &n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestPackTooLarge(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner := a.SignUp(t, "owner")
		c := owner.Session()
		var ids []string
		for range 3 {
			ids = append(ids, upload(t, a, c, jpegOf(t, 16, 12)).ID)
		}
		a.Packs.SetLimits(pack.Limits{MaxFrames: 2})
		res := a.Do(t, "POST", "/api/toolkit/assets/pack", c, map[string]any{"assetIds": ids})
		if res.Status != 413 || res.Code != "PACK_TOO_LARGE" {
			t.Errorf("frames: got %d %s; want 413 PACK_TOO_LARGE", res.Status, res.Body)
		}
		createPack(t, a, c, map[string]any{"assetIds": ids[:2]}, http.StatusOK)

		// Sizes count: a rendition is estimated at 4 bytes a pixel.
		a.Packs.SetLimits(pack.Limits{MaxBytes: 1 << 20})
		createPack(t, a, c, map[string]any{"assetIds": ids}, http.StatusOK)
		big := upload(t, a, c, pngOf(t, 700, 500))
		res = a.Do(t, "POST", "/api/toolkit/assets/pack", c, map[string]any{"assetIds": []string{big.ID},
			"sizes": []map[string]any{{"name": "print", "width": 8192, "height": 8192}}})
		if res.Status != 413 || res.Code != "PACK_TOO_LARGE" {
			t.Errorf("bytes: got %d %s; want 413 PACK_TOO_LARGE", res.Status, res.Body)
		}
		if n := countPacks(t, a, owner.HouseID); n != 2 {
			t.Errorf("%d packs; want the 2 accepted", n)
		}
	})
}

func TestPackBadSizes(t *testing.T) {
	e := apptest.SQLite(t)
	a := apptest.New(t, e)
	owner := a.SignUp(t, "owner")
	id := assetID(t, a, owner)
	size := func(name string, w, h int) map[string]any {
		return map[string]any{"name": name, "width": w, "height": h}
	}
	nine := make([]map[string]any, 9)
	for i := range nine {
		nine[i] = size("s"+string(rune('a'+i)), 10, 10)
	}
	for name, sizes := range map[string]any{
		"zero width":   []any{size("thumb", 0, 10)},
		"negative":     []any{size("thumb", 10, -1)},
		"over 8192":    []any{size("thumb", 8193, 10)},
		"nine sizes":   nine,
		"empty name":   []any{size("", 10, 10)},
		"path name":    []any{size("../up", 10, 10)},
		"same names":   []any{size("thumb", 10, 10), size("THUMB", 20, 20)},
		"wrong type":   []any{map[string]any{"name": "x", "width": "wide", "height": 1}},
		"no asset ids": nil,
	} {
		t.Run(name, func(t *testing.T) {
			body := map[string]any{"assetIds": []string{id}, "sizes": sizes}
			if name == "no asset ids" {
				body = map[string]any{"assetIds": []string{}}
			}
			res := a.Do(t, "POST", "/api/toolkit/assets/pack", owner.Session(), body)
			if res.Status != 400 || res.Code != "BAD_BODY" {
				t.Errorf("got %d %s; want 400 BAD_BODY", res.Status, res.Body)
			}
		})
	}
	if n := countPacks(t, a, owner.HouseID); n != 0 {
		t.Errorf("%d packs written", n)
	}
}

// renditionSize decodes an archived rendition and returns its format and size.
func renditionSize(t testing.TB, name string, b []byte) (string, int, int) {
	t.Helper()
	cfg, format, err := image.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return format, cfg.Width, cfg.Height
}

func TestPackRenditions(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner := a.SignUp(t, "owner")
		c := owner.Session()
		photo := upload(t, a, c, jpegOf(t, 40, 30), "name", "photo")
		flat := upload(t, a, c, pngOf(t, 64, 48), "name", "flat")
		turned := upload(t, a, c, exifJPEG(t, 60, 20, 6), "name", "turned") // shown 20 x 60
		lossless := upload(t, a, c, webp1x1, "name", "dot")
		sizes := []map[string]any{{"name": "thumb", "width": 32, "height": 32}, {"name": "large", "width": 100, "height": 100}}
		p := createPack(t, a, c, map[string]any{"assetIds": []string{photo.ID, flat.ID, turned.ID, lossless.ID}, "sizes": sizes}, http.StatusOK)
		names, files := unzip(t, a, c, p.Href)
		want := map[string][3]any{
			"thumb/photo.jpg":  {"jpeg", 32, 24},
			"large/photo.jpg":  {"jpeg", 40, 30}, // never upscaled
			"thumb/flat.png":   {"png", 32, 24},
			"large/flat.png":   {"png", 64, 48},
			"thumb/turned.jpg": {"jpeg", 10, 32}, // EXIF orientation honoured
			"large/turned.jpg": {"jpeg", 20, 60},
			"thumb/dot.jpg":    {"jpeg", 1, 1},
			"large/dot.jpg":    {"jpeg", 1, 1},
		}
		if len(names) != 4+len(want) {
			t.Errorf("entries %q", names)
		}
		for name, w := range want {
			b, ok := files[name]
			if !ok {
				t.Errorf("no %s in %q", name, names)
				continue
			}
			f, wd, ht := renditionSize(t, name, b)
			if f != w[0] || wd != w[1] || ht != w[2] {
				t.Errorf("%s: %s %dx%d; want %v", name, f, wd, ht, w)
			}
		}
		if !bytes.Equal(files["dot.webp"], webp1x1) || !bytes.Equal(files["photo.jpg"], fileBytes(t, a, c, photo.ID)) {
			t.Error("originals differ from the assets' bytes")
		}
	})
}

// wireNote is a notification as tests read it.
type wireNote struct {
	ID          string         `json:"id"`
	Kind        string         `json:"kind"`
	SubjectType string         `json:"subjectType"`
	SubjectID   string         `json:"subjectId"`
	Payload     map[string]any `json:"payload"`
	MaturesInMs int64          `json:"maturesInMs"`
	EventSeq    int64          `json:"eventSeq"`
	Read        bool           `json:"read"`
}

type wireNotes struct {
	Notifications []wireNote `json:"notifications"`
	Unread        int        `json:"unread"`
	NextCursor    *string    `json:"nextCursor"`
}

func listNotes(t testing.TB, a *apptest.App, c apptest.Cred, query string) wireNotes {
	t.Helper()
	res := a.Do(t, "GET", "/api/notifications"+query, c, nil)
	if res.Status != 200 {
		t.Fatalf("notifications%s: %d %s", query, res.Status, res.Body)
	}
	var out wireNotes
	res.JSON(t, &out)
	return out
}

func TestPackQueued(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner, other := a.SignUp(t, "owner"), a.SignUp(t, "other")
		c := owner.Session()
		photo := upload(t, a, c, jpegOf(t, 40, 30), "name", "photo")
		flat := upload(t, a, c, pngOf(t, 64, 48), "name", "flat")
		a.Packs.SetLimits(pack.Limits{InstantFrames: 2})
		sock := a.DialJobs(t, c)
		otherSock := a.DialJobs(t, other.Session())

		p := createPack(t, a, c, map[string]any{"assetIds": []string{photo.ID, flat.ID}, "sizes": []map[string]any{{"name": "thumb", "width": 32, "height": 32}}}, http.StatusAccepted)
		if p.Mode != "pack" || p.Status != "queued" || p.Items != 2 || p.Seconds < 1 || p.Error != nil {
			t.Fatalf("pack %+v; want pack, queued", p)
		}
		res := a.Do(t, "GET", p.Href, c, nil)
		if res.Status != 409 || res.Code != "NOT_READY" {
			t.Errorf("file of a queued pack: %d %s; want 409 NOT_READY", res.Status, res.Body)
		}

		ctx := context.Background()
		if did, err := a.Packs.One(ctx); !did || err != nil {
			t.Fatalf("build: %v %v", did, err)
		}
		if did, err := a.Packs.One(ctx); did || err != nil {
			t.Fatalf("second build: %v %v; want an empty queue", did, err)
		}

		var msg struct {
			Type         string   `json:"type"`
			Notification wireNote `json:"notification"`
		}
		sock.NextJSON(t, 5*time.Second, &msg)
		n := msg.Notification
		if msg.Type != "notification" || n.Kind != "pack.ready" || n.SubjectType != "pack" || n.SubjectID != p.PackID ||
			n.Payload["href"] != p.Href || n.MaturesInMs <= 0 || n.EventSeq <= 0 {
			t.Errorf("socket message %+v", msg)
		}
		otherSock.Quiet(t, 200*time.Millisecond)

		res = a.Do(t, "GET", "/api/toolkit/packs/"+p.PackID, c, nil)
		var v wirePack
		res.JSON(t, &v)
		if v.Status != "ready" || v.Mode != "pack" || v.Bytes <= 0 {
			t.Errorf("after the build: %s", res.Body)
		}
		names, files := unzip(t, a, c, p.Href)
		if strings.Join(names, "|") != "photo.jpg|thumb/photo.jpg|flat.png|thumb/flat.png" {
			t.Errorf("entries %q", names)
		}
		if int64(len(a.Do(t, "GET", p.Href, c, nil).Body)) != v.Bytes {
			t.Errorf("bytes %d is not the archive's size", v.Bytes)
		}
		if !bytes.Equal(files["flat.png"], fileBytes(t, a, c, flat.ID)) {
			t.Error("flat.png differs from the asset's bytes")
		}
		if f, w, h := renditionSize(t, "thumb/flat.png", files["thumb/flat.png"]); f != "png" || w != 32 || h != 24 {
			t.Errorf("thumb/flat.png %s %dx%d", f, w, h)
		}
		// The stored archive is served with ranges.
		req, _ := http.NewRequest("GET", a.URL+p.Href, nil)
		req.Header.Set("Range", "bytes=0-3")
		req.Header.Set("Authorization", "Bearer "+a.Key(t, owner, "viewer").Key)
		if res := a.Send(t, req); res.Status != http.StatusPartialContent || string(res.Body) != "PK\x03\x04" {
			t.Errorf("range: %d %q", res.Status, res.Body)
		}

		// Listed at once, immature: not yet unread.
		list := listNotes(t, a, c, "")
		if len(list.Notifications) != 1 || list.Notifications[0].ID != n.ID || list.Notifications[0].MaturesInMs <= 0 ||
			list.Unread != 0 || list.NextCursor != nil {
			t.Fatalf("list %+v", list)
		}
		if l := listNotes(t, a, other.Session(), ""); len(l.Notifications) != 0 {
			t.Errorf("another house lists %+v", l)
		}
		if _, err := a.DB.RawExec(ctx, `UPDATE notifications SET matures_at = matures_at - 10000, created_at = created_at - 10000 WHERE id = ?`, n.ID); err != nil {
			t.Fatal(err)
		}
		list = listNotes(t, a, c, "")
		if list.Unread != 1 || list.Notifications[0].MaturesInMs != 0 || list.Notifications[0].Read {
			t.Errorf("matured: %+v", list)
		}
		if l := listNotes(t, a, c, "?since="+strconv.FormatInt(n.EventSeq, 10)); len(l.Notifications) != 0 {
			t.Errorf("since its own seq: %+v", l)
		}
		if l := listNotes(t, a, c, "?since=0"); len(l.Notifications) != 1 {
			t.Errorf("since 0: %+v", l)
		}

		// Another house cannot mark it; the caller marks it once.
		res = a.Do(t, "POST", "/api/notifications/read", other.Session(), map[string]any{"ids": []string{n.ID}})
		if m := res.Map(t); m["marked"] != float64(0) {
			t.Errorf("another house marked: %s", res.Body)
		}
		res = a.Do(t, "POST", "/api/notifications/read", c, map[string]any{"ids": []string{n.ID, "nope"}, "source": "open"})
		if m := res.Map(t); res.Status != 200 || m["marked"] != float64(1) || len(m["ids"].([]any)) != 1 {
			t.Errorf("read: %d %s", res.Status, res.Body)
		}
		res = a.Do(t, "POST", "/api/notifications/read", c, map[string]any{"all": true})
		if m := res.Map(t); m["marked"] != float64(0) {
			t.Errorf("read again: %s", res.Body)
		}
		if l := listNotes(t, a, c, ""); l.Unread != 0 || !l.Notifications[0].Read {
			t.Errorf("after read: %+v", l)
		}

		// Past its life the archive is deleted from the blob store.
		key := pack.BlobKey(owner.HouseID, p.PackID)
		if n, err := a.Packs.Sweep(ctx); n != 0 || err != nil {
			t.Errorf("sweep of a live pack: %d %v", n, err)
		}
		if _, err := a.DB.RawExec(ctx, `UPDATE packs SET created_at = created_at - ? WHERE id = ?`, int64(8*24*time.Hour/time.Millisecond), p.PackID); err != nil {
			t.Fatal(err)
		}
		if n, err := a.Packs.Sweep(ctx); n != 1 || err != nil {
			t.Errorf("sweep: %d %v; want 1", n, err)
		}
		if _, err := a.Blobs.Stat(ctx, key); !errors.Is(err, blob.ErrNotFound) {
			t.Errorf("archive after the sweep: %v", err)
		}
		if n, err := a.Packs.Sweep(ctx); n != 0 || err != nil {
			t.Errorf("second sweep: %d %v", n, err)
		}
		if res := a.Do(t, "GET", p.Href, c, nil); res.Status != 404 {
			t.Errorf("expired file: %d", res.Status)
		}
	})
}

func TestPackExpires(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner := a.SignUp(t, "owner")
		c := owner.Session()
		id := packID(t, a, owner)
		unknown := a.Do(t, "GET", "/api/toolkit/packs/"+uuid.NewString(), c, nil)
		// Six days on, the link still lives.
		ctx := context.Background()
		day := int64(24 * time.Hour / time.Millisecond)
		if _, err := a.DB.RawExec(ctx, `UPDATE packs SET created_at = created_at - ? WHERE id = ?`, 6*day, id); err != nil {
			t.Fatal(err)
		}
		if res := a.Do(t, "GET", "/api/toolkit/packs/"+id+"/file", c, nil); res.Status != 200 {
			t.Fatalf("six days on: %d %s", res.Status, res.Body)
		}
		if _, err := a.DB.RawExec(ctx, `UPDATE packs SET created_at = created_at - ? WHERE id = ?`, day+1000, id); err != nil {
			t.Fatal(err)
		}
		for _, path := range []string{"/api/toolkit/packs/" + id, "/api/toolkit/packs/" + id + "/file"} {
			res := a.Do(t, "GET", path, c, nil)
			if res.Status != 404 || !bytes.Equal(res.Body, unknown.Body) {
				t.Errorf("%s after 7 days: %d %s; want the one 404 %s", path, res.Status, res.Body, unknown.Body)
			}
		}
	})
}

func TestPackFailed(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner := a.SignUp(t, "owner")
		c := owner.Session()
		id := upload(t, a, c, jpegOf(t, 16, 12)).ID
		a.Packs.SetLimits(pack.Limits{InstantFrames: 1})
		p := createPack(t, a, c, map[string]any{"assetIds": []string{id}}, http.StatusAccepted)
		a.Do(t, "POST", "/api/toolkit/assets/batch/delete", c, map[string]any{"assetIds": []string{id}})
		if did, err := a.Packs.One(context.Background()); !did || err != nil {
			t.Fatalf("build: %v %v", did, err)
		}
		res := a.Do(t, "GET", "/api/toolkit/packs/"+p.PackID, c, nil)
		var v wirePack
		res.JSON(t, &v)
		if v.Status != "failed" || v.Error == nil || *v.Error == "" {
			t.Errorf("failed pack: %s", res.Body)
		}
		if res := a.Do(t, "GET", p.Href, c, nil); res.Status != 409 || res.Code != "NOT_READY" {
			t.Errorf("file of a failed pack: %d %s", res.Status, res.Body)
		}
		if l := listNotes(t, a, c, ""); len(l.Notifications) != 0 {
			t.Errorf("a failed pack raised %+v", l)
		}
	})
}

// raise inserts n matured notifications for the house, as the builder would.
func raiseNotes(t *testing.T, a *apptest.App, u *apptest.User, n int) {
	t.Helper()
	a.Packs.SetLimits(pack.Limits{InstantFrames: 1})
	id := upload(t, a, u.Session(), jpegOf(t, 8, 8)).ID
	for range n {
		createPack(t, a, u.Session(), map[string]any{"assetIds": []string{id}}, http.StatusAccepted)
		if did, err := a.Packs.One(context.Background()); !did || err != nil {
			t.Fatalf("build: %v %v", did, err)
		}
	}
}

func TestNotificationsList(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner := a.SignUp(t, "owner")
		c := owner.Session()
		raiseNotes(t, a, owner, 5)

		page := listNotes(t, a, c, "?limit=2")
		if len(page.Notifications) != 2 || page.NextCursor == nil {
			t.Fatalf("first page %+v", page)
		}
		seen := []int64{page.Notifications[0].EventSeq, page.Notifications[1].EventSeq}
		for page.NextCursor != nil {
			page = listNotes(t, a, c, "?limit=2&before="+*page.NextCursor)
			for _, n := range page.Notifications {
				seen = append(seen, n.EventSeq)
			}
		}
		if len(seen) != 5 {
			t.Fatalf("paged %v; want 5", seen)
		}
		for i := 1; i < len(seen); i++ {
			if seen[i] >= seen[i-1] {
				t.Errorf("not newest first: %v", seen)
			}
		}
		back := listNotes(t, a, c, "?since="+strconv.FormatInt(seen[3], 10))
		if len(back.Notifications) != 3 || back.Notifications[0].EventSeq != seen[3]+1 && back.Notifications[0].EventSeq <= seen[3] || back.NextCursor != nil {
			t.Errorf("backfill %+v", back)
		}
		for i := 1; i < len(back.Notifications); i++ {
			if back.Notifications[i].EventSeq <= back.Notifications[i-1].EventSeq {
				t.Errorf("backfill not ascending: %+v", back)
			}
		}

		for _, tc := range []struct{ query, code string }{
			{"?since=-1", "BAD_SINCE"},
			{"?since=x", "BAD_SINCE"},
			{"?since=1&before=" + *listNotes(t, a, c, "?limit=1").NextCursor, "BAD_SINCE"},
			{"?before=nope", "BAD_CURSOR"},
			{"?before=", "BAD_CURSOR"},
			{"?limit=0", "BAD_LIMIT"},
			{"?limit=201", "BAD_LIMIT"},
			{"?limit=ten", "BAD_LIMIT"},
		} {
			if res := a.Do(t, "GET", "/api/notifications"+tc.query, c, nil); res.Status != 400 || res.Code != tc.code {
				t.Errorf("%s: %d %s; want 400 %s", tc.query, res.Status, res.Body, tc.code)
			}
		}
		for _, body := range []any{map[string]any{}, map[string]any{"all": false}, map[string]any{"ids": []string{}},
			map[string]any{"all": true, "source": "email"}} {
			if res := a.Do(t, "POST", "/api/notifications/read", c, body); res.Status != 400 || res.Code != "BAD_BODY" {
				t.Errorf("read %v: %d %s; want 400 BAD_BODY", body, res.Status, res.Body)
			}
		}
		// Bad input changed nothing.
		if l := listNotes(t, a, c, ""); l.Notifications[0].Read {
			t.Errorf("a refused read marked: %+v", l)
		}
		// unread counts matured rows of the last 90 days only.
		ctx := context.Background()
		if _, err := a.DB.RawExec(ctx, `UPDATE notifications SET matures_at = matures_at - 20000 WHERE organization_id = ?`, owner.HouseID); err != nil {
			t.Fatal(err)
		}
		if l := listNotes(t, a, c, ""); l.Unread != 5 {
			t.Errorf("unread %d; want 5", l.Unread)
		}
		day := int64(24 * time.Hour / time.Millisecond)
		if _, err := a.DB.RawExec(ctx, `UPDATE notifications SET created_at = created_at - ?, matures_at = matures_at - ? WHERE organization_id = ? AND event_seq = ?`,
			91*day, 91*day, owner.HouseID, seen[0]); err != nil {
			t.Fatal(err)
		}
		if l := listNotes(t, a, c, ""); l.Unread != 4 {
			t.Errorf("unread %d; want 4 (one older than 90 days)", l.Unread)
		}
	})
}

// TestPackBuilderRuns: with the workers running (RunWorkers), a queued
// pack is built without being driven and pack.ready reaches the socket.
func TestPackBuilderRuns(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner := a.SignUp(t, "owner")
		c := owner.Session()
		id := upload(t, a, c, jpegOf(t, 16, 12)).ID
		a.Packs.SetLimits(pack.Limits{InstantFrames: 1})
		sock := a.DialJobs(t, c)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- a.RunWorkers(ctx) }()
		defer func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("workers: %v", err)
			}
		}()
		p := createPack(t, a, c, map[string]any{"assetIds": []string{id}}, http.StatusAccepted)
		var msg struct {
			Type         string   `json:"type"`
			Notification wireNote `json:"notification"`
		}
		sock.NextJSON(t, 10*time.Second, &msg)
		if msg.Type != "notification" || msg.Notification.SubjectID != p.PackID {
			t.Errorf("socket message %+v", msg)
		}
		if names, _ := unzip(t, a, c, p.Href); len(names) != 1 {
			t.Errorf("entries %q", names)
		}
	})
}
