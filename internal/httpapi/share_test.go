package httpapi_test

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"studio/internal/apptest"
	"studio/internal/auth"
	"studio/internal/httpapi"
	"studio/internal/share"
)

// shareWalk is the share area's part of the route walk (walk_test.go).
var shareWalk = walkArea{
	samples: map[string]sampleFunc{
		"GET /api/share": static("/api/share", nil),
		"POST /api/share": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/share", map[string]any{"assetIds": []string{assetID(t, a, u)}, "recipientLabel": "Buyer"}}
		},
		"POST /api/share/{id}/revoke": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/share/" + sampleShare(t, a, u, "revoke").ID + "/revoke", nil}
		},
		"GET /api/toolkit/share-marks": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/toolkit/share-marks?assetIds=" + assetID(t, a, u), nil}
		},
		"GET /api/toolkit/folders/{id}/coverage": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/toolkit/folders/" + folderID(t, a, u) + "/coverage", nil}
		},
		"GET /api/share/{token}": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/share/" + sampleShare(t, a, u, "review").Token, nil}
		},
		"GET /api/share/{token}/f/{i}": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/share/" + sampleShare(t, a, u, "review").Token + "/f/0", nil}
		},
		"POST /api/share/{token}/mark": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/share/" + sampleShare(t, a, u, "review").Token + "/mark", map[string]any{"i": 0, "verdict": "keep"}}
		},
		"POST /api/share/{token}/finish": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			tok := sampleShare(t, a, u, "review").Token
			markFrame(t, a, tok, map[string]any{"i": 1, "verdict": "pass"})
			return request{"/api/share/" + tok + "/finish", nil}
		},
		"GET /s": static("/s", nil),
	},
	minRole: map[string]auth.Role{
		"POST /api/share":             auth.Member,
		"POST /api/share/{id}/revoke": auth.Member,
	},
}

// minted is the mint answer as tests read it.
type minted struct {
	ID      string `json:"id"`
	URL     string `json:"url"`
	Token   string `json:"token"`
	Frames  int    `json:"frames"`
	Emailed string `json:"emailed"`
}

type sampleKey struct {
	a            *apptest.App
	house, usage string
}

// sampleShares keeps one link per app, house and usage, so the walk's
// samples stay under the hourly mint limit.
var sampleShares sync.Map

func sampleShare(t *testing.T, a *apptest.App, u *apptest.User, usage string) minted {
	t.Helper()
	k := sampleKey{a, u.HouseID, usage}
	if v, ok := sampleShares.Load(k); ok {
		return v.(minted)
	}
	m := mintShare(t, a, u.Session(), map[string]any{"assetIds": []string{assetID(t, a, u), assetID(t, a, u)}}, http.StatusOK)
	sampleShares.Store(k, m)
	return m
}

func mintShare(t testing.TB, a *apptest.App, c apptest.Cred, body any, status int) minted {
	t.Helper()
	res := a.Do(t, "POST", "/api/share", c, body)
	if res.Status != status {
		t.Fatalf("mint: %d %s; want %d", res.Status, res.Body, status)
	}
	var m minted
	if status == http.StatusOK {
		res.JSON(t, &m)
	}
	return m
}

func markFrame(t testing.TB, a *apptest.App, token string, body any) {
	t.Helper()
	if res := a.Do(t, "POST", "/api/share/"+token+"/mark", apptest.Anonymous, body); res.Status != http.StatusOK {
		t.Fatalf("mark %v: %d %s", body, res.Status, res.Body)
	}
}

// wireManifest is the reviewer's manifest as tests read it.
type wireManifest struct {
	House          string  `json:"house"`
	RecipientLabel *string `json:"recipientLabel"`
	Message        *string `json:"message"`
	ExpiresAt      string  `json:"expiresAt"`
	FinishedAt     *string `json:"finishedAt"`
	Frames         []struct {
		I        int             `json:"i"`
		Name     string          `json:"name"`
		Note     *string         `json:"note"`
		W        int             `json:"w"`
		H        int             `json:"h"`
		Mark     *string         `json:"mark"`
		MarkNote *string         `json:"markNote"`
		Drawings []share.Drawing `json:"drawings"`
	} `json:"frames"`
}

func manifest(t testing.TB, a *apptest.App, token string) (wireManifest, []byte) {
	t.Helper()
	res := a.Do(t, "GET", "/api/share/"+token, apptest.Anonymous, nil)
	if res.Status != http.StatusOK {
		t.Fatalf("manifest: %d %s", res.Status, res.Body)
	}
	var m wireManifest
	res.JSON(t, &m)
	return m, res.Body
}

