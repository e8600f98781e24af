package httpapi_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"studio/internal/ai/aitest"
	"studio/internal/app"
	"studio/internal/apptest"
	"studio/internal/auth"
	"studio/internal/chat"
	"studio/internal/ts"
)

// TestChatTurns: what the assistant's sessions keep and answer at their
// edges: a session answers its newest 200 turns oldest first; a turn whose
// id is taken is answered with persisted false and names a session that
// exists (a retried first turn its own session); warm prepares the catalog
// the next turn reads; a draft of six pieces refuses a seventh.
func TestChatTurns(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		model := aitest.New(t)
		a := apptest.New(t, e, func(c *app.Config) { c.AIBaseURL, c.AIAPIKey, c.AIModel = model.URL, "sk-test", "studio-chat" })
		owner := a.SignUp(t, "owner")
		s := owner.Session()
		colleague := inHouse(t, a, seated(t, a, owner.HouseID, auth.Member), owner.HouseID)
		ctx := context.Background()

		type turnsBody struct {
			Turns []struct{ ID, Message string }
		}
		turnsOf := func(c apptest.Cred, session string) turnsBody {
			t.Helper()
			res := a.Do(t, "GET", "/api/chat/sessions/"+session+"/turns", c, nil)
			if res.Status != 200 {
				t.Fatalf("turns of %s: %d %s", session, res.Status, res.Body)
			}
			var out turnsBody
			res.JSON(t, &out)
			return out
		}
		type replyBody struct {
			Text, TurnID, SessionID string
			Persisted               bool
		}
		talk := func(c apptest.Cred, body map[string]any) replyBody {
			t.Helper()
			model.Answer(aitest.Answer{Content: "Noted."})
			res := a.Do(t, "POST", "/api/chat", c, body)
			if res.Status != 200 {
				t.Fatalf("chat %v: %d %s", body, res.Status, res.Body)
			}
			var out replyBody
			res.JSON(t, &out)
			return out
		}

		t.Run("at most 200 turns, the newest, oldest first", func(t *testing.T) {
			session := chatSession(t, a, s, "Long")
			start := time.Now().Add(-time.Hour)
			for i := range 205 {
				turn := chat.Turn{ID: fmt.Sprintf("long-%03d", i), Message: fmt.Sprintf("message %03d", i), Text: "ok",
					Applied: []chat.Applied{}, CreatedAt: ts.Of(start.Add(time.Duration(i) * time.Second))}
				if _, kept, err := a.DB.AppendChatTurn(ctx, owner.HouseID, owner.ID, chat.Session{ID: session}, false, turn); err != nil || !kept {
					t.Fatalf("turn %d: kept %v, %v", i, kept, err)
				}
			}
			got := turnsOf(s, session).Turns
			if len(got) != 200 || got[0].ID != "long-005" || got[199].ID != "long-204" {
				t.Fatalf("%d turns, %s..%s; want 200, long-005..long-204", len(got), got[0].ID, got[len(got)-1].ID)
			}
			for i := 1; i < len(got); i++ {
				if got[i-1].ID >= got[i].ID {
					t.Fatalf("turn %d (%s) after %s: not oldest first", i, got[i].ID, got[i-1].ID)
				}
			}
		})

		t.Run("a taken turn id is answered, not kept", func(t *testing.T) {
			first := talk(s, map[string]any{"message": "First words.", "turnId": "edge-1"})
			if !first.Persisted {
				t.Fatalf("first = %+v", first)
			}
			// The same turn again in its session: answered, the session keeps one.
			again := talk(s, map[string]any{"message": "First words.", "turnId": "edge-1", "sessionId": first.SessionID})
			if again.Persisted || again.Text != "Noted." || again.SessionID != first.SessionID {
				t.Errorf("again = %+v; want answered, persisted false, the same session", again)
			}
			// A retried first turn (no session named) answers the session
			// that holds it and starts none.
			before := countSessions(t, a, s)
			retried := talk(s, map[string]any{"message": "First words.", "turnId": "edge-1"})
			if retried.Persisted || retried.SessionID != first.SessionID || countSessions(t, a, s) != before {
				t.Errorf("retried = %+v (sessions %d -> %d); want the first session, persisted false, no new session", retried, before, countSessions(t, a, s))
			}
			if got := turnsOf(s, first.SessionID).Turns; len(got) != 1 || got[0].ID != "edge-1" {
				t.Errorf("the session keeps %+v; want edge-1 once", got)
			}
			// A colleague's first turn reusing the id (turn ids are the
			// house's): answered, and the session it names exists.
			theirs := talk(colleague, map[string]any{"message": "Hello there.", "turnId": "edge-1"})
			if theirs.Persisted || theirs.SessionID == "" || theirs.SessionID == first.SessionID {
				t.Fatalf("colleague = %+v; want a new session, persisted false", theirs)
			}
			if got := turnsOf(colleague, theirs.SessionID).Turns; len(got) != 0 {
				t.Errorf("the colleague's new session holds %+v; want no turns", got)
			}
			next := talk(colleague, map[string]any{"message": "Again.", "sessionId": theirs.SessionID})
			if !next.Persisted || next.SessionID != theirs.SessionID {
				t.Errorf("a turn in the answered session = %+v", next)
			}
		})

		t.Run("warm prepares the catalog the next turn reads", func(t *testing.T) {
			old := upload(t, a, s, jpegOf(t, 31, 30), "kind", "clothes", "name", "Warmed coat")
			if res := a.Do(t, "POST", "/api/chat/context/warm", s, nil); res.Status != 202 || res.Map(t)["warming"] != true {
				t.Fatalf("warm: %d %s", res.Status, res.Body)
			}
			late := upload(t, a, s, jpegOf(t, 33, 30), "kind", "clothes", "name", "Late scarf")
			system := func() string { c := model.Chats(); return c[len(c)-1].Messages[0].Text() }
			talk(s, map[string]any{"message": "What do we have?"})
			if got := system(); !strings.Contains(got, old.ID) || strings.Contains(got, late.ID) {
				t.Errorf("the turn after warm did not read the warmed catalog (coat %v, scarf %v):\n%s",
					strings.Contains(got, old.ID), strings.Contains(got, late.ID), got)
			}
			// That turn took it: the next reads the house afresh.
			talk(s, map[string]any{"message": "And now?"})
			if got := system(); !strings.Contains(got, late.ID) {
				t.Errorf("the turn after did not read the catalog afresh:\n%s", got)
			}
			// Warm is the caller's: a colleague's turn reads the house now.
			if res := a.Do(t, "POST", "/api/chat/context/warm", s, nil); res.Status != 202 {
				t.Fatalf("warm: %d", res.Status)
			}
			later := upload(t, a, s, jpegOf(t, 35, 30), "kind", "clothes", "name", "Later boot")
			talk(colleague, map[string]any{"message": "Hello."})
			if got := system(); !strings.Contains(got, later.ID) {
				t.Errorf("a colleague's turn read another person's warmed catalog:\n%s", got)
			}
		})

		t.Run("a seventh piece is too many", func(t *testing.T) {
			var items []map[string]any
			for i := range 7 {
				id := upload(t, a, s, jpegOf(t, 40+2*i, 30), "kind", "clothes", "name", fmt.Sprintf("Piece %d", i)).ID
				items = append(items, map[string]any{"assetId": id, "role": "accessory"})
			}
			draft := map[string]any{"items": items[:6]}
			res := a.Do(t, "POST", "/api/chat/apply", s, map[string]any{"draft": draft,
				"mutation": map[string]any{"op": "add-item", "assetId": items[6]["assetId"], "role": "bag"}})
			if res.Status != 422 || res.Code != "CANNOT_APPLY" || res.Map(t)["reason"] != "too-many-items" {
				t.Errorf("seventh piece: %d %s; want 422 CANNOT_APPLY too-many-items", res.Status, res.Body)
			}
			// Through the assistant: the refusal goes back to the model and the draft stands.
			model.Answer(aitest.Answer{ToolCalls: []aitest.ToolCall{{Name: "add-item",
				Arguments: fmt.Sprintf(`{"assetId":%q,"role":"bag","hero":false}`, items[6]["assetId"])}}},
				aitest.Answer{Content: "The look is full."})
			res = a.Do(t, "POST", "/api/chat", s, map[string]any{"message": "Add one more.", "draft": draft})
			var reply struct {
				Applied []wireApplied
				Mirror  wireDraft
			}
			res.JSON(t, &reply)
			if res.Status != 200 || len(reply.Applied) != 0 || len(reply.Mirror.Items) != 6 {
				t.Fatalf("chat: %d %s", res.Status, res.Body)
			}
			chats := model.Chats()
			msgs := chats[len(chats)-1].Messages
			if last := msgs[len(msgs)-1]; last.Role != "tool" || !strings.Contains(last.Text(), "refused") || !strings.Contains(last.Text(), "6 pieces") {
				t.Errorf("the model was told %q; want the refusal", last.Text())
			}
		})
	})
}

func countSessions(t testing.TB, a *apptest.App, c apptest.Cred) int {
	t.Helper()
	var out struct{ Sessions []struct{ ID string } }
	a.Do(t, "GET", "/api/chat/sessions", c, nil).JSON(t, &out)
	return len(out.Sessions)
}
