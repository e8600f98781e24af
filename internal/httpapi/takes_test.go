package httpapi_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"studio/internal/apptest"
	"studio/internal/judge"
	"studio/internal/notify"
)

type wireTaken struct {
	Jobs []struct {
		JobID, SourceJobID string
		Tokens             int64
	}
	Offer *struct {
		Text            string
		ScopeTools      []string
		Evidence        []struct{ JobID, Tool, Said, At, Shoot string }
		AlreadyStanding []struct{ ID, Text, ScopePhrase string }
	}
	Replayed bool
}

func TestTakes(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner, other := a.SignUp(t, "owner"), a.SignUp(t, "other")
		k, viewer := a.Key(t, owner, "member"), a.Key(t, owner, "viewer")
		var frames []string
		for range 3 {
			frames = append(frames, developedFrame(t, a, owner, "upscale", map[string]string{"runId": "spring", "direction": "old", "correction": "old"}))
		}
		foreign := developedFrame(t, a, other, "upscale", nil)

		before := houseBalance(t, a, owner.HouseID)
		res := a.Do(t, "POST", "/api/toolkit/takes", k, map[string]any{"jobIds": frames, "direction": "Warmer light.", "idempotencyKey": "take-1"})
		var first wireTaken
		res.JSON(t, &first)
		if res.Status != 202 || len(first.Jobs) != 3 || first.Offer != nil || first.Replayed {
			t.Fatalf("first take: %d %s", res.Status, res.Body)
		}
		if after := houseBalance(t, a, owner.HouseID); after.Held != before.Held+6 {
			t.Errorf("held %d -> %d; want the three frames' 2 tokens each", before.Held, after.Held)
		}
		for i, tj := range first.Jobs {
			j, err := a.DB.Job(context.Background(), owner.HouseID, tj.JobID)
			if err != nil || tj.SourceJobID != frames[i] || tj.Tokens != 2 || j.RetryOfJobID != frames[i] ||
				j.Params["direction"] != "Warmer light." || j.Params["runId"] != "spring" {
				t.Errorf("take job %d: %+v %+v %v", i, tj, j, err)
			}
		}
		replay := a.Do(t, "POST", "/api/toolkit/takes", k, map[string]any{"jobIds": []string{frames[2], frames[0], frames[1]},
			"direction": "Warmer light.", "idempotencyKey": "take-1"})
		var again wireTaken
		replay.JSON(t, &again)
		if replay.Status != 200 || !again.Replayed || again.Jobs[0].JobID != first.Jobs[0].JobID {
			t.Errorf("replay: %d %s", replay.Status, replay.Body)
		}
		if after := houseBalance(t, a, owner.HouseID); after.Held != before.Held+6 {
			t.Errorf("a replay held again: %d", after.Held-before.Held)
		}

		res = a.Do(t, "POST", "/api/toolkit/takes", k, map[string]any{"jobIds": frames, "direction": "  warmer   LIGHT "})
		var second wireTaken
		res.JSON(t, &second)
		if res.Status != 202 || second.Offer == nil {
			t.Fatalf("second take with the same direction: %d %s; want an offer", res.Status, res.Body)
		}
		o := second.Offer
		if o.Text != "warmer LIGHT" || !slices.Equal(o.ScopeTools, []string{"upscale"}) || len(o.Evidence) != 6 || len(o.AlreadyStanding) != 0 {
			t.Errorf("offer: %+v", o)
		}
		for _, ev := range o.Evidence {
			if ev.Tool != "upscale" || ev.Shoot != "run.spring" || ev.At == "" || !strings.Contains(strings.ToLower(ev.Said), "warmer") {
				t.Errorf("evidence %+v", ev)
			}
		}
		// A note standing elsewhere is listed; the same note standing over the scope ends the offers.
		a.Do(t, "POST", "/api/toolkit/standing-notes", k, map[string]any{"text": "Keep the collar crisp.", "scopeTools": []string{"upscale", "packshot"}})
		res = a.Do(t, "POST", "/api/toolkit/takes", k, map[string]any{"jobIds": frames[:1], "direction": "Warmer light"})
		var third wireTaken
		res.JSON(t, &third)
		if third.Offer == nil || len(third.Offer.AlreadyStanding) != 1 || third.Offer.AlreadyStanding[0].ScopePhrase != "packshot and upscale develops" {
			t.Errorf("third offer: %s", res.Body)
		}
		ids := []string{}
		for _, ev := range third.Offer.Evidence {
			ids = append(ids, ev.JobID)
		}
		if res := a.Do(t, "POST", "/api/toolkit/standing-notes", k, map[string]any{"text": third.Offer.Text, "evidenceJobIds": ids}); res.Status != 201 {
			t.Fatalf("accept the offer: %d %s", res.Status, res.Body)
		}
		res = a.Do(t, "POST", "/api/toolkit/takes", k, map[string]any{"jobIds": frames[:1], "direction": "warmer light!"})
		if res.Status != 202 || strings.Contains(string(res.Body), "offer") {
			t.Errorf("a direction standing as a note is not offered again: %d %s", res.Status, res.Body)
		}

		tests := []struct {
			name   string
			cred   apptest.Cred
			body   map[string]any
			status int
			code   string
		}{
			{"jobIds required", k, map[string]any{"jobIds": []string{}}, 400, "JOB_IDS_REQUIRED"},
			{"blank ids", k, map[string]any{"jobIds": []string{" ", ""}}, 400, "JOB_IDS_REQUIRED"},
			{"more than 50", k, map[string]any{"jobIds": fiftyOne()}, 400, "BAD_BODY"},
			{"a direction over 500 characters", k, map[string]any{"jobIds": frames, "direction": strings.Repeat("a", 501)}, 400, "BAD_BODY"},
			{"a key over 200 characters", k, map[string]any{"jobIds": frames, "idempotencyKey": strings.Repeat("k", 201)}, 400, "BAD_IDEMPOTENCY_KEY"},
			{"viewer may not spend", viewer, map[string]any{"jobIds": frames}, 403, "FORBIDDEN"},
			{"a foreign frame in the set", k, map[string]any{"jobIds": []string{frames[0], foreign}}, 404, "NOT_FOUND"},
			{"a frame not developed", k, map[string]any{"jobIds": []string{frames[0], submitJob(t, a, k, "upscale")}}, 409, "NOT_DEVELOPED"},
			{"the key for another set", k, map[string]any{"jobIds": frames[:2], "direction": "Warmer light.", "idempotencyKey": "take-1"}, 409, "IDEMPOTENCY_KEY_REUSED"},
			// The local engine follows only its vocabulary (DECISIONS §11).
			{"a direction the engine cannot follow", k, map[string]any{"jobIds": frames, "direction": "Keep the collar crisp."}, 422, "DIRECTION_UNSUPPORTED"},
			{"one word outside the vocabulary", k, map[string]any{"jobIds": frames, "direction": "warmer and show the label"}, 422, "DIRECTION_UNSUPPORTED"},
			{"a tool no engine performs", k, map[string]any{"jobIds": []string{frames[0], doneJob(t, a, owner, "generate-character", nil)}}, 422, "UNKNOWN_TOOL"},
			{"an option its tool does not admit", k, map[string]any{"jobIds": []string{frames[0],
				developedFrame(t, a, owner, "color-change", map[string]string{"color": "blue"})}}, 400, "BAD_OPTION"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				before := houseBalance(t, a, owner.HouseID)
				if res := a.Do(t, "POST", "/api/toolkit/takes", tt.cred, tt.body); res.Status != tt.status || res.Code != tt.code {
					t.Errorf("got %d %s; want %d %s", res.Status, res.Body, tt.status, tt.code)
				}
				if after := houseBalance(t, a, owner.HouseID); after.Held != before.Held {
					t.Errorf("a refused take held %d", after.Held-before.Held)
				}
			})
		}

		t.Run("the refusal names what the engine follows", func(t *testing.T) {
			m := a.Do(t, "POST", "/api/toolkit/takes", k, map[string]any{"jobIds": frames[:1], "direction": "golden hour"}).Map(t)
			legal, _ := m["legal"].([]any)
			if msg, _ := m["message"].(string); !slices.Contains(legal, any("warmer")) || !slices.Contains(legal, any("tighter crop")) || !strings.Contains(msg, "warmer") {
				t.Errorf("refusal %v; want legal and a message naming the vocabulary", m)
			}
		})

		t.Run("inputs gone", func(t *testing.T) {
			gone := developedFrame(t, a, owner, "upscale", nil)
			j, _ := a.DB.Job(context.Background(), owner.HouseID, gone)
			a.Do(t, "POST", "/api/toolkit/assets/batch/delete", k, map[string]any{"assetIds": []string{j.Inputs[0].AssetID}})
			if res := a.Do(t, "POST", "/api/toolkit/takes", k, map[string]any{"jobIds": []string{frames[0], gone}}); res.Status != 422 || res.Code != "NO_INPUTS" {
				t.Errorf("got %d %s; want 422 NO_INPUTS", res.Status, res.Body)
			}
		})

		t.Run("402 leaves zero holds", func(t *testing.T) {
			poor := a.SignUp(t, "poor")
			pk := a.Key(t, poor, "member")
			var set []string
			for range 3 {
				set = append(set, developedFrame(t, a, poor, "upscale", nil)) // 2 tokens each
			}
			for houseBalance(t, a, poor.HouseID).Balance >= 6 { // queued packshots hold the rest
				submitWith(t, a, pk, "packshot", jpegOf(t, 96, 64), "quality", "4k")
			}
			before := houseBalance(t, a, poor.HouseID)
			res := a.Do(t, "POST", "/api/toolkit/takes", pk, map[string]any{"jobIds": set})
			if res.Status != 402 || res.Code != "INSUFFICIENT_TOKENS" || res.Map(t)["need"] != float64(6) {
				t.Fatalf("a take past the balance: %d %s", res.Status, res.Body)
			}
			after := houseBalance(t, a, poor.HouseID)
			if after.Held != before.Held || len(after.Holds) != len(before.Holds) || after.Balance != before.Balance {
				t.Errorf("a refused take left holds: %+v -> %+v", before, after)
			}
		})

		t.Run("SUBMIT_FAILED charges nothing", func(t *testing.T) {
			before := houseBalance(t, a, owner.HouseID)
			if _, err := a.DB.RawExec(context.Background(), `DROP TABLE directions`); err != nil {
				t.Fatal(err)
			}
			res := a.Do(t, "POST", "/api/toolkit/takes", k, map[string]any{"jobIds": frames, "direction": "Softer shadow."})
			if res.Status != 500 || res.Code != "SUBMIT_FAILED" {
				t.Errorf("got %d %s; want 500 SUBMIT_FAILED", res.Status, res.Body)
			}
			if after := houseBalance(t, a, owner.HouseID); after.Held != before.Held || len(after.Holds) != len(before.Holds) {
				t.Errorf("a failed take left holds: %+v -> %+v", before, after)
			}
		})
	})
}

