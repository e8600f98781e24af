package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"studio/internal/app"
	"studio/internal/apptest"
	"studio/internal/asset"
	"studio/internal/auth"
	"studio/internal/httpapi"
	"studio/internal/ledger"
)

// assetsWalk is the assets area's part of the route walk (walk_test.go).
var assetsWalk = walkArea{
	samples: map[string]sampleFunc{
		"GET /api/toolkit/assets": static("/api/toolkit/assets", nil),
		"POST /api/toolkit/assets/upload": func(t *testing.T, _ *apptest.App, _ *apptest.User) request {
			return request{"/api/toolkit/assets/upload", uploadForm(t, "look.jpg", jpegOf(t, 16, 12), "kind", "clothes")}
		},
		"PATCH /api/toolkit/assets/batch": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/toolkit/assets/batch", map[string]any{"assetIds": []string{assetID(t, a, u)}, "approved": true}}
		},
		"POST /api/toolkit/assets/batch/delete": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/toolkit/assets/batch/delete", map[string]any{"assetIds": []string{assetID(t, a, u)}}}
		},
		"POST /api/toolkit/assets/batch/quote": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/toolkit/assets/batch/quote", map[string]any{"assetIds": []string{assetID(t, a, u)}, "operation": "packshot"}}
		},
		"POST /api/toolkit/assets/group": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/toolkit/assets/group", map[string]any{"assetIds": []string{assetID(t, a, u), assetID(t, a, u)}}}
		},
		"GET /api/toolkit/assets/{id}": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/toolkit/assets/" + assetID(t, a, u), nil}
		},
		"GET /api/toolkit/assets/{id}/file": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/toolkit/assets/" + assetID(t, a, u) + "/file", nil}
		},
		"PATCH /api/toolkit/assets/{id}": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/toolkit/assets/" + assetID(t, a, u), map[string]any{"name": "Renamed", "sku": "SKU-1"}}
		},
	},
	minRole: map[string]auth.Role{
		"POST /api/toolkit/assets/upload":       auth.Member,
		"PATCH /api/toolkit/assets/batch":       auth.Member,
		"POST /api/toolkit/assets/batch/delete": auth.Member,
		"POST /api/toolkit/assets/group":        auth.Member,
		"PATCH /api/toolkit/assets/{id}":        auth.Member,
	},
	foreignForbidden: []string{"GET /api/toolkit/assets/{id}"},
}

// want checks an answer's status and error code.
func want(t *testing.T, res apptest.Resp, status int, code string) {
	t.Helper()
	if res.Status != status || res.Code != code {
		t.Errorf("got %d %q %s; want %d %q", res.Status, res.Code, res.Body, status, code)
	}
}

// blobCount counts the files the disk blob store keeps for the engine.
func blobCount(t *testing.T, e apptest.Engine) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(filepath.Join(e.DataDir, "blobs"), func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			n++
		}
		return nil
	})
	if err != nil && !strings.Contains(err.Error(), "no such file") {
		t.Fatal(err)
	}
	return n
}

// listAssets returns the house's asset list as c sees it.
func listAssets(t *testing.T, a *apptest.App, c apptest.Cred, query string) []wireAsset {
	t.Helper()
	res := a.Do(t, "GET", "/api/toolkit/assets"+query, c, nil)
	if res.Status != http.StatusOK {
		t.Fatalf("list: %d %s", res.Status, res.Body)
	}
	var body struct{ Assets []wireAsset }
	res.JSON(t, &body)
	return body.Assets
}

func getAsset(t *testing.T, a *apptest.App, c apptest.Cred, id string) wireAsset {
	t.Helper()
	for _, as := range listAssets(t, a, c, "") {
		if as.ID == id {
			return as
		}
	}
	t.Fatalf("asset %s is not listed", id)
	return wireAsset{}
}

