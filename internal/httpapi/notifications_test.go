package httpapi_test

// notificationsWalk is the notifications area's part of the route walk (walk_test.go).
var notificationsWalk = walkArea{
	samples: map[string]sampleFunc{
		"GET /api/notifications":       static("/api/notifications?limit=50", nil),
		"POST /api/notifications/read": static("/api/notifications/read", map[string]any{"all": true}),
	},
}