func fiftyOne() []string {
	out := make([]string, 51)
	for i := range out {
		out[i] = uuid.NewString()
	}
	return out
}

type wireStanding struct {
	ID             string
	Text           string
	ScopeTools     []string
	ScopePhrase    string
	EvidenceJobIDs []string
	ActiveFrom     string
	RetiredAt      *string
}

func TestStandingNotes(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner, other := a.SignUp(t, "owner"), a.SignUp(t, "other")
		k, viewer := a.Key(t, owner, "member"), a.Key(t, owner, "viewer")
		var list struct{ Notes []wireStanding }
		if a.Do(t, "GET", "/api/toolkit/standing-notes", viewer, nil).JSON(t, &list); len(list.Notes) != 0 {
			t.Fatalf("notes of a new house: %+v", list.Notes)
		}
		note := func(c apptest.Cred, body map[string]any, status int) wireStanding {
			t.Helper()
			res := a.Do(t, "POST", "/api/toolkit/standing-notes", c, body)
			if res.Status != status {
				t.Fatalf("note %v: %d %s; want %d", body, res.Status, res.Body, status)
			}
			var out struct{ Note wireStanding }
			res.JSON(t, &out)
			return out.Note
		}
		collar := note(k, map[string]any{"text": "Keep the collar crisp.", "scopeTools": []string{"upscale", "packshot", "upscale"}}, 201)
		if !slices.Equal(collar.ScopeTools, []string{"packshot", "upscale"}) || collar.ScopePhrase != "packshot and upscale develops" || collar.RetiredAt != nil {
			t.Errorf("note: %+v", collar)
		}
		if same := note(k, map[string]any{"text": "keep the  collar crisp", "scopeTools": []string{"packshot", "upscale"}}, 200); same.ID != collar.ID {
			t.Errorf("the same sentence on the same scope: %+v; want the note standing", same)
		}
		global := note(k, map[string]any{"text": "No visible labels."}, 201)
		if len(global.ScopeTools) != 0 || global.ScopePhrase != "every develop" {
			t.Errorf("global note: %+v", global)
		}
		frame := developedFrame(t, a, owner, "upscale", nil)
		derived := note(k, map[string]any{"text": "Matte finish.", "scopeTools": []string{"packshot"}, "evidenceJobIds": []string{frame, frame}}, 201)
		if !slices.Equal(derived.ScopeTools, []string{"upscale"}) || !slices.Equal(derived.EvidenceJobIDs, []string{frame}) {
			t.Errorf("a note from evidence takes its frames' tools: %+v", derived)
		}
		for _, tc := range []struct {
			name   string
			cred   apptest.Cred
			body   map[string]any
			status int
			code   string
		}{
			{"text required", k, map[string]any{"text": "   "}, 400, "TEXT_REQUIRED"},
			{"text too long", k, map[string]any{"text": strings.Repeat("a", 501)}, 400, "BAD_BODY"},
			{"a tool that does not exist", k, map[string]any{"text": "x", "scopeTools": []string{"levitate"}}, 400, "UNKNOWN_TOOL"},
			{"foreign evidence", k, map[string]any{"text": "x", "evidenceJobIds": []string{developedFrame(t, a, other, "upscale", nil)}}, 400, "BAD_EVIDENCE"},
			{"viewer may not set notes", viewer, map[string]any{"text": "x"}, 403, "FORBIDDEN"},
		} {
			if res := a.Do(t, "POST", "/api/toolkit/standing-notes", tc.cred, tc.body); res.Status != tc.status || res.Code != tc.code {
				t.Errorf("%s: %d %s; want %d %s", tc.name, res.Status, res.Body, tc.status, tc.code)
			}
		}

		patch := func(c apptest.Cred, id string, body map[string]any) apptest.Resp {
			return a.Do(t, "PATCH", "/api/toolkit/standing-notes/"+id, c, body)
		}
		for _, tc := range []struct {
			name   string
			cred   apptest.Cred
			id     string
			body   map[string]any
			status int
			code   string
		}{
			{"nothing to change", k, collar.ID, map[string]any{}, 400, "NOTHING_TO_CHANGE"},
			{"retire false changes nothing", k, collar.ID, map[string]any{"retire": false}, 400, "NOTHING_TO_CHANGE"},
			{"the same scope changes nothing", k, collar.ID, map[string]any{"scopeTools": []string{"upscale", "packshot"}}, 400, "NOTHING_TO_CHANGE"},
			{"widening", k, collar.ID, map[string]any{"scopeTools": []string{"packshot", "iron"}}, 400, "SCOPE_WIDENING"},
			{"making it global", k, collar.ID, map[string]any{"scopeTools": []string{}}, 400, "SCOPE_WIDENING"},
			{"a tool that does not exist", k, collar.ID, map[string]any{"scopeTools": []string{"levitate"}}, 400, "UNKNOWN_TOOL"},
			{"viewer may not patch", viewer, collar.ID, map[string]any{"retire": true}, 403, "FORBIDDEN"},
			{"foreign note", a.Key(t, other, "member"), collar.ID, map[string]any{"retire": true}, 404, "NOT_FOUND"},
		} {
			if res := patch(tc.cred, tc.id, tc.body); res.Status != tc.status || res.Code != tc.code {
				t.Errorf("%s: %d %s; want %d %s", tc.name, res.Status, res.Body, tc.status, tc.code)
			}
		}
		var out struct{ Note wireStanding }
		if res := patch(k, collar.ID, map[string]any{"scopeTools": []string{"packshot"}}); res.Status != 200 {
			t.Fatalf("narrow: %d %s", res.Status, res.Body)
		} else if res.JSON(t, &out); !slices.Equal(out.Note.ScopeTools, []string{"packshot"}) || out.Note.ScopePhrase != "packshot develops" {
			t.Errorf("narrowed: %+v", out.Note)
		}
		if res := patch(k, global.ID, map[string]any{"scopeTools": []string{"upscale"}}); res.Status != 200 {
			t.Errorf("narrowing a global note: %d %s", res.Status, res.Body)
		}

		// What rides with a develop: the notes in force whose scope covers its tool.
		id := submitWith(t, a, k, "upscale", jpegOf(t, 96, 64), "prompt", "Studio light.")
		developAll(t, a)
		d, _, _ := a.DB.JobDirection(context.Background(), owner.HouseID, id)
		if d.Prompt != "No visible labels.\nMatte finish.\nStudio light." {
			t.Errorf("recorded prompt %q; want the notes in force over upscale, oldest first, then the frame's own words", d.Prompt)
		}
		if res := patch(k, global.ID, map[string]any{"retire": true}); res.Status != 200 || !strings.Contains(string(res.Body), `"retiredAt":"`) {
			t.Fatalf("retire: %d %s", res.Status, res.Body)
		}
		if res := patch(k, global.ID, map[string]any{"retire": true}); res.Status != 400 || res.Code != "NOTHING_TO_CHANGE" {
			t.Errorf("retire twice: %d %s", res.Status, res.Body)
		}
		id = submitWith(t, a, k, "upscale", jpegOf(t, 96, 64))
		developAll(t, a)
		if d, _, _ := a.DB.JobDirection(context.Background(), owner.HouseID, id); d.Prompt != "Matte finish." {
			t.Errorf("after retiring: %q", d.Prompt)
		}
		a.Do(t, "GET", "/api/toolkit/standing-notes", viewer, nil).JSON(t, &list)
		if len(list.Notes) != 3 || list.Notes[0].ID != derived.ID || list.Notes[2].ID != collar.ID || list.Notes[1].RetiredAt == nil {
			t.Errorf("list: %+v; want newest first, the retired one included", list.Notes)
		}
	})
}