func balance(t *testing.T, a *apptest.App, house string) ledger.Balance {
	t.Helper()
	b, err := a.DB.Balance(context.Background(), house)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestAssetUpload(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner, other := a.SignUp(t, "owner"), a.SignUp(t, "other")
		key, viewerKey := a.Key(t, owner, "member"), a.Key(t, owner, "viewer")
		folder, foreignFolder := folderID(t, a, owner), folderID(t, a, other)
		big := append([]byte{0xFF, 0xD8, 0xFF}, bytes.Repeat([]byte{0}, asset.MaxBytes)...)
		truncated := jpegOf(t, 64, 64)
		truncated = truncated[:len(truncated)/2]

		ok := []struct {
			name          string
			data          []byte
			fields        []string
			mime          string
			width, height int
		}{
			{"jpeg", jpegOf(t, 40, 20), []string{"kind", "clothes", "name", "Blue shirt", "sku", "BS-01"}, "image/jpeg", 40, 20},
			{"png", pngOf(t, 30, 10), []string{"kind", "background"}, "image/png", 30, 10},
			{"webp", webp1x1, []string{"kind", "accessory"}, "image/webp", 1, 1},
			{"phone photo rotated by EXIF", exifJPEG(t, 40, 20, 6), []string{"kind", "model"}, "image/jpeg", 20, 40},
			{"mark for a logo rendition", pngOf(t, 8, 8), []string{"kind", "mark"}, "image/png", 8, 8},
			{"no kind, into a collection", jpegOf(t, 8, 8), []string{"folderId", folder}, "image/jpeg", 8, 8},
			{"classify asked without an AI endpoint", jpegOf(t, 8, 8), []string{"classify", "1"}, "image/jpeg", 8, 8},
		}
		for _, tt := range ok {
			t.Run("ok/"+tt.name, func(t *testing.T) {
				before := balance(t, a, owner.HouseID)
				got := upload(t, a, key, tt.data, tt.fields...)
				if got.Mime != tt.mime || got.Width != tt.width || got.Height != tt.height || got.Size != int64(len(tt.data)) {
					t.Errorf("got %s %dx%d %d bytes; want %s %dx%d %d", got.Mime, got.Width, got.Height, got.Size, tt.mime, tt.width, tt.height, len(tt.data))
				}
				if got.URL != "/api/toolkit/assets/"+got.ID+"/file" || got.Tool != nil || got.Approved || got.GroupID != nil {
					t.Errorf("fresh asset: %+v", got)
				}
				if after := balance(t, a, owner.HouseID); after.Balance != before.Balance || after.Held != 0 {
					t.Errorf("balance %+v after %+v: an upload is free", after, before)
				}
			})
		}
		first := listAssets(t, a, key, "")
		if n := len(first); n != len(ok) {
			t.Fatalf("listed %d assets; want %d", n, len(ok))
		}
		named := first[len(first)-1]
		if named.Name != "Blue shirt" || named.SKU == nil || *named.SKU != "BS-01" || named.Kind == nil || *named.Kind != "clothes" {
			t.Errorf("first upload = %+v", named)
		}
		if first[0].Name != "photo" || first[0].Kind != nil || first[0].FitGuessed {
			t.Errorf("unclassified upload = %+v; want named after its file, unfiled", first[0])
		}

		refused := []struct {
			name       string
			cred       apptest.Cred
			body       any
			wantStatus int
			wantCode   string
		}{
			{"gif", key, uploadForm(t, "a.gif", []byte("GIF89a\x01\x00\x01\x00\x00\x00\x00;")), 400, "BAD_FORM"},
			{"avif", key, uploadForm(t, "a.avif", []byte("\x00\x00\x00\x1cftypavif\x00\x00\x00\x00avifmif1")), 400, "BAD_FORM"},
			{"heic", key, uploadForm(t, "a.heic", []byte("\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic")), 400, "BAD_FORM"},
			{"garbage named .jpg", key, uploadForm(t, "a.jpg", []byte("this is not an image at all")), 400, "BAD_FORM"},
			{"jpeg magic then junk", key, uploadForm(t, "a.jpg", []byte("\xFF\xD8\xFFjunkjunkjunk")), 400, "BAD_FORM"},
			{"truncated jpeg", key, uploadForm(t, "a.jpg", truncated), 400, "BAD_FORM"},
			{"not multipart", key, map[string]string{"file": "x"}, 400, "BAD_FORM"},
			{"bad classify", key, uploadForm(t, "a.jpg", jpegOf(t, 8, 8), "classify", "please"), 400, "BAD_FORM"},
			{"two files", key, apptest.Multipart(t, apptest.Part{Name: "file", Filename: "a.jpg", Data: jpegOf(t, 8, 8)},
				apptest.Part{Name: "file", Filename: "b.jpg", Data: jpegOf(t, 8, 8)}), 400, "BAD_FORM"},
			{"no file", key, apptest.Multipart(t, apptest.Part{Name: "kind", Value: "clothes"}), 400, "NO_IMAGE"},
			{"empty file", key, uploadForm(t, "a.jpg", nil), 400, "EMPTY_IMAGE"},
			{"over 12 MB", key, uploadForm(t, "a.jpg", big), 413, "IMAGE_TOO_LARGE"},
			{"over the body cap in another field", key, apptest.Multipart(t, apptest.Part{Name: "padding", Value: strings.Repeat("x", asset.MaxBytes+2<<20)},
				apptest.Part{Name: "file", Filename: "a.jpg", Data: jpegOf(t, 8, 8)}), 413, "IMAGE_TOO_LARGE"},
			{"over 50 megapixels", key, uploadForm(t, "a.png", hugePNG(8000, 7000)), 413, "IMAGE_TOO_LARGE"},
			{"bad kind", key, uploadForm(t, "a.jpg", jpegOf(t, 8, 8), "kind", "shoes"), 400, "BAD_KIND"},
			{"bad sku", key, uploadForm(t, "a.jpg", jpegOf(t, 8, 8), "sku", " padded "), 400, "BAD_SKU"},
			{"name too long", key, uploadForm(t, "a.jpg", jpegOf(t, 8, 8), "name", strings.Repeat("n", 201)), 400, "BAD_FORM"},
			{"another house's collection", key, uploadForm(t, "a.jpg", jpegOf(t, 8, 8), "folderId", foreignFolder), 404, "NOT_FOUND"},
			{"a collection that never existed", key, uploadForm(t, "a.jpg", jpegOf(t, 8, 8), "folderId", "0190f2a8-0000-7000-8000-000000000000"), 404, "NOT_FOUND"},
			{"viewer", viewerKey, uploadForm(t, "a.jpg", jpegOf(t, 8, 8)), 403, "FORBIDDEN"},
			{"anonymous", apptest.Anonymous, uploadForm(t, "a.jpg", jpegOf(t, 8, 8)), 401, "UNAUTHORIZED"},
		}
		blobs := blobCount(t, e)
		for _, tt := range refused {
			t.Run("refused/"+tt.name, func(t *testing.T) {
				res := a.Do(t, "POST", "/api/toolkit/assets/upload", tt.cred, tt.body)
				want(t, res, tt.wantStatus, tt.wantCode)
				m := res.Map(t)
				switch tt.wantCode {
				case "IMAGE_TOO_LARGE":
					if m["maxMb"] != float64(12) {
						t.Errorf("maxMb = %v; want 12", m["maxMb"])
					}
				case "BAD_KIND":
					if legal, _ := m["legal"].([]any); len(legal) != len(asset.UploadKinds) {
						t.Errorf("legal = %v", m["legal"])
					}
				}
				if tt.name == "gif" || tt.name == "avif" || tt.name == "heic" {
					msg, _ := m["message"].(string)
					if !strings.Contains(msg, "JPEG, PNG or WebP") || len(m["accepted"].([]any)) != 3 {
						t.Errorf("refusal does not name the accepted types: %s", res.Body)
					}
				}
			})
		}
		t.Run("refused/chunked body over the cap", func(t *testing.T) {
			// No Content-Length: the cap on the body stops the read.
			form := apptest.Multipart(t, apptest.Part{Name: "padding", Value: strings.Repeat("x", asset.MaxBytes+2<<20)},
				apptest.Part{Name: "file", Filename: "a.jpg", Data: jpegOf(t, 8, 8)})
			req, err := http.NewRequest("POST", a.URL+"/api/toolkit/assets/upload", io.MultiReader(bytes.NewReader(form.Body)))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", form.ContentType)
			req.Header.Set("Authorization", "Bearer "+key.Key)
			want(t, a.Send(t, req), 413, "IMAGE_TOO_LARGE")
		})
		if n := len(listAssets(t, a, key, "")); n != len(ok) {
			t.Errorf("after refusals %d assets; want %d", n, len(ok))
		}
		if n := blobCount(t, e); n != blobs {
			t.Errorf("after refusals %d blobs; want %d", n, blobs)
		}
		if b := balance(t, a, owner.HouseID); b.Balance != ledger.SignupTokens || b.Held != 0 {
			t.Errorf("balance after refusals = %+v", b)
		}
	})
}

// fakeVision speaks the OpenAI chat completions protocol: it checks the
// request carries an image and answers with the filing it is set to.
type fakeVision struct {
	calls  atomic.Int64
	answer atomic.Value // string: the message content; "" answers 500
	during atomic.Value // func(), run while the request is being read
}

