package chat

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"

	"studio/internal/errs"
	"studio/internal/look"
)

func ptr[T any](v T) *T { return &v }

func mustDraft(t *testing.T, js string) Draft {
	t.Helper()
	d, err := ParseDraft(json.RawMessage(js))
	if err != nil {
		t.Fatalf("draft %s: %v", js, err)
	}
	return d
}

func TestApplyAndUndo(t *testing.T) {
	base := mustDraft(t, `{"name":"Spring","modelAssetId":"m1","items":[{"assetId":"a","role":"top"},{"assetId":"b","role":"bag","hero":true},{"assetId":"c","role":"shoes"}],"aesthetic":"editorial"}`)
	if base.Items[0].AssetID != "b" || !base.Items[0].Hero {
		t.Fatalf("the hero leads: %+v", base.Items)
	}
	tests := []struct {
		name   string
		m      Mutation
		check  func(Draft) bool
		reason string
	}{
		{"rename", Mutation{Op: "rename", Name: "Summer"}, func(d Draft) bool { return d.Name == "Summer" }, ""},
		{"swap model", Mutation{Op: "set-model", AssetID: "m2"}, func(d Draft) bool { return d.ModelAssetID == "m2" }, ""},
		{"clear model", Mutation{Op: "set-model"}, func(d Draft) bool { return d.ModelAssetID == "" }, ""},
		{"model is a piece", Mutation{Op: "set-model", AssetID: "a"}, nil, ReasonModelIsPiece},
		{"add a piece", Mutation{Op: "add-item", AssetID: "d", Role: "jewelry"}, func(d Draft) bool { return len(d.Items) == 4 && d.Items[3].AssetID == "d" }, ""},
		{"add a hero", Mutation{Op: "add-item", AssetID: "d", Role: "bag", Hero: true}, func(d Draft) bool { return d.Items[0].AssetID == "d" && d.Items[0].Hero && !d.Items[1].Hero }, ""},
		{"add at a place", Mutation{Op: "add-item", AssetID: "d", Role: "bag", Position: ptr(0)}, func(d Draft) bool { return d.Items[1].AssetID == "d" }, ""},
		{"add twice", Mutation{Op: "add-item", AssetID: "a", Role: "top"}, nil, ReasonAlreadyInDraft},
		{"add the model", Mutation{Op: "add-item", AssetID: "m1", Role: "top"}, nil, ReasonAlreadyInDraft},
		{"remove the hero", Mutation{Op: "remove-item", AssetID: "b"}, func(d Draft) bool { return len(d.Items) == 2 && d.Items[0].AssetID == "a" && d.Items[0].Hero }, ""},
		{"remove a piece", Mutation{Op: "remove-item", AssetID: "c"}, func(d Draft) bool { return len(d.Items) == 2 }, ""},
		{"remove a stranger", Mutation{Op: "remove-item", AssetID: "z"}, nil, ReasonNotInDraft},
		{"new hero", Mutation{Op: "set-hero", AssetID: "c"}, func(d Draft) bool { return d.Items[0].AssetID == "c" && d.Items[0].Hero && d.Items[1].AssetID == "b" }, ""},
		{"hero again", Mutation{Op: "set-hero", AssetID: "b"}, func(d Draft) bool { return d.Items[0].AssetID == "b" }, ""},
		{"hero of a stranger", Mutation{Op: "set-hero", AssetID: "z"}, nil, ReasonNotInDraft},
		{"background", Mutation{Op: "set-background", Background: &look.Background{Kind: "preset", Value: "garden"}}, func(d Draft) bool { return d.Background.Value == "garden" }, ""},
		{"warmer", Mutation{Op: "set-aesthetic", Aesthetic: "romantic"}, func(d Draft) bool { return d.Aesthetic == "romantic" }, ""},
		{"quality", Mutation{Op: "set-quality", Quality: "4k"}, func(d Draft) bool { return d.Quality == "4k" }, ""},
		{"output", Mutation{Op: "set-output", Output: &look.Output{Destination: "story"}}, func(d Draft) bool { return d.Output.Destination == "story" }, ""},
		{"output too large for 1k", Mutation{Op: "set-output", Output: &look.Output{Destination: "print-a4"}}, nil, ReasonQualityTooLow},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := tt.m
			if err := m.Check(); err != nil {
				t.Fatal(err)
			}
			before := base.clone()
			got, ap, err := Apply(base, m)
			if tt.reason != "" {
				e, ok := errs.As(err)
				if !ok || e.Code != "CANNOT_APPLY" || e.Fields["reason"] != tt.reason {
					t.Fatalf("err = %v; want CANNOT_APPLY %s", err, tt.reason)
				}
				return
			}
			if err != nil || !tt.check(got) {
				t.Fatalf("apply: %v %+v", err, got)
			}
			if !reflect.DeepEqual(base, before) {
				t.Fatal("Apply changed its argument")
			}
			inv := ap.Inverse
			if err := inv.Check(); err != nil {
				t.Fatalf("inverse %+v: %v", inv, err)
			}
			undone, _, err := Apply(got, inv)
			if err != nil || !reflect.DeepEqual(undone, base) {
				t.Fatalf("undo: %v\n got %+v\nwant %+v", err, undone, base)
			}
		})
	}
}

