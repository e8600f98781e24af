// Package apispec checks answers against the service's OpenAPI document.
// Tests use it to validate every response they see; it stays out of the
// production binary.
package apispec

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
)

// ResponseValidator checks answers against an OpenAPI document, so that
// tests can hold every response they see to the published contract.
// It is safe for concurrent use.
type ResponseValidator struct {
	ops map[string]*routers.Route // "GET /api/keys/{id}"
}

// NewResponseValidator loads and validates an OpenAPI 3.1 document, such as
// the body of GET /openapi.json.
func NewResponseValidator(doc []byte) (*ResponseValidator, error) {
	loader := openapi3.NewLoader()
	spec, err := loader.LoadFromData(doc)
	if err != nil {
		return nil, fmt.Errorf("openapi: load: %w", err)
	}
	if err := spec.Validate(loader.Context); err != nil {
		return nil, fmt.Errorf("openapi: validate: %w", err)
	}
	v := &ResponseValidator{ops: map[string]*routers.Route{}}
	for path, item := range spec.Paths.Map() {
		for method, op := range item.Operations() {
			v.ops[method+" "+path] = &routers.Route{Spec: spec, Path: path, PathItem: item, Method: method, Operation: op}
		}
	}
	return v, nil
}

// Validate checks one answer to the operation at method and pathPattern
// (the routes table's path, e.g. /api/keys/{id}): the status must be
// documented, the Content-Type one the document lists for it, a JSON body
// must match its schema, and an answer documented without content must
// have an empty body. Headers the document describes are checked too.
func (v *ResponseValidator) Validate(method, pathPattern string, status int, header http.Header, body []byte) error {
	method = strings.ToUpper(method)
	lookup := method
	if method == http.MethodHead {
		lookup = http.MethodGet
	}
	path := openAPIPath(pathPattern)
	rt := v.ops[lookup+" "+path]
	if rt == nil {
		return fmt.Errorf("openapi: no operation %s %s", method, pathPattern)
	}
	ref := rt.Operation.Responses.Status(status)
	if ref == nil || ref.Value == nil {
		return fmt.Errorf("openapi: %s %s: status %d is not documented", method, pathPattern, status)
	}
	if method == http.MethodHead {
		return nil
	}
	if header == nil {
		header = http.Header{}
	}
	resp := ref.Value
	opts := &openapi3filter.Options{IncludeResponseStatus: true}
	opts.WithCustomSchemaErrorFunc(shortSchemaError)
	if len(resp.Content) == 0 {
		if len(body) > 0 {
			return fmt.Errorf("openapi: %s %s: status %d is documented without a body, got %d bytes", method, pathPattern, status, len(body))
		}
		return nil
	}
	ct := header.Get("Content-Type")
	if resp.Content.Get(ct) == nil {
		return fmt.Errorf("openapi: %s %s: status %d: Content-Type %q is not documented", method, pathPattern, status, ct)
	}
	mt, _, _ := mime.ParseMediaType(ct)
	if !isJSONMedia(mt) {
		opts.ExcludeResponseBody = true // bytes; the type was checked above
	} else if sr := resp.Content.Get(ct).Schema; sr == nil || sr.Value != nil && bodyPasses(sr.Value, mt, header, body) {
		opts.ExcludeResponseBody = true // the body passed its schema's cached check (body.go); the headers remain
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{
			Request: &http.Request{Method: method, URL: &url.URL{Path: path}, Header: http.Header{}},
			Route:   rt,
		},
		Status:  status,
		Header:  header,
		Options: opts,
	}
	in.SetBodyBytes(body)
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		var re *openapi3filter.ResponseError
		if errors.As(err, &re) && re.Err != nil {
			return fmt.Errorf("openapi: %s %s %d: %s: %w", method, pathPattern, status, re.Reason, re.Err)
		}
		return fmt.Errorf("openapi: %s %s %d: %w", method, pathPattern, status, err)
	}
	return nil
}

// shortSchemaError names where a body breaks its schema and why, without
// the schema and value dumps kin-openapi adds by default.
func shortSchemaError(e *openapi3.SchemaError) string {
	if e.Origin != nil {
		return ""
	}
	if at := e.JSONPointer(); len(at) > 0 && !strings.Contains(e.Reason, "/"+strings.Join(at, "/")) {
		return fmt.Sprintf("at /%s: %s", strings.Join(at, "/"), e.Reason)
	}
	return e.Reason
}

// openAPIPath turns a ServeMux path into an OpenAPI path: {name...}
// becomes {name} and {$} is dropped.
func openAPIPath(p string) string {
	p = strings.ReplaceAll(p, "{$}", "")
	return strings.ReplaceAll(p, "...}", "}")
}

func isJSONMedia(mediaType string) bool {
	return mediaType == "application/json" || strings.HasSuffix(mediaType, "+json")
}