type wireOpinion struct {
	Surface, Moment, Subject, Href string
	Frames                         []struct {
		JobID      string
		Ordinal    int
		Code       *string
		Where      *string
		Confidence *string
		Unreadable bool
	}
	TokensReleased int64
	PatternCode    *string
	PatternWhere   *string
	PatternRuns    int
	FloorCode      *string
	FloorWhere     *string
	Cost           int64
}

// opinions lists the caller's develop.opinion notifications, newest first.
func opinions(t *testing.T, a *apptest.App, c apptest.Cred) []string {
	t.Helper()
	var page struct {
		Notifications []struct{ ID, Kind, SubjectType, SubjectID string }
	}
	a.Do(t, "GET", "/api/notifications", c, nil).JSON(t, &page)
	var out []string
	for _, n := range page.Notifications {
		if n.Kind == "develop.opinion" {
			if n.SubjectType != "run" || !strings.HasPrefix(n.SubjectID, "run.") {
				t.Errorf("opinion about %s %s", n.SubjectType, n.SubjectID)
			}
			out = append(out, n.ID)
		}
	}
	return out
}

func TestOpinion(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner := a.SignUp(t, "owner")
		k := a.Key(t, owner, "member")
		tiny := garmentPNG(t, 64)
		submitWith(t, a, k, "upscale", jpegOf(t, 96, 64), "runId", "unflagged") // soft, 80: shown, not flagged
		developAll(t, a)
		if got := opinions(t, a, k); len(got) != 0 {
			t.Fatalf("a run without a flagged frame raised %d opinions", len(got))
		}
		var first []string
		for range 2 {
			first = append(first, submitWith(t, a, k, "packshot", tiny, "runId", "spring"))
		}
		developAll(t, a)
		got := opinions(t, a, k)
		if len(got) != 1 {
			t.Fatalf("opinions after a flagged run: %d; want one", len(got))
		}
		var o wireOpinion
		res := a.Do(t, "GET", "/api/notifications/"+got[0]+"/opinion", k, nil)
		res.JSON(t, &o)
		if res.Status != 200 || o.Surface != "bar" || o.Moment != "ranking" || o.Subject != "Packshot · 2 frames" || o.Cost != 8 ||
			o.TokensReleased != 0 || o.PatternCode != nil || o.PatternRuns != 0 || o.FloorCode == nil || *o.FloorCode != "background-bleed" ||
			o.FloorWhere == nil || o.Href != "/api/toolkit/judge/verdicts?jobIds="+strings.Join(first, ",") || len(o.Frames) != 6 {
			t.Fatalf("opinion: %d %s", res.Status, res.Body)
		}
		for i, f := range o.Frames {
			if f.JobID != first[i/3] || f.Ordinal != i/3+1 || f.Code == nil || f.Where == nil || f.Confidence == nil || f.Unreadable {
				t.Errorf("frame row %d: %+v", i, f)
			}
		}
		if res := a.Do(t, "GET", "/api/toolkit/judge/verdicts?jobIds="+strings.Join(first, ","), k, nil); !strings.Contains(string(res.Body), first[1]) {
			t.Errorf("the opinion's href: %s", res.Body)
		}

		// A second run with the same defects and a cancelled frame: a pattern, tokens released.
		submitWith(t, a, k, "packshot", tiny, "runId", "summer")
		cancelled := submitWith(t, a, k, "packshot", tiny, "runId", "summer")
		if res := a.Do(t, "POST", "/api/toolkit/jobs/"+cancelled+"/cancel", k, nil); res.Status != 200 {
			t.Fatal(res.Status)
		}
		unreadable := doneJob(t, a, owner, "packshot", nil)
		if _, err := a.DB.RawExec(context.Background(), `UPDATE jobs SET params = ? WHERE id = ?`, `{"runId":"summer"}`, unreadable); err != nil {
			t.Fatal(err)
		}
		writeVerdict(t, a, owner.HouseID, unreadable, judge.Reading{Unreadable: true})
		developAll(t, a)
		got = opinions(t, a, k)
		if len(got) != 2 {
			t.Fatalf("opinions after the second run: %d", len(got))
		}
		res = a.Do(t, "GET", "/api/notifications/"+got[0]+"/opinion", k, nil)
		o = wireOpinion{}
		res.JSON(t, &o)
		if o.PatternCode == nil || *o.PatternCode != "background-bleed" || o.PatternRuns != 2 || o.PatternWhere == nil ||
			o.TokensReleased != 4 || o.Cost != 4+2 || o.Subject != "Packshot · 3 frames" {
			t.Errorf("second opinion: %s", res.Body)
		}
		last := o.Frames[len(o.Frames)-1]
		if !last.Unreadable || last.JobID != unreadable || last.Code != nil || last.Ordinal != 3 {
			t.Errorf("the unreadable frame's row: %+v", last)
		}

		other := notify.New(uuid.Must(uuid.NewV7()).String(), owner.HouseID, "", notify.KindPackReady, "pack", uuid.NewString(), nil, time.Now())
		if _, err := a.DB.RaiseOpinion(context.Background(), owner.HouseID, "run.x", "y", other); err != nil {
			t.Fatal(err)
		}
		for _, id := range []string{other.ID, uuid.NewString()} {
			if res := a.Do(t, "GET", "/api/notifications/"+id+"/opinion", k, nil); res.Status != 404 || res.Code != "NOT_FOUND" {
				t.Errorf("opinion of %s: %d %s", id, res.Status, res.Body)
			}
		}
	})
}
