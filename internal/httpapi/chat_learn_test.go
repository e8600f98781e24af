package httpapi_test

import (
	"strings"
	"testing"

	"studio/internal/ai/aitest"
	"studio/internal/app"
	"studio/internal/apptest"
	"studio/internal/auth"
)

type learnedMemory struct {
	ID, Scope, MemoryClass, Kind, Statement, Status string
	SupersedesID                                    *string
	EvidenceCount                                   int
	Confidence                                      float64
}

// memoriesOf reads the caller's memory list, by statement.
func memoriesOf(t testing.TB, a *apptest.App, c apptest.Cred) map[string]learnedMemory {
	t.Helper()
	var list struct{ Memories []learnedMemory }
	res := a.Do(t, "GET", "/api/account/memory", c, nil)
	if res.Status != 200 {
		t.Fatalf("memories: %d %s", res.Status, res.Body)
	}
	res.JSON(t, &list)
	out := map[string]learnedMemory{}
	for _, m := range list.Memories {
		out[m.Statement] = m
	}
	return out
}

// TestChatLearns: memory that learns (issue 15). The same choice applied by
// a person's distinct chat turns becomes a personal candidate memory of
// kind observed, listed but never retrieved, active at the third turn and
// then carried into the next turn's request; a retired candidate is not
// learned again, a retried turn is no evidence, a colleague never sees it,
// and a newer habit in the same slot supersedes the older.
func TestChatLearns(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		model := aitest.New(t)
		a := apptest.New(t, e, func(c *app.Config) { c.AIBaseURL, c.AIAPIKey, c.AIModel = model.URL, "sk-test", "studio-chat" })
		owner := a.SignUp(t, "owner")
		s := owner.Session()
		colleague := inHouse(t, a, seated(t, a, owner.HouseID, auth.Member), owner.HouseID)

		editorial := `{"aesthetic":"editorial"}`
		white := `{"preset":"studio-white","assetId":null}`
		// turn runs one chat turn whose answer calls the tools given and
		// returns the system prompt the endpoint heard.
		turn := func(c apptest.Cred, id string, persisted bool, calls ...aitest.ToolCall) string {
			t.Helper()
			model.Answer(aitest.Answer{ToolCalls: calls, Content: "Done."})
			res := a.Do(t, "POST", "/api/chat", c, map[string]any{"message": "As before, please.", "turnId": id})
			if res.Status != 200 || res.Map(t)["persisted"] != persisted {
				t.Fatalf("turn %s: %d %s; want persisted %v", id, res.Status, res.Body, persisted)
			}
			chats := model.Chats()
			return chats[len(chats)-1].Messages[0].Text()
		}
		set := func(op, args string) aitest.ToolCall { return aitest.ToolCall{Name: op, Arguments: args} }
		const (
			prefersEditorial = "Prefers the editorial aesthetic."
			prefersWhite     = "Prefers the studio white background (preset studio-white)."
			prefersRomantic  = "Prefers the romantic aesthetic."
		)

		// Turn 1: two choices, two candidates; a rename and a model are not learned.
		turn(s, "learn-1", true, set("set-aesthetic", editorial), set("set-background", white), set("rename", `{"name":"Spring"}`))
		mine := memoriesOf(t, a, s)
		if len(mine) != 2 {
			t.Fatalf("memories after one turn = %+v; want two candidates", mine)
		}
		for _, st := range []string{prefersEditorial, prefersWhite} {
			m := mine[st]
			if m.Status != "candidate" || m.Kind != "observed" || m.Scope != "user" || m.MemoryClass != "preference" || m.EvidenceCount != 1 || m.Confidence != 0.5 {
				t.Errorf("%q = %+v; want a user candidate, observed, one evidence, confidence 0.5", st, m)
			}
		}
		if theirs := memoriesOf(t, a, colleague); len(theirs) != 0 {
			t.Errorf("a colleague sees %+v; a person's observations are their own", theirs)
		}
		// Retiring a candidate: it is never learned again.
		if res := a.Do(t, "DELETE", "/api/account/memory/"+mine[prefersWhite].ID, s, nil); res.Status != 200 || !strings.Contains(string(res.Body), `"retired"`) {
			t.Fatalf("retire a candidate: %d %s", res.Status, res.Body)
		}
		if res := a.Do(t, "DELETE", "/api/account/memory/"+mine[prefersEditorial].ID, colleague, nil); res.Status != 404 {
			t.Errorf("a colleague retires another's candidate: %d %s; want 404", res.Status, res.Body)
		}

		// Turn 2: a candidate is not retrieved.
		system := turn(s, "learn-2", true, set("set-aesthetic", editorial), set("set-background", white))
		if strings.Contains(system, prefersEditorial) || strings.Contains(system, "studio white background") {
			t.Errorf("a candidate reached the request:\n%s", system)
		}
		// The same turn retried (its id is taken): answered, no evidence.
		turn(s, "learn-2", false, set("set-aesthetic", editorial))
		mine = memoriesOf(t, a, s)
		if m := mine[prefersEditorial]; m.Status != "candidate" || m.EvidenceCount != 2 {
			t.Errorf("after two turns and a retry: %+v; want a candidate with 2 evidence", m)
		}
		if m := mine[prefersWhite]; m.Status != "retired" || m.EvidenceCount != 1 {
			t.Errorf("the retired candidate = %+v; want retired with 1 evidence", m)
		}

		// Turn 3 promotes it; the turn after carries it to the endpoint.
		system = turn(s, "learn-3", true, set("set-aesthetic", editorial))
		if strings.Contains(system, prefersEditorial) {
			t.Errorf("the promoting turn's own request already carried it:\n%s", system)
		}
		m := memoriesOf(t, a, s)[prefersEditorial]
		if m.Status != "active" || m.EvidenceCount != 3 || m.Confidence != 0.75 || m.Kind != "observed" {
			t.Fatalf("after three turns: %+v; want active, 3 evidence, confidence 0.75", m)
		}
		editorialID := m.ID
		system = turn(s, "learn-4", true)
		if !strings.Contains(system, "- (user, preference, observed in 3 turns) "+prefersEditorial) {
			t.Errorf("the next turn's request lacks the promoted memory:\n%s", system)
		}
		if system = turn(colleague, "learn-colleague", true); strings.Contains(system, prefersEditorial) {
			t.Errorf("a colleague's turn carried another person's observation:\n%s", system)
		}

		// A newer habit in the same slot supersedes the older once promoted.
		for i := range 3 {
			turn(s, "learn-romantic-"+string(rune('a'+i)), true, set("set-aesthetic", `{"aesthetic":"romantic"}`))
		}
		mine = memoriesOf(t, a, s)
		if r := mine[prefersRomantic]; r.Status != "active" || r.SupersedesID == nil || *r.SupersedesID != editorialID {
			t.Errorf("the newer habit = %+v; want active, superseding %s", r, editorialID)
		}
		if old := mine[prefersEditorial]; old.Status != "superseded" {
			t.Errorf("the older habit = %+v; want superseded", old)
		}
		system = turn(s, "learn-5", true, set("set-aesthetic", editorial))
		if !strings.Contains(system, prefersRomantic) || strings.Contains(system, prefersEditorial) {
			t.Errorf("after the newer habit won, the request reads:\n%s", system)
		}
		if old := memoriesOf(t, a, s)[prefersEditorial]; old.Status != "superseded" || old.EvidenceCount != 3 {
			t.Errorf("a superseded habit learned again: %+v", old)
		}
	})
}
