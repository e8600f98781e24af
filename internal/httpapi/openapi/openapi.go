// Package openapi renders the service's OpenAPI 3.1 document from a list
// of operations: schemas are reflected from the Go types of each query,
// body and answer, and every operation lists the error codes it answers.
// httpapi turns its routes table into the operations; this package knows
// nothing of handlers or credential classes beyond the names of its schemes.
package openapi

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"mime"
	"mime/multipart"
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/swaggest/jsonschema-go"
	"github.com/swaggest/openapi-go/openapi31"

	"studio/internal/ts"
)

// The document's fixed parts.
const (
	Title   = "Fashion Imagery Studio API"
	Version = "1.0.0"

	componentsPrefix = "#/components/schemas/"
	errorComponent   = "Error"

	mediaJSON      = "application/json"
	mediaMultipart = "multipart/form-data"
)

// The security schemes an operation may name: an API key sent as a bearer
// token, and the session cookie.
const (
	SchemeKey           = "apiKey"
	SchemeSession       = "session"
	SchemeAnalyst       = "analystToken"
	SchemeAnalystAction = "analystActionToken"
)

// Info is what the document needs besides the operations.
type Info struct {
	SessionCookie string            // the name of the session cookie
	Tags          map[string]string // a description for each operation tag
}

// Operation is one documented operation.
type Operation struct {
	Method      string
	Path        string // a ServeMux pattern path: {name...} and {$} are accepted
	Tag         string
	Summary     string
	Description string
	Security    []string // the schemes any one of which admits the caller; none: no credential is needed
	Query       any      // a struct whose `query` tags document the query string
	Body        any      // the JSON request body type
	Form        any      // the multipart/form-data body type (fields tagged formData)
	Answers     []Answer // success answers
	Errors      []Error  // every error code the operation may answer
	Extension   bool     // beyond the API's specification: documented with "x-extension": true
}

// Answer is one documented success answer.
type Answer struct {
	Status      int
	Body        any    // nil for an empty body
	ContentType string // default application/json
}

// Error is one error code an operation answers, with its status.
type Error struct {
	Status  int
	Code    string
	Message string
}

func (o Operation) pattern() string { return o.Method + " " + o.Path }

// Build renders the OpenAPI 3.1 document of the operations: schemas
// reflected from the Go types of each query, body and answers, and one
// answer per status among its errors. The output is indented JSON and the
// same for the same operations.
func Build(info Info, routes []Operation) ([]byte, error) {
	key := sha256.Sum256(fmt.Appendf(nil, "%#v\x00%#v", info, routes))
	if doc, ok := built.Load(key); ok {
		return doc.([]byte), nil
	}
	doc, err := build(info, routes)
	if err != nil {
		return nil, err
	}
	doc = doc[:len(doc):len(doc)] // an append copies rather than writing into the shared array
	built.Store(key, doc)
	return doc, nil
}

// built keeps each document by a digest of what it was built from (every
// field of the info and the operations, the Go types of their bodies
// included): a process serves one document, but the tests start hundreds of
// servers, and building it costs half a second under the race detector.
// Callers share the bytes and must not change them.
var built sync.Map // [32]byte -> []byte

func build(info Info, routes []Operation) ([]byte, error) {
	b := newDocBuilder(info)
	// Answers first: their types take the plain component names, so that a
	// type that is also a request body gets a separate "Input" component
	// (answers list every field encoding/json always writes as required;
	// request bodies list only the fields tagged required:"true").
	ops := make([]*openapi31.Operation, len(routes))
	for i, rt := range routes {
		op, err := b.operation(rt)
		if err != nil {
			return nil, fmt.Errorf("openapi: %s: %w", rt.pattern(), err)
		}
		ops[i] = op
	}
	for i, rt := range routes {
		if err := b.request(ops[i], rt); err != nil {
			return nil, fmt.Errorf("openapi: %s: %w", rt.pattern(), err)
		}
		if err := b.spec.AddOperation(rt.Method, openAPIPath(rt.Path), *ops[i]); err != nil {
			return nil, fmt.Errorf("openapi: %s: %w", rt.pattern(), err)
		}
	}
	if b.err != nil {
		return nil, fmt.Errorf("openapi: %w", b.err)
	}
	return b.render()
}

