package httpapi

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"studio/internal/errs"
)

var (
	errTestLimit  = errs.New(errs.KindInvalid, "BAD_LIMIT", "limit is out of range.")
	errTestState  = errs.New(errs.KindInvalid, "BAD_STATE", "state is not legal.")
	errTestCursor = errs.New(errs.KindInvalid, "BAD_CURSOR", "before is not a cursor.")
	errTestKind   = errs.New(errs.KindInvalid, "BAD_KIND_NAME", "kindName is bad.")
)

type testQuery struct {
	State    string  `query:"state" enum:"active,all" default:"all"`
	Limit    int     `query:"limit" minimum:"1" maximum:"200" default:"50"`
	Since    *int64  `query:"since" minimum:"0" refuse:"BAD_LIMIT"`
	Before   string  `query:"before" refuse:"BAD_CURSOR" maxLength:"8"`
	KindName *string `query:"kindName" required:"true"`
	Ignored  string
}

func testQueryRoute() Route {
	return Route{Method: "GET", Path: "/things", Query: testQuery{},
		Errors: []*errs.Error{errTestLimit, errTestState, errTestCursor, errTestKind}}
}

func decodeTestQuery(raw string) (testQuery, error) {
	r := httptest.NewRequest("GET", "/things?"+raw, nil)
	v, err := planQuery(testQueryRoute()).decode(r)
	if err != nil {
		return testQuery{}, err
	}
	return *v.(*testQuery), nil
}

// TestQueryDecoder: the tags that document a query are the ones enforced.
func TestQueryDecoder(t *testing.T) {
	q, err := decodeTestQuery("kindName=x")
	if err != nil {
		t.Fatal(err)
	}
	if q.State != "all" || q.Limit != 50 || q.Since != nil || q.Before != "" || *q.KindName != "x" {
		t.Errorf("defaults: got %+v", q)
	}
	q, err = decodeTestQuery("kindName=x&state=active&limit=200&since=0&before=abc&Ignored=1&other=%00")
	if err != nil {
		t.Fatal(err)
	}
	if q.State != "active" || q.Limit != 200 || q.Since == nil || *q.Since != 0 || q.Before != "abc" || q.Ignored != "" {
		t.Errorf("values: got %+v", q)
	}

	for _, tc := range []struct{ query, code, message string }{
		{"", "BAD_KIND_NAME", "kindName is required."},
		{"kindName=", "BAD_KIND_NAME", "kindName is required."},
		{"kindName=x&limit=0", "BAD_LIMIT", "limit must be a whole number from 1 to 200."},
		{"kindName=x&limit=201", "BAD_LIMIT", "limit must be a whole number from 1 to 200."},
		{"kindName=x&limit=1.5", "BAD_LIMIT", "limit must be a whole number from 1 to 200."},
		{"kindName=x&limit=", "BAD_LIMIT", "limit must be a whole number from 1 to 200."}, // given empty is given
		{"kindName=x&limit=99999999999999999999", "BAD_LIMIT", "limit must be a whole number from 1 to 200."},
		{"kindName=x&limit=5&limit=6", "BAD_LIMIT", "limit must be given once."},
		{"kindName=x&since=-1", "BAD_LIMIT", "since must be a whole number of at least 0."},
		{"kindName=x&state=done", "BAD_STATE", "state must be active or all."},
		{"kindName=x&before=123456789", "BAD_CURSOR", "before must be at most 8 characters."},
		{"kindName=x&before=a%00b", "BAD_CURSOR", "before must be text without control characters."},
		{"kindName=x&before=%01", "BAD_CURSOR", "before must be text without control characters."},
		{"kindName=x&before=%FF", "BAD_CURSOR", "before must be text without control characters."},
		{"kindName=a%00", "BAD_KIND_NAME", "kindName must be text without control characters."},
		{"kindName=a%09b%0Ac%0Dd", "", ""}, // tab and line breaks are text
	} {
		_, err := decodeTestQuery(tc.query)
		e, _ := errs.As(err)
		switch {
		case tc.code == "" && err != nil:
			t.Errorf("%q: %v", tc.query, err)
		case tc.code != "" && (e == nil || e.Code != tc.code || e.Message != tc.message):
			t.Errorf("%q: got %v; want %s %q", tc.query, err, tc.code, tc.message)
		}
	}
}

// TestQueryPlanRefusesUndocumentedCodes: a query parameter whose refusal
// the route does not document is a programming error NewServer meets.
func TestQueryPlanRefusesUndocumentedCodes(t *testing.T) {
	for _, tc := range []struct {
		name  string
		query any
		want  string
	}{
		{"undocumented refusal", struct {
			Folder string `query:"folderId"`
		}{}, "BAD_FOLDER_ID"},
		{"unsupported type", struct {
			On bool `query:"on"`
		}{}, "strings and integers only"},
		{"bad bound", struct {
			Limit int `query:"limit" maximum:"lots"`
		}{}, "not an integer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if v := recover(); v == nil || !strings.Contains(v.(string), tc.want) {
					t.Errorf("panic %v; want one naming %q", v, tc.want)
				}
			}()
			planQuery(Route{Method: "GET", Path: "/x", Query: tc.query, Errors: []*errs.Error{errTestLimit}})
		})
	}
}

// TestEveryQueryIsPlanned: every route's query decodes with the tags it
// documents (NewServer would panic otherwise) and refuses a control character.
func TestEveryQueryIsPlanned(t *testing.T) {
	s := NewServer(Config{}, Services{}, nil)
	for _, rt := range s.Routes() {
		if rt.Query == nil {
			continue
		}
		plan := planQuery(rt)
		for _, f := range plan.fields {
			r := httptest.NewRequest("GET", rt.Path+"?"+url.Values{f.name: {"a\x00"}}.Encode(), nil)
			if _, err := plan.decode(r); err == nil {
				t.Errorf("%s: %s with a NUL passed", rt.Pattern(), f.name)
			}
		}
	}
}

func FuzzQueryDecoder(f *testing.F) {
	for _, s := range []string{"kindName=x", "kindName=x&limit=5&state=active", "limit=%00", "since=-0&before=%FF%FE", "a=b&a=c"} {
		f.Add(s)
	}
	plan := planQuery(testQueryRoute())
	f.Fuzz(func(t *testing.T, raw string) {
		r := &http.Request{Method: "GET", URL: &url.URL{Path: "/things", RawQuery: raw}}
		v, err := plan.decode(r)
		if err != nil {
			if e, ok := errs.As(err); !ok || e.Kind != errs.KindInvalid {
				t.Fatalf("%q: %v is not a 400", raw, err)
			}
			return
		}
		q := *v.(*testQuery)
		if q.Limit < 1 || q.Limit > 200 || (q.State != "active" && q.State != "all") || q.KindName == nil ||
			!cleanText(*q.KindName) || (q.Before != "" && !cleanText(q.Before)) || (q.Since != nil && *q.Since < 0) {
			t.Fatalf("%q decoded to %+v", raw, q)
		}
	})
}
