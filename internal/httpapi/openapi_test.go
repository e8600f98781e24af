package httpapi

import (
	"studio/internal/apispec"

	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"studio/internal/errs"
	"studio/internal/ts"
)

// The synthetic table's types cover what the real ones use: timestamps,
// nullable pointers, slices, maps, nested and embedded structs, skipped fields.
type (
	docHealth struct {
		Status string `json:"status" enum:"ok"`
	}
	docPart struct {
		SKU   string  `json:"sku"`
		Count int     `json:"count"`
		Price float64 `json:"price,omitempty"`
	}
	docOwner struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	}
	docThing struct {
		ID        string            `json:"id"`
		Name      string            `json:"name" minLength:"1"`
		Status    string            `json:"status" enum:"draft,locked"`
		CreatedAt ts.Time           `json:"createdAt"`
		DeletedAt *ts.Time          `json:"deletedAt"`
		Tags      []string          `json:"tags"`
		Parts     []docPart         `json:"parts"`
		Grid      [][]int           `json:"grid"`
		Labels    map[string]string `json:"labels"`
		Owner     docOwner          `json:"owner"`
		Note      string            `json:"note,omitempty"`
		Secret    string            `json:"-"`
		//lint:ignore U1000 an unexported field the document must leave out
		internal int
	}
	docThingList struct {
		Things []docThing `json:"things"`
		Next   *string    `json:"next"`
	}
	docThingQuery struct {
		Limit  int    `query:"limit" description:"At most this many." minimum:"1" maximum:"100"`
		Cursor string `query:"cursor"`
		Kind   string `query:"kind" required:"true" enum:"a,b"`
	}
	docThingPatch struct {
		Name  *string   `json:"name,omitempty" minLength:"1"`
		Owner *docOwner `json:"owner,omitempty"`
		Tags  []string
	}
	docUploadForm struct {
		Image   *multipart.FileHeader   `formData:"image" required:"true"`
		Extra   []*multipart.FileHeader `formData:"extra"`
		Quality string                  `formData:"quality" enum:"1k,2k,4k" default:"1k"`
		Params  string                  `formData:"params" description:"A JSON object."`
	}
	docKey struct {
		ID        string  `json:"id"`
		Name      string  `json:"name"`
		Prefix    string  `json:"prefix"`
		CreatedAt ts.Time `json:"createdAt"`
	}
	docMinted struct {
		docKey
		Secret string `json:"key"`
	}
	docMintRequest struct {
		Name string `json:"name" required:"true"`
	}
	docA struct {
		Dup   string
		OnlyA string `json:"onlyA"`
		TieA  int    `json:"Tie"`
	}
	docB struct {
		Dup string
		Tie string
	}
	docOpt struct {
		Extra string `json:"extra"`
	}
	// docEmbeds resolves as encoding/json does: its own name hides docKey's,
	// Dup is ambiguous between docA and docB, docA's tag wins Tie, and
	// extra may be absent.
	docEmbeds struct {
		Name int `json:"name"`
		docKey
		docA
		docB
		*docOpt
	}
	docGrant struct {
		Tokens int `json:"tokens" required:"true" maximum:"100000"`
	}
)

var errDocTooLarge = errs.New(errs.KindTooLarge, "IMAGE_TOO_LARGE", "The image is larger than 12 MB.")