type wireShare struct {
	ID             string  `json:"id"`
	Token          string  `json:"token"`
	RecipientLabel *string `json:"recipientLabel"`
	Frames         int     `json:"frames"`
	Answered       int     `json:"answered"`
	Kept           int     `json:"kept"`
	Passed         int     `json:"passed"`
	FinishedAt     *string `json:"finishedAt"`
	RevokedAt      *string `json:"revokedAt"`
	ExpiresAt      string  `json:"expiresAt"`
}

func listShares(t testing.TB, a *apptest.App, c apptest.Cred) []wireShare {
	t.Helper()
	var body struct{ Shares []wireShare }
	a.Do(t, "GET", "/api/share", c, nil).JSON(t, &body)
	return body.Shares
}

type wireMark struct {
	AssetID        string          `json:"assetId"`
	ShareID        string          `json:"shareId"`
	RecipientLabel *string         `json:"recipientLabel"`
	Verdict        *string         `json:"verdict"`
	Note           *string         `json:"note"`
	Drawings       []share.Drawing `json:"drawings"`
	ExportedAt     *string         `json:"exportedAt"`
	At             string          `json:"at"`
}

func shareMarks(t testing.TB, a *apptest.App, c apptest.Cred, ids ...string) []wireMark {
	t.Helper()
	res := a.Do(t, "GET", "/api/toolkit/share-marks?assetIds="+strings.Join(ids, ","), c, nil)
	if res.Status != http.StatusOK {
		t.Fatalf("share-marks: %d %s", res.Status, res.Body)
	}
	var body struct{ Marks []wireMark }
	res.JSON(t, &body)
	return body.Marks
}

// notifications lists the kinds and payloads u sees, newest first.
func notifications(t testing.TB, a *apptest.App, c apptest.Cred) []struct {
	Kind      string         `json:"kind"`
	SubjectID string         `json:"subjectId"`
	Payload   map[string]any `json:"payload"`
} {
	t.Helper()
	var body struct {
		Notifications []struct {
			Kind      string         `json:"kind"`
			SubjectID string         `json:"subjectId"`
			Payload   map[string]any `json:"payload"`
		}
	}
	a.Do(t, "GET", "/api/notifications", c, nil).JSON(t, &body)
	return body.Notifications
}

func countKind(t testing.TB, a *apptest.App, c apptest.Cred, kind, share string) int {
	t.Helper()
	n := 0
	for _, x := range notifications(t, a, c) {
		if x.Kind == kind && x.SubjectID == share {
			n++
		}
	}
	return n
}

