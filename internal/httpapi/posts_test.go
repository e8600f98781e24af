package httpapi_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"studio/internal/apptest"
	"studio/internal/auth"
)

// postsWalk is the posts area's part of the route walk (walk_test.go).
var postsWalk = walkArea{
	samples: map[string]sampleFunc{
		"GET /posts":  static("/posts", nil),
		"POST /posts": static("/posts", map[string]string{"title": "Hello", "body": "World"}),
		"GET /posts/{id}": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/posts/" + postID(t, a, u), nil}
		},
		"PATCH /posts/{id}": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/posts/" + postID(t, a, u), map[string]string{"title": "Changed"}}
		},
		"DELETE /posts/{id}": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/posts/" + postID(t, a, u), nil}
		},
	},
	minRole: map[string]auth.Role{
		"POST /posts":        auth.Member,
		"PATCH /posts/{id}":  auth.Member,
		"DELETE /posts/{id}": auth.Member,
	},
	authorOnly: []string{"PATCH /posts/{id}", "DELETE /posts/{id}"},
}

func TestPosts(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		author, colleague := a.SignUp(t, "author"), a.SignUp(t, "colleague")
		if err := a.DB.AddSeat(context.Background(), author.HouseID, colleague.ID, auth.Member); err != nil {
			t.Fatal(err)
		}
		colleagueSession := signIn(t, a, colleague)
		a.Do(t, "POST", "/api/auth/organization/set-active", colleagueSession, map[string]string{"organizationId": author.HouseID})
		key := a.Key(t, author, "member")
		viewerKey := a.Key(t, author, "viewer")

		create := []struct {
			name       string
			cred       apptest.Cred
			body       any
			wantStatus int
			wantCode   string
		}{
			{"session", author.Session(), map[string]string{"title": "First", "body": "Hello"}, 201, ""},
			{"key", key, map[string]string{"title": "Second", "body": ""}, 201, ""},
			{"no title", key, map[string]string{"body": "x"}, 400, "BAD_BODY"},
			{"blank title", key, map[string]string{"title": "  ", "body": "x"}, 400, "BAD_BODY"},
			{"no body", key, map[string]string{"title": "x"}, 400, "BAD_BODY"},
			{"title too long", key, map[string]string{"title": strings.Repeat("t", 201), "body": "x"}, 400, "BAD_BODY"},
			{"viewer key", viewerKey, map[string]string{"title": "x", "body": "x"}, 403, "FORBIDDEN"},
			{"anonymous", apptest.Anonymous, map[string]string{"title": "x", "body": "x"}, 401, "UNAUTHORIZED"},
		}
		for _, tt := range create {
			t.Run("create/"+tt.name, func(t *testing.T) {
				res := a.Do(t, "POST", "/posts", tt.cred, tt.body)
				if res.Status != tt.wantStatus || res.Code != tt.wantCode {
					t.Errorf("got %d %q %s; want %d %q", res.Status, res.Code, res.Body, tt.wantStatus, tt.wantCode)
				}
			})
		}

		var list []struct{ ID, Title, AuthorID string }
		a.Do(t, "GET", "/posts", viewerKey, nil).JSON(t, &list)
		if len(list) != 2 || list[0].Title != "Second" || list[1].Title != "First" || list[0].AuthorID != author.ID {
			t.Fatalf("list = %+v; want Second, First by the author", list)
		}
		id := list[0].ID
		if res := a.Do(t, "GET", "/posts/"+id, viewerKey, nil); res.Status != 200 || res.Map(t)["title"] != "Second" {
			t.Errorf("get: %d %s", res.Status, res.Body)
		}

		update := []struct {
			name       string
			cred       apptest.Cred
			body       any
			wantStatus int
			wantCode   string
		}{
			{"empty patch is a no-op", key, map[string]any{}, 200, ""},
			{"title", key, map[string]string{"title": "Renamed"}, 200, ""},
			{"blank title", key, map[string]string{"title": ""}, 400, "BAD_BODY"},
			{"not the author", colleagueSession, map[string]string{"title": "Mine now"}, 403, "FORBIDDEN"},
			{"viewer", viewerKey, map[string]string{"title": "x"}, 403, "FORBIDDEN"},
		}
		for _, tt := range update {
			t.Run("update/"+tt.name, func(t *testing.T) {
				res := a.Do(t, "PATCH", "/posts/"+id, tt.cred, tt.body)
				if res.Status != tt.wantStatus || res.Code != tt.wantCode {
					t.Errorf("got %d %q %s; want %d %q", res.Status, res.Code, res.Body, tt.wantStatus, tt.wantCode)
				}
			})
		}
		if got := a.Do(t, "GET", "/posts/"+id, key, nil).Map(t)["title"]; got != "Renamed" {
			t.Errorf("title after updates = %v; want Renamed", got)
		}
		if res := a.Do(t, "DELETE", "/posts/"+id, colleagueSession, nil); res.Status != 403 {
			t.Errorf("delete by a colleague: %d %s", res.Status, res.Body)
		}
		if res := a.Do(t, "DELETE", "/posts/"+id, key, nil); res.Status != 204 || len(res.Body) != 0 {
			t.Errorf("delete: %d %s", res.Status, res.Body)
		}
		if res := a.Do(t, "GET", "/posts/"+id, key, nil); res.Status != 404 {
			t.Errorf("deleted post: %d %s", res.Status, res.Body)
		}
	})
}

func postID(t *testing.T, a *apptest.App, u *apptest.User) string {
	t.Helper()
	res := a.Do(t, "POST", "/posts", u.Session(), map[string]string{"title": "Fixture", "body": "text"})
	if res.Status != http.StatusCreated {
		t.Fatalf("create post: %d %s", res.Status, res.Body)
	}
	var p struct{ ID string }
	res.JSON(t, &p)
	return p.ID
}