func (f *fakeVision) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.calls.Add(1)
	if fn, _ := f.during.Load().(func()); fn != nil {
		fn()
	}
	var req struct {
		Model    string
		Messages []struct {
			Role    string
			Content json.RawMessage
		}
	}
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer test-key" {
		http.Error(w, "wrong request", http.StatusBadRequest)
		return
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model != "vision-test" || len(req.Messages) != 2 ||
		!bytes.Contains(req.Messages[1].Content, []byte(`"url":"data:image/jpeg;base64,`)) {
		http.Error(w, "no image", http.StatusBadRequest)
		return
	}
	content, _ := f.answer.Load().(string)
	if content == "" {
		http.Error(w, `{"error":{"message":"overloaded"}}`, http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "model": req.Model,
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": content}}},
	})
}

func TestAssetClassify(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		vision := &fakeVision{}
		ai := httptest.NewServer(vision)
		defer ai.Close()
		a := apptest.New(t, e, func(c *app.Config) {
			c.AIBaseURL, c.AIAPIKey, c.AIModel = ai.URL+"/v1", "test-key", "vision-test"
		})
		owner := a.SignUp(t, "owner")
		key := a.Key(t, owner, "member")
		read := `Here you go: {"kind": "clothes", "name": "Ivory silk slip dress", "fit": "loose", "wearer": "unisex"}`

		cases := []struct {
			name        string
			answer      string
			fields      []string
			wantKind    string
			wantName    string
			wantFit     string
			wantCharged int64
		}{
			{"read", read, []string{"classify", "1"}, "clothes", "Ivory silk slip dress", "loose", 1},
			{"supplied kind and name are kept", read, []string{"classify", "1", "kind", "accessory", "name", "Mine"}, "accessory", "Mine", "", 1},
			{"supplied name is kept, kind is read", read, []string{"classify", "1", "name", "Mine"}, "clothes", "Mine", "loose", 1},
			{"the endpoint fails", "", []string{"classify", "1"}, "", "photo", "", 0},
			{"the answer is not a filing", "I cannot tell.", []string{"classify", "1"}, "", "photo", "", 0},
			{"not asked", read, nil, "", "photo", "", 0},
		}
		for _, tt := range cases {
			t.Run(tt.name, func(t *testing.T) {
				vision.answer.Store(tt.answer)
				before := balance(t, a, owner.HouseID)
				got := upload(t, a, key, exifJPEG(t, 40, 20, 6), tt.fields...)
				if s := deref(got.Kind); s != tt.wantKind || got.Name != tt.wantName || deref(got.Fit) != tt.wantFit || got.FitGuessed != (tt.wantFit != "") {
					t.Errorf("got kind %q name %q fit %q guessed %v; want %q %q %q", s, got.Name, deref(got.Fit), got.FitGuessed, tt.wantKind, tt.wantName, tt.wantFit)
				}
				if got.Wearer != nil {
					t.Errorf("wearer %q: unisex is only ever set by a person", *got.Wearer)
				}
				after := balance(t, a, owner.HouseID)
				if before.Balance-after.Balance != tt.wantCharged || after.Held != 0 {
					t.Errorf("balance %d -> %d (held %d); want %d charged, nothing held", before.Balance, after.Balance, after.Held, tt.wantCharged)
				}
			})
		}

		t.Run("women is a guess", func(t *testing.T) {
			vision.answer.Store(`{"kind":"clothes","name":"Wrap coat","fit":"regular","wearer":"women"}`)
			got := upload(t, a, key, jpegOf(t, 8, 8), "classify", "1")
			if deref(got.Wearer) != "women" || !got.WearerGuessed {
				t.Errorf("wearer %q guessed %v", deref(got.Wearer), got.WearerGuessed)
			}
		})

		t.Run("the row fails after the read: nothing is left", func(t *testing.T) {
			vision.answer.Store(read)
			doomed := folderID(t, a, owner)
			vision.during.Store(func() {
				// The collection goes while the image is being read, so the row cannot be written.
				if _, err := a.DB.RawExec(context.Background(), `DELETE FROM folders WHERE id = ?`, doomed); err != nil {
					t.Error(err)
				}
			})
			defer vision.during.Store(func() {})
			before, assets, blobs := balance(t, a, owner.HouseID), len(listAssets(t, a, key, "")), blobCount(t, e)
			res := a.Do(t, "POST", "/api/toolkit/assets/upload", key, uploadForm(t, "a.jpg", jpegOf(t, 8, 8), "classify", "1", "folderId", doomed))
			want(t, res, http.StatusNotFound, "NOT_FOUND")
			if len(listAssets(t, a, key, "")) != assets || blobCount(t, e) != blobs {
				t.Error("a failed upload left a row or a blob behind")
			}
			if after := balance(t, a, owner.HouseID); after.Balance != before.Balance || after.Held != 0 {
				t.Errorf("balance %+v -> %+v: a failed upload charges and holds nothing", before, after)
			}
		})

		t.Run("short of tokens", func(t *testing.T) {
			vision.answer.Store(read)
			spendable := balance(t, a, owner.HouseID).Balance
			drain := ledger.NewHold("", spendable)
			if err := a.DB.TakeHold(context.Background(), owner.HouseID, drain); err != nil {
				t.Fatal(err)
			}
			defer func() { _ = a.DB.VoidHold(context.Background(), owner.HouseID, drain.ID) }()
			assets, blobs, calls := len(listAssets(t, a, key, "")), blobCount(t, e), vision.calls.Load()
			res := a.Do(t, "POST", "/api/toolkit/assets/upload", key, uploadForm(t, "a.jpg", jpegOf(t, 8, 8), "classify", "1"))
			want(t, res, http.StatusPaymentRequired, "INSUFFICIENT_TOKENS")
			if m := res.Map(t); m["need"] != float64(1) || m["spendable"] != float64(0) || m["held"] != float64(spendable) {
				t.Errorf("402 body %s; want need 1, spendable 0, held %d", res.Body, spendable)
			}
			if len(listAssets(t, a, key, "")) != assets || blobCount(t, e) != blobs || vision.calls.Load() != calls {
				t.Error("a refused upload left something behind or called the endpoint")
			}
			if b := balance(t, a, owner.HouseID); b.Held != spendable {
				t.Errorf("held %d; want only the drain's %d", b.Held, spendable)
			}
		})
	})
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func TestAssetList(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner, other := a.SignUp(t, "owner"), a.SignUp(t, "other")
		viewer := a.Key(t, owner, "viewer")
		folder := folderID(t, a, owner)
		root1 := upload(t, a, owner.Session(), jpegOf(t, 8, 8))
		inFolder := upload(t, a, owner.Session(), jpegOf(t, 8, 8), "folderId", folder)
		root2 := upload(t, a, owner.Session(), pngOf(t, 8, 8))
		gone := upload(t, a, owner.Session(), pngOf(t, 8, 8))
		upload(t, a, other.Session(), jpegOf(t, 8, 8))
		a.Do(t, "POST", "/api/toolkit/assets/batch/delete", owner.Session(), map[string]any{"assetIds": []string{gone.ID}})

		ids := func(as []wireAsset) []string {
			var out []string
			for _, x := range as {
				out = append(out, x.ID)
			}
			return out
		}
		cases := []struct {
			name, query string
			want        []string
		}{
			{"all, newest first", "", []string{root2.ID, inFolder.ID, root1.ID}},
			{"one collection", "?folderId=" + folder, []string{inFolder.ID}},
			{"the root", "?folderId=root", []string{root2.ID, root1.ID}},
			{"a collection that is not this house's", "?folderId=" + folderID(t, a, other), nil},
		}
		for _, tt := range cases {
			t.Run(tt.name, func(t *testing.T) {
				if got := ids(listAssets(t, a, viewer, tt.query)); !slices.Equal(got, tt.want) {
					t.Errorf("got %v; want %v", got, tt.want)
				}
			})
		}

		t.Run("wire shape", func(t *testing.T) {
			res := a.Do(t, "GET", "/api/toolkit/assets", viewer, nil)
			var body struct{ Assets []map[string]json.RawMessage }
			res.JSON(t, &body)
			wantKeys := []string{"approved", "approvedAt", "approvedBy", "carriesMark", "createdAt", "fit", "fitGuessed", "folderId",
				"groupId", "height", "id", "kind", "markGuessed", "mime", "name", "size", "sku", "tool", "url", "wearer", "wearerGuessed", "width"}
			for _, as := range body.Assets {
				var keys []string
				for k := range as {
					keys = append(keys, k)
				}
				slices.Sort(keys)
				if !slices.Equal(keys, wantKeys) {
					t.Errorf("keys %v; want %v", keys, wantKeys)
				}
			}
		})
	})
}