// TestUndoRandomWalks applies random mutations and then their inverses in
// reverse order: the draft comes back exactly.
func TestUndoRandomWalks(t *testing.T) {
	ids := []string{"a", "b", "c", "d", "e", "f", "g", "m1", "m2"}
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func(ss []string) string { return ss[rng.IntN(len(ss))] }
	random := func() Mutation {
		switch op := pick(Ops); op {
		case "rename":
			return Mutation{Op: op, Name: pick(ids)}
		case "set-model":
			return Mutation{Op: op, AssetID: pick(append(ids, ""))}
		case "add-item":
			m := Mutation{Op: op, AssetID: pick(ids), Role: pick(look.ItemRoles), Hero: rng.IntN(3) == 0}
			if rng.IntN(2) == 0 {
				m.Position = ptr(rng.IntN(7))
			}
			return m
		case "remove-item":
			return Mutation{Op: op, AssetID: pick(ids)}
		case "set-hero":
			m := Mutation{Op: op, AssetID: pick(ids)}
			if rng.IntN(2) == 0 {
				m.Position = ptr(rng.IntN(7))
			}
			return m
		case "set-background":
			if rng.IntN(3) == 0 {
				return Mutation{Op: op}
			}
			return Mutation{Op: op, Background: &look.Background{Kind: "preset", Value: pick(look.BackgroundPresets)}}
		case "set-aesthetic":
			return Mutation{Op: op, Aesthetic: pick(append(look.Aesthetics, ""))}
		case "set-quality":
			return Mutation{Op: op, Quality: pick([]string{"1k", "2k", "4k"})}
		default:
			return Mutation{Op: op, Output: &look.Output{Destination: pick([]string{"web-tile", "story", "feed-portrait", "landscape-hero"})}}
		}
	}
	for walk := 0; walk < 300; walk++ {
		d := mustDraft(t, `{}`)
		var history []Draft
		var undo []Mutation
		for step := 0; step < 12; step++ {
			m := random()
			if err := m.Check(); err != nil {
				t.Fatalf("%+v: %v", m, err)
			}
			next, ap, err := Apply(d, m)
			if err != nil {
				continue
			}
			if err := next.Check(); err != nil {
				t.Fatalf("applied draft fails its check: %v (%+v)", err, next)
			}
			history, undo = append(history, d), append(undo, ap.Inverse)
			d = next
		}
		for i := len(undo) - 1; i >= 0; i-- {
			inv := undo[i]
			if err := inv.Check(); err != nil {
				t.Fatalf("inverse %+v: %v", inv, err)
			}
			prev, _, err := Apply(d, inv)
			if err != nil || !reflect.DeepEqual(prev, history[i]) {
				t.Fatalf("walk %d undo %d (%+v): %v\n got %+v\nwant %+v", walk, i, inv, err, prev, history[i])
			}
			d = prev
		}
	}
}

func TestParseRefusals(t *testing.T) {
	for _, js := range []string{`[]`, `{"items":[{"assetId":"a","role":"hat"}]}`, `{"items":[{"assetId":"a","role":"top"},{"assetId":"a","role":"bag"}]}`,
		`{"aesthetic":"baroque"}`, `{"quality":"8k"}`, `{"output":{"destination":"billboard"}}`, `{"background":{"kind":"preset","value":"moon"}}`,
		`{"quality":"1k","output":{"destination":"print-a4"}}`, `{"modelAssetId":"a","items":[{"assetId":"a","role":"top"}]}`} {
		if _, err := ParseDraft(json.RawMessage(js)); !errorIs(err, "BAD_DRAFT") {
			t.Errorf("draft %s: %v; want BAD_DRAFT", js, err)
		}
	}
	for _, js := range []string{``, `null`, `[]`, `{"op":"paint"}`, `{"op":"add-item","assetId":"a"}`, `{"op":"remove-item"}`,
		`{"op":"set-quality","quality":"8k"}`, `{"op":"set-quality"}`, `{"op":"set-output"}`, `{"op":"set-aesthetic","aesthetic":"x"}`} {
		if _, err := ParseMutation(json.RawMessage(js)); !errorIs(err, "BAD_MUTATION") {
			t.Errorf("mutation %s: %v; want BAD_MUTATION", js, err)
		}
	}
}

func errorIs(err error, code string) bool {
	e, ok := errs.As(err)
	return ok && e.Code == code
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"items":[{"assetId":"a","role":"top"}]}`), []byte(`{"op":"add-item","assetId":"b","role":"bag","hero":true}`))
	f.Add([]byte(`{}`), []byte(`{"op":"set-hero","assetId":"a","position":3}`))
	f.Fuzz(func(t *testing.T, draft, mutation []byte) {
		d, err := ParseDraft(draft)
		if err != nil {
			return
		}
		m, err := ParseMutation(mutation)
		if err != nil {
			return
		}
		next, ap, err := Apply(d, m)
		if err != nil {
			return
		}
		if err := next.Check(); err != nil {
			t.Fatalf("applied draft fails its check: %v", err)
		}
		inv := ap.Inverse
		if err := inv.Check(); err != nil {
			t.Fatalf("inverse fails its check: %v", err)
		}
		back, _, err := Apply(next, inv)
		if err != nil || !reflect.DeepEqual(back, d) {
			t.Fatalf("undo: %v\n got %+v\nwant %+v", err, back, d)
		}
	})
}
