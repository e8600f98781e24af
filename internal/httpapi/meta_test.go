package httpapi_test

// metaWalk is the meta area's part of the route walk (walk_test.go).
var metaWalk = walkArea{
	samples: map[string]sampleFunc{
		"GET /health":       static("/health", nil),
		"GET /ready":        static("/ready", nil),
		"GET /openapi.json": static("/openapi.json", nil),
		"GET /docs":         static("/docs", nil),
	},
}