func TestAssetFile(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner, other := a.SignUp(t, "owner"), a.SignUp(t, "other")
		key, viewer, otherKey := a.Key(t, owner, "member"), a.Key(t, owner, "viewer"), a.Key(t, other, "member")
		data := pngOf(t, 12, 9)
		img := upload(t, a, key, data)
		deleted := upload(t, a, key, jpegOf(t, 8, 8))
		a.Do(t, "POST", "/api/toolkit/assets/batch/delete", key, map[string]any{"assetIds": []string{deleted.ID}})
		bytesGone := upload(t, a, key, jpegOf(t, 8, 8))
		if err := a.Blobs.Delete(context.Background(), asset.BlobKey(owner.HouseID, bytesGone.ID)); err != nil {
			t.Fatal(err)
		}
		never := "0190f2a8-0000-7000-8000-000000000000"

		for _, route := range []string{"/file", ""} {
			name := map[string]string{"/file": "file route", "": "legacy route"}[route]
			t.Run(name+"/bytes", func(t *testing.T) {
				res := a.Do(t, "GET", "/api/toolkit/assets/"+img.ID+route, viewer, nil)
				if res.Status != 200 || !bytes.Equal(res.Body, data) {
					t.Fatalf("got %d, %d bytes", res.Status, len(res.Body))
				}
				h := res.Header
				for k, v := range map[string]string{
					"Content-Type": "image/png", "Cache-Control": "private, max-age=3600", "X-Content-Type-Options": "nosniff",
					"Content-Security-Policy": "default-src 'none'; sandbox",
				} {
					if h.Get(k) != v {
						t.Errorf("%s: %q; want %q", k, h.Get(k), v)
					}
				}
				if etag := h.Get("ETag"); len(etag) != 66 || etag[0] != '"' {
					t.Errorf("ETag %q; want a quoted SHA-256", etag)
				}
			})
			t.Run(name+"/revalidation", func(t *testing.T) {
				etag := a.Do(t, "GET", "/api/toolkit/assets/"+img.ID+route, viewer, nil).Header.Get("ETag")
				for _, inm := range []string{etag, "W/" + etag, `"other", ` + etag, "*"} {
					res := conditionalGet(t, a, "/api/toolkit/assets/"+img.ID+route, viewer, inm)
					if res.Status != http.StatusNotModified || len(res.Body) != 0 || res.Header.Get("ETag") != etag {
						t.Errorf("If-None-Match %s: got %d %q", inm, res.Status, res.Header.Get("ETag"))
					}
				}
				if res := conditionalGet(t, a, "/api/toolkit/assets/"+img.ID+route, viewer, `"stale"`); res.Status != 200 {
					t.Errorf("stale ETag: got %d", res.Status)
				}
			})
		}
		t.Run("file route/range", func(t *testing.T) {
			req, _ := http.NewRequest("GET", a.URL+"/api/toolkit/assets/"+img.ID+"/file", nil)
			req.Header.Set("Authorization", "Bearer "+viewer.Key)
			req.Header.Set("Range", "bytes=0-7")
			res := a.Send(t, req)
			if res.Status != http.StatusPartialContent || !bytes.Equal(res.Body, data[:8]) {
				t.Errorf("range: got %d %q", res.Status, res.Body)
			}
		})

		var notFound []byte
		for _, tt := range []struct {
			name, path string
			cred       apptest.Cred
		}{
			{"file/unknown", "/api/toolkit/assets/" + never + "/file", key},
			{"file/deleted", "/api/toolkit/assets/" + deleted.ID + "/file", key},
			{"file/another house's", "/api/toolkit/assets/" + img.ID + "/file", otherKey},
			{"file/bytes missing", "/api/toolkit/assets/" + bytesGone.ID + "/file", key},
			{"legacy/unknown", "/api/toolkit/assets/" + never, key},
			{"legacy/deleted", "/api/toolkit/assets/" + deleted.ID, key},
			{"legacy/bytes missing", "/api/toolkit/assets/" + bytesGone.ID, key},
		} {
			t.Run("404/"+tt.name, func(t *testing.T) {
				res := a.Do(t, "GET", tt.path, tt.cred, nil)
				want(t, res, 404, "NOT_FOUND")
				if notFound == nil {
					notFound = res.Body
				}
				if !bytes.Equal(res.Body, notFound) || res.Header.Get("ETag") != "" || res.Header.Get("Cache-Control") != "" {
					t.Errorf("404 differs: %s %v", res.Body, res.Header)
				}
			})
		}
		t.Run("legacy/another house's is 403", func(t *testing.T) {
			want(t, a.Do(t, "GET", "/api/toolkit/assets/"+img.ID, otherKey, nil), 403, "FORBIDDEN")
		})
		t.Run("anonymous", func(t *testing.T) {
			want(t, a.Do(t, "GET", "/api/toolkit/assets/"+img.ID+"/file", apptest.Anonymous, nil), 401, "UNAUTHORIZED")
			want(t, a.Do(t, "GET", "/api/toolkit/assets/"+img.ID, apptest.Anonymous, nil), 401, "UNAUTHORIZED")
		})
	})
}

