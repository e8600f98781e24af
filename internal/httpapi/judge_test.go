package httpapi_test

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/disintegration/imaging"
	"github.com/google/uuid"

	"studio/internal/apptest"
	"studio/internal/auth"
	"studio/internal/engine/segment/segtest"
	"studio/internal/job"
	"studio/internal/judge"
	"studio/internal/ledger"
	"studio/internal/notify"
	"studio/internal/ts"
)

// judgeWalk is the judge area's part of the route walk (walk_test.go).
var judgeWalk = walkArea{
	samples: map[string]sampleFunc{
		"POST /api/toolkit/judge/redraw": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/toolkit/judge/redraw", map[string]string{"jobId": mendableFrame(t, a, u)}}
		},
		"GET /api/toolkit/judge/verdicts": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/toolkit/judge/verdicts?jobIds=" + judgedFrame(t, a, u), nil}
		},
		"GET /api/toolkit/judge/verdicts/{jobId}": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/toolkit/judge/verdicts/" + judgedFrame(t, a, u), nil}
		},
		"POST /api/toolkit/judge/verdicts/{jobId}/label": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/toolkit/judge/verdicts/" + judgedFrame(t, a, u) + "/label", map[string]any{"agrees": true, "rating": 4}}
		},
		"POST /api/toolkit/takes": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/toolkit/takes", map[string]any{"jobIds": []string{judgedFrame(t, a, u)}, "direction": "warmer light"}}
		},
		"GET /api/toolkit/standing-notes": static("/api/toolkit/standing-notes", nil),
		"POST /api/toolkit/standing-notes": func(*testing.T, *apptest.App, *apptest.User) request {
			return request{"/api/toolkit/standing-notes", map[string]any{"text": "Keep the collar crisp.", "scopeTools": []string{"packshot"}}}
		},
		"PATCH /api/toolkit/standing-notes/{id}": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/toolkit/standing-notes/" + newNote(t, a, u, "packshot", "upscale"), map[string]any{"scopeTools": []string{"packshot"}}}
		},
		"GET /api/notifications/{id}/opinion": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/notifications/" + opinionNote(t, a, u) + "/opinion", nil}
		},
	},
	minRole: map[string]auth.Role{
		"POST /api/toolkit/judge/redraw":                 auth.Member,
		"POST /api/toolkit/judge/verdicts/{jobId}/label": auth.Member,
		"POST /api/toolkit/takes":                        auth.Member,
		"POST /api/toolkit/standing-notes":               auth.Member,
		"PATCH /api/toolkit/standing-notes/{id}":         auth.Member,
	},
}

// developAll runs the app's workers until the queue is empty, then its
// judge until no frame waits for a verdict.
func developAll(t testing.TB, a *apptest.App) {
	t.Helper()
	for {
		worked, err := a.Pool.One(context.Background(), "test-worker")
		if err != nil {
			t.Fatalf("worker: %v", err)
		}
		if !worked {
			break
		}
	}
	judgeAll(t, a)
}

func judgeAll(t testing.TB, a *apptest.App) {
	t.Helper()
	for {
		worked, err := a.Judge.JudgeNext(context.Background(), "test-judge")
		if err != nil {
			t.Fatalf("judge: %v", err)
		}
		if !worked {
			return
		}
	}
}

var judged = struct {
	sync.Mutex
	m map[string]string
}{m: map[string]string{}}

// judgedFrame is a developed frame of u's house with a clean verdict,
// made once per house. It is written straight into the store, as the
// worker and the judge would leave it: no pixels are rendered (the judge's
// own path is tried by the story, the opinion and the vision tests).
func judgedFrame(t testing.TB, a *apptest.App, u *apptest.User) string {
	t.Helper()
	key := u.HouseID // a UUIDv7: no two apps of the process share one
	judged.Lock()
	defer judged.Unlock()
	if id, ok := judged.m[key]; ok {
		return id
	}
	id := developedFrame(t, a, u, "upscale", nil)
	writeVerdict(t, a, u.HouseID, id, judge.Reading{Judge: "pixels"})
	judged.m[key] = id
	return id
}