func docTestRoutes() []Route {
	errsOf := func(e ...*errs.Error) []*errs.Error { return e }
	return []Route{
		{Method: "GET", Path: "/health", Class: Public, Tag: "meta", Summary: "Liveness probe",
			Out: []Out{{Status: 200, Body: docHealth{}}}},
		{Method: "GET", Path: "/things", Class: KeyOrSession, Tag: "things", Summary: "List things",
			Query: docThingQuery{}, Out: []Out{{Status: 200, Body: docThingList{}}}},
		{Method: "PATCH", Path: "/things/{id}", Class: KeyOrSession, Tag: "things", Summary: "Change a thing",
			In: docThingPatch{}, Out: []Out{{Status: 200, Body: docThing{}}}, Errors: errsOf(errs.NotFound, errs.Conflict)},
		{Method: "DELETE", Path: "/things/{id}", Class: KeyOrSession, Tag: "things", Summary: "Delete a thing",
			Out: []Out{{Status: 204}}, Errors: errsOf(errs.NotFound)},
		{Method: "GET", Path: "/things/{id}/image", Class: KeyOrSession, Tag: "things", Summary: "The thing's picture",
			Out: []Out{{Status: 200, ContentType: "image/png"}}, Errors: errsOf(errs.NotFound)},
		{Method: "GET", Path: "/things/{id}/pack", Class: KeyOrSession, Tag: "things", Summary: "Everything as a zip",
			Out: []Out{{Status: 200, ContentType: "application/zip"}}},
		{Method: "POST", Path: "/uploads", Class: KeyOrSession, Tag: "things", Summary: "Upload a picture",
			In: Multipart{Form: docUploadForm{}}, Out: []Out{{Status: 202, Body: docThing{}}}, Errors: errsOf(errDocTooLarge)},
		{Method: "GET", Path: "/me", Class: SessionOnly, Tag: "auth", Summary: "Who I am",
			Out: []Out{{Status: 200, Body: docOwner{}}}},
		{Method: "POST", Path: "/keys", Class: SessionOnly, Tag: "auth", Summary: "Mint a key",
			In: docMintRequest{}, Out: []Out{{Status: 201, Body: docMinted{}}}},
		{Method: "POST", Path: "/admin/grants", Class: PlatformAdmin, Tag: "admin", Summary: "Grant tokens",
			In: docGrant{}, Out: []Out{{Status: 200, Body: docEmbeds{}}}, Errors: errsOf(errs.RateLimited)},
		{Method: "POST", Path: "/hooks/payments", Class: SharedSecret, Tag: "hooks", Summary: "Payment events",
			In: map[string]any{}, Out: []Out{{Status: 204}}},
		{Method: "GET", Path: "/files/{path...}", Class: Public, Tag: "meta", Summary: "A static file",
			Out: []Out{{Status: 200, ContentType: "text/plain; charset=utf-8"}}},
		{Method: "GET", Path: "/list/{$}", Class: Public, Tag: "meta", Summary: "A bare list",
			Out: []Out{{Status: 200, Body: []docOwner{}}}},
	}
}

func docTestBuild(t testing.TB) []byte {
	t.Helper()
	doc, err := buildOpenAPI(docTestRoutes())
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// docDig walks a decoded JSON document by keys and indexes.
func docDig(t *testing.T, v any, path ...any) any {
	t.Helper()
	for i, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("%v: not an object at %v", path, path[:i])
			}
			if v, ok = m[k]; !ok {
				t.Fatalf("%v: no %q", path, k)
			}
		case int:
			a, ok := v.([]any)
			if !ok || k >= len(a) {
				t.Fatalf("%v: no item %d", path, k)
			}
			v = a[k]
		}
	}
	return v
}

func docJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestOpenAPIDocumentValidates(t *testing.T) {
	doc := docTestBuild(t)
	loader := openapi3.NewLoader()
	spec, err := loader.LoadFromData(doc)
	if err != nil {
		t.Fatalf("kin-openapi cannot load the document: %v", err)
	}
	if !spec.IsOpenAPI31OrLater() {
		t.Fatalf("kin-openapi reads version %q", spec.OpenAPI)
	}
	if err := spec.Validate(context.Background()); err != nil {
		t.Fatalf("kin-openapi finds the document invalid: %v", err)
	}
	if again := docTestBuild(t); !bytes.Equal(doc, again) {
		t.Error("two builds of one table differ")
	}
}