// TestShareStory is the walk-through on both engines: a director
// mints a link to five frames with a label, an address and a message, the
// reviewer reads the manifest (no ids anywhere), views frames and
// thumbnails, marks and draws, exports one, finishes; the director sees the
// list, the marks, the notifications on the socket and in the list, and
// the finish letter in the e-mail log.
func TestShareStory(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner := a.SignUp(t, "director")
		key := a.Key(t, owner, "member")
		sock := a.DialJobs(t, owner.Session())
		var ids []string
		for n := range 5 {
			ids = append(ids, upload(t, a, key, jpegOf(t, 640+n*10, 480), "name", fmt.Sprintf("Look %d", n+1)).ID)
		}
		big := upload(t, a, key, pngOf(t, 1200, 800), "name", "Wide").ID
		ids = append(ids, big)
		notes := map[string]string{ids[0]: "The hero frame"}
		c := mintShare(t, a, key, map[string]any{"assetIds": append(ids, ids[1], uuid.NewString()), "recipientLabel": "Buyer, Paris",
			"email": "Buyer@Example.com", "message": "Ten minutes, please.\nThank you.", "notes": notes}, http.StatusOK)
		if c.Frames != 6 || len(c.Token) != 43 || c.URL != a.Config.WebOrigin+"/s#"+c.Token || c.Emailed != share.EmailedLogged {
			t.Fatalf("minted %+v", c)
		}
		sent := a.Outbox.To("buyer@example.com")
		if len(sent) != 1 || sent[0].Template != share.TemplateLink || !strings.Contains(sent[0].Text, c.URL) {
			t.Fatalf("link letter: %+v", sent)
		}
		letters, err := a.DB.Emails(context.Background(), "buyer@example.com")
		if err != nil || len(letters) != 1 || strings.Contains(letters[0].Text+letters[0].HTML, c.Token) ||
			!strings.Contains(letters[0].Text, c.Token[:8]+"…") {
			t.Fatalf("the e-mail log keeps the link's token: %+v %v", letters, err)
		}

		list := listShares(t, a, owner.Session())
		if len(list) != 1 || list[0].Token != c.Token[:8] || list[0].Frames != 6 || list[0].Answered != 0 || list[0].RevokedAt != nil {
			t.Fatalf("list %+v", list)
		}

		m, raw := manifest(t, a, c.Token)
		if m.House == "" || *m.RecipientLabel != "Buyer, Paris" || *m.Message != "Ten minutes, please.\nThank you." || len(m.Frames) != 6 ||
			m.Frames[0].Name != "Look 1" || *m.Frames[0].Note != "The hero frame" || m.Frames[0].W != 640 || m.Frames[5].I != 5 ||
			m.Frames[0].Mark != nil || m.Frames[0].Drawings == nil || m.FinishedAt != nil {
			t.Fatalf("manifest %s", raw)
		}
		secrets := append([]string{owner.HouseID, owner.ID, c.ID}, ids...)
		for _, s := range secrets {
			if bytes.Contains(raw, []byte(s)) {
				t.Errorf("the manifest names %s: %s", s, raw)
			}
		}

		// Frame bytes: the original as stored, a thumbnail, the headers.
		orig := a.Do(t, "GET", "/api/share/"+c.Token+"/f/5", apptest.Anonymous, nil)
		if orig.Status != 200 || !bytes.Equal(orig.Body, fileBytes(t, a, key, big)) {
			t.Fatalf("original: %d", orig.Status)
		}
		for k, v := range map[string]string{"Cache-Control": "private, max-age=3600", "X-Content-Type-Options": "nosniff",
			"Content-Security-Policy": "default-src 'none'; sandbox", "Content-Type": "image/png"} {
			if got := orig.Header.Get(k); got != v {
				t.Errorf("%s: %q; want %q", k, got, v)
			}
		}
		for range 2 { // rendered, then read from the blob store
			th := a.Do(t, "GET", "/api/share/"+c.Token+"/f/5?thumb=1", apptest.Anonymous, nil)
			cfg, format, err := image.DecodeConfig(bytes.NewReader(th.Body))
			if th.Status != 200 || err != nil || format != "png" || cfg.Width != 512 || cfg.Height != 341 ||
				th.Header.Get("Cache-Control") != "private, max-age=3600" {
				t.Fatalf("thumb: %d %s %v %+v", th.Status, format, err, cfg)
			}
		}
		if res := conditionalGet(t, a, "/api/share/"+c.Token+"/f/5", apptest.Anonymous, orig.Header.Get("ETag")); res.Status != http.StatusNotModified {
			t.Errorf("If-None-Match: %d", res.Status)
		}
		if ms := shareMarks(t, a, key, ids...); len(ms) != 0 {
			t.Fatalf("marks before any: %+v", ms)
		}
		exp := a.Do(t, "GET", "/api/share/"+c.Token+"/f/2?export=1", apptest.Anonymous, nil)
		if exp.Status != 200 || exp.Header.Get("Content-Disposition") != "attachment" {
			t.Fatalf("export: %d %v", exp.Status, exp.Header)
		}
		if ms := shareMarks(t, a, key, ids[2]); len(ms) != 1 || ms[0].ExportedAt == nil || ms[0].Verdict != nil {
			t.Fatalf("export signal: %+v", ms)
		}
		if n := countKind(t, a, owner.Session(), "share.marked", c.ID); n != 0 {
			t.Fatalf("an export raised share.marked")
		}

		// Marks: the first raises share.marked once, on the socket too.
		circle := []share.Drawing{{Kind: "circle", Points: [][2]float64{{0.1, 0.2}, {0.4, 0.5}}}}
		markFrame(t, a, c.Token, map[string]any{"i": 0, "verdict": "keep", "drawings": circle})
		markFrame(t, a, c.Token, map[string]any{"i": 1, "verdict": "pass", "note": "Too dark"})
		markFrame(t, a, c.Token, map[string]any{"i": 1, "note": "Too dark on the left"}) // the verdict stays
		markFrame(t, a, c.Token, map[string]any{"i": 2, "verdict": "keep"})
		if n := countKind(t, a, owner.Session(), "share.marked", c.ID); n != 1 {
			t.Errorf("share.marked raised %d times; want once", n)
		}
		m, _ = manifest(t, a, c.Token)
		if *m.Frames[0].Mark != "keep" || len(m.Frames[0].Drawings) != 1 || m.Frames[0].Drawings[0].Points[1] != [2]float64{0.4, 0.5} ||
			*m.Frames[1].Mark != "pass" || *m.Frames[1].MarkNote != "Too dark on the left" {
			t.Fatalf("marks in the manifest: %+v", m.Frames[:2])
		}

		f := a.Do(t, "POST", "/api/share/"+c.Token+"/finish", apptest.Anonymous, nil).Map(t)
		if f["finished"] != true || f["kept"] != 2.0 || f["passed"] != 1.0 {
			t.Fatalf("finish %v", f)
		}
		m, _ = manifest(t, a, c.Token)
		first := *m.FinishedAt
		f2 := a.Do(t, "POST", "/api/share/"+c.Token+"/finish", apptest.Anonymous, nil).Map(t)
		if f2["kept"] != 2.0 {
			t.Errorf("a repeated finish: %v", f2)
		}
		if n := countKind(t, a, owner.Session(), "share.finished", c.ID); n != 1 {
			t.Errorf("share.finished %d times after a repeat with nothing new; want once", n)
		}
		letters, err = a.DB.Emails(context.Background(), owner.Email)
		var finishLetters int
		for _, l := range letters {
			if l.Template == share.TemplateFinished {
				finishLetters++
				if !strings.Contains(l.Text, "2 kept, 1 passed") || !strings.Contains(l.Text, "Too dark on the left") {
					t.Errorf("finish letter: %s", l.Text)
				}
			}
		}
		if err != nil || finishLetters != 1 {
			t.Fatalf("finish letters %d: %v", finishLetters, err)
		}
		// A change after finishing, then finish again: told again; the first stamp stays.
		markFrame(t, a, c.Token, map[string]any{"i": 3, "verdict": "pass"})
		a.Do(t, "POST", "/api/share/"+c.Token+"/finish", apptest.Anonymous, nil)
		if n := countKind(t, a, owner.Session(), "share.finished", c.ID); n != 2 {
			t.Errorf("share.finished %d times after a change; want 2", n)
		}
		if m, _ = manifest(t, a, c.Token); *m.FinishedAt != first {
			t.Errorf("finishedAt moved from %s to %s", first, *m.FinishedAt)
		}
		for _, want := range []string{"share.marked", "share.finished", "share.finished"} {
			var msg struct {
				Type         string
				Notification struct{ Kind, SubjectID string }
			}
			for {
				sock.NextJSON(t, 10*time.Second, &msg)
				if msg.Type == "notification" {
					break
				}
			}
			if msg.Notification.Kind != want || msg.Notification.SubjectID != c.ID {
				t.Errorf("socket: %+v; want %s", msg, want)
			}
		}

		// The director's view: the list counts, the marks, a second
		// recipient who disagrees.
		list = listShares(t, a, key)
		if list[0].Answered != 4 || list[0].Kept != 2 || list[0].Passed != 2 || list[0].FinishedAt == nil {
			t.Errorf("list after finish: %+v", list[0])
		}
		c2 := mintShare(t, a, key, map[string]any{"assetIds": []string{ids[0]}, "recipientLabel": "Photographer"}, http.StatusOK)
		markFrame(t, a, c2.Token, map[string]any{"i": 0, "verdict": "pass", "note": "Soft focus"})
		ms := shareMarks(t, a, key, ids[0])
		if len(ms) != 2 || *ms[0].RecipientLabel != "Photographer" || *ms[0].Verdict != "pass" || *ms[1].Verdict != "keep" ||
			len(ms[1].Drawings) != 1 || ms[1].ShareID != c.ID {
			t.Errorf("disagreeing marks: %+v", ms)
		}
		if all := shareMarks(t, a, key); len(all) != 5 {
			t.Errorf("every mark of the house: %d; want 5", len(all))
		}
		other := a.SignUp(t, "other")
		if ms := shareMarks(t, a, other.Session(), ids...); len(ms) != 0 {
			t.Errorf("another house sees %+v", ms)
		}

		// Revocation is effective on the very next request.
		if res := a.Do(t, "POST", "/api/share/"+c.ID+"/revoke", key, nil); res.Status != 200 {
			t.Fatalf("revoke: %d %s", res.Status, res.Body)
		}
		if res := a.Do(t, "GET", "/api/share/"+c.Token, apptest.Anonymous, nil); res.Status != 404 {
			t.Errorf("after revoke: %d", res.Status)
		}
		if res := a.Do(t, "POST", "/api/share/"+c.ID+"/revoke", key, nil); res.Status != 200 {
			t.Errorf("revoke again: %d", res.Status)
		}
		list = listShares(t, a, key)
		if len(list) != 2 || list[1].RevokedAt == nil || list[1].Kept != 2 || list[0].ID != c2.ID {
			t.Errorf("list after revoke: %+v", list)
		}
	})
}

