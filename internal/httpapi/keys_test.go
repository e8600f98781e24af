package httpapi_test

import (
	"context"
	"strings"
	"testing"

	"studio/internal/apptest"
	"studio/internal/auth"
)

// keysWalk is the keys area's part of the route walk (walk_test.go).
var keysWalk = walkArea{
	samples: map[string]sampleFunc{
		"GET /api/keys":  static("/api/keys", nil),
		"POST /api/keys": static("/api/keys", map[string]string{"name": "ci", "role": "viewer"}),
		"DELETE /api/keys/{id}": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/keys/" + keyID(t, a, u), nil}
		},
	},
	minRole: map[string]auth.Role{
		"POST /api/keys":        auth.Member,
		"DELETE /api/keys/{id}": auth.Member,
	},
	repeatable: []string{"DELETE /api/keys/{id}"},
}

func TestAPIKeys(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner, viewer := a.SignUp(t, "owner"), a.SignUp(t, "viewer")
		if err := a.DB.AddSeat(context.Background(), owner.HouseID, viewer.ID, auth.Viewer); err != nil {
			t.Fatal(err)
		}
		viewerSession := signIn(t, a, viewer)
		a.Do(t, "POST", "/api/auth/organization/set-active", viewerSession, map[string]string{"organizationId": owner.HouseID})
		member := a.Key(t, owner, "member")

		tests := []struct {
			name       string
			cred       apptest.Cred
			body       any
			wantStatus int
			wantCode   string
		}{
			{"member by default", owner.Session(), map[string]string{"name": "ci"}, 201, ""},
			{"viewer", owner.Session(), map[string]string{"name": "dash", "role": "viewer"}, 201, ""},
			{"admin is above the ceiling", owner.Session(), map[string]string{"name": "x", "role": "admin"}, 400, "BAD_ROLE"},
			{"owner is above the ceiling", owner.Session(), map[string]string{"name": "x", "role": "owner"}, 400, "BAD_ROLE"},
			{"no name", owner.Session(), map[string]string{"role": "viewer"}, 400, "BAD_BODY"},
			{"a key cannot mint", member, map[string]string{"name": "x"}, 401, "UNAUTHORIZED"},
			{"a viewer seat cannot mint", viewerSession, map[string]string{"name": "x"}, 403, "FORBIDDEN"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				res := a.Do(t, "POST", "/api/keys", tt.cred, tt.body)
				if res.Status != tt.wantStatus || res.Code != tt.wantCode {
					t.Fatalf("got %d %q %s; want %d %q", res.Status, res.Code, res.Body, tt.wantStatus, tt.wantCode)
				}
				if res.Status == 201 {
					m := res.Map(t)
					key, _ := m["key"].(string)
					if !strings.HasPrefix(key, "fis_sk_") || len(key) != len("fis_sk_")+43 || m["prefix"] != key[:12] {
						t.Errorf("minted %s: want fis_sk_ + 43 characters and a 12-character prefix", res.Body)
					}
				}
			})
		}

		t.Run("list never shows a secret, and includes revoked keys", func(t *testing.T) {
			k := a.Key(t, owner, "viewer")
			revokeByKey(t, a, owner, k.Key)
			res := a.Do(t, "GET", "/api/keys", owner.Session(), nil)
			if strings.Contains(string(res.Body), "fis_sk_") && strings.Contains(string(res.Body), k.Key) {
				t.Fatalf("list shows a secret: %s", res.Body)
			}
			var body struct {
				Keys []map[string]any
			}
			res.JSON(t, &body)
			revoked := 0
			for _, k := range body.Keys {
				if _, has := k["key"]; has {
					t.Errorf("listed key carries its secret: %v", k)
				}
				if k["revokedAt"] != nil {
					revoked++
				}
			}
			if revoked == 0 {
				t.Errorf("revoked key missing from the list: %s", res.Body)
			}
			if res := a.Do(t, "GET", "/api/keys", member, nil); res.Status != 401 {
				t.Errorf("list with a key: %d; want 401", res.Status)
			}
		})

		t.Run("revocation is effective on the very next request", func(t *testing.T) {
			k := a.Key(t, owner, "member")
			if res := a.Do(t, "GET", "/posts", k, nil); res.Status != 200 {
				t.Fatalf("fresh key: %d %s", res.Status, res.Body)
			}
			revokeByKey(t, a, owner, k.Key)
			if res := a.Do(t, "GET", "/posts", k, nil); res.Status != 401 {
				t.Errorf("revoked key: %d %s; want 401", res.Status, res.Body)
			}
		})

		t.Run("revoke twice is fine; a foreign key is 404; a viewer seat may not revoke", func(t *testing.T) {
			id := keyID(t, a, owner)
			for i := 0; i < 2; i++ {
				res := a.Do(t, "DELETE", "/api/keys/"+id, owner.Session(), nil)
				if m := res.Map(t); res.Status != 200 || m["revoked"] != true || m["id"] != id {
					t.Errorf("revoke #%d: %d %s", i+1, res.Status, res.Body)
				}
			}
			other := a.SignUp(t, "other")
			if res := a.Do(t, "DELETE", "/api/keys/"+id, other.Session(), nil); res.Status != 404 {
				t.Errorf("foreign revoke: %d %s", res.Status, res.Body)
			}
			if res := a.Do(t, "DELETE", "/api/keys/"+keyID(t, a, owner), viewerSession, nil); res.Status != 403 {
				t.Errorf("viewer revoke: %d %s", res.Status, res.Body)
			}
		})

		t.Run("the database refuses a key above member", func(t *testing.T) {
			_, err := a.DB.RawExec(context.Background(), `INSERT INTO api_keys (id, organization_id, user_id, name, role, prefix, key_hash, created_at)
				VALUES ('k1', ?, ?, 'x', 'admin', 'fis_sk_xxxxx', 'h1', 0)`, owner.HouseID, owner.ID)
			if err == nil {
				t.Error("an admin key was stored; want the CHECK constraint to refuse it")
			}
		})

		t.Run("lastUsedAt is recorded", func(t *testing.T) {
			k := a.Key(t, owner, "viewer")
			a.Do(t, "GET", "/posts", k, nil)
			res := a.Do(t, "GET", "/api/keys", owner.Session(), nil)
			var body struct {
				Keys []struct {
					Prefix     string
					LastUsedAt *string
				}
			}
			res.JSON(t, &body)
			for _, got := range body.Keys {
				if strings.HasPrefix(k.Key, got.Prefix) && got.LastUsedAt == nil {
					t.Errorf("lastUsedAt not set after use")
				}
			}
		})
	})
}

func keyID(t *testing.T, a *apptest.App, u *apptest.User) string {
	t.Helper()
	res := a.Do(t, "POST", "/api/keys", u.Session(), map[string]string{"name": "fixture"})
	var k struct{ ID string }
	res.JSON(t, &k)
	return k.ID
}
