package patch_test

import (
	"encoding/json"
	"testing"

	"studio/internal/patch"
)

type body struct {
	Name  patch.Field[string]   `json:"name"`
	Tags  patch.Field[[]string] `json:"tags"`
	Count patch.Field[int]      `json:"count"`
}

func TestField(t *testing.T) {
	tests := []struct {
		json string
		want body
	}{
		{`{}`, body{}},
		{`{"name":null}`, body{Name: patch.Field[string]{Set: true, Null: true}}},
		{`{"name":""}`, body{Name: patch.Of("")}},
		{`{"NAME":"a"}`, body{Name: patch.Of("a")}}, // keys match as encoding/json matches them
		{`{"name":"a","name":null}`, body{Name: patch.Field[string]{Set: true, Null: true}}},
		{`{"name":null,"name":"b"}`, body{Name: patch.Of("b")}},
		{`{"count":0}`, body{Count: patch.Of(0)}},
	}
	for _, tt := range tests {
		var got body
		if err := json.Unmarshal([]byte(tt.json), &got); err != nil {
			t.Fatalf("%s: %v", tt.json, err)
		}
		if got.Name != tt.want.Name || got.Count != tt.want.Count || got.Tags.Set != tt.want.Tags.Set {
			t.Errorf("%s: got %+v; want %+v", tt.json, got, tt.want)
		}
	}
	var got body
	if err := json.Unmarshal([]byte(`{"tags":["a","b"]}`), &got); err != nil || !got.Tags.Has() || len(got.Tags.Value) != 2 {
		t.Errorf("tags: %+v %v", got.Tags, err)
	}
	if got.Name.Ptr() != nil || got.Tags.Ptr() == nil {
		t.Errorf("Ptr: %v %v", got.Name.Ptr(), got.Tags.Ptr())
	}
	var typeErr *json.UnmarshalTypeError
	if err := json.Unmarshal([]byte(`{"count":"x"}`), &got); err == nil {
		t.Error("a string count decoded")
	} else if !asTypeErr(err, &typeErr) || typeErr.Field != "count" {
		t.Errorf("a string count: %v; want an UnmarshalTypeError naming count", err)
	}
}

func asTypeErr(err error, target **json.UnmarshalTypeError) bool {
	e, ok := err.(*json.UnmarshalTypeError)
	*target = e
	return ok
}

func TestSchema(t *testing.T) {
	for _, tc := range []struct {
		got  func() ([]byte, error)
		want string
	}{
		{patch.Field[string]{}.JSONSchemaBytes, `{"type":"string"}`},
		{patch.Field[bool]{}.JSONSchemaBytes, `{"type":"boolean"}`},
		{patch.Field[int64]{}.JSONSchemaBytes, `{"type":"integer"}`},
		{patch.Field[[]string]{}.JSONSchemaBytes, `{"items":{"type":"string"},"type":"array"}`},
	} {
		b, err := tc.got()
		if err != nil || string(b) != tc.want {
			t.Errorf("got %s %v; want %s", b, err, tc.want)
		}
	}
	if _, err := (patch.Field[map[string]int]{}).JSONSchemaBytes(); err == nil {
		t.Error("a map field has a schema")
	}
}