// docBuilder holds the document while routes are added to it.
type docBuilder struct {
	r      *openapi31.Reflector
	spec   *openapi31.Spec
	ids    map[string]string                     // operationId -> route pattern
	open   map[string]bool                       // "method path" of operations that need no credential
	tags   map[string]string                     // tag descriptions
	fields map[reflect.Type]map[string]jsonField // encoding/json's view of struct types
	err    error                                 // the first error met while collecting components
}

func newDocBuilder(info Info) *docBuilder {
	b := &docBuilder{
		r:      openapi31.NewReflector(),
		ids:    map[string]string{},
		open:   map[string]bool{},
		tags:   info.Tags,
		fields: map[reflect.Type]map[string]jsonField{},
	}
	b.spec = b.r.SpecEns()
	b.spec.Info.WithTitle(Title).WithVersion(Version).WithDescription(
		"Generated from the service's routes table. Every error answer is " +
			"`{\"error\": CODE, \"message\": sentence, ...fields}`; each operation lists the codes it may answer.")
	// Paths are relative to wherever the service is reached.
	b.spec.WithServers(openapi31.Server{URL: "/", Description: ptrTo("This service")})

	// Timestamps are RFC 3339 strings; *ts.Time is the nullable form.
	b.r.AddTypeMapping(ts.Time{}, time.Time{})
	b.r.DefaultOptions = append(b.r.DefaultOptions,
		jsonschema.InterceptDefName(func(_ reflect.Type, name string) string {
			name = defNameJunk.ReplaceAllString(name, "")
			if short := strings.TrimPrefix(name, "Httpapi"); short != "" && short != errorComponent {
				return short
			}
			return name
		}),
		jsonschema.InterceptSchema(fileSchema),
		jsonschema.InterceptSchema(tidyRequired),
	)

	c := b.spec.ComponentsEns()
	c.WithSchemasItem(errorComponent, map[string]any{
		"type":                 "object",
		"description":          "Every error answer. Route-specific fields (need, spendable, legal, maxMb...) sit beside error and message.",
		"required":             []any{"error", "message"},
		"additionalProperties": true,
		"properties": map[string]any{
			"error":   map[string]any{"type": "string", "description": "The error code, e.g. NOT_FOUND."},
			"message": map[string]any{"type": "string", "description": "One plain sentence for people."},
		},
	})
	c.WithSecuritySchemesItem(SchemeKey, openapi31.SecuritySchemeOrReference{
		SecurityScheme: (&openapi31.SecurityScheme{
			HTTPBearer: (&openapi31.SecuritySchemeHTTPBearer{Scheme: "bearer"}).WithBearerFormat("fis_sk_..."),
		}).WithDescription("An API key: `Authorization: Bearer fis_sk_...`."),
	})
	c.WithSecuritySchemesItem(SchemeAnalyst, openapi31.SecuritySchemeOrReference{
		SecurityScheme: (&openapi31.SecurityScheme{
			HTTPBearer: &openapi31.SecuritySchemeHTTPBearer{Scheme: "bearer"},
		}).WithDescription("The internal analyst token: `Authorization: Bearer <ANALYST_TOKEN>`."),
	})
	c.WithSecuritySchemesItem(SchemeAnalystAction, openapi31.SecuritySchemeOrReference{
		SecurityScheme: (&openapi31.SecurityScheme{
			HTTPBearer: &openapi31.SecuritySchemeHTTPBearer{Scheme: "bearer"},
		}).WithDescription("The internal analyst action token, for approvals: `Authorization: Bearer <ANALYST_ACTION_TOKEN>`."),
	})
	c.WithSecuritySchemesItem(SchemeSession, openapi31.SecuritySchemeOrReference{
		SecurityScheme: (&openapi31.SecurityScheme{
			APIKey: &openapi31.SecuritySchemeAPIKey{Name: info.SessionCookie, In: openapi31.SecuritySchemeAPIKeyInCookie},
		}).WithDescription("The session cookie set by sign-in. Unsafe methods must also carry this service's Origin."),
	})
	return b
}