// mendableFrame is a developed upscale frame of u's house whose verdict
// has a finding the local engine can mend (a crop cutting the piece, mended
// by a wider crop), so its redraw is accepted (DECISIONS §11); written
// straight into the store, a new one each call.
func mendableFrame(t testing.TB, a *apptest.App, u *apptest.User) string {
	t.Helper()
	id := developedFrame(t, a, u, "upscale", nil)
	writeVerdict(t, a, u.HouseID, id, judge.Reading{Judge: "pixels", Findings: []judge.Finding{
		{Code: judge.CropCut, Where: "the piece touches the left edge", Confidence: judge.Sure}}})
	return id
}

// developedFrame writes a done job of tool on a small uploaded input of
// u's house, with params, straight into the store.
func developedFrame(t testing.TB, a *apptest.App, u *apptest.User, tool string, params map[string]string) string {
	t.Helper()
	in := upload(t, a, u.Session(), jpegOf(t, 96, 64))
	return doneJob(t, a, u, tool, []job.Input{{Role: "image", AssetID: in.ID}}, params)
}

var noteSeq struct {
	sync.Mutex
	n int
}

// newNote sets a fresh standing note in u's house on the tools.
func newNote(t testing.TB, a *apptest.App, u *apptest.User, tools ...string) string {
	t.Helper()
	noteSeq.Lock()
	noteSeq.n++
	n := noteSeq.n
	noteSeq.Unlock()
	res := a.Do(t, "POST", "/api/toolkit/standing-notes", u.Session(), map[string]any{"text": fmt.Sprintf("Note number %d.", n), "scopeTools": tools})
	if res.Status != http.StatusCreated {
		t.Fatalf("note: %d %s", res.Status, res.Body)
	}
	var body struct{ Note struct{ ID string } }
	res.JSON(t, &body)
	return body.Note.ID
}

// opinionNote raises a develop.opinion notification about a judged frame
// of u's house, as the judge does when a run settles flagged.
func opinionNote(t testing.TB, a *apptest.App, u *apptest.User) string {
	t.Helper()
	id := judgedFrame(t, a, u)
	n := notify.New(uuid.Must(uuid.NewV7()).String(), u.HouseID, "", notify.KindDevelopOpinion, "run", "run."+id,
		map[string]any{"runId": "run." + id, "title": "Upscale", "jobIds": []any{id}, "flaggedJobIds": []any{id}}, time.Now())
	if _, err := a.DB.RaiseOpinion(context.Background(), u.HouseID, "run."+id, uuid.NewString(), n); err != nil {
		t.Fatal(err)
	}
	return n.ID
}

// garmentPNG is a navy linen T-shirt on a plain backdrop, w px square:
// the source the judge's thresholds were calibrated on (drawn at 1,000 px,
// or at 256 px for a small one, then resized). Made once per size.
func garmentPNG(t testing.TB, w int) []byte {
	t.Helper()
	garments.Lock()
	defer garments.Unlock()
	if b, ok := garments.m[w]; ok {
		return b
	}
	base := 1000
	if w <= 128 {
		base = 256
	}
	cov := segtest.Coverage(segtest.TShirt, base, base)
	fill := segtest.Fill(color.NRGBA{R: 38, G: 52, B: 96, A: 255}, segtest.Linen(base, base), 0.4, base, base)
	var img image.Image = segtest.Composite(segtest.Plain(base, base), fill, cov, base, base, 0.2, 7)
	if w != base {
		img = imaging.Resize(img, w, w, imaging.Lanczos)
	}
	garments.m[w] = pngBytes(t, img)
	return garments.m[w]
}

var garments = struct {
	sync.Mutex
	m map[int][]byte
}{m: map[int][]byte{}}

type wireVerdict struct {
	JobID         string
	Score         *int
	Unreadable    bool
	Flagged       bool
	ShowScore     bool
	RetryFutile   bool
	RubricVersion int
	Findings      []struct{ Code, Where, Label, Confidence string }
	Answer        *struct {
		Agrees bool
		Note   *string
	}
}

