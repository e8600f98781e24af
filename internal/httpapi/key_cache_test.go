package httpapi_test

import (
	"context"
	"testing"

	"studio/internal/apptest"
	"studio/internal/auth"
)

// TestKeyCacheFollowsAccess: a key's row is cached between requests on SQLite (read every time on PostgreSQL), yet
// on this instance every change to what the key may do takes effect on
// the very next request: a revocation, its minter's seat re-roled or
// removed, and a write to the rows made outside any route.
func TestKeyCacheFollowsAccess(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner := a.SignUp(t, "owner")
		post := map[string]string{"title": "Look", "body": "Spring."}
		use := func(t *testing.T, k apptest.Cred, wantRead, wantWrite int) {
			t.Helper()
			for range 2 { // the second answer comes from the cache, if any
				if res := a.Do(t, "GET", "/posts", k, nil); res.Status != wantRead {
					t.Fatalf("read: %d %s; want %d", res.Status, res.Body, wantRead)
				}
			}
			if res := a.Do(t, "POST", "/posts", k, post); res.Status != wantWrite {
				t.Fatalf("write: %d %s; want %d", res.Status, res.Body, wantWrite)
			}
		}
		seatRole := func(t *testing.T, user, role string) {
			t.Helper()
			if res := a.Do(t, "POST", "/api/toolkit/org/seats/role", owner.Session(), map[string]string{"userId": user, "role": role}); res.Status != 200 {
				t.Fatalf("role: %d %s", res.Status, res.Body)
			}
		}

		t.Run("revoked", func(t *testing.T) {
			k := a.Key(t, owner, "member")
			use(t, k, 200, 201)
			revokeByKey(t, a, owner, k.Key)
			use(t, k, 401, 401)
		})
		t.Run("seat re-roled down and up", func(t *testing.T) {
			m := seated(t, a, owner.HouseID, auth.Member)
			k := a.KeyIn(t, inHouse(t, a, m, owner.HouseID), "member")
			use(t, k, 200, 201)
			seatRole(t, m.ID, "viewer")
			use(t, k, 200, 403)
			seatRole(t, m.ID, "member")
			use(t, k, 200, 201)
		})
		t.Run("seat removed", func(t *testing.T) {
			m := seated(t, a, owner.HouseID, auth.Member)
			k := a.KeyIn(t, inHouse(t, a, m, owner.HouseID), "member")
			use(t, k, 200, 201)
			if res := a.Do(t, "DELETE", "/api/toolkit/org/seats/"+m.ID, owner.Session(), nil); res.Status != 200 {
				t.Fatalf("remove: %d %s", res.Status, res.Body)
			}
			use(t, k, 401, 401)
		})
		t.Run("rows written outside a route", func(t *testing.T) {
			m := seated(t, a, owner.HouseID, auth.Member)
			k := a.KeyIn(t, inHouse(t, a, m, owner.HouseID), "member")
			use(t, k, 200, 201)
			if _, err := a.DB.RawExec(context.Background(), `DELETE FROM seats WHERE organization_id = ? AND user_id = ?`, owner.HouseID, m.ID); err != nil {
				t.Fatal(err)
			}
			use(t, k, 401, 401)
		})
	})
}
