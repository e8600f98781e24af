package apispec

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// For an OpenAPI 3.1 document, kin-openapi validates a body by compiling
// its schema into a JSON Schema 2020-12 validator anew on every call, which
// was most of a response check's cost under the race detector (some 13% of
// the role matrix's CPU time). bodyChecks compiles each response schema
// once per test binary, the way kin-openapi does, and reuses it. Only a
// body that passes is decided here: a body a cached check refuses, and every
// schema the cache does not compile as kin-openapi would, goes to
// kin-openapi's own validation, whose verdict and message stand. So the
// cache can save time but never accepts what kin-openapi refuses, as long as
// it compiles a schema as kin-openapi does (newJSONSchemaValidator and
// useJSONSchema2020 in its schema_jsonschema_validator.go, v0.152.0).
var bodyChecks sync.Map // *openapi3.Schema -> *bodyCheck

type bodyCheck struct {
	once     sync.Once
	legacy   bool               // kin-openapi falls back to its own visitor for this schema
	compiled *jsonschema.Schema // else the 2020-12 validator, when it compiled
}

// bodyPasses reports whether body, of media type mt, passes schema by the
// cached check; false means "ask kin-openapi", not "refused".
func bodyPasses(schema *openapi3.Schema, mt string, header map[string][]string, body []byte) bool {
	decode := openapi3filter.RegisteredBodyDecoder(mt)
	if decode == nil && strings.HasSuffix(mt, "+json") {
		decode = openapi3filter.RegisteredBodyDecoder("application/json")
	}
	if decode == nil {
		return false
	}
	value, err := decode(strings.NewReader(string(body)), header, openapi3.NewSchemaRef("", schema), func(string) *openapi3.Encoding { return nil })
	if err != nil {
		return false
	}
	v, _ := bodyChecks.LoadOrStore(schema, &bodyCheck{})
	c := v.(*bodyCheck)
	c.once.Do(func() { c.legacy, c.compiled = compileBody(schema) })
	switch {
	case c.legacy:
		// The document is 3.1, where nullable means nothing; it has none,
		// so the visitor without the 2020 option judges alike.
		return schema.VisitJSON(value, openapi3.VisitAsResponse()) == nil
	case c.compiled != nil:
		return c.compiled.Validate(value) == nil
	}
	return false
}

// compileBody decides a schema's check as kin-openapi's useJSONSchema2020
// does: a schema that refers to the document's components and uses no
// 2020-12 keyword goes to the visitor; one with no such reference is
// compiled, its formats asserted by kin-openapi's own format validators.
// Anything else (references alongside 2020-12 keywords, a schema that does
// not compile) is left to kin-openapi: neither legacy nor compiled.
func compileBody(schema *openapi3.Schema) (legacy bool, compiled *jsonschema.Schema) {
	uses2020 := usesJSONSchema2020(schema)
	b, err := json.Marshal(schema)
	if err != nil {
		return false, nil
	}
	var doc any
	if err := json.Unmarshal(b, &doc); err != nil {
		return false, nil
	}
	if hasComponentRef(doc) {
		return !uses2020, nil
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	formats := map[string]bool{}
	collectFormats(doc, formats)
	for f := range formats {
		c.RegisterFormat(&jsonschema.Format{Name: f, Validate: formatCheck(f)})
	}
	if len(formats) > 0 {
		c.AssertFormat()
	}
	const url = "https://example.com/schema.json"
	if err := c.AddResource(url, doc); err != nil {
		return false, nil
	}
	s, err := c.Compile(url)
	if err != nil {
		return false, nil
	}
	return false, s
}

// usesJSONSchema2020 reports whether any schema under s uses a keyword
// kin-openapi's visitor does not know (its schemaUsesJSONSchema2020Features).
func usesJSONSchema2020(s *openapi3.Schema) bool {
	found := errors.New("found")
	err := openapi3.NewSchemaRef("", s).WalkSubtree(func(_ string, ref *openapi3.SchemaRef) error {
		v := ref.Value
		if v.Const != nil || len(v.PrefixItems) != 0 || v.Contains != nil || len(v.PatternProperties) != 0 ||
			len(v.DependentSchemas) != 0 || v.PropertyNames != nil ||
			v.UnevaluatedItems.Has != nil || v.UnevaluatedItems.Schema != nil ||
			v.UnevaluatedProperties.Has != nil || v.UnevaluatedProperties.Schema != nil ||
			v.If != nil || v.Then != nil || v.Else != nil || len(v.DependentRequired) != 0 || len(v.Defs) != 0 ||
			v.ContentSchema != nil {
			return found
		}
		return nil
	})
	return errors.Is(err, found)
}

// hasComponentRef reports whether a marshalled schema refers to the
// document's components.
func hasComponentRef(node any) bool {
	switch n := node.(type) {
	case map[string]any:
		if ref, ok := n["$ref"].(string); ok && strings.HasPrefix(ref, "#/components/schemas/") {
			return true
		}
		for _, v := range n {
			if hasComponentRef(v) {
				return true
			}
		}
	case []any:
		for _, v := range n {
			if hasComponentRef(v) {
				return true
			}
		}
	}
	return false
}

func collectFormats(node any, into map[string]bool) {
	switch n := node.(type) {
	case map[string]any:
		if f, ok := n["format"].(string); ok && f != "" {
			into[f] = true
		}
		for _, v := range n {
			collectFormats(v, into)
		}
	case []any:
		for _, v := range n {
			collectFormats(v, into)
		}
	}
}

// formatCheck is kin-openapi's check of format f (its formatValidator,
// with no formats of the validation's own): the package-wide string,
// integer and number formats; a format it does not know passes.
func formatCheck(f string) func(any) error {
	number := func(x float64) error {
		if x == math.Trunc(x) && !math.IsInf(x, 0) {
			if v, ok := openapi3.SchemaIntegerFormats[f]; ok {
				return v.Validate(int64(x))
			}
		}
		if v, ok := openapi3.SchemaNumberFormats[f]; ok {
			return v.Validate(x)
		}
		return nil
	}
	return func(value any) error {
		switch x := value.(type) {
		case string:
			if v, ok := openapi3.SchemaStringFormats[f]; ok {
				return v.Validate(x)
			}
		case json.Number:
			if n, err := x.Float64(); err == nil {
				return number(n)
			}
		case float64:
			return number(x)
		}
		return nil
	}
}