func verdictOf(t testing.TB, a *apptest.App, c apptest.Cred, id string) (wireVerdict, map[string]any) {
	t.Helper()
	res := a.Do(t, "GET", "/api/toolkit/judge/verdicts/"+id, c, nil)
	if res.Status != 200 {
		t.Fatalf("verdict of %s: %d %s", id, res.Status, res.Body)
	}
	var v wireVerdict
	res.JSON(t, &v)
	return v, res.Map(t)
}

// submitWith queues a develop of tool on data with the fields and returns its id.
func submitWith(t testing.TB, a *apptest.App, c apptest.Cred, tool string, data []byte, fields ...string) string {
	t.Helper()
	res := a.Do(t, "POST", "/api/toolkit/jobs/submit", c, submitForm(t, tool, "image", data, fields...))
	if res.Status != http.StatusAccepted {
		t.Fatalf("submit %s: %d %s", tool, res.Status, res.Body)
	}
	return res.Map(t)["jobId"].(string)
}

// writeVerdict stores a verdict for a done job as the judge would.
func writeVerdict(t testing.TB, a *apptest.App, house, id string, r judge.Reading) {
	t.Helper()
	if _, err := a.DB.WriteVerdict(context.Background(), judge.Write(house, id, r, judge.DefaultThreshold, time.Now())); err != nil {
		t.Fatal(err)
	}
}

// doneJob writes a job straight into the store and marks it developed, with
// no frame: for tools no engine performs and frames judged by hand.
func doneJob(t testing.TB, a *apptest.App, u *apptest.User, tool string, inputs []job.Input, params ...map[string]string) string {
	t.Helper()
	p := map[string]string{}
	if len(params) > 0 && params[0] != nil {
		p = params[0]
	}
	if inputs == nil {
		inputs = []job.Input{}
	}
	j := job.Job{ID: uuid.Must(uuid.NewV7()).String(), Tool: tool, Status: job.Queued, HouseID: u.HouseID, UserID: u.ID, Tier: ledger.Tier1K,
		Params: p, Inputs: inputs, Fingerprint: "x", Cost: 2, CreatedAt: nowTS()}
	if _, _, err := a.DB.SubmitJob(context.Background(), j); err != nil {
		t.Fatal(err)
	}
	if _, err := a.DB.RawExec(context.Background(), `UPDATE jobs SET status = 'done' WHERE id = ?`, j.ID); err != nil {
		t.Fatal(err)
	}
	h, err := a.DB.JobHold(context.Background(), u.HouseID, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.DB.PostHold(context.Background(), u.HouseID, h.ID); err != nil { // settled, as a developed frame is
		t.Fatal(err)
	}
	return j.ID
}

func TestVerdictsRead(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner, other := a.SignUp(t, "owner"), a.SignUp(t, "other")
		k := a.Key(t, owner, "member")
		id := judgedFrame(t, a, owner)
		foreign := judgedFrame(t, a, other)
		queued := submitJob(t, a, k, "upscale")

		v, raw := verdictOf(t, a, k, id)
		if v.JobID != id || v.Score == nil || *v.Score != 100 || v.ShowScore || v.Flagged || v.RetryFutile || v.Unreadable ||
			v.RubricVersion != 1 || len(v.Findings) != 0 || v.Answer != nil {
			t.Errorf("a clean frame's verdict: %+v", v)
		}
		for _, never := range []string{"note", "cost", "model", "latencyMs", "answer"} {
			if _, ok := raw[never]; ok {
				t.Errorf("the verdict carries %q on the wire: %v", never, raw)
			}
		}
		if raw["judge"] != "pixels" {
			t.Errorf("the verdict names its judge %v, want pixels (issue 32)", raw["judge"])
		}
		if res := a.Do(t, "GET", "/api/toolkit/judge/verdicts/"+queued, k, nil); res.Status != 404 {
			t.Errorf("a frame without a verdict: %d %s", res.Status, res.Body)
		}

		var body struct{ Verdicts []wireVerdict }
		a.Do(t, "GET", "/api/toolkit/judge/verdicts?jobIds="+strings.Join([]string{queued, foreign, "nope", id, id}, ","), k, nil).JSON(t, &body)
		if len(body.Verdicts) != 1 || body.Verdicts[0].JobID != id {
			t.Errorf("batch: %+v; want only the house's judged frame", body.Verdicts)
		}
		fifty := make([]string, 50)
		for i := range fifty {
			fifty[i] = uuid.NewString()
		}
		a.Do(t, "GET", "/api/toolkit/judge/verdicts?jobIds="+strings.Join(append(fifty, id), ","), k, nil).JSON(t, &body)
		if len(body.Verdicts) != 0 {
			t.Errorf("the 51st id was read: %+v", body.Verdicts)
		}
		for _, q := range []string{"", "?jobIds=", "?jobIds=,%20,"} {
			if res := a.Do(t, "GET", "/api/toolkit/judge/verdicts"+q, k, nil); res.Status != 400 || res.Code != "JOB_IDS_REQUIRED" {
				t.Errorf("%q: %d %s; want 400 JOB_IDS_REQUIRED", q, res.Status, res.Body)
			}
		}
	})
}