// conditionalGet sends GET path with If-None-Match, authenticated by key.
func conditionalGet(t *testing.T, a *apptest.App, path string, key apptest.Cred, inm string) apptest.Resp {
	t.Helper()
	req, err := http.NewRequest("GET", a.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key.Key)
	req.Header.Set("If-None-Match", inm)
	return a.Send(t, req)
}

func TestAssetPatch(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		vision := &fakeVision{}
		vision.answer.Store(`{"kind":"clothes","name":"Tee","fit":"oversized","wearer":"men"}`)
		ai := httptest.NewServer(vision)
		defer ai.Close()
		a := apptest.New(t, e, func(c *app.Config) {
			c.AIBaseURL, c.AIAPIKey, c.AIModel = ai.URL+"/v1", "test-key", "vision-test"
		})
		owner, other := a.SignUp(t, "owner"), a.SignUp(t, "other")
		key, viewer := a.Key(t, owner, "member"), a.Key(t, owner, "viewer")
		folder, foreignFolder := folderID(t, a, owner), folderID(t, a, other)
		id := upload(t, a, key, jpegOf(t, 8, 8), "classify", "1").ID
		if got := getAsset(t, a, key, id); !got.FitGuessed || !got.WearerGuessed {
			t.Fatalf("classified asset = %+v; want guessed fit and wearer", got)
		}

		cases := []struct {
			name       string
			cred       apptest.Cred
			body       any
			wantStatus int
			wantCode   string
			check      func(t *testing.T, as wireAsset)
		}{
			{"empty patch is a no-op", key, map[string]any{}, 200, "", func(t *testing.T, as wireAsset) {
				if as.Name != "Tee" || deref(as.Fit) != "oversized" || !as.FitGuessed {
					t.Errorf("%+v", as)
				}
			}},
			{"a person's fit is no guess", key, map[string]any{"fit": "fitted"}, 200, "", func(t *testing.T, as wireAsset) {
				if deref(as.Fit) != "fitted" || as.FitGuessed || !as.WearerGuessed {
					t.Errorf("%+v", as)
				}
			}},
			{"a person may say unisex", key, map[string]any{"wearer": "unisex"}, 200, "", func(t *testing.T, as wireAsset) {
				if deref(as.Wearer) != "unisex" || as.WearerGuessed {
					t.Errorf("%+v", as)
				}
			}},
			{"clear fit", key, map[string]any{"fit": nil}, 200, "", func(t *testing.T, as wireAsset) {
				if as.Fit != nil || as.FitGuessed {
					t.Errorf("%+v", as)
				}
			}},
			{"name, sku, kind, collection", key, map[string]any{"name": "  Boxy tee ", "sku": "TEE-9", "kind": "accessory", "folderId": folder}, 200, "", func(t *testing.T, as wireAsset) {
				if as.Name != "Boxy tee" || deref(as.SKU) != "TEE-9" || deref(as.Kind) != "accessory" || deref(as.FolderID) != folder {
					t.Errorf("%+v", as)
				}
			}},
			{"null un-files, clears the sku, moves to the root", key, map[string]any{"kind": nil, "sku": nil, "folderId": nil}, 200, "", func(t *testing.T, as wireAsset) {
				if as.Kind != nil || as.SKU != nil || as.FolderID != nil || as.Name != "Boxy tee" {
					t.Errorf("%+v", as)
				}
			}},
			{"mark is upload-only", key, map[string]any{"kind": "mark"}, 400, "BAD_KIND", nil},
			{"bad kind", key, map[string]any{"kind": "shoes"}, 400, "BAD_KIND", nil},
			{"bad sku", key, map[string]any{"sku": strings.Repeat("S", 65)}, 400, "BAD_SKU", nil},
			{"empty sku", key, map[string]any{"sku": ""}, 400, "BAD_SKU", nil},
			{"another house's collection", key, map[string]any{"folderId": foreignFolder}, 400, "BAD_FOLDER", nil},
			{"a collection that never existed", key, map[string]any{"folderId": "0190f2a8-0000-7000-8000-000000000000"}, 400, "BAD_FOLDER", nil},
			{"bad fit", key, map[string]any{"fit": "baggy"}, 400, "BAD_BODY", nil},
			{"bad wearer", key, map[string]any{"wearer": "kids"}, 400, "BAD_BODY", nil},
			{"null name", key, map[string]any{"name": nil}, 400, "BAD_BODY", nil},
			{"blank name", key, map[string]any{"name": "  "}, 400, "BAD_BODY", nil},
			{"wrong type", key, map[string]any{"sku": 7}, 400, "BAD_BODY", nil},
			{"viewer", viewer, map[string]any{"name": "x"}, 403, "FORBIDDEN", nil},
		}
		for _, tt := range cases {
			t.Run(tt.name, func(t *testing.T) {
				before := getAsset(t, a, key, id)
				res := a.Do(t, "PATCH", "/api/toolkit/assets/"+id, tt.cred, tt.body)
				want(t, res, tt.wantStatus, tt.wantCode)
				after := getAsset(t, a, key, id)
				if tt.check != nil {
					var body struct{ Asset wireAsset }
					res.JSON(t, &body)
					tt.check(t, body.Asset)
					if !reflect.DeepEqual(body.Asset, after) {
						t.Errorf("answer %+v differs from the list's %+v", body.Asset, after)
					}
				} else if !reflect.DeepEqual(after, before) {
					t.Errorf("a refused patch changed the asset: %+v -> %+v", before, after)
				}
			})
		}
		t.Run("unknown id", func(t *testing.T) {
			want(t, a.Do(t, "PATCH", "/api/toolkit/assets/0190f2a8-0000-7000-8000-000000000000", key, map[string]any{"name": "x"}), 404, "NOT_FOUND")
		})
	})
}