// TestShareRefusals answers every error code the share routes document
// that the walk does not (shapes, roles and the one 404 are walked).
func TestShareRefusals(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner, other := a.SignUp(t, "owner"), a.SignUp(t, "other")
		viewer := a.Key(t, owner, "viewer")
		id := assetID(t, a, owner)
		many := make([]string, 61)
		for i := range many {
			many[i] = uuid.NewString()
		}
		long := strings.Repeat("x", 601)
		mintCases := []struct {
			name string
			cred apptest.Cred
			body any
			code string
		}{
			{"viewer", viewer, map[string]any{"assetIds": []string{id}}, "FORBIDDEN"},
			{"no frames", owner.Session(), map[string]any{"assetIds": []string{}}, "BAD_ASSET_IDS"},
			{"sixty-one", owner.Session(), map[string]any{"assetIds": many}, "TOO_MANY_FRAMES"},
			{"bad address", owner.Session(), map[string]any{"assetIds": []string{id}, "email": "buyer@@example"}, "BAD_EMAIL"},
			{"long note", owner.Session(), map[string]any{"assetIds": []string{id}, "notes": map[string]string{id: long}}, "NOTE_TOO_LONG"},
			{"none owned", other.Session(), map[string]any{"assetIds": []string{id}}, "NOT_FOUND"},
		}
		for _, tc := range mintCases {
			res := a.Do(t, "POST", "/api/share", tc.cred, tc.body)
			if res.Code != tc.code {
				t.Errorf("mint %s: %d %s; want %s", tc.name, res.Status, res.Body, tc.code)
			}
		}
		if n := len(listShares(t, a, owner.Session())); n != 0 {
			t.Errorf("refusals wrote %d links", n)
		}

		c := mintShare(t, a, owner.Session(), map[string]any{"assetIds": []string{id}}, http.StatusOK)
		res := a.Do(t, "POST", "/api/share/"+c.Token+"/finish", apptest.Anonymous, nil)
		want(t, res, http.StatusBadRequest, "NOTHING_MARKED")
		markFrame(t, a, c.Token, map[string]any{"i": 0, "note": "only a note"})
		want(t, a.Do(t, "POST", "/api/share/"+c.Token+"/finish", apptest.Anonymous, nil), http.StatusBadRequest, "NOTHING_MARKED")
		if m, _ := manifest(t, a, c.Token); m.FinishedAt != nil {
			t.Errorf("a refused finish stamped finishedAt")
		}
		markCases := []struct {
			name string
			body string
			code string
		}{
			{"long note", `{"i":0,"note":"` + long + `"}`, "NOTE_TOO_LONG"},
			{"string coordinate", `{"i":0,"drawings":[{"kind":"free","points":[["0.5",0.5]]}]}`, "BAD_DRAWING"},
			{"four strokes", `{"i":0,"drawings":[{"kind":"free","points":[[0,0]]},{"kind":"free","points":[[0,0]]},{"kind":"free","points":[[0,0]]},{"kind":"free","points":[[0,0]]}]}`, "BAD_DRAWING"},
			{"out of range", `{"i":0,"drawings":[{"kind":"free","points":[[1.5,0.5]]}]}`, "BAD_DRAWING"},
			{"NaN", `{"i":0,"drawings":[{"kind":"free","points":[[NaN,0.5]]}]}`, "BAD_JSON"},
			{"bad verdict", `{"i":0,"verdict":"maybe"}`, "BAD_BODY"},
			{"i as text", `{"i":"0","verdict":"keep"}`, "BAD_BODY"},
			{"nothing to record", `{"i":0}`, "BAD_BODY"},
			{"past the end", `{"i":1,"verdict":"keep"}`, "NOT_FOUND"},
		}
		for _, tc := range markCases {
			res := a.Do(t, "POST", "/api/share/"+c.Token+"/mark", apptest.Anonymous, tc.body)
			if res.Code != tc.code {
				t.Errorf("mark %s: %d %s; want %s", tc.name, res.Status, res.Body, tc.code)
			}
		}
		res = a.Do(t, "GET", "/api/toolkit/share-marks?assetIds="+strings.Join(append(append(append(many, many...), many...), many...)[:201], ","), owner.Session(), nil)
		want(t, res, http.StatusBadRequest, "BAD_ASSET_IDS")
	})
}

