package httpapi_test

import (
	"testing"

	"studio/internal/apptest"
	"studio/internal/auth"
)

// foldersWalk is the folders area's part of the route walk (walk_test.go).
var foldersWalk = walkArea{
	samples: map[string]sampleFunc{
		"GET /api/toolkit/folders":  static("/api/toolkit/folders", nil),
		"POST /api/toolkit/folders": static("/api/toolkit/folders", map[string]string{"name": "Spring"}),
		"PATCH /api/toolkit/folders/{id}": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/toolkit/folders/" + folderID(t, a, u), map[string]string{"name": "Summer"}}
		},
	},
	minRole: map[string]auth.Role{
		"POST /api/toolkit/folders":       auth.Member,
		"PATCH /api/toolkit/folders/{id}": auth.Member,
	},
}