func TestAssetBatch(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner, other := a.SignUp(t, "owner"), a.SignUp(t, "other")
		key, viewer := a.Key(t, owner, "member"), a.Key(t, owner, "viewer")
		folder, foreignFolder := folderID(t, a, owner), folderID(t, a, other)
		x, y := upload(t, a, key, jpegOf(t, 8, 8)).ID, upload(t, a, key, jpegOf(t, 8, 8)).ID
		removed := upload(t, a, key, jpegOf(t, 8, 8)).ID
		a.Do(t, "POST", "/api/toolkit/assets/batch/delete", key, map[string]any{"assetIds": []string{removed}})
		foreign := upload(t, a, other.Session(), jpegOf(t, 8, 8)).ID
		ids := []string{x, y, y, removed, foreign, "0190f2a8-0000-7000-8000-000000000000"}

		cases := []struct {
			name        string
			cred        apptest.Cred
			body        map[string]any
			wantStatus  int
			wantCode    string
			wantUpdated int
			check       func(t *testing.T, as wireAsset)
		}{
			{"approve", key, map[string]any{"assetIds": ids, "approved": true}, 200, "", 2, func(t *testing.T, as wireAsset) {
				if !as.Approved || deref(as.ApprovedBy) != owner.ID || as.ApprovedAt == nil {
					t.Errorf("%+v", as)
				}
			}},
			{"move and file", key, map[string]any{"assetIds": ids, "folderId": folder, "kind": "jewelry"}, 200, "", 2, func(t *testing.T, as wireAsset) {
				if deref(as.FolderID) != folder || deref(as.Kind) != "jewelry" || !as.Approved {
					t.Errorf("%+v", as)
				}
			}},
			{"unapprove clears both", key, map[string]any{"assetIds": ids, "approved": false}, 200, "", 2, func(t *testing.T, as wireAsset) {
				if as.Approved || as.ApprovedBy != nil || as.ApprovedAt != nil {
					t.Errorf("%+v", as)
				}
			}},
			{"null: root and unfiled", key, map[string]any{"assetIds": ids, "folderId": nil, "kind": nil}, 200, "", 2, func(t *testing.T, as wireAsset) {
				if as.FolderID != nil || as.Kind != nil {
					t.Errorf("%+v", as)
				}
			}},
			{"only other houses' ids", key, map[string]any{"assetIds": []string{foreign}, "approved": true}, 200, "", 0, nil},
			{"no change asked", key, map[string]any{"assetIds": ids}, 400, "BAD_BODY", 0, nil},
			{"no ids", key, map[string]any{"approved": true}, 400, "BAD_BODY", 0, nil},
			{"approved null", key, map[string]any{"assetIds": ids, "approved": nil}, 400, "BAD_BODY", 0, nil},
			{"bad kind", key, map[string]any{"assetIds": ids, "kind": "hat"}, 400, "BAD_KIND", 0, nil},
			{"another house's collection", key, map[string]any{"assetIds": ids, "folderId": foreignFolder, "approved": true}, 404, "NOT_FOUND", 0, nil},
			{"viewer", viewer, map[string]any{"assetIds": ids, "approved": true}, 403, "FORBIDDEN", 0, nil},
		}
		for _, tt := range cases {
			t.Run(tt.name, func(t *testing.T) {
				before := getAsset(t, a, key, x)
				res := a.Do(t, "PATCH", "/api/toolkit/assets/batch", tt.cred, tt.body)
				want(t, res, tt.wantStatus, tt.wantCode)
				if tt.wantStatus == 200 {
					if got := res.Map(t)["updated"]; got != float64(tt.wantUpdated) {
						t.Errorf("updated = %v; want %d", got, tt.wantUpdated)
					}
				}
				if tt.check != nil {
					tt.check(t, getAsset(t, a, key, x))
					tt.check(t, getAsset(t, a, key, y))
				} else if after := getAsset(t, a, key, x); !reflect.DeepEqual(after, before) {
					t.Errorf("changed: %+v -> %+v", before, after)
				}
			})
		}
		if as := getAsset(t, a, other.Session(), foreign); as.Approved {
			t.Error("another house's asset was approved")
		}
	})
}

func TestAssetBatchDelete(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner, other := a.SignUp(t, "owner"), a.SignUp(t, "other")
		key, viewer := a.Key(t, owner, "member"), a.Key(t, owner, "viewer")
		x, y := upload(t, a, key, jpegOf(t, 8, 8)).ID, upload(t, a, key, jpegOf(t, 8, 8)).ID
		foreign := upload(t, a, other.Session(), jpegOf(t, 8, 8)).ID

		want(t, a.Do(t, "POST", "/api/toolkit/assets/batch/delete", viewer, map[string]any{"assetIds": []string{x}}), 403, "FORBIDDEN")
		want(t, a.Do(t, "POST", "/api/toolkit/assets/batch/delete", key, map[string]any{}), 400, "BAD_BODY")
		res := a.Do(t, "POST", "/api/toolkit/assets/batch/delete", key, map[string]any{"assetIds": []string{x, x, foreign, "nope"}})
		if want(t, res, 200, ""); res.Map(t)["deleted"] != float64(1) {
			t.Errorf("deleted: %s; want 1 (duplicates, foreign and unknown ids do not count)", res.Body)
		}
		res = a.Do(t, "POST", "/api/toolkit/assets/batch/delete", key, map[string]any{"assetIds": []string{x, y}})
		if res.Map(t)["deleted"] != float64(1) {
			t.Errorf("deleted: %s; want 1 (x was already deleted)", res.Body)
		}
		if n := len(listAssets(t, a, key, "")); n != 0 {
			t.Errorf("%d assets listed after deleting them all", n)
		}
		if n := len(listAssets(t, a, other.Session(), "")); n != 1 {
			t.Errorf("the other house lists %d assets; want its 1", n)
		}
		if blobCount(t, e) != 3 {
			t.Error("a soft delete keeps the stored bytes")
		}
	})
}