// TestShareLimits: past the hourly limits, mint answers 429 per house and
// mark 429 per address, with Retry-After; nothing is written.
func TestShareLimits(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		a.Shares.SetLimits(share.Limits{MintPerHour: 2, MarkPerHour: 3})
		owner, other := a.SignUp(t, "owner"), a.SignUp(t, "other")
		id := assetID(t, a, owner)
		body := map[string]any{"assetIds": []string{id}}
		c := mintShare(t, a, owner.Session(), body, http.StatusOK)
		mintShare(t, a, owner.Session(), body, http.StatusOK)
		res := a.Do(t, "POST", "/api/share", owner.Session(), body)
		want(t, res, http.StatusTooManyRequests, "RATE_LIMITED")
		if ra := res.Header.Get("Retry-After"); ra == "" || ra == "0" {
			t.Errorf("Retry-After %q", ra)
		}
		if n := len(listShares(t, a, owner.Session())); n != 2 {
			t.Errorf("%d links after a refusal; want 2", n)
		}
		mintShare(t, a, other.Session(), map[string]any{"assetIds": []string{assetID(t, a, other)}}, http.StatusOK) // per house

		for range 3 {
			markFrame(t, a, c.Token, map[string]any{"i": 0, "verdict": "keep"})
		}
		res = a.Do(t, "POST", "/api/share/"+c.Token+"/mark", apptest.Anonymous, map[string]any{"i": 0, "verdict": "pass"})
		want(t, res, http.StatusTooManyRequests, "RATE_LIMITED")
		if res.Header.Get("Retry-After") == "" {
			t.Error("no Retry-After")
		}
		if m, _ := manifest(t, a, c.Token); *m.Frames[0].Mark != "keep" {
			t.Errorf("a refused mark was written")
		}
	})
}