var defNameJunk = regexp.MustCompile(`[^a-zA-Z0-9.\-_]+`)

// operation documents everything of rt but its request body and query,
// which request adds once every answer type has its component.
func (b *docBuilder) operation(rt Operation) (*openapi31.Operation, error) {
	path := openAPIPath(rt.Path)
	id := operationID(rt.Method, path)
	if other, dup := b.ids[id]; dup {
		return nil, fmt.Errorf("operationId %s is also derived from %s", id, other)
	}
	b.ids[id] = rt.pattern()

	op := &openapi31.Operation{}
	op.WithID(id)
	if rt.Summary != "" {
		op.WithSummary(rt.Summary)
	}
	if rt.Tag != "" {
		op.WithTags(rt.Tag)
		if !slices.ContainsFunc(b.spec.Tags, func(t openapi31.Tag) bool { return t.Name == rt.Tag }) {
			tag := openapi31.Tag{Name: rt.Tag}
			if d := b.tags[rt.Tag]; d != "" {
				tag.Description = &d
			}
			b.spec.Tags = append(b.spec.Tags, tag)
		}
	}
	if len(rt.Security) == 0 {
		b.open[strings.ToLower(rt.Method)+" "+path] = true
	}
	for _, scheme := range rt.Security {
		op.Security = append(op.Security, map[string][]string{scheme: {}})
	}
	if rt.Description != "" {
		op.WithDescription(rt.Description)
	}
	if rt.Extension {
		op.MapOfAnything = map[string]any{"x-extension": true}
	}

	for _, name := range openAPIPathParams(path) {
		op.Parameters = append(op.Parameters, openapi31.ParameterOrReference{Parameter: &openapi31.Parameter{
			Name:     name,
			In:       openapi31.ParameterInPath,
			Required: new(true),
			Schema:   map[string]any{"type": "string"},
		}})
	}

	if err := b.answers(op, rt); err != nil {
		return nil, err
	}
	if err := b.errorAnswers(op, rt); err != nil {
		return nil, err
	}
	return op, nil
}

// answers adds the route's success answers, merging those that share a status.
func (b *docBuilder) answers(op *openapi31.Operation, rt Operation) error {
	for _, out := range rt.Answers {
		if out.Status < 100 || out.Status > 599 {
			return fmt.Errorf("success status %d", out.Status)
		}
		ct := mediaJSON
		if out.ContentType != "" {
			mt, _, err := mime.ParseMediaType(out.ContentType)
			if err != nil {
				return fmt.Errorf("content type %q: %w", out.ContentType, err)
			}
			ct = mt
		}
		key := strconv.Itoa(out.Status)
		ror := op.ResponsesEns().MapOfResponseOrReferenceValues[key]
		if ror.Response == nil {
			ror.Response = &openapi31.Response{Description: http.StatusText(out.Status)}
		}
		var schema map[string]any
		switch {
		case isJSONMedia(ct) && out.Body != nil:
			s, err := b.answerSchema(out.Body)
			if err != nil {
				return err
			}
			schema = s
		case isJSONMedia(ct):
			// No body.
		case strings.HasPrefix(ct, "text/"):
			schema = map[string]any{"type": "string"}
		default:
			schema = map[string]any{"type": "string", "format": "binary"}
		}
		if schema != nil {
			if ror.Response.Content == nil {
				ror.Response.Content = map[string]openapi31.MediaType{}
			}
			if _, dup := ror.Response.Content[ct]; dup {
				return fmt.Errorf("two answers %d %s", out.Status, ct)
			}
			ror.Response.Content[ct] = openapi31.MediaType{Schema: schema}
		}
		op.Responses.WithMapOfResponseOrReferenceValuesItem(key, ror)
	}
	return nil
}

