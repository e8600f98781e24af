package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/jpeg"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"

	"studio/internal/apptest"
	"studio/internal/auth"
)

// modelsWalk is the casting board's part of the route walk (walk_test.go).
var modelsWalk = walkArea{
	samples: map[string]sampleFunc{
		"GET /api/toolkit/models": static("/api/toolkit/models", nil),
		"POST /api/toolkit/models/own": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/toolkit/models/own", map[string]any{"name": "Ines", "assetIds": []string{assetID(t, a, u)}}}
		},
		"GET /api/toolkit/models/{id}": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/toolkit/models/" + walkModel(t, a, u), nil}
		},
		"PATCH /api/toolkit/models/{id}": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/toolkit/models/" + walkModel(t, a, u),
				map[string]any{"traits": map[string]any{"height": "178 cm"}}}
		},
		// An own model: the owner's click is 400 ALREADY_YOURS (admitted), another house's the one 404.
		"POST /api/toolkit/models/{id}/checkout": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/toolkit/models/" + walkModel(t, a, u) + "/checkout", nil}
		},
		"GET /api/toolkit/explore": static("/api/toolkit/explore", nil),
		// An own model: a member's take is 400 ALREADY_YOURS (admitted), another house's the one 404.
		"POST /api/toolkit/explore/{kind}/{id}/take": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/toolkit/explore/model/" + walkModel(t, a, u) + "/take", nil}
		},
		"GET /api/toolkit/models/{id}/image": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/toolkit/models/" + walkModel(t, a, u) + "/image?n=1", nil}
		},
	},
	minRole: map[string]auth.Role{
		"POST /api/toolkit/models/own":               auth.Member,
		"PATCH /api/toolkit/models/{id}":             auth.Member,
		"POST /api/toolkit/models/{id}/checkout":     auth.Owner,
		"POST /api/toolkit/explore/{kind}/{id}/take": auth.Member, // a free face; a priced take is an owner's (money_explore_test.go)
	},
	// An own model is read, patched to the same traits, and refused as
	// already the house's (checkout, take): one model (walkModel) serves
	// every credential and all five routes.
	reusable: []string{"GET /api/toolkit/models/{id}", "PATCH /api/toolkit/models/{id}", "POST /api/toolkit/models/{id}/checkout",
		"POST /api/toolkit/explore/{kind}/{id}/take", "GET /api/toolkit/models/{id}/image"},
}

// walkModels keeps the own model the walks' model samples name, one per
// user (a user's id is unique in the test binary, so it names one app):
// those routes read it, patch it to the same traits or are refused it as
// already the house's, and making one (a collage) costs about a CPU second
// under the race detector.
var walkModels sync.Map // user id -> model id

// walkModel is u's own model for the walks' samples, made on first use.
func walkModel(t *testing.T, a *apptest.App, u *apptest.User) string {
	t.Helper()
	if id, ok := walkModels.Load(u.ID); ok {
		return id.(string)
	}
	id := ownModel(t, a, u.Session(), assetID(t, a, u)).ID
	walkModels.Store(u.ID, id)
	return id
}

// wireModel is the Model wire shape as tests read it.
type wireModel struct {
	ID, Name, Tier, Currency, CoverURL           string
	PriceCents                                   int64
	PreviewURLs, IdentityAssetIDs, SheetAssetIDs []string
	Owned, Mine, Usable, ExclusiveYours          bool
	Traits                                       map[string]any
}

// ownModel makes an own model of the credential's house from assets.
func ownModel(t testing.TB, a *apptest.App, c apptest.Cred, assets ...string) wireModel {
	t.Helper()
	res := a.Do(t, "POST", "/api/toolkit/models/own", c, map[string]any{"name": "Fixture model", "assetIds": assets})
	if res.Status != http.StatusCreated {
		t.Fatalf("own model: %d %s", res.Status, res.Body)
	}
	var body struct{ Model wireModel }
	res.JSON(t, &body)
	return body.Model
}