// TestShareFirstMarkRace: concurrent first marks on a link raise exactly
// one share.marked.
func TestShareFirstMarkRace(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner := a.SignUp(t, "owner")
		ids := []string{assetID(t, a, owner), assetID(t, a, owner), assetID(t, a, owner)}
		for round := range 3 {
			c := mintShare(t, a, owner.Session(), map[string]any{"assetIds": ids}, http.StatusOK)
			var wg sync.WaitGroup
			for i := range 8 {
				wg.Go(func() {
					markFrame(t, a, c.Token, map[string]any{"i": i % 3, "verdict": []string{"keep", "pass"}[i%2]})
				})
			}
			wg.Wait()
			if n := countKind(t, a, owner.Session(), "share.marked", c.ID); n != 1 {
				t.Errorf("round %d: share.marked raised %d times; want once", round, n)
			}
		}
	})
}

// TestReviewerSweep: on every reviewer route, a token that never existed,
// a malformed one, a share's id in its place, a revoked and an expired
// link, a position past the end and a frame the house removed all answer
// the one 404, byte for byte the API's, whatever credentials come along.
func TestReviewerSweep(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner, other := a.SignUp(t, "owner"), a.SignUp(t, "other")
		two := func(u *apptest.User) []string { return []string{assetID(t, a, u), assetID(t, a, u)} }
		open := mintShare(t, a, owner.Session(), map[string]any{"assetIds": two(owner)}, http.StatusOK)
		revoked := mintShare(t, a, owner.Session(), map[string]any{"assetIds": two(owner)}, http.StatusOK)
		a.Do(t, "POST", "/api/share/"+revoked.ID+"/revoke", owner.Session(), nil)
		expired := mintShare(t, a, owner.Session(), map[string]any{"assetIds": two(owner)}, http.StatusOK)
		if _, err := a.DB.RawExec(context.Background(), `UPDATE shares SET expires_at = ? WHERE id = ?`,
			time.Now().Add(-time.Second).UnixMilli(), expired.ID); err != nil {
			t.Fatal(err)
		}
		removedIDs := two(owner)
		removed := mintShare(t, a, owner.Session(), map[string]any{"assetIds": removedIDs}, http.StatusOK)
		a.Do(t, "POST", "/api/toolkit/assets/batch/delete", owner.Session(), map[string]any{"assetIds": removedIDs[1:]})
		foreign := mintShare(t, a, other.Session(), map[string]any{"assetIds": []string{assetID(t, a, other)}}, http.StatusOK)
		never := share.NewToken()

		oneNotFound := a.Do(t, "GET", "/api/toolkit/assets/"+uuid.NewString()+"/file", owner.Session(), nil)
		if oneNotFound.Status != 404 {
			t.Fatalf("the API's 404: %d", oneNotFound.Status)
		}
		type try struct{ name, token, i string }
		tries := []try{
			{"never existed", never, "0"},
			{"malformed", "nope", "0"},
			{"one short", open.Token[:42], "0"},
			{"one long", open.Token + "A", "0"},
			{"padded", open.Token[:42] + "=", "0"},
			{"a share id", open.ID, "0"},
			{"revoked", revoked.Token, "0"},
			{"expired", expired.Token, "0"},
		}
		frameTries := []try{
			{"past the end", open.Token, "2"},
			{"negative", open.Token, "-1"},
			{"not a number", open.Token, "x"},
			{"huge", open.Token, "99999999999999999999"},
			{"removed frame", removed.Token, "1"},
			{"another link's end", foreign.Token, "1"},
			{"a flag given twice", open.Token, "0?thumb=1&thumb=1"},
		}
		creds := []apptest.Cred{apptest.Anonymous, owner.Session(), a.Key(t, owner, "member")}
		for _, rt := range a.Server.Routes() {
			if rt.Class != httpapi.Reviewer {
				continue
			}
			t.Run(rt.Pattern(), func(t *testing.T) {
				all := tries
				if strings.Contains(rt.Path, "{i}") || strings.HasSuffix(rt.Path, "/mark") {
					all = append(all, frameTries...)
				}
				for n, tr := range all {
					path := strings.Replace(strings.Replace(rt.Path, "{token}", tr.token, 1), "{i}", tr.i, 1)
					var body any
					if strings.HasSuffix(rt.Path, "/mark") {
						body = `{"i":` + tr.i + `,"verdict":"keep"}`
						if tr.i == "x" || tr.name == "huge" || strings.Contains(tr.i, "?") {
							continue // not JSON, or not an int: BAD_JSON and BAD_BODY, by the body tests
						}
					}
					res := a.Do(t, rt.Method, path, creds[n%len(creds)], body)
					if res.Status != 404 || !bytes.Equal(res.Body, oneNotFound.Body) ||
						res.Header.Get("Content-Type") != oneNotFound.Header.Get("Content-Type") {
						t.Errorf("%s: %d %s; want the one 404 %s", tr.name, res.Status, res.Body, oneNotFound.Body)
					}
				}
				// The same routes still answer for the open link and the
				// foreign house's own link: a token is its own authority.
				for _, tok := range []string{open.Token, foreign.Token} {
					path := strings.Replace(strings.Replace(rt.Path, "{token}", tok, 1), "{i}", "0", 1)
					var body any
					if strings.HasSuffix(rt.Path, "/mark") {
						body = map[string]any{"i": 0, "verdict": "keep"}
					}
					if res := a.Do(t, rt.Method, path, apptest.Anonymous, body); res.Status != 200 {
						t.Errorf("open link: %d %s", res.Status, res.Body)
					}
				}
			})
		}
	})
}