// errorAnswers adds one answer per status among the route's documented
// errors, naming its codes in the description and in an enum.
func (b *docBuilder) errorAnswers(op *openapi31.Operation, rt Operation) error {
	byStatus := map[int][]Error{}
	for _, e := range rt.Errors {
		byStatus[e.Status] = append(byStatus[e.Status], e)
	}
	statuses := make([]int, 0, len(byStatus))
	for st := range byStatus {
		statuses = append(statuses, st)
	}
	slices.Sort(statuses)
	for _, st := range statuses {
		key := strconv.Itoa(st)
		if _, taken := op.ResponsesEns().MapOfResponseOrReferenceValues[key]; taken {
			return fmt.Errorf("status %d is both a success and an error", st)
		}
		var desc strings.Builder
		codes := make([]any, 0, len(byStatus[st]))
		for _, e := range byStatus[st] {
			codes = append(codes, e.Code)
			fmt.Fprintf(&desc, "- `%s`: %s\n", e.Code, e.Message)
		}
		resp := &openapi31.Response{
			Description: strings.TrimSuffix(desc.String(), "\n"),
			Content: map[string]openapi31.MediaType{mediaJSON: {Schema: map[string]any{
				"allOf": []any{
					map[string]any{"$ref": componentsPrefix + errorComponent},
					map[string]any{"properties": map[string]any{"error": map[string]any{"enum": codes}}},
				},
			}}},
		}
		if st == http.StatusTooManyRequests {
			resp.Headers = map[string]openapi31.HeaderOrReference{"Retry-After": {Header: &openapi31.Header{
				Description: new("Seconds to wait before trying again."),
				Schema:      map[string]any{"type": "integer", "minimum": 0},
			}}}
		}
		op.Responses.WithMapOfResponseOrReferenceValuesItem(key, openapi31.ResponseOrReference{Response: resp})
	}
	return nil
}

// request adds the route's query parameters and request body.
func (b *docBuilder) request(op *openapi31.Operation, rt Operation) error {
	if rt.Query != nil {
		params, err := b.queryParams(rt.Query)
		if err != nil {
			return fmt.Errorf("query: %w", err)
		}
		op.Parameters = append(op.Parameters, params...)
	}
	// A route may take a form, a JSON body, or either (preflight).
	if rt.Form != nil {
		schema, err := b.formSchema(rt.Form)
		if err != nil {
			return fmt.Errorf("request form: %w", err)
		}
		op.RequestBodyEns().RequestBodyEns().WithRequired(true).WithContentItem(mediaMultipart, openapi31.MediaType{Schema: schema})
	}
	if rt.Body != nil {
		schema, err := b.bodySchema(rt.Body)
		if err != nil {
			return fmt.Errorf("request body: %w", err)
		}
		op.RequestBodyEns().RequestBodyEns().WithRequired(true).WithContentItem(mediaJSON, openapi31.MediaType{Schema: schema})
	}
	return nil
}

// answerSchema reflects the JSON answer of type v: every field that
// encoding/json always writes is required, named types become components.
func (b *docBuilder) answerSchema(v any) (map[string]any, error) {
	s, err := b.r.Reflect(v,
		jsonschema.DefinitionsPrefix(componentsPrefix),
		jsonschema.CollectDefinitions(b.collect),
		jsonschema.RootRef,
		jsonschema.ProcessWithoutTags,
		jsonschema.InterceptProp(b.jsonProp(true)),
	)
	if err != nil {
		return nil, err
	}
	return s.ToSchemaOrBool().ToSimpleMap()
}

// bodySchema reflects a JSON request body: only fields tagged
// required:"true" are required. A named type that already has an answer
// component gets its own "Input" component.
func (b *docBuilder) bodySchema(v any) (map[string]any, error) {
	s, err := b.r.Reflect(v,
		jsonschema.DefinitionsPrefix(componentsPrefix),
		jsonschema.CollectDefinitions(b.collect),
		jsonschema.RootRef,
		jsonschema.ProcessWithoutTags,
		jsonschema.InterceptProp(b.jsonProp(false)),
		jsonschema.InterceptDefName(func(_ reflect.Type, name string) string {
			if _, taken := b.spec.Components.Schemas[name]; taken {
				return name + "Input"
			}
			return name
		}),
	)
	if err != nil {
		return nil, err
	}
	return s.ToSchemaOrBool().ToSimpleMap()
}