func TestOpenAPIDocumentShape(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal(docTestBuild(t), &doc); err != nil {
		t.Fatal(err)
	}
	check := func(name string, got any, want string) {
		t.Helper()
		if s := docJSON(got); s != want {
			t.Errorf("%s = %s; want %s", name, s, want)
		}
	}
	has := func(name string, got any, want ...string) {
		t.Helper()
		s := docJSON(got)
		for _, w := range want {
			if !strings.Contains(s, w) {
				t.Errorf("%s = %s; want it to contain %s", name, s, w)
			}
		}
	}

	check("openapi", doc["openapi"], `"3.1.0"`)
	check("info", doc["info"].(map[string]any)["title"], `"Fashion Imagery Studio API"`)
	check("version", doc["info"].(map[string]any)["version"], `"1.0.0"`)
	check("schemes", docDig(t, doc, "components", "securitySchemes"),
		`{"analystActionToken":{"description":"The internal analyst action token, for approvals: `+"`Authorization: Bearer \\u003cANALYST_ACTION_TOKEN\\u003e`"+`.","scheme":"bearer","type":"http"},`+
			`"analystToken":{"description":"The internal analyst token: `+"`Authorization: Bearer \\u003cANALYST_TOKEN\\u003e`"+`.","scheme":"bearer","type":"http"},`+
			`"apiKey":{"bearerFormat":"fis_sk_...","description":"An API key: `+"`Authorization: Bearer fis_sk_...`"+`.","scheme":"bearer","type":"http"},`+
			`"session":{"description":"The session cookie set by sign-in. Unsafe methods must also carry this service's Origin.","in":"cookie","name":"studio_session","type":"apiKey"}}`)

	t.Run("operations", func(t *testing.T) {
		ids := map[string]string{
			"GET /health": "getHealth", "GET /things": "getThings", "PATCH /things/{id}": "patchThingsById",
			"DELETE /things/{id}": "deleteThingsById", "GET /things/{id}/image": "getThingsByIdImage",
			"GET /things/{id}/pack": "getThingsByIdPack", "POST /uploads": "postUploads", "GET /me": "getMe",
			"POST /keys": "postKeys", "POST /admin/grants": "postAdminGrants", "POST /hooks/payments": "postHooksPayments",
			"GET /files/{path}": "getFilesByPath", "GET /list/": "getList",
		}
		for pattern, id := range ids {
			method, path, _ := strings.Cut(pattern, " ")
			op := docDig(t, doc, "paths", path, strings.ToLower(method))
			check(pattern+" operationId", docDig(t, op, "operationId"), `"`+id+`"`)
		}
		check("summary", docDig(t, doc, "paths", "/things/{id}", "patch", "summary"), `"Change a thing"`)
		check("tags", docDig(t, doc, "paths", "/things/{id}", "patch", "tags"), `["things"]`)
		check("tag list", doc["tags"], `[{"description":"`+tagDescriptions["meta"]+`","name":"meta"},{"name":"things"},{"description":"`+tagDescriptions["auth"]+`","name":"auth"},{"description":"`+tagDescriptions["admin"]+`","name":"admin"},{"name":"hooks"}]`)
	})

	t.Run("security", func(t *testing.T) {
		check("public", docDig(t, doc, "paths", "/health", "get", "security"), `[]`)
		check("key or session", docDig(t, doc, "paths", "/things", "get", "security"), `[{"apiKey":[]},{"session":[]}]`)
		check("session only", docDig(t, doc, "paths", "/me", "get", "security"), `[{"session":[]}]`)
		check("admin", docDig(t, doc, "paths", "/admin/grants", "post", "security"), `[{"session":[]}]`)
		has("admin note", docDig(t, doc, "paths", "/admin/grants", "post", "description"), "Platform admins only")
		check("shared secret", docDig(t, doc, "paths", "/hooks/payments", "post", "security"), `[]`)
		has("shared secret note", docDig(t, doc, "paths", "/hooks/payments", "post", "description"), "shared secret")
	})

	t.Run("parameters", func(t *testing.T) {
		check("path id", docDig(t, doc, "paths", "/things/{id}", "patch", "parameters"),
			`[{"in":"path","name":"id","required":true,"schema":{"type":"string"}}]`)
		check("path rest", docDig(t, doc, "paths", "/files/{path}", "get", "parameters"),
			`[{"in":"path","name":"path","required":true,"schema":{"type":"string"}}]`)
		check("query", docDig(t, doc, "paths", "/things", "get", "parameters"),
			`[{"description":"At most this many.","in":"query","name":"limit","schema":{"description":"At most this many.","maximum":100,"minimum":1,"type":"integer"}},`+
				`{"in":"query","name":"cursor","schema":{"type":"string"}},`+
				`{"in":"query","name":"kind","required":true,"schema":{"enum":["a","b"],"type":"string"}}]`)
	})

	t.Run("bodies", func(t *testing.T) {
		check("json body", docDig(t, doc, "paths", "/things/{id}", "patch", "requestBody"),
			`{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/DocThingPatch"}}},"required":true}`)
		// A type that is also an answer gets its own request component, without derived required fields.
		check("patch schema", docDig(t, doc, "components", "schemas", "DocThingPatch"),
			`{"properties":{"Tags":{"items":{"type":"string"},"type":"array"},"name":{"minLength":1,"type":"string"},"owner":{"$ref":"#/components/schemas/DocOwnerInput"}},"type":"object"}`)
		check("owner input", docDig(t, doc, "components", "schemas", "DocOwnerInput"),
			`{"properties":{"id":{"type":"string"},"name":{"type":"string"}},"type":"object"}`)
		check("owner answer", docDig(t, doc, "components", "schemas", "DocOwner"),
			`{"properties":{"id":{"type":"string"},"name":{"type":"string"}},"required":["id","name"],"type":"object"}`)
		check("tagged required", docDig(t, doc, "components", "schemas", "DocMintRequest", "required"), `["name"]`)
		check("multipart", docDig(t, doc, "paths", "/uploads", "post", "requestBody"),
			`{"content":{"multipart/form-data":{"schema":{"properties":{`+
				`"extra":{"items":{"format":"binary","type":"string"},"type":"array"},`+
				`"image":{"format":"binary","type":"string"},`+
				`"params":{"description":"A JSON object.","type":"string"},`+
				`"quality":{"default":"1k","enum":["1k","2k","4k"],"type":"string"}},`+
				`"required":["image"],"type":"object"}}},"required":true}`)
		check("any body", docDig(t, doc, "paths", "/hooks/payments", "post", "requestBody", "content", "application/json", "schema"),
			`{"additionalProperties":{},"type":"object"}`)
	})

	t.Run("answers", func(t *testing.T) {
		check("json", docDig(t, doc, "paths", "/things/{id}", "patch", "responses", "200"),
			`{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/DocThing"}}},"description":"OK"}`)
		check("no content", docDig(t, doc, "paths", "/things/{id}", "delete", "responses", "204"), `{"description":"No Content"}`)
		check("image", docDig(t, doc, "paths", "/things/{id}/image", "get", "responses", "200"),
			`{"content":{"image/png":{"schema":{"format":"binary","type":"string"}}},"description":"OK"}`)
		check("zip", docDig(t, doc, "paths", "/things/{id}/pack", "get", "responses", "200", "content"),
			`{"application/zip":{"schema":{"format":"binary","type":"string"}}}`)
		check("text", docDig(t, doc, "paths", "/files/{path}", "get", "responses", "200", "content"),
			`{"text/plain":{"schema":{"type":"string"}}}`)
		check("list", docDig(t, doc, "paths", "/list/", "get", "responses", "200", "content", "application/json", "schema"),
			`{"items":{"$ref":"#/components/schemas/DocOwner"},"type":"array"}`)
	})

	t.Run("errors", func(t *testing.T) {
		check("Error", docDig(t, doc, "components", "schemas", "Error", "required"), `["error","message"]`)
		check("Error extra", docDig(t, doc, "components", "schemas", "Error", "additionalProperties"), `true`)
		patch := docDig(t, doc, "paths", "/things/{id}", "patch", "responses")
		var statuses []string
		for st := range patch.(map[string]any) {
			statuses = append(statuses, st)
		}
		slices.Sort(statuses)
		check("statuses", statuses, `["200","400","401","403","404","408","409","413"]`)
		has("408", docDig(t, patch, "408"), `"enum":["REQUEST_TIMEOUT"]`)
		check("400", docDig(t, patch, "400"), `{"content":{"application/json":{"schema":{"allOf":[{"$ref":"#/components/schemas/Error"},`+
			`{"properties":{"error":{"enum":["BAD_JSON","BAD_BODY"]}}}]}}},`+
			`"description":"- `+"`BAD_JSON`"+`: The request body is not valid JSON.\n- `+"`BAD_BODY`"+`: The request body does not have the expected shape."}`)
		has("403", docDig(t, patch, "403"), `"enum":["BAD_ORIGIN"]`)
		has("404", docDig(t, patch, "404"), `"enum":["NOT_FOUND"]`)
		has("multipart 400", docDig(t, doc, "paths", "/uploads", "post", "responses", "400"), `"enum":["BAD_FORM"]`)
		has("multipart 413", docDig(t, doc, "paths", "/uploads", "post", "responses", "413"), `"enum":["IMAGE_TOO_LARGE"]`)
		has("admin 403", docDig(t, doc, "paths", "/admin/grants", "post", "responses", "403"), `"enum":["FORBIDDEN","BAD_ORIGIN"]`)
		has("429", docDig(t, doc, "paths", "/admin/grants", "post", "responses", "429"), `"Retry-After"`, `"enum":["RATE_LIMITED"]`)
		if _, ok := docDig(t, doc, "paths", "/health", "get", "responses").(map[string]any)["401"]; ok {
			t.Error("a public route documents 401")
		}
	})

	t.Run("schemas", func(t *testing.T) {
		thing := docDig(t, doc, "components", "schemas", "DocThing")
		check("required", docDig(t, thing, "required"),
			`["id","name","status","createdAt","deletedAt","tags","parts","grid","labels","owner"]`)
		check("createdAt", docDig(t, thing, "properties", "createdAt"), `{"format":"date-time","type":"string"}`)
		check("deletedAt", docDig(t, thing, "properties", "deletedAt"), `{"format":"date-time","type":["null","string"]}`)
		check("tags", docDig(t, thing, "properties", "tags"), `{"items":{"type":"string"},"type":"array"}`)
		check("parts", docDig(t, thing, "properties", "parts"), `{"items":{"$ref":"#/components/schemas/DocPart"},"type":"array"}`)
		check("grid", docDig(t, thing, "properties", "grid"), `{"items":{"items":{"type":"integer"},"type":"array"},"type":"array"}`)
		check("labels", docDig(t, thing, "properties", "labels"), `{"additionalProperties":{"type":"string"},"type":["object","null"]}`)
		check("owner", docDig(t, thing, "properties", "owner"), `{"$ref":"#/components/schemas/DocOwner"}`)
		check("status", docDig(t, thing, "properties", "status"), `{"enum":["draft","locked"],"type":"string"}`)
		for _, hidden := range []string{"Secret", "secret", "internal"} {
			if _, ok := docDig(t, thing, "properties").(map[string]any)[hidden]; ok {
				t.Errorf("DocThing documents %s", hidden)
			}
		}
		check("part", docDig(t, doc, "components", "schemas", "DocPart"),
			`{"properties":{"count":{"type":"integer"},"price":{"format":"double","type":"number"},"sku":{"type":"string"}},"required":["sku","count"],"type":"object"}`)
		check("list next", docDig(t, doc, "components", "schemas", "DocThingList", "properties", "next"), `{"type":["null","string"]}`)
		check("minted", docDig(t, doc, "components", "schemas", "DocMinted"),
			`{"properties":{"createdAt":{"format":"date-time","type":"string"},"id":{"type":"string"},"key":{"type":"string"},`+
				`"name":{"type":"string"},"prefix":{"type":"string"}},"required":["id","name","prefix","createdAt","key"],"type":"object"}`)
		check("embeds", docDig(t, doc, "components", "schemas", "DocEmbeds"),
			`{"properties":{"Tie":{"type":"integer"},"createdAt":{"format":"date-time","type":"string"},"extra":{"type":"string"},"id":{"type":"string"},`+
				`"name":{"type":"integer"},"onlyA":{"type":"string"},"prefix":{"type":"string"}},`+
				`"required":["name","id","prefix","createdAt","onlyA","Tie"],"type":"object"}`)
	})

	t.Run("no nullable arrays", func(t *testing.T) {
		var walk func(path string, v any)
		walk = func(path string, v any) {
			switch v := v.(type) {
			case map[string]any:
				if types, ok := v["type"].([]any); ok && slices.Contains(types, any("array")) {
					t.Errorf("%s: type %v", path, types)
				}
				for k, e := range v {
					walk(path+"/"+k, e)
				}
			case []any:
				for i, e := range v {
					walk(fmt.Sprintf("%s/%d", path, i), e)
				}
			}
		}
		walk("#", doc)
	})
}

