package openapi

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"
)

// The types cover how encoding/json resolves fields: tags, omitempty,
// skipped and unexported fields, pointers, and embedded structs whose names
// hide, tie or annihilate each other.
type (
	docOwner struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	}
	docThing struct {
		ID        string            `json:"id"`
		Name      string            `json:"name" minLength:"1"`
		DeletedAt *string           `json:"deletedAt"`
		Tags      []string          `json:"tags"`
		Labels    map[string]string `json:"labels"`
		Owner     docOwner          `json:"owner"`
		Note      string            `json:"note,omitempty"`
		Secret    string            `json:"-"`
		internal  int
	}
	docThingList struct {
		Things []docThing `json:"things"`
		Next   *string    `json:"next"`
	}
	docKey struct {
		ID     string `json:"id"`
		Name   string `json:"name"`
		Prefix string `json:"prefix"`
	}
	docMinted struct {
		docKey
		Secret string `json:"key"`
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
	docEmbeds struct {
		Name int `json:"name"`
		docKey
		docA
		docB
		*docOpt
	}
)

// TestOpenAPIFieldsMatchEncodingJSON checks jsonFields against what
// encoding/json writes for values whose every field is set.
func TestOpenAPIFieldsMatchEncodingJSON(t *testing.T) {
	note := "n"
	for _, v := range []any{
		docThing{Note: "n", Secret: "s", internal: 1},
		docThingList{Next: &note},
		docMinted{},
		docEmbeds{docOpt: &docOpt{}},
	} {
		raw, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		var want, got []string
		for k := range m {
			want = append(want, k)
		}
		for k := range jsonFields(reflect.TypeOf(v)) {
			got = append(got, k)
		}
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%T: jsonFields %v; encoding/json writes %v", v, got, want)
		}
	}
}