// formSchema reflects the fields of a multipart form, named by their
// formData (or form) tags; *multipart.FileHeader fields are files.
func (b *docBuilder) formSchema(v any) (map[string]any, error) {
	s, err := b.r.Reflect(v,
		jsonschema.PropertyNameTag("formData", "form"),
		jsonschema.InlineRefs,
		jsonschema.InterceptProp(func(p jsonschema.InterceptPropParams) error {
			if p.Processed {
				p.PropertySchema.RemoveType(jsonschema.Null) // a form field is absent, never null
			}
			return nil
		}),
	)
	if err != nil {
		return nil, err
	}
	return s.ToSchemaOrBool().ToSimpleMap()
}

// queryParams documents the fields of a struct tagged query:"name".
func (b *docBuilder) queryParams(v any) ([]openapi31.ParameterOrReference, error) {
	var params []openapi31.ParameterOrReference
	_, err := b.r.Reflect(v,
		jsonschema.PropertyNameTag("query"),
		jsonschema.InlineRefs,
		jsonschema.InterceptProp(func(p jsonschema.InterceptPropParams) error {
			if !p.Processed || len(p.Path) != 1 { // after processing, Path names the parent
				return nil
			}
			s := p.PropertySchema
			s.RemoveType(jsonschema.Null) // a parameter is absent, never null (a pointer field tells absent from given)
			sm, err := s.ToSchemaOrBool().ToSimpleMap()
			if err != nil {
				return err
			}
			param := &openapi31.Parameter{Name: p.Name, In: openapi31.ParameterInQuery, Schema: sm}
			if s.Description != nil {
				param.Description = s.Description
			}
			if slices.Contains(p.ParentSchema.Required, p.Name) {
				param.Required = new(true)
			}
			params = append(params, openapi31.ParameterOrReference{Parameter: param})
			return nil
		}),
	)
	return params, err
}

// collect adds a reflected named type to the components, once.
func (b *docBuilder) collect(name string, s jsonschema.Schema) {
	if _, have := b.spec.Components.Schemas[name]; have {
		return
	}
	sm, err := s.ToSchemaOrBool().ToSimpleMap()
	if err != nil {
		b.err = cmp.Or(b.err, fmt.Errorf("schema %s: %w", name, err))
		return
	}
	b.spec.Components.WithSchemasItem(name, sm)
}

// jsonProp shapes a reflected struct field as encoding/json sees it: a
// field that embedding hides or makes ambiguous is dropped and a slice is
// never null on the wire. In answers (required), every field without
// omitempty or omitzero, not reached through an embedded pointer, is
// required; in request bodies a pointer is optional but not nullable,
// unless tagged nullable:"true".
func (b *docBuilder) jsonProp(required bool) jsonschema.InterceptPropFunc {
	return func(p jsonschema.InterceptPropParams) error {
		var f jsonField
		var known bool
		if p.ParentSchema != nil && p.ParentSchema.ReflectType != nil {
			if t := indirectType(p.ParentSchema.ReflectType); t.Kind() == reflect.Struct {
				fields := b.jsonFieldsOf(t)
				f, known = fields[p.Name]
				if !known || !sameStructField(f.sf, p.Field) {
					return jsonschema.ErrSkipProperty
				}
			}
		}
		if !p.Processed {
			return nil
		}
		if err := notNullSlice(p); err != nil {
			return err
		}
		if !required && p.Field.Type.Kind() == reflect.Pointer && p.PropertySchema.Ref == nil &&
			p.Field.Tag.Get("nullable") != "true" {
			// A pointer in a request tells an absent field from a zero one; null is not a value.
			p.PropertySchema.RemoveType(jsonschema.Null)
		}
		if required && known && !f.optional && !slices.Contains(p.ParentSchema.Required, p.Name) {
			p.ParentSchema.Required = append(p.ParentSchema.Required, p.Name)
		}
		return nil
	}
}

