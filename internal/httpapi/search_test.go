package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"studio/internal/apptest"
	"studio/internal/search"
)

var searchWalk = walkArea{
	samples: map[string]sampleFunc{
		"GET /api/toolkit/search": static("/api/toolkit/search?q=linen", nil),
	},
}

func searchFor(t *testing.T, a *apptest.App, c apptest.Cred, q string) []search.Result {
	t.Helper()
	res := a.Do(t, "GET", "/api/toolkit/search?q="+q, c, nil)
	if res.Status != http.StatusOK {
		t.Fatalf("search %q: %d %s", q, res.Status, res.Body)
	}
	var body struct{ Results []search.Result }
	res.JSON(t, &body)
	return body.Results
}

func kinds(rs []search.Result) map[string]string {
	out := map[string]string{}
	for _, r := range rs {
		out[r.Kind] = r.Title
	}
	return out
}

// TestSearch: "linen" finds the piece, its collection and the look that
// uses it, in this house only, as they are now.
func TestSearch(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner, other := a.SignUp(t, "owner"), a.SignUp(t, "other")
		k, ko := a.Key(t, owner, "member"), a.Key(t, other, "member")
		var folder struct{ Folder struct{ ID string } }
		a.Do(t, "POST", "/api/toolkit/folders", k, map[string]any{"name": "Summer Linen"}).JSON(t, &folder)
		piece := upload(t, a, k, productJPEG(t, 200, 240), "kind", "clothes", "name", "Linen shirt", "sku", "LS-27", "folderId", folder.Folder.ID)
		upload(t, a, k, productJPEG(t, 200, 240), "kind", "background", "name", "Linen backdrop")
		model := upload(t, a, k, modelJPEG(t), "kind", "model")
		res := a.Do(t, "POST", "/api/toolkit/lookbook/looks", k, map[string]any{
			"name": "Beach day", "modelAssetId": model.ID,
			"itemAssetIds": []map[string]any{{"assetId": piece.ID, "role": "top"}},
			"background":   map[string]string{"kind": "preset", "value": "studio-white"}, "aesthetic": "editorial"})
		if res.Status != http.StatusCreated {
			t.Fatalf("look: %d %s", res.Status, res.Body)
		}
		upload(t, a, ko, productJPEG(t, 200, 240), "kind", "clothes", "name", "Linen trousers")

		got := searchFor(t, a, k, "linen")
		if ks := kinds(got); len(got) != 3 || ks["piece"] != "Linen shirt" || ks["collection"] != "Summer Linen" || ks["look"] != "Beach day" {
			t.Fatalf("linen found %+v; want the piece, its collection and the look", got)
		}
		for _, r := range got {
			if r.Kind == "piece" && (r.Meta == nil || *r.Meta != "LS-27" || r.ThumbURL == nil || !strings.Contains(*r.ThumbURL, piece.ID)) {
				t.Errorf("the piece %+v; want its SKU and picture", r)
			}
			if r.Kind == "collection" && (r.Meta != nil || r.ThumbURL != nil) {
				t.Errorf("the collection %+v; want no caption or picture invented", r)
			}
		}
		if got := searchFor(t, a, k, "LIN%20sh"); len(got) != 2 || got[0].ID != piece.ID || got[1].Kind != "look" {
			t.Errorf("prefixes 'LIN sh' found %+v; want the piece, then the look that holds it", got)
		}
		if got := searchFor(t, a, k, "ls-27"); len(got) != 1 || got[0].ID != piece.ID {
			t.Errorf("the SKU found %+v", got)
		}
		if got := searchFor(t, a, k, `%22lin*%22%20OR%20%7Btitle%7D`); len(got) != 0 {
			t.Errorf("query syntax is only words: %+v", got)
		}
		if got := searchFor(t, a, ko, "linen"); len(got) != 1 || got[0].Title != "Linen trousers" {
			t.Errorf("the other house found %+v; want only its own", got)
		}

		a.Do(t, "PATCH", "/api/toolkit/assets/"+piece.ID, k, map[string]any{"name": "Hemp shirt"})
		if ks := kinds(searchFor(t, a, k, "hemp")); ks["piece"] != "Hemp shirt" {
			t.Errorf("a renamed piece is not found by its new name: %v", ks)
		}
		a.Do(t, "PATCH", "/api/toolkit/folders/"+folder.Folder.ID, k, map[string]any{"name": "Autumn"})
		if ks := kinds(searchFor(t, a, k, "autumn")); ks["collection"] != "Autumn" || ks["piece"] != "Hemp shirt" {
			t.Errorf("after the collection's rename, autumn finds %v; want it and its piece", ks)
		}
		a.Do(t, "POST", "/api/toolkit/assets/batch/delete", k, map[string]any{"assetIds": []string{piece.ID}})
		if ks := kinds(searchFor(t, a, k, "hemp")); ks["piece"] != "" {
			t.Errorf("a deleted piece is still found: %v", ks)
		}
		if got := searchFor(t, a, k, "%2B%2B"); len(got) != 0 {
			t.Errorf("a query without a word found %+v", got)
		}
		want(t, a.Do(t, "GET", "/api/toolkit/search", k, nil), 400, "BAD_QUERY")
		want(t, a.Do(t, "GET", "/api/toolkit/search?q="+strings.Repeat("a", 201), k, nil), 400, "BAD_QUERY")
		want(t, a.Do(t, "GET", "/api/toolkit/search?q=a&limit=51", k, nil), 400, "BAD_LIMIT")
	})
}