func TestVerdictLabel(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner := a.SignUp(t, "owner")
		k, viewer := a.Key(t, owner, "member"), a.Key(t, owner, "viewer")
		id := judgedFrame(t, a, owner)
		path := "/api/toolkit/judge/verdicts/" + id + "/label"
		tests := []struct {
			name   string
			cred   apptest.Cred
			body   any
			status int
			code   string
		}{
			{"viewer may not answer", viewer, map[string]any{"agrees": true}, 403, "FORBIDDEN"},
			{"agrees is required", k, map[string]any{"rating": 3}, 400, "AGREES_REQUIRED"},
			{"agrees null is missing", k, map[string]any{"agrees": nil}, 400, "AGREES_REQUIRED"},
			{"rating 0 is refused", k, map[string]any{"agrees": true, "rating": 0}, 400, "RATING_OUT_OF_RANGE"},
			{"rating 6 is refused, not clamped", k, map[string]any{"agrees": true, "rating": 6}, 400, "RATING_OUT_OF_RANGE"},
			{"no verdict", k, map[string]any{"agrees": true}, 404, "NOT_FOUND"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				p := path
				if tt.status == 404 {
					p = "/api/toolkit/judge/verdicts/" + submitJob(t, a, k, "upscale") + "/label"
				}
				if res := a.Do(t, "POST", p, tt.cred, tt.body); res.Status != tt.status || res.Code != tt.code {
					t.Errorf("got %d %s; want %d %s", res.Status, res.Body, tt.status, tt.code)
				}
			})
		}
		if v, _ := verdictOf(t, a, k, id); v.Answer != nil {
			t.Fatalf("refused answers left an answer: %+v", v.Answer)
		}
		res := a.Do(t, "POST", path, k, map[string]any{"agrees": true, "rating": 5, "note": "   "})
		if m := res.Map(t); res.Status != 200 || m["agrees"] != true || m["rating"] != float64(5) || m["note"] != nil || m["jobId"] != id {
			t.Fatalf("answer: %d %s", res.Status, res.Body)
		}
		v, raw := verdictOf(t, a, k, id)
		if v.Answer == nil || !v.Answer.Agrees || v.Answer.Note != nil || strings.Contains(fmt.Sprint(raw["answer"]), "note") {
			t.Errorf("the answer on the verdict: %v; want {agrees: true} without a note", raw["answer"])
		}
		res = a.Do(t, "POST", path, k, map[string]any{"agrees": false, "note": "  the cuff is cut  "})
		if m := res.Map(t); res.Status != 200 || m["agrees"] != false || m["rating"] != nil || m["note"] != "the cuff is cut" {
			t.Fatalf("second answer: %d %s", res.Status, res.Body)
		}
		if v, _ := verdictOf(t, a, k, id); v.Answer == nil || v.Answer.Agrees || v.Answer.Note == nil || *v.Answer.Note != "the cuff is cut" {
			t.Errorf("the last answer wins: %+v", v.Answer)
		}
	})
}

func pngBytes(t testing.TB, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func nowTS() ts.Time { return ts.Of(time.Now()) }