// catalogue writes a folder with a manifest and images for faces, in
// import order (the board lists later imports of a tier first).
func catalogue(t *testing.T, faces ...map[string]any) string {
	t.Helper()
	dir := t.TempDir()
	for i, f := range faces {
		img := fmt.Sprintf("face-%d.jpg", i)
		if err := os.WriteFile(filepath.Join(dir, img), figureJPEG(t, 60+i, 96), 0o644); err != nil {
			t.Fatal(err)
		}
		f["images"] = []string{img, img}
		if f["key"] == nil {
			f["key"] = fmt.Sprintf("face-%d", i)
		}
	}
	b, err := json.Marshal(map[string]any{"faces": faces})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func board(t *testing.T, a *apptest.App, c apptest.Cred) []wireModel {
	t.Helper()
	var body struct{ Models []wireModel }
	res := a.Do(t, "GET", "/api/toolkit/models", c, nil)
	want(t, res, 200, "")
	res.JSON(t, &body)
	return body.Models
}

func names(ms []wireModel) string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Name)
	}
	return strings.Join(out, ", ")
}

// TestCastingBoard: own models, the catalogue's bands and claims, patches
// and every error code of the board's routes.
func TestCastingBoard(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		ctx := context.Background()
		houseA, houseB := a.SignUp(t, "house-a"), a.SignUp(t, "house-b")
		k, viewer, kb := a.Key(t, houseA, "member"), a.Key(t, houseA, "viewer"), a.Key(t, houseB, "member")

		// The operator loads the catalogue; each face is imported once, in
		// this order, so that newer faces come later.
		for _, f := range []map[string]any{
			{"name": "Old free", "tier": "free"},
			{"name": "New free", "tier": "free", "traits": map[string]any{"height": " 181 cm ", "marks": []string{"freckles", " "}}},
			{"name": "Sale face", "tier": "sale", "priceCents": 4900, "currency": "eur"},
			{"name": "Bought face", "tier": "sale", "priceCents": 2900},
			{"name": "Open exclusive", "tier": "exclusive", "priceCents": 90000},
			{"name": "Taken exclusive", "tier": "exclusive", "priceCents": 90000},
		} {
			f["key"] = strings.ToLower(strings.ReplaceAll(f["name"].(string), " ", "-"))
			if n, err := a.Casting.Import(ctx, os.DirFS(catalogue(t, f))); err != nil || n != 1 {
				t.Fatalf("import %v: %d %v", f["name"], n, err)
			}
		}
		ids := map[string]string{}
		for _, m := range board(t, a, k) {
			ids[m.Name] = m.ID
		}
		if err := a.DB.ClaimFace(ctx, houseA.HouseID, ids["Bought face"], "purchase"); err != nil {
			t.Fatal(err)
		}
		if err := a.DB.ClaimFace(ctx, houseB.HouseID, ids["Taken exclusive"], "exclusive"); err != nil {
			t.Fatal(err)
		}
		if err := a.DB.ClaimFace(ctx, houseA.HouseID, ids["Taken exclusive"], "exclusive"); err == nil {
			t.Error("a second live exclusive claim on one face was written")
		}

		// Three photographs make an own model; the collage is composed from them.
		photos := []string{
			upload(t, a, k, jpegOf(t, 40, 50), "kind", "model").ID,
			upload(t, a, k, pngOf(t, 50, 40), "kind", "model").ID,
			upload(t, a, k, exifJPEG(t, 60, 40, 6), "kind", "model").ID,
		}
		foreign := upload(t, a, kb, jpegOf(t, 16, 12)).ID
		gone := upload(t, a, k, jpegOf(t, 16, 12)).ID
		want(t, a.Do(t, "POST", "/api/toolkit/assets/batch/delete", k, map[string]any{"assetIds": []string{gone}}), 200, "")
		thirteen := make([]string, 13)
		for i := range thirteen {
			thirteen[i] = uuid.NewString()
		}
		libraryBefore := len(listAssets(t, a, k, ""))
		for _, tc := range []struct {
			name   string
			cred   apptest.Cred
			body   any
			status int
			code   string
		}{
			{"viewer", viewer, map[string]any{"name": "Ines", "assetIds": photos}, 403, "FORBIDDEN"},
			{"no name", k, map[string]any{"assetIds": photos}, 400, "NAME_REQUIRED"},
			{"blank name", k, map[string]any{"name": "  ", "assetIds": photos}, 400, "NAME_REQUIRED"},
			{"long name", k, map[string]any{"name": strings.Repeat("n", 121), "assetIds": photos}, 400, "BAD_BODY"},
			{"no assets", k, map[string]any{"name": "Ines"}, 400, "BAD_ASSET_IDS"},
			{"empty assets", k, map[string]any{"name": "Ines", "assetIds": []string{}}, 400, "BAD_ASSET_IDS"},
			{"repeated asset", k, map[string]any{"name": "Ines", "assetIds": []string{photos[0], photos[0]}}, 400, "BAD_ASSET_IDS"},
			{"blank asset", k, map[string]any{"name": "Ines", "assetIds": []string{" "}}, 400, "BAD_ASSET_IDS"},
			{"thirteen assets", k, map[string]any{"name": "Ines", "assetIds": thirteen}, 400, "BAD_ASSET_IDS"},
			{"assets not a list", k, map[string]any{"name": "Ines", "assetIds": "x"}, 400, "BAD_BODY"},
			{"another house's asset", k, map[string]any{"name": "Ines", "assetIds": []string{photos[0], foreign}}, 404, "ASSET_NOT_FOUND"},
			{"a removed asset", k, map[string]any{"name": "Ines", "assetIds": []string{gone}}, 404, "ASSET_NOT_FOUND"},
			{"an unknown asset", k, map[string]any{"name": "Ines", "assetIds": []string{uuid.NewString()}}, 404, "ASSET_NOT_FOUND"},
		} {
			t.Run("own/"+tc.name, func(t *testing.T) {
				want(t, a.Do(t, "POST", "/api/toolkit/models/own", tc.cred, tc.body), tc.status, tc.code)
			})
		}
		if n := len(listAssets(t, a, k, "")); n != libraryBefore {
			t.Fatalf("refused models left %d assets behind", n-libraryBefore)
		}
		res := a.Do(t, "POST", "/api/toolkit/models/own", k, map[string]any{"name": "  Ines   Moreau ", "assetIds": photos})
		want(t, res, 201, "")
		var made struct{ Model wireModel }
		res.JSON(t, &made)
		ines := made.Model
		if ines.Name != "Ines Moreau" || !ines.Mine || !ines.Owned || !ines.Usable || !ines.ExclusiveYours || ines.Tier != "exclusive" ||
			ines.PriceCents != 0 || len(ines.IdentityAssetIDs) != 4 || len(ines.SheetAssetIDs) != 0 {
			t.Fatalf("own model %+v", ines)
		}
		if got := ines.IdentityAssetIDs[1:]; strings.Join(got, ",") != strings.Join(photos, ",") {
			t.Errorf("dossier originals %v; want the photos in order %v", got, photos)
		}
		collage := getAsset(t, a, k, ines.IdentityAssetIDs[0])
		if collage.Kind == nil || *collage.Kind != "model" || collage.Mime != "image/jpeg" {
			t.Errorf("collage asset %+v; want a JPEG filed as model", collage)
		}
		res = a.Do(t, "GET", ines.CoverURL, k, nil)
		want(t, res, 200, "")
		img, err := jpeg.Decode(bytes.NewReader(res.Body))
		if err != nil {
			t.Fatalf("collage: %v", err)
		}
		// Three portrait tiles of 409 x 512 in a row, 8 px apart and around.
		if b := img.Bounds(); b.Dx() != 3*409+4*8 || b.Dy() != 512+2*8 {
			t.Errorf("collage is %v; want three tiles in a row", b)
		}
		if len(ines.PreviewURLs) != 3 {
			t.Errorf("previews %v; want the three originals", ines.PreviewURLs)
		}
		want(t, a.Do(t, "GET", strings.Replace(ines.CoverURL, "n=0", "n=4", 1), k, nil), 404, "NOT_FOUND")
		want(t, a.Do(t, "GET", strings.Replace(ines.CoverURL, "n=0", "n=-1", 1), k, nil), 404, "NOT_FOUND")

		// The board: yours (own, then held), free, sale, exclusive; newest first in each band.
		got := names(board(t, a, k))
		if wantA := "Ines Moreau, Bought face, New free, Old free, Sale face, Open exclusive"; got != wantA {
			t.Errorf("house A's board: %s; want %s", got, wantA)
		}
		bBoard := board(t, a, kb)
		if wantB := "Taken exclusive, New free, Old free, Bought face, Sale face, Open exclusive"; names(bBoard) != wantB {
			t.Errorf("house B's board: %s; want %s", names(bBoard), wantB)
		}
		if !bBoard[0].ExclusiveYours || !bBoard[0].Owned || !bBoard[0].Usable || bBoard[0].Mine {
			t.Errorf("house B's exclusive face %+v", bBoard[0])
		}
		var face struct{ Model wireModel }
		a.Do(t, "GET", "/api/toolkit/models/"+ids["New free"], viewer, nil).JSON(t, &face)
		if m := face.Model; m.Tier != "free" || !m.Usable || m.Owned || m.Traits["height"] != "181 cm" || len(m.PreviewURLs) != 1 {
			t.Errorf("free face %+v", m)
		}
		a.Do(t, "GET", "/api/toolkit/models/"+ids["Sale face"], k, nil).JSON(t, &face)
		if m := face.Model; m.Usable || m.Owned || m.PriceCents != 4900 || m.Currency != "eur" {
			t.Errorf("sale face %+v", m)
		}
		want(t, a.Do(t, "GET", face.Model.CoverURL, k, nil), 200, "")
		taken := "/api/toolkit/models/" + ids["Taken exclusive"]
		want(t, a.Do(t, "GET", taken, k, nil), 404, "NOT_FOUND")
		want(t, a.Do(t, "GET", taken+"/image?n=0", k, nil), 404, "NOT_FOUND")
		want(t, a.Do(t, "GET", taken, kb, nil), 200, "")
		if err := a.DB.ReleaseFace(ctx, houseB.HouseID, ids["Taken exclusive"]); err != nil {
			t.Fatal(err)
		}
		want(t, a.Do(t, "GET", taken, k, nil), 200, "") // a released claim no longer hides the face

		// PATCH: own models only; traits merged; sheets the house's live assets.
		path := "/api/toolkit/models/" + ines.ID
		sheet := upload(t, a, k, jpegOf(t, 30, 30)).ID
		for _, tc := range []struct {
			name   string
			cred   apptest.Cred
			path   string
			body   any
			status int
			code   string
		}{
			{"viewer", viewer, path, map[string]any{"traits": map[string]any{"build": "slim"}}, 403, "FORBIDDEN"},
			{"a catalogue face", k, "/api/toolkit/models/" + ids["New free"], map[string]any{}, 403, "FORBIDDEN"},
			{"a face held by the house", k, "/api/toolkit/models/" + ids["Bought face"], map[string]any{"traits": map[string]any{"build": "x"}}, 403, "FORBIDDEN"},
			{"another house's model", kb, path, map[string]any{}, 404, "NOT_FOUND"},
			{"repeated sheet", k, path, map[string]any{"sheetAssetIds": []string{sheet, sheet}}, 400, "BAD_ASSET_IDS"},
			{"thirteen sheets", k, path, map[string]any{"sheetAssetIds": thirteen}, 400, "BAD_ASSET_IDS"},
			{"another house's sheet", k, path, map[string]any{"sheetAssetIds": []string{foreign}}, 404, "ASSET_NOT_FOUND"},
			{"a removed sheet", k, path, map[string]any{"sheetAssetIds": []string{sheet, gone}}, 404, "ASSET_NOT_FOUND"},
			{"a trait too long", k, path, map[string]any{"traits": map[string]any{"hands": strings.Repeat("h", 201)}}, 400, "BAD_BODY"},
			{"too many marks", k, path, map[string]any{"traits": map[string]any{"marks": thirteen}}, 400, "BAD_BODY"},
			{"traits not an object", k, path, map[string]any{"traits": "tall"}, 400, "BAD_BODY"},
			{"empty body", k, path, map[string]any{}, 200, ""},
			{"height", k, path, map[string]any{"traits": map[string]any{"height": "178 cm", "marks": []string{"mole"}}}, 200, ""},
			{"build merges", k, path, map[string]any{"traits": map[string]any{"build": "slim"}}, 200, ""},
			{"sheets", k, path, map[string]any{"sheetAssetIds": []string{sheet}}, 200, ""},
		} {
			t.Run("patch/"+tc.name, func(t *testing.T) { want(t, a.Do(t, "PATCH", tc.path, tc.cred, tc.body), tc.status, tc.code) })
		}
		a.Do(t, "GET", path, viewer, nil).JSON(t, &face)
		m := face.Model
		if m.Traits["height"] != "178 cm" || m.Traits["build"] != "slim" || fmt.Sprint(m.Traits["marks"]) != "[mole]" {
			t.Errorf("traits %v; want height and build merged, marks kept", m.Traits)
		}
		if len(m.SheetAssetIDs) != 1 || len(m.IdentityAssetIDs) != 5 || m.IdentityAssetIDs[1] != sheet || m.IdentityAssetIDs[2] != photos[0] {
			t.Errorf("dossier %v (sheets %v); want collage, the sheet, then the originals", m.IdentityAssetIDs, m.SheetAssetIDs)
		}
		want(t, a.Do(t, "PATCH", path, k, map[string]any{"traits": map[string]any{"height": nil}, "sheetAssetIds": []string{}}), 200, "")
		face.Model = wireModel{}
		a.Do(t, "GET", path, k, nil).JSON(t, &face)
		if _, ok := face.Model.Traits["height"]; ok || face.Model.Traits["build"] != "slim" || len(face.Model.IdentityAssetIDs) != 4 {
			t.Errorf("after clearing: %+v; want height gone, build kept, no sheets", face.Model)
		}
	})
}

