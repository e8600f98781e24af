package look

import (
	"errors"
	"testing"
	"time"

	"studio/internal/ts"
)

func TestCheckItems(t *testing.T) {
	items, err := CheckItems([]Item{{AssetID: "a", Role: "bag"}, {AssetID: "b", Role: "top", Hero: true}})
	if err != nil || items[0].AssetID != "b" || !items[0].Hero || items[1].Hero {
		t.Fatalf("hero not first: %+v %v", items, err)
	}
	items, _ = CheckItems([]Item{{AssetID: "a", Role: "bag"}, {AssetID: "b", Role: "top"}})
	if !items[0].Hero || items[0].AssetID != "a" {
		t.Errorf("without a hero the first piece leads: %+v", items)
	}
	for name, in := range map[string][]Item{
		"empty id":   {{Role: "top"}},
		"bad role":   {{AssetID: "a", Role: "cape"}},
		"twice":      {{AssetID: "a", Role: "top"}, {AssetID: "a", Role: "bag"}},
		"two heroes": {{AssetID: "a", Role: "top", Hero: true}, {AssetID: "b", Role: "bag", Hero: true}},
	} {
		if _, err := CheckItems(in); !errors.Is(err, ErrBadItem) {
			t.Errorf("%s: %v; want BAD_ITEM", name, err)
		}
	}
}

func TestCheckKeys(t *testing.T) {
	ps := Postures{Custom: []CustomPosture{{ID: "custom-mine", Name: "Mine", BaseID: "spin"}}}
	if err := CheckKeys([]string{"front", "posture:spin", "posture:custom-mine"}, ps); err != nil {
		t.Errorf("legal keys refused: %v", err)
	}
	for _, keys := range [][]string{{"posture:custom-mine"}} {
		if err := CheckKeys(keys, Postures{}); !errors.Is(err, ErrUnknownVariant) {
			t.Errorf("%v without the custom posture: %v", keys, err)
		}
	}
	if err := CheckKeys(nil, ps); !errors.Is(err, ErrKeysRequired) {
		t.Errorf("no keys: %v", err)
	}
	if err := CheckKeys(make([]string, 13), ps); !errors.Is(err, ErrTooManyFrames) {
		t.Errorf("13 keys: %v", err)
	}
}

func TestMergePrefs(t *testing.T) {
	now := ts.Of(time.Unix(1700000000, 0))
	favs := []string{"spin", "ghost", "spin", "custom-a"}
	custom := []CustomPostureInput{{ID: "custom-a", Name: "A", BaseID: "pockets", Deltas: []string{"gaze:away"}}}
	got, err := Merge(Prefs{}, PrefsPatch{Favorites: &favs, Custom: &custom}, nil, now)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Favorites) != 2 || got.Favorites[1] != "custom-a" || got.Defaults == nil {
		t.Errorf("merged %+v", got)
	}
	// Dropping the custom posture drops the ids that named it.
	none := []CustomPostureInput{}
	got, _ = Merge(got, PrefsPatch{Custom: &none}, nil, now)
	if len(got.Favorites) != 1 {
		t.Errorf("favorites %v after the custom posture went", got.Favorites)
	}
	if len(Library) < 12 {
		t.Errorf("the library has %d postures", len(Library))
	}
	for _, p := range Library {
		if p.fragment == "" || len(p.Controls.Only) == 0 {
			t.Errorf("posture %s lacks a fragment or controls", p.ID)
		}
	}
	for _, tpl := range Templates {
		if err := CheckKeys(tpl.VariationKeys, Postures{}); err != nil {
			t.Errorf("template %s: %v", tpl.ID, err)
		}
	}
}
