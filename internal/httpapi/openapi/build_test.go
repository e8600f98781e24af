package openapi

import (
	"strings"
	"testing"
)

// A document is built once per distinct input: equal operations (fresh
// values of the same types) share the first document's bytes, and a change
// anywhere (a summary, a body's type) builds another.
func TestBuildKeepsEachDocument(t *testing.T) {
	ops := func(summary string, body any) []Operation {
		return []Operation{{
			Method: "POST", Path: "/api/things", Tag: "things", Summary: summary, Body: body,
			Answers: []Answer{{Status: 201, Body: docThing{}}},
			Errors:  []Error{{Status: 400, Code: "BAD_THING", Message: "The thing is malformed."}},
		}}
	}
	info := func() Info {
		return Info{SessionCookie: "studio_session", Tags: map[string]string{"things": "Things."}}
	}
	build := func(summary string, body any) []byte {
		t.Helper()
		doc, err := Build(info(), ops(summary, body))
		if err != nil {
			t.Fatal(err)
		}
		return doc
	}
	first := build("Create a thing", docOwner{})
	again := build("Create a thing", docOwner{})
	if &first[0] != &again[0] {
		t.Error("an equal input built its document again")
	}
	if cap(first) != len(first) {
		t.Error("the shared document has room to append into")
	}
	other := build("Make a thing", docOwner{})
	if &other[0] == &first[0] || !strings.Contains(string(other), "Make a thing") {
		t.Error("a changed summary answered the old document")
	}
	typed := build("Create a thing", docThing{})
	if &typed[0] == &first[0] || string(typed) == string(first) {
		t.Error("a body of another type answered the old document")
	}
}
