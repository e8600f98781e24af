package httpapi_test

import "studio/internal/auth"

// posturesWalk is the postures area's part of the route walk (walk_test.go).
var posturesWalk = walkArea{
	samples: map[string]sampleFunc{
		"GET /api/toolkit/postures":       static("/api/toolkit/postures", nil),
		"PUT /api/toolkit/postures/prefs": static("/api/toolkit/postures/prefs", map[string]any{"favorites": []string{"contrapposto"}}),
	},
	minRole: map[string]auth.Role{
		"PUT /api/toolkit/postures/prefs": auth.Member,
	},
}