// TestCastOwnModelInLook: a model made from three photographs is cast in a
// look; the locked look's base frame records the model's collage as its
// parent, and a look of a plain model asset records none. A look of the
// collage itself is refused on the local engine (no one figure to stand).
func TestCastOwnModelInLook(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner := a.SignUp(t, "owner")
		k := a.Key(t, owner, "member")
		var photos []string
		for range 3 {
			photos = append(photos, upload(t, a, k, modelJPEG(t), "kind", "model").ID)
		}
		m := ownModel(t, a, k, photos...)
		collage := m.IdentityAssetIDs[0]

		lock := func(cast string) wireLookParent {
			t.Helper()
			body := lookBody(t, a, k)
			if cast != "" {
				body["modelAssetId"] = cast
			}
			res := a.Do(t, "POST", "/api/toolkit/lookbook/looks", k, body)
			want(t, res, 201, "")
			var created struct{ Look wireLookParent }
			res.JSON(t, &created)
			want(t, a.Do(t, "POST", looksPath(created.Look.ID, "/develop-lock"), k, nil), 202, "")
			develop(t, a)
			var detail struct {
				LockDevelop struct{ Status, ResultAssetID string }
			}
			a.Do(t, "GET", looksPath(created.Look.ID), k, nil).JSON(t, &detail)
			if detail.LockDevelop.Status != "done" {
				t.Fatalf("lock develop %+v", detail.LockDevelop)
			}
			res = a.Do(t, "POST", looksPath(created.Look.ID, "/lock"), k, map[string]any{"assetId": detail.LockDevelop.ResultAssetID})
			want(t, res, 200, "")
			var locked struct{ Look wireLookParent }
			res.JSON(t, &locked)
			return locked.Look
		}
		if l := lock(photos[1]); l.Status != "locked" || l.LookBaseParentAssetID == nil || *l.LookBaseParentAssetID != collage {
			t.Errorf("look casting an original: %+v; want the collage %s as the base frame's parent", l, collage)
		}
		// The collage (the photographs side by side) stands no one figure: on
		// the local engine its look is refused before anything is held.
		body := lookBody(t, a, k)
		body["modelAssetId"] = collage
		var created struct{ Look wireLookParent }
		a.Do(t, "POST", "/api/toolkit/lookbook/looks", k, body).JSON(t, &created)
		want(t, a.Do(t, "POST", looksPath(created.Look.ID, "/develop-lock"), k, nil), 422, "NO_FIGURE")
		if l := lock(""); l.LookBaseParentAssetID != nil {
			t.Errorf("look of a plain model asset: parent %v; want null", *l.LookBaseParentAssetID)
		}
	})
}

type wireLookParent struct {
	ID, Status            string
	LookBaseAssetID       *string
	LookBaseParentAssetID *string
}