func (b *docBuilder) jsonFieldsOf(t reflect.Type) map[string]jsonField {
	fields, ok := b.fields[t]
	if !ok {
		fields = jsonFields(t)
		b.fields[t] = fields
	}
	return fields
}

// notNullSlice removes null from a slice field: the code base never puts
// a nil slice on the wire.
func notNullSlice(p jsonschema.InterceptPropParams) error {
	if !p.Processed || p.PropertySchema.Ref != nil || p.PropertySchema.Type == nil {
		return nil
	}
	if k := p.Field.Type.Kind(); (k == reflect.Slice || k == reflect.Array) && p.PropertySchema.HasType(jsonschema.Array) {
		p.PropertySchema.RemoveType(jsonschema.Null)
	}
	return nil
}

var (
	typeFileHeader = reflect.TypeFor[multipart.FileHeader]()
	typeFile       = reflect.TypeFor[multipart.File]()
)

// fileSchema documents an uploaded file (*multipart.FileHeader or
// multipart.File) as a binary string.
func fileSchema(p jsonschema.InterceptSchemaParams) (bool, error) {
	if p.Processed || !p.Value.IsValid() {
		return false, nil
	}
	if t := indirectType(p.Value.Type()); t != typeFileHeader && t != typeFile {
		return false, nil
	}
	p.Schema.Type = nil
	p.Schema.AddType(jsonschema.String)
	p.Schema.WithFormat("binary")
	return true, nil
}

// tidyRequired keeps each required name once, and only names that are
// properties (a field dropped for embedding may have been tagged required).
func tidyRequired(p jsonschema.InterceptSchemaParams) (bool, error) {
	s := p.Schema
	if !p.Processed || len(s.Required) == 0 {
		return false, nil
	}
	var req []string
	for _, name := range s.Required {
		if _, ok := s.Properties[name]; ok && !slices.Contains(req, name) {
			req = append(req, name)
		}
	}
	s.Required = req
	return false, nil
}

// render marshals the document. Operations that take no credential get
// an explicit empty security list, which the typed model would omit.
func (b *docBuilder) render() ([]byte, error) {
	raw, err := json.Marshal(b.spec)
	if err != nil {
		return nil, fmt.Errorf("openapi: %w", err)
	}
	var doc map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("openapi: %w", err)
	}
	paths, _ := doc["paths"].(map[string]any)
	for key := range b.open {
		method, path, _ := strings.Cut(key, " ")
		item, _ := paths[path].(map[string]any)
		op, ok := item[method].(map[string]any)
		if !ok {
			return nil, fmt.Errorf("openapi: operation %s %s went missing", method, path)
		}
		op["security"] = []any{}
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("openapi: %w", err)
	}
	return out.Bytes(), nil
}

// openAPIPath turns a ServeMux path into an OpenAPI path: {name...}
// becomes {name} and {$} goes.
func openAPIPath(p string) string {
	p = strings.ReplaceAll(p, "{$}", "")
	return strings.ReplaceAll(p, "...}", "}")
}

// openAPIPathParams lists the {names} of an OpenAPI path in order.
func openAPIPathParams(path string) []string {
	var names []string
	for rest := path; ; {
		_, after, ok := strings.Cut(rest, "{")
		if !ok {
			return names
		}
		name, tail, _ := strings.Cut(after, "}")
		names = append(names, name)
		rest = tail
	}
}

// operationID derives a stable id from the method and path:
// DELETE /api/keys/{id} is deleteApiKeysById.
func operationID(method, path string) string {
	var b strings.Builder
	b.WriteString(strings.ToLower(method))
	for seg := range strings.SplitSeq(path, "/") {
		if name, ok := strings.CutPrefix(seg, "{"); ok {
			b.WriteString("By")
			seg = strings.TrimSuffix(name, "}")
		}
		for word := range strings.FieldsFuncSeq(seg, func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsDigit(r)
		}) {
			r := []rune(word)
			r[0] = unicode.ToUpper(r[0])
			b.WriteString(string(r))
		}
	}
	return b.String()
}

func isJSONMedia(mediaType string) bool {
	return mediaType == mediaJSON || strings.HasSuffix(mediaType, "+json")
}

func indirectType(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}
