package apispec

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/getkin/kin-openapi/openapi3filter"
)

// bodyDoc has a response schema of each kind the cache tells apart: plain
// with formats (compiled once), one referring to a component (kin-openapi's
// visitor), and one with a 2020-12 keyword beside a reference (left to
// kin-openapi).
const bodyDoc = `{
  "openapi": "3.1.0",
  "info": {"title": "t", "version": "1"},
  "paths": {
    "/plain": {"get": {"responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {
      "type": "object", "required": ["id", "at"], "additionalProperties": false,
      "properties": {"id": {"type": "string", "format": "uuid"}, "at": {"type": "string", "format": "date-time"},
        "n": {"type": ["integer", "null"], "minimum": 1}}}}}}}}},
    "/ref": {"get": {"responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {
      "type": "object", "required": ["item"], "properties": {"item": {"$ref": "#/components/schemas/Item"}}}}}}}}},
    "/both": {"get": {"responses": {"200": {"description": "ok", "content": {"application/problem+json": {"schema": {
      "type": "object", "properties": {"kind": {"const": "x"}, "item": {"$ref": "#/components/schemas/Item"}}}}}}}}}
  },
  "components": {"schemas": {"Item": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string", "minLength": 2}}}}}
}`

// TestCachedBodyCheckAgrees: every body gets the verdict kin-openapi gives
// it alone, whether the cache decides or passes it on, the first time a
// schema is seen and after.
func TestCachedBodyCheckAgrees(t *testing.T) {
	v, err := NewResponseValidator([]byte(bodyDoc))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		path, ctype, body string
		ok                bool
	}{
		{"/plain", "application/json", `{"id":"0192f1e4-8a3b-7c4d-9e5f-a1b2c3d4e5f6","at":"2026-11-29T05:00:00Z","n":null}`, true},
		{"/plain", "application/json", `{"id":"0192f1e4-8a3b-7c4d-9e5f-a1b2c3d4e5f6","at":"2026-11-29T05:00:00Z","n":3}`, true},
		{"/plain", "application/json", `{"id":"nope","at":"2026-11-29T05:00:00Z"}`, true}, // kin-openapi asserts no uuid format
		{"/plain", "application/json", `{"id":"0192f1e4-8a3b-7c4d-9e5f-a1b2c3d4e5f6","at":"yesterday"}`, false},
		{"/plain", "application/json", `{"id":"0192f1e4-8a3b-7c4d-9e5f-a1b2c3d4e5f6","at":"2026-11-29T05:00:00Z","n":0}`, false},
		{"/plain", "application/json", `{"id":"0192f1e4-8a3b-7c4d-9e5f-a1b2c3d4e5f6","at":"2026-11-29T05:00:00Z","extra":1}`, false},
		{"/plain", "application/json", `{"id":`, false},
		{"/ref", "application/json", `{"item":{"name":"coat"}}`, true},
		{"/ref", "application/json", `{"item":{"name":"c"}}`, false},
		{"/ref", "application/json", `{}`, false},
		{"/both", "application/problem+json", `{"kind":"x","item":{"name":"coat"}}`, true},
		{"/both", "application/problem+json", `{"kind":"y"}`, false},
		{"/both", "application/problem+json", `{"item":{"name":"c"}}`, false},
	}
	// Each schema took the way its kind should.
	defer func() {
		for path, want := range map[string]string{"/plain": "compiled", "/ref": "legacy", "/both": "kin-openapi"} {
			sr := v.ops["GET "+path].Operation.Responses.Status(200).Value.Content
			var got string
			for _, mt := range sr {
				c, ok := bodyChecks.Load(mt.Schema.Value)
				switch {
				case !ok:
					got = "unseen"
				case c.(*bodyCheck).legacy:
					got = "legacy"
				case c.(*bodyCheck).compiled != nil:
					got = "compiled"
				default:
					got = "kin-openapi"
				}
			}
			if got != want {
				t.Errorf("%s's schema is checked by %s; want %s", path, got, want)
			}
		}
	}()
	for round := range 2 {
		for _, c := range cases {
			h := http.Header{"Content-Type": {c.ctype}}
			err := v.Validate("GET", c.path, 200, h, []byte(c.body))
			if (err == nil) != c.ok {
				t.Errorf("round %d: GET %s %s: %v; want ok=%v", round, c.path, c.body, err, c.ok)
			}
			if kin := kinAlone(t, v, c.path, h, c.body); (kin == nil) != c.ok {
				t.Errorf("GET %s %s: kin-openapi alone says %v; want ok=%v", c.path, c.body, kin, c.ok)
			}
		}
	}
}

// kinAlone is kin-openapi's verdict on a 200 body with no cache.
func kinAlone(t *testing.T, v *ResponseValidator, path string, h http.Header, body string) error {
	t.Helper()
	rt := v.ops["GET "+path]
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{
			Request: &http.Request{Method: "GET", URL: &url.URL{Path: path}, Header: http.Header{}},
			Route:   rt,
		},
		Status: 200, Header: h, Options: &openapi3filter.Options{IncludeResponseStatus: true},
	}
	in.SetBodyBytes([]byte(body))
	return openapi3filter.ValidateResponse(context.Background(), in)
}