func TestAssetGroup(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner, other := a.SignUp(t, "owner"), a.SignUp(t, "other")
		key, viewer := a.Key(t, owner, "member"), a.Key(t, owner, "viewer")
		x, y, z := upload(t, a, key, jpegOf(t, 8, 8)).ID, upload(t, a, key, jpegOf(t, 8, 8)).ID, upload(t, a, key, jpegOf(t, 8, 8)).ID
		removed := upload(t, a, key, jpegOf(t, 8, 8)).ID
		a.Do(t, "POST", "/api/toolkit/assets/batch/delete", key, map[string]any{"assetIds": []string{removed}})
		foreign := upload(t, a, other.Session(), jpegOf(t, 8, 8)).ID

		group := func(ids ...string) string {
			res := a.Do(t, "POST", "/api/toolkit/assets/group", key, map[string]any{"assetIds": ids, "name": "ignored"})
			want(t, res, 201, "")
			return res.Map(t)["groupId"].(string)
		}
		g1 := group(x, y)
		if deref(getAsset(t, a, key, x).GroupID) != g1 || deref(getAsset(t, a, key, y).GroupID) != g1 || getAsset(t, a, key, z).GroupID != nil {
			t.Fatal("group not set")
		}
		g2 := group(y, z)
		if g2 == g1 || deref(getAsset(t, a, key, y).GroupID) != g2 || deref(getAsset(t, a, key, z).GroupID) != g2 || deref(getAsset(t, a, key, x).GroupID) != g1 {
			t.Error("regrouping did not replace the prior group of y only")
		}

		for _, tt := range []struct {
			name       string
			cred       apptest.Cred
			body       any
			wantStatus int
			wantCode   string
		}{
			{"empty", key, map[string]any{"assetIds": []string{}}, 400, "BAD_ASSET_IDS"},
			{"duplicates", key, map[string]any{"assetIds": []string{x, x}}, 400, "BAD_ASSET_IDS"},
			{"blank id", key, map[string]any{"assetIds": []string{x, ""}}, 400, "BAD_ASSET_IDS"},
			{"missing", key, map[string]any{"name": "n"}, 400, "BAD_BODY"},
			{"not a list", key, map[string]any{"assetIds": "x"}, 400, "BAD_BODY"},
			{"one of another house", key, map[string]any{"assetIds": []string{x, foreign}}, 404, "NOT_FOUND"},
			{"one removed", key, map[string]any{"assetIds": []string{x, removed}}, 404, "NOT_FOUND"},
			{"one never existed", key, map[string]any{"assetIds": []string{x, "0190f2a8-0000-7000-8000-000000000000"}}, 404, "NOT_FOUND"},
			{"viewer", viewer, map[string]any{"assetIds": []string{x}}, 403, "FORBIDDEN"},
		} {
			t.Run(tt.name, func(t *testing.T) {
				want(t, a.Do(t, "POST", "/api/toolkit/assets/group", tt.cred, tt.body), tt.wantStatus, tt.wantCode)
				if deref(getAsset(t, a, key, x).GroupID) != g1 {
					t.Error("a refused group wrote")
				}
			})
		}
	})
}

func TestAssetQuote(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner, other := a.SignUp(t, "owner"), a.SignUp(t, "other")
		viewer := a.Key(t, owner, "viewer")
		var ids []string
		for range 7 {
			ids = append(ids, upload(t, a, owner.Session(), jpegOf(t, 8, 8)).ID)
		}
		foreign := upload(t, a, other.Session(), jpegOf(t, 8, 8)).ID
		withNoise := append(append([]string{}, ids...), ids[0], foreign, "nope")

		for _, tt := range []struct {
			name       string
			body       map[string]any
			wantStatus int
			wantCode   string
			want       asset.Quote
		}{
			{"remove-background", map[string]any{"assetIds": withNoise, "operation": "remove-background", "quality": "4k"}, 200, "",
				asset.Quote{Operation: "remove-background", Items: 7, PerItem: 2, Tokens: 14, Spendable: 60, Affordable: true}},
			{"packshot at 1k by default", map[string]any{"assetIds": ids[:2], "operation": "packshot"}, 200, "",
				asset.Quote{Operation: "packshot", Items: 2, PerItem: 4, Tokens: 8, Spendable: 60, Affordable: true}},
			{"packshot at 2k with the background removed", map[string]any{"assetIds": ids[:3], "operation": "packshot", "quality": "2k", "alsoRemoveBackground": true}, 200, "",
				asset.Quote{Operation: "packshot", Items: 3, PerItem: 8, Tokens: 24, Spendable: 60, Affordable: true}},
			{"more than the house has", map[string]any{"assetIds": withNoise, "operation": "packshot", "quality": "4k"}, 200, "",
				asset.Quote{Operation: "packshot", Items: 7, PerItem: 9, Tokens: 63, Spendable: 60, Affordable: false}},
			{"bad operation", map[string]any{"assetIds": ids, "operation": "upscale"}, 400, "BAD_BODY", asset.Quote{}},
			{"bad quality", map[string]any{"assetIds": ids, "operation": "packshot", "quality": "8k"}, 400, "BAD_BODY", asset.Quote{}},
		} {
			t.Run(tt.name, func(t *testing.T) {
				res := a.Do(t, "POST", "/api/toolkit/assets/batch/quote", viewer, tt.body)
				want(t, res, tt.wantStatus, tt.wantCode)
				if tt.wantStatus == 200 {
					var got asset.Quote
					res.JSON(t, &got)
					if got != tt.want {
						t.Errorf("got %+v; want %+v", got, tt.want)
					}
				}
				if b := balance(t, a, owner.HouseID); b.Balance != 60 || b.Held != 0 {
					t.Errorf("a quote moved tokens: %+v", b)
				}
			})
		}
	})
}