func TestOpenAPIRefusesBadTables(t *testing.T) {
	tests := []struct {
		name   string
		routes []Route
		want   string
	}{
		{"same operationId", []Route{
			{Method: "GET", Path: "/a-b", Out: []Out{{Status: 204}}},
			{Method: "GET", Path: "/a/b", Out: []Out{{Status: 204}}},
		}, "operationId getAB"},
		{"success and error share a status", []Route{
			{Method: "GET", Path: "/x", Class: KeyOrSession, Out: []Out{{Status: 401}}},
		}, "status 401 is both"},
		{"two answers of one type", []Route{
			{Method: "GET", Path: "/x", Out: []Out{{Status: 200, ContentType: "image/png"}, {Status: 200, ContentType: "image/png"}}},
		}, "two answers"},
		{"same route twice", []Route{
			{Method: "GET", Path: "/x", Out: []Out{{Status: 204}}},
			{Method: "GET", Path: "/x/", Out: []Out{{Status: 204}}},
			{Method: "GET", Path: "/x", Out: []Out{{Status: 204}}},
		}, "operationId getX"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := buildOpenAPI(tt.routes)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v; want one containing %q", err, tt.want)
			}
		})
	}
}

func TestResponseValidator(t *testing.T) {
	v, err := apispec.NewResponseValidator(docTestBuild(t))
	if err != nil {
		t.Fatal(err)
	}
	jsonCT := http.Header{"Content-Type": {"application/json"}}
	thing := `{"id":"t1","name":"Coat","status":"draft","createdAt":"2026-11-22T07:20:49.123Z","deletedAt":null,` +
		`"tags":[],"parts":[{"sku":"s","count":2}],"grid":[[1,2]],"labels":{"a":"b"},"owner":{"id":"u","name":"Ann"}}`
	tests := []struct {
		name         string
		method, path string
		status       int
		header       http.Header
		body         string
		wantErr      string // "" passes
	}{
		{"valid", "PATCH", "/things/{id}", 200, jsonCT, thing, ""},
		{"valid with charset", "PATCH", "/things/{id}", 200, http.Header{"Content-Type": {"application/json; charset=utf-8"}}, thing, ""},
		{"nullable set", "PATCH", "/things/{id}", 200, jsonCT, strings.Replace(thing, `"deletedAt":null`, `"deletedAt":"2026-11-23T00:00:00.000Z"`, 1), ""},
		{"null map", "PATCH", "/things/{id}", 200, jsonCT, strings.Replace(thing, `{"a":"b"}`, `null`, 1), ""},
		{"extra field", "PATCH", "/things/{id}", 200, jsonCT, strings.Replace(thing, `"id":"t1"`, `"id":"t1","later":1`, 1), ""},
		{"missing required", "PATCH", "/things/{id}", 200, jsonCT, strings.Replace(thing, `"name":"Coat",`, ``, 1), "name"},
		{"missing nested required", "PATCH", "/things/{id}", 200, jsonCT, strings.Replace(thing, `"count":2`, `"x":2`, 1), "count"},
		{"wrong type", "PATCH", "/things/{id}", 200, jsonCT, strings.Replace(thing, `"count":2`, `"count":"2"`, 1), "count"},
		{"null slice", "PATCH", "/things/{id}", 200, jsonCT, strings.Replace(thing, `"tags":[]`, `"tags":null`, 1), "tags"},
		{"null timestamp", "PATCH", "/things/{id}", 200, jsonCT, strings.Replace(thing, `"2026-11-22T07:20:49.123Z"`, `null`, 1), "createdAt"},
		{"bad enum", "PATCH", "/things/{id}", 200, jsonCT, strings.Replace(thing, `"draft"`, `"gone"`, 1), "status"},
		{"not json", "PATCH", "/things/{id}", 200, jsonCT, `{"id":`, "decode"},
		{"no content type", "PATCH", "/things/{id}", 200, nil, thing, "Content-Type"},
		{"undocumented status", "PATCH", "/things/{id}", 500, jsonCT, `{"error":"INTERNAL","message":"x"}`, "status 500"},
		{"unknown route", "GET", "/nope", 200, jsonCT, `{}`, "no operation"},

		{"error", "PATCH", "/things/{id}", 404, jsonCT, `{"error":"NOT_FOUND","message":"Not found."}`, ""},
		{"error with fields", "POST", "/uploads", 413, jsonCT, `{"error":"IMAGE_TOO_LARGE","message":"Too big.","maxMb":12}`, ""},
		{"undocumented code", "PATCH", "/things/{id}", 404, jsonCT, `{"error":"GONE","message":"Gone."}`, "error"},
		{"error without message", "PATCH", "/things/{id}", 404, jsonCT, `{"error":"NOT_FOUND"}`, "message"},
		{"rate limited", "POST", "/admin/grants", 429, http.Header{"Content-Type": {"application/json"}, "Retry-After": {"60"}},
			`{"error":"RATE_LIMITED","message":"Later."}`, ""},
		{"bad Retry-After", "POST", "/admin/grants", 429, http.Header{"Content-Type": {"application/json"}, "Retry-After": {"soon"}},
			`{"error":"RATE_LIMITED","message":"Later."}`, "Retry-After"},

		{"no content", "DELETE", "/things/{id}", 204, nil, ``, ""},
		{"body where none is documented", "DELETE", "/things/{id}", 204, jsonCT, `{}`, "without a body"},
		{"image", "GET", "/things/{id}/image", 200, http.Header{"Content-Type": {"image/png"}}, "\x89PNG\r\n\x1a\n", ""},
		{"image as json", "GET", "/things/{id}/image", 200, jsonCT, `{}`, "Content-Type"},
		{"text", "GET", "/files/{path...}", 200, http.Header{"Content-Type": {"text/plain; charset=utf-8"}}, "hello", ""},
		{"array", "GET", "/list/{$}", 200, jsonCT, `[{"id":"u","name":"Ann"}]`, ""},
		{"head", "HEAD", "/health", 200, nil, ``, ""},
		{"embedded", "POST", "/admin/grants", 200, jsonCT, `{"name":3,"id":"k","prefix":"p","createdAt":"2026-11-22T07:20:49.123Z","onlyA":"a","Tie":1}`, ""},
		{"embedded wrong winner", "POST", "/admin/grants", 200, jsonCT, `{"name":"k","id":"k","prefix":"p","createdAt":"2026-11-22T07:20:49.123Z","onlyA":"a","Tie":1}`, "name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := v.Validate(tt.method, tt.path, tt.status, tt.header, []byte(tt.body))
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tt.wantErr != "" && err == nil:
				t.Fatalf("passed; want an error about %q", tt.wantErr)
			case tt.wantErr != "" && !strings.Contains(err.Error(), tt.wantErr):
				t.Fatalf("error %q does not mention %q", err, tt.wantErr)
			}
		})
	}

	t.Run("concurrent", func(t *testing.T) {
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				for range 20 {
					if err := v.Validate("PATCH", "/things/{id}", 200, jsonCT, []byte(thing)); err != nil {
						t.Error(err)
						return
					}
					if err := v.Validate("PATCH", "/things/{id}", 200, jsonCT, []byte(`{}`)); err == nil {
						t.Error("an empty object passed")
						return
					}
				}
			})
		}
		wg.Wait()
	})
}

func TestResponseValidatorRefusesBadDocuments(t *testing.T) {
	for _, doc := range []string{
		`{`,
		`{"openapi":"3.1.0","info":{"title":"x"},"paths":{}}`, // no version
	} {
		if _, err := apispec.NewResponseValidator([]byte(doc)); err == nil {
			t.Errorf("%s: accepted", doc)
		}
	}
}