// TestCoverage: a collection's pieces, the frames tied to them through
// grouping, develops and retakes, and their states as reviewers and the
// director answer.
func TestCoverage(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner := a.SignUp(t, "director")
		k := a.Key(t, owner, "member")
		folder := folderID(t, a, owner)
		coat := upload(t, a, k, jpegOf(t, 64, 48), "kind", "clothes", "name", "Coat", "folderId", folder).ID
		dress := upload(t, a, k, jpegOf(t, 64, 48), "kind", "clothes", "name", "Dress", "folderId", folder).ID
		upload(t, a, k, jpegOf(t, 64, 48), "kind", "model", "name", "Ada", "folderId", folder) // not a piece
		bag := upload(t, a, k, jpegOf(t, 64, 48), "kind", "accessory", "name", "Bag", "folderId", folder).ID
		// Frames are the pieces' own images and: the coat's shot, an upload grouped with it.
		shot := upload(t, a, k, jpegOf(t, 80, 60), "name", "Coat on set").ID
		a.Do(t, "POST", "/api/toolkit/assets/group", k, map[string]any{"assetIds": []string{coat, shot}})
		// The dress's frames: an upscale of it, and a retake of that develop
		// on other inputs (tied through retryOfJobId).
		before := map[string]bool{}
		for _, x := range listAssets(t, a, k, "") {
			before[x.ID] = true
		}
		j1 := submitJob(t, a, k, "upscale")
		j2 := submitJob(t, a, k, "upscale")
		var inputs []string
		for _, x := range listAssets(t, a, k, "") {
			if !before[x.ID] {
				inputs = append(inputs, x.ID)
			}
		}
		if len(inputs) != 1 { // the second submit reuses the first's input: the same bytes
			t.Fatalf("submit inputs %v", inputs)
		}
		ctx := context.Background()
		// j1 took the dress; j2 retakes j1.
		if _, err := a.DB.RawExec(ctx, `UPDATE jobs SET inputs = ? WHERE id = ?`, `[{"role":"image","assetId":"`+dress+`"}]`, j1); err != nil {
			t.Fatal(err)
		}
		if _, err := a.DB.RawExec(ctx, `UPDATE jobs SET retry_of_job_id = ? WHERE id = ?`, j1, j2); err != nil {
			t.Fatal(err)
		}
		develop(t, a)
		var jobs JobsResult
		a.Do(t, "GET", "/api/toolkit/jobs?since=0", k, nil).JSON(t, &jobs)
		results := map[string]string{}
		for _, j := range jobs.Jobs {
			results[j.ID] = j.ResultAssetID
		}
		r1, r2 := results[j1], results[j2]
		if r1 == "" || r2 == "" {
			t.Fatalf("results %v", results)
		}

		cover := func() map[string]share.PieceState {
			t.Helper()
			res := a.Do(t, "GET", "/api/toolkit/folders/"+folder+"/coverage", k, nil)
			if res.Status != 200 {
				t.Fatalf("coverage: %d %s", res.Status, res.Body)
			}
			var c share.Coverage
			res.JSON(t, &c)
			if c.Pieces != 3 || c.Covered+c.Missing != 3 || len(c.States) != 3 || c.States[0].AssetID != bag {
				t.Fatalf("coverage %+v", c)
			}
			out := map[string]share.PieceState{}
			for _, s := range c.States {
				out[s.Name] = s
			}
			return out
		}
		got := cover()
		if got["Coat"].State != "not-sent" || got["Coat"].Frames != 2 || got["Dress"].Frames != 3 || got["Bag"].Frames != 1 {
			t.Fatalf("before sharing: %+v", got)
		}
		c := mintShare(t, a, k, map[string]any{"assetIds": []string{shot, r1, r2}}, http.StatusOK)
		if got = cover(); got["Coat"].State != "awaiting" || got["Dress"].State != "awaiting" || got["Bag"].State != "not-sent" {
			t.Fatalf("sent: %+v", got)
		}
		markFrame(t, a, c.Token, map[string]any{"i": 1, "verdict": "pass"})
		markFrame(t, a, c.Token, map[string]any{"i": 2, "verdict": "pass"})
		markFrame(t, a, c.Token, map[string]any{"i": 0, "verdict": "keep"})
		if got = cover(); got["Dress"].State != "changes-asked" || got["Dress"].Passed != 2 || got["Coat"].State != "awaiting" {
			t.Fatalf("answered: %+v", got)
		}
		a.Do(t, "PATCH", "/api/toolkit/assets/batch", k, map[string]any{"assetIds": []string{shot}, "approved": true})
		if got = cover(); got["Coat"].State != "covered" || got["Coat"].Approved != 1 {
			t.Fatalf("approved: %+v", got)
		}
		res := a.Do(t, "GET", "/api/toolkit/folders/"+folder+"/coverage", k, nil).Map(t)
		if res["covered"] != 1.0 || res["missing"] != 2.0 {
			t.Errorf("counts %v", res)
		}
	})
}