func TestFolders(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner, other := a.SignUp(t, "owner"), a.SignUp(t, "other")
		key, viewer := a.Key(t, owner, "member"), a.Key(t, owner, "viewer")
		foreign := folderID(t, a, other)

		type folder struct {
			ID, Name, CreatedAt string
			ParentID            *string
		}
		create := func(body any) (apptest.Resp, folder) {
			res := a.Do(t, "POST", "/api/toolkit/folders", key, body)
			var out struct{ Folder folder }
			if res.Status == 201 {
				res.JSON(t, &out)
			}
			return res, out.Folder
		}
		_, spring := create(map[string]any{"name": " Spring "})
		_, dresses := create(map[string]any{"name": "Dresses", "parentId": spring.ID})
		_, silk := create(map[string]any{"name": "Silk", "parentId": dresses.ID})
		if spring.Name != "Spring" || spring.ParentID != nil || deref(dresses.ParentID) != spring.ID || deref(silk.ParentID) != dresses.ID {
			t.Fatalf("created %+v %+v %+v", spring, dresses, silk)
		}

		for _, tt := range []struct {
			name       string
			cred       apptest.Cred
			body       any
			wantStatus int
			wantCode   string
		}{
			{"no name", key, map[string]any{}, 400, "BAD_BODY"},
			{"blank name", key, map[string]any{"name": " "}, 400, "BAD_BODY"},
			{"parent of another house", key, map[string]any{"name": "x", "parentId": foreign}, 404, "NOT_FOUND"},
			{"parent never existed", key, map[string]any{"name": "x", "parentId": "0190f2a8-0000-7000-8000-000000000000"}, 404, "NOT_FOUND"},
			{"viewer", viewer, map[string]any{"name": "x"}, 403, "FORBIDDEN"},
		} {
			t.Run("create/"+tt.name, func(t *testing.T) {
				want(t, a.Do(t, "POST", "/api/toolkit/folders", tt.cred, tt.body), tt.wantStatus, tt.wantCode)
			})
		}

		list := func() []folder {
			var body struct{ Folders []folder }
			a.Do(t, "GET", "/api/toolkit/folders", viewer, nil).JSON(t, &body)
			return body.Folders
		}
		if got := list(); len(got) != 3 || got[0].ID != silk.ID || got[2].ID != spring.ID {
			t.Fatalf("list = %+v; want silk, dresses, spring (flat, newest first)", got)
		}

		for _, tt := range []struct {
			name       string
			cred       apptest.Cred
			id         string
			body       any
			wantStatus int
			wantCode   string
			wantName   string
			wantParent string
		}{
			{"rename", key, dresses.ID, map[string]any{"name": "Gowns"}, 200, "", "Gowns", spring.ID},
			{"empty patch", key, dresses.ID, map[string]any{}, 200, "", "Gowns", spring.ID},
			{"to the root", key, dresses.ID, map[string]any{"parentId": nil}, 200, "", "Gowns", ""},
			{"under silk's sibling", key, silk.ID, map[string]any{"parentId": spring.ID}, 200, "", "Silk", spring.ID},
			{"under itself", key, spring.ID, map[string]any{"parentId": spring.ID}, 400, "FOLDER_CYCLE", "Spring", ""},
			{"under its own child", key, spring.ID, map[string]any{"parentId": silk.ID}, 400, "FOLDER_CYCLE", "Spring", ""},
			{"under another house's", key, spring.ID, map[string]any{"parentId": foreign}, 404, "NOT_FOUND", "Spring", ""},
			{"null name", key, spring.ID, map[string]any{"name": nil}, 400, "BAD_BODY", "Spring", ""},
			{"another house's folder", key, foreign, map[string]any{"name": "Mine"}, 404, "NOT_FOUND", "", ""},
			{"viewer", viewer, spring.ID, map[string]any{"name": "x"}, 403, "FORBIDDEN", "Spring", ""},
		} {
			t.Run("patch/"+tt.name, func(t *testing.T) {
				res := a.Do(t, "PATCH", "/api/toolkit/folders/"+tt.id, tt.cred, tt.body)
				want(t, res, tt.wantStatus, tt.wantCode)
				if tt.wantName == "" {
					return
				}
				for _, f := range list() {
					if f.ID == tt.id && (f.Name != tt.wantName || deref(f.ParentID) != tt.wantParent) {
						t.Errorf("folder now %q under %q; want %q under %q", f.Name, deref(f.ParentID), tt.wantName, tt.wantParent)
					}
				}
			})
		}
	})
}

// TestAssetStory is the user story end to end: a phone photo (rotated by
// EXIF) is uploaded, listed, fetched and revalidated, moved into a
// collection, approved, and deleted, after which no route shows it.
func TestAssetStory(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner := a.SignUp(t, "director")
		key := a.Key(t, owner, "member")
		photo := exifJPEG(t, 64, 48, 6)

		up := upload(t, a, key, photo, "kind", "clothes", "name", "Linen jacket", "sku", "LJ-2027")
		if up.Width != 48 || up.Height != 64 {
			t.Fatalf("stored %dx%d; want 48x64 (shown upright)", up.Width, up.Height)
		}
		if got := listAssets(t, a, key, ""); len(got) != 1 || !reflect.DeepEqual(got[0], up) {
			t.Fatalf("list = %+v; want the upload", got)
		}

		res := a.Do(t, "GET", up.URL, key, nil)
		if res.Status != 200 || !bytes.Equal(res.Body, photo) {
			t.Fatalf("fetch: %d, %d bytes", res.Status, len(res.Body))
		}
		if again := conditionalGet(t, a, up.URL, key, res.Header.Get("ETag")); again.Status != http.StatusNotModified {
			t.Fatalf("revalidation: %d", again.Status)
		}

		coll := a.Do(t, "POST", "/api/toolkit/folders", key, map[string]any{"name": "Spring 2027"})
		var cbody struct{ Folder struct{ ID string } }
		coll.JSON(t, &cbody)
		moved := a.Do(t, "PATCH", "/api/toolkit/assets/"+up.ID, key, map[string]any{"folderId": cbody.Folder.ID})
		want(t, moved, 200, "")
		if got := listAssets(t, a, key, "?folderId="+cbody.Folder.ID); len(got) != 1 || got[0].ID != up.ID {
			t.Fatalf("collection lists %+v", got)
		}

		approved := a.Do(t, "PATCH", "/api/toolkit/assets/batch", key, map[string]any{"assetIds": []string{up.ID}, "approved": true})
		if want(t, approved, 200, ""); approved.Map(t)["updated"] != float64(1) || !getAsset(t, a, key, up.ID).Approved {
			t.Fatalf("approve: %s", approved.Body)
		}

		del := a.Do(t, "POST", "/api/toolkit/assets/batch/delete", key, map[string]any{"assetIds": []string{up.ID}})
		if want(t, del, 200, ""); del.Map(t)["deleted"] != float64(1) {
			t.Fatalf("delete: %s", del.Body)
		}
		if got := listAssets(t, a, key, ""); len(got) != 0 {
			t.Errorf("list after delete = %+v", got)
		}
		want(t, a.Do(t, "GET", up.URL, key, nil), 404, "NOT_FOUND")
		want(t, a.Do(t, "GET", "/api/toolkit/assets/"+up.ID, key, nil), 404, "NOT_FOUND")
	})
}

// TestAssetRoutesShareTheMux: the literal batch segment wins over {id} in
// Go's ServeMux, so PATCH /api/toolkit/assets/batch is never an asset patch.
func TestAssetRoutesShareTheMux(t *testing.T) {
	srv := httpapi.NewServer(httpapi.Config{}, httpapi.Services{}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	for path, pattern := range map[string]string{
		"/api/toolkit/assets/batch":                                "PATCH /api/toolkit/assets/batch",
		"/api/toolkit/assets/0190f2a8-0000-7000-8000-000000000000": "PATCH /api/toolkit/assets/{id}",
	} {
		if got := srv.Match(httptest.NewRequest("PATCH", path, nil)); got != pattern {
			t.Errorf("PATCH %s is served by %q; want %q", path, got, pattern)
		}
	}
}
