package httpapi

import (
	"bytes"
	"cmp"
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
	"time"
	"unicode"

	"github.com/swaggest/jsonschema-go"
	"github.com/swaggest/openapi-go/openapi31"

	"studio/internal/errs"
	"studio/internal/ts"
)

// The document's fixed parts.
const (
	docTitle   = "Fashion Imagery Studio API"
	docVersion = "1.0.0"

	componentsPrefix = "#/components/schemas/"
	errorComponent   = "Error"

	mediaJSON      = "application/json"
	mediaMultipart = "multipart/form-data"
)

// Security scheme names.
const (
	securityKey     = "apiKey"
	securitySession = "session"
)

// buildOpenAPI renders the OpenAPI 3.1 document of a routes table: one
// operation per route, schemas reflected from the Go types of its query,
// body and answers, and one answer per status among its documented errors.
// The output is indented JSON and the same for the same table.
func buildOpenAPI(routes []Route) ([]byte, error) {
	b := newDocBuilder()
	// Answers first: their types take the plain component names, so that a
	// type that is also a request body gets a separate "Input" component
	// (answers list every field encoding/json always writes as required;
	// request bodies list only the fields tagged required:"true").
	ops := make([]*openapi31.Operation, len(routes))
	for i, rt := range routes {
		op, err := b.operation(rt)
		if err != nil {
			return nil, fmt.Errorf("openapi: %s: %w", rt.Pattern(), err)
		}
		ops[i] = op
	}
	for i, rt := range routes {
		if err := b.request(ops[i], rt); err != nil {
			return nil, fmt.Errorf("openapi: %s: %w", rt.Pattern(), err)
		}
		if err := b.spec.AddOperation(rt.Method, openAPIPath(rt.Path), *ops[i]); err != nil {
			return nil, fmt.Errorf("openapi: %s: %w", rt.Pattern(), err)
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
	fields map[reflect.Type]map[string]jsonField // encoding/json's view of struct types
	err    error                                 // the first error met while collecting components
}

func newDocBuilder() *docBuilder {
	b := &docBuilder{
		r:      openapi31.NewReflector(),
		ids:    map[string]string{},
		open:   map[string]bool{},
		fields: map[reflect.Type]map[string]jsonField{},
	}
	b.spec = b.r.SpecEns()
	b.spec.Info.WithTitle(docTitle).WithVersion(docVersion).WithDescription(
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
	c.WithSecuritySchemesItem(securityKey, openapi31.SecuritySchemeOrReference{
		SecurityScheme: (&openapi31.SecurityScheme{
			HTTPBearer: (&openapi31.SecuritySchemeHTTPBearer{Scheme: "bearer"}).WithBearerFormat("fis_sk_..."),
		}).WithDescription("An API key: `Authorization: Bearer fis_sk_...`."),
	})
	c.WithSecuritySchemesItem(securitySession, openapi31.SecuritySchemeOrReference{
		SecurityScheme: (&openapi31.SecurityScheme{
			APIKey: &openapi31.SecuritySchemeAPIKey{Name: SessionCookie, In: openapi31.SecuritySchemeAPIKeyInCookie},
		}).WithDescription("The session cookie set by sign-in. Unsafe methods must also carry this service's Origin."),
	})
	return b
}

var defNameJunk = regexp.MustCompile(`[^a-zA-Z0-9.\-_]+`)

// operation documents everything of rt but its request body and query,
// which request adds once every answer type has its component.
func (b *docBuilder) operation(rt Route) (*openapi31.Operation, error) {
	path := openAPIPath(rt.Path)
	id := operationID(rt.Method, path)
	if other, dup := b.ids[id]; dup {
		return nil, fmt.Errorf("operationId %s is also derived from %s", id, other)
	}
	b.ids[id] = rt.Pattern()

	op := &openapi31.Operation{}
	op.WithID(id)
	if rt.Summary != "" {
		op.WithSummary(rt.Summary)
	}
	if rt.Tag != "" {
		op.WithTags(rt.Tag)
		if !slices.ContainsFunc(b.spec.Tags, func(t openapi31.Tag) bool { return t.Name == rt.Tag }) {
			tag := openapi31.Tag{Name: rt.Tag}
			if d := tagDescriptions[rt.Tag]; d != "" {
				tag.Description = &d
			}
			b.spec.Tags = append(b.spec.Tags, tag)
		}
	}
	switch rt.Class {
	case Public:
		b.open[strings.ToLower(rt.Method)+" "+path] = true
	case KeyOrSession:
		op.Security = []map[string][]string{{securityKey: {}}, {securitySession: {}}}
	case SessionOnly:
		op.Security = []map[string][]string{{securitySession: {}}}
		op.WithDescription("Needs a session cookie; an API key is answered 401.")
	case PlatformAdmin:
		op.Security = []map[string][]string{{securitySession: {}}}
		op.WithDescription("Platform admins only: a session whose e-mail is on the service's admin list. An API key never passes.")
	case SharedSecret:
		b.open[strings.ToLower(rt.Method)+" "+path] = true
		op.WithDescription("Takes no API key or session: the handler checks a shared secret the caller sends in a header.")
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
func (b *docBuilder) answers(op *openapi31.Operation, rt Route) error {
	for _, out := range rt.Out {
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
func (b *docBuilder) errorAnswers(op *openapi31.Operation, rt Route) error {
	byStatus := map[int][]*errs.Error{}
	for _, e := range rt.DocumentedErrors() {
		st := Status(e.Kind)
		byStatus[st] = append(byStatus[st], e)
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
func (b *docBuilder) request(op *openapi31.Operation, rt Route) error {
	if rt.Query != nil {
		params, err := b.queryParams(rt.Query)
		if err != nil {
			return fmt.Errorf("query: %w", err)
		}
		op.Parameters = append(op.Parameters, params...)
	}
	if rt.In == nil {
		return nil
	}
	var ct string
	var schema map[string]any
	var err error
	if mp, ok := rt.In.(Multipart); ok {
		ct = mediaMultipart
		schema, err = b.formSchema(mp.Form)
	} else {
		ct = mediaJSON
		schema, err = b.bodySchema(rt.In)
	}
	if err != nil {
		return fmt.Errorf("request body: %w", err)
	}
	op.RequestBodyEns().RequestBodyEns().WithRequired(true).WithContentItem(ct, openapi31.MediaType{Schema: schema})
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
			if p.Field.Type.Kind() != reflect.Pointer {
				s.RemoveType(jsonschema.Null) // a parameter is absent, never null
			}
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

// jsonField is one property of a struct as encoding/json writes it.
type jsonField struct {
	sf       reflect.StructField // as declared in its own struct
	depth    int                 // levels of embedding above it
	tagged   bool                // named by a json tag
	optional bool                // omitempty, omitzero, or reached through an embedded pointer
}

// jsonFields returns the properties encoding/json writes for the struct
// type t, resolving embedded structs as it does: the shallowest field of a
// name wins, a tagged one breaks a tie, and an unbroken tie hides the name.
func jsonFields(t reflect.Type) map[string]jsonField {
	type level struct {
		typ    reflect.Type
		depth  int
		viaPtr bool
	}
	byName := map[string][]jsonField{}
	var current []level
	next := []level{{typ: t}}
	var count, nextCount map[reflect.Type]int
	visited := map[reflect.Type]bool{}
	for len(next) > 0 {
		current, next = next, current[:0]
		count, nextCount = nextCount, map[reflect.Type]int{}
		for _, lv := range current {
			if visited[lv.typ] {
				continue
			}
			visited[lv.typ] = true
			for i := range lv.typ.NumField() {
				sf := lv.typ.Field(i)
				if sf.Anonymous {
					if !sf.IsExported() && indirectType(sf.Type).Kind() != reflect.Struct {
						continue
					}
				} else if !sf.IsExported() {
					continue
				}
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, opts, _ := strings.Cut(tag, ",")
				if !validJSONName(name) {
					name = ""
				}
				ft := sf.Type
				if ft.Name() == "" && ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if name != "" || !sf.Anonymous || ft.Kind() != reflect.Struct {
					f := jsonField{sf: sf, depth: lv.depth, tagged: name != "",
						optional: lv.viaPtr || jsonTagHas(opts, "omitempty") || jsonTagHas(opts, "omitzero")}
					if name == "" {
						name = sf.Name
					}
					byName[name] = append(byName[name], f)
					if count[lv.typ] > 1 {
						// The struct is embedded twice at one depth: its fields annihilate.
						byName[name] = append(byName[name], f)
					}
					continue
				}
				nextCount[ft]++
				if nextCount[ft] == 1 {
					next = append(next, level{typ: ft, depth: lv.depth + 1, viaPtr: lv.viaPtr || sf.Type.Kind() == reflect.Pointer})
				}
			}
		}
	}

	out := make(map[string]jsonField, len(byName))
	for name, fs := range byName {
		top := slices.MinFunc(fs, func(a, b jsonField) int { return cmp.Compare(a.depth, b.depth) }).depth
		var winner *jsonField
		n, tagged := 0, 0
		for i := range fs {
			if fs[i].depth != top {
				continue
			}
			n++
			if fs[i].tagged {
				tagged++
				winner = &fs[i]
			} else if winner == nil {
				winner = &fs[i]
			}
		}
		if tagged == 1 || (tagged == 0 && n == 1) {
			out[name] = *winner
		}
	}
	return out
}

func sameStructField(a, b reflect.StructField) bool {
	return a.Name == b.Name && a.Type == b.Type && a.Tag == b.Tag && slices.Equal(a.Index, b.Index)
}

func jsonTagHas(opts, want string) bool {
	for o := range strings.SplitSeq(opts, ",") {
		if o == want {
			return true
		}
	}
	return false
}

// validJSONName reports whether encoding/json accepts name from a tag.
func validJSONName(name string) bool {
	if name == "" {
		return false
	}
	for _, c := range name {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}

func ptrTo[T any](v T) *T { return &v }

// tagDescriptions introduce each group of operations in the document.
var tagDescriptions = map[string]string{
	"meta":          "Liveness, this document and the interactive reference.",
	"auth":          "Accounts and browser sessions: sign-up, sign-in, houses and e-mail verification.",
	"keys":          "Organization API keys for scripts and agents (session only).",
	"posts":         "The sample resource: notes kept by a house.",
	"assets":        "The house library: images of garments, models, backgrounds and marks.",
	"collections":   "Folders of the library, flat on the wire.",
	"billing":       "Tokens: the balance, open holds, prices, and platform grants.",
	"admin":         "Platform administration (sessions on the allowlist).",
	"jobs":          "Develops: frames commissioned from tools, their runs and the event stream.",
	"mcp":           "The Model Context Protocol endpoint for AI agents.",
	"packs":         "Batch downloads of frames as zip archives.",
	"notifications": "What the house was told: packs ready, shares answered.",
	"lookbook":      "Looks, their lock and variation frames, presets, factory and templates.",
	"postures":      "The posture library and the house's posture preferences.",
}