// TestReviewerPageServed: GET /s is the page, with its own script and
// style, a CSP allowing only this origin, and nothing from elsewhere.
func TestReviewerPageServed(t *testing.T) {
	a := apptest.New(t, apptest.SQLite(t))
	page := a.Do(t, "GET", "/s", apptest.Anonymous, nil)
	if page.Status != 200 || page.Header.Get("Content-Type") != "text/html; charset=utf-8" ||
		!strings.Contains(page.Header.Get("Content-Security-Policy"), "script-src 'self'") ||
		page.Header.Get("Referrer-Policy") != "no-referrer" {
		t.Fatalf("GET /s: %d %v", page.Status, page.Header)
	}
	// The page's own files are not API operations: read them plainly.
	get := func(path string) (int, http.Header, []byte) {
		res, err := http.Get(a.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, res.Header, b
	}
	for _, f := range []string{"/s/app.js", "/s/app.css"} {
		if !bytes.Contains(page.Body, []byte(`"`+f+`"`)) {
			t.Errorf("the page does not load %s", f)
		}
		status, h, body := get(f)
		if status != 200 || h.Get("X-Content-Type-Options") != "nosniff" || len(body) < 1000 {
			t.Errorf("GET %s: %d", f, status)
		}
		for _, other := range []string{"http://", "https://", "//cdn"} {
			if bytes.Contains(body, []byte(other)) || bytes.Contains(page.Body, []byte(other)) {
				t.Errorf("%s names another origin (%s)", f, other)
			}
		}
	}
	for _, p := range []string{"/s/nope.js", "/s/index.html", "/s/a/b"} {
		if status, _, _ := get(p); status != 404 {
			t.Errorf("GET %s: %d", p, status)
		}
	}
}
