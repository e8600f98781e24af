package httpapi_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"

	"studio/internal/ai/aitest"
	"studio/internal/app"
	"studio/internal/apptest"
	"studio/internal/engine/fal/faltest"
	"studio/internal/ledger"
	"studio/internal/ops"
)

// TestMarksReachTheProvider: with two marks registered and injection on, a
// look frame served by fal or by the image endpoint sends the marks as
// pictures after the look's own (image_urls; image[] parts), the prompt
// naming each by its position and material beside the clause; the job's
// recorded prompt is exactly the one the provider received, and its
// recorded pictures name the model, the piece and the marks by asset.
func TestMarksReachTheProvider(t *testing.T) {
	type asked struct {
		prompt string
		images [][]byte
	}
	providers := []struct {
		name  string
		setup func(t *testing.T, c *app.Config) func() []asked
	}{
		{"fal", func(t *testing.T, c *app.Config) func() []asked {
			srv := faltest.New(t, "test-fal")
			c.FalKey, c.FalURL = "test-fal", srv.URL
			return func() []asked {
				var out []asked
				for _, sub := range srv.Of(falLookModel) {
					p, _ := sub.Input["prompt"].(string)
					urls, _ := sub.Input["image_urls"].([]any)
					a := asked{prompt: p}
					for _, u := range urls {
						_, b64, _ := strings.Cut(u.(string), ";base64,")
						data, err := base64.StdEncoding.DecodeString(b64)
						if err != nil {
							t.Fatalf("image_url: %v", err)
						}
						a.images = append(a.images, data)
					}
					out = append(out, a)
				}
				return out
			}
		}},
		{"image-api", func(t *testing.T, c *app.Config) func() []asked {
			srv := aitest.New(t)
			img := image.NewNRGBA(image.Rect(0, 0, 1024, 1024))
			for i := range img.Pix {
				img.Pix[i] = 200
			}
			var b bytes.Buffer
			if err := png.Encode(&b, img); err != nil {
				t.Fatal(err)
			}
			srv.AnswerImage(aitest.ImageAnswer{Image: b.Bytes()})
			c.AIImageBaseURL = srv.URL
			return func() []asked {
				var out []asked
				for _, ed := range srv.Edits() {
					out = append(out, asked{prompt: ed.Prompt, images: ed.Images})
				}
				return out
			}
		}},
	}
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
				var calls func() []asked
				a := apptest.New(t, e, func(c *app.Config) { calls = p.setup(t, c) })
				owner := a.SignUp(t, "maison")
				k := owner.Session()
				if err := a.DB.AddCredit(context.Background(), owner.HouseID, ledger.NewTopUp(100, "pay_marks")); err != nil {
					t.Fatal(err)
				}
				want(t, a.Do(t, "PATCH", "/api/toolkit/brand", k, map[string]any{"visionEn": "Quiet coastal tailoring.", "injectEnabled": true}), 200, "")
				var marks []string
				for i, material := range []string{"gold foil wordmark", "blind-embossed monogram"} {
					m := upload(t, a, k, logoPNG(t, 40+20*i, 20, color.NRGBA{R: uint8(30 * i), A: 255}), "kind", "mark", "name", []string{"Wordmark", "Monogram"}[i])
					want(t, a.Do(t, "POST", "/api/toolkit/brand/marks", k, map[string]any{"assetId": m.ID, "material": material, "placement": "left chest", "sortOrder": i}), 201, "")
					marks = append(marks, m.ID)
				}
				modelJ, shirtJ := modelJPEG(t), productJPEG(t, 200, 240)
				model := upload(t, a, k, modelJ, "kind", "model")
				shirt := upload(t, a, k, shirtJ, "kind", "clothes", "name", "Silk shirt")
				res := a.Do(t, "POST", "/api/toolkit/lookbook/looks", k, map[string]any{"name": "Marked", "modelAssetId": model.ID,
					"itemAssetIds": []map[string]any{{"assetId": shirt.ID, "role": "top", "label": "Silk shirt"}},
					"background":   map[string]string{"kind": "preset", "value": "studio-white"}, "aesthetic": "studio"})
				want(t, res, 201, "")
				var created struct{ Look wireLook }
				res.JSON(t, &created)
				want(t, a.Do(t, "POST", looksPath(created.Look.ID, "/develop-lock"), k, map[string]any{}), 202, "")
				developAll(t, a)
				var detail struct{ LockDevelop struct{ ID, Status string } }
				a.Do(t, "GET", looksPath(created.Look.ID), k, nil).JSON(t, &detail)
				if detail.LockDevelop.Status != "done" {
					t.Fatalf("lock develop %+v", detail.LockDevelop)
				}

				got := calls()
				if len(got) != 1 {
					t.Fatalf("%d calls reached the provider; want 1", len(got))
				}
				c := got[0]
				wantImages := [][]byte{modelJ, shirtJ, fileBytes(t, a, k, marks[0]), fileBytes(t, a, k, marks[1])}
				if len(c.images) != len(wantImages) {
					t.Fatalf("the provider got %d images; want the model, the piece and both marks", len(c.images))
				}
				for i := range wantImages {
					if !bytes.Equal(c.images[i], wantImages[i]) {
						t.Errorf("image %d is not the %s", i+1, []string{"model", "piece", "first mark", "second mark"}[i])
					}
				}
				for _, w := range []string{"Image 3 is the house's logo rendition Wordmark, in gold foil wordmark, placed left chest; image 4 is the house's logo rendition Monogram, in blind-embossed monogram, placed left chest.",
					"House style: Quiet coastal tailoring."} {
					if !strings.Contains(c.prompt, w) {
						t.Errorf("the provider's prompt lacks %q:\n%s", w, c.prompt)
					}
				}
				if strings.Count(c.prompt, "gold foil") != 1 {
					t.Errorf("the provider's prompt names the first mark other than beside its picture:\n%s", c.prompt)
				}

				op := a.SignUpAs(t, &apptest.User{Name: "admin", Email: "admin@studio.test", Password: "correct horse battery"})
				var body struct{ Develop ops.Develop }
				a.Do(t, "GET", "/api/toolkit/admin/develops?id="+detail.LockDevelop.ID, op.Session(), nil).JSON(t, &body)
				d := body.Develop
				if d.ProviderPrompt == nil || *d.ProviderPrompt != c.prompt {
					t.Errorf("the recorded prompt is not what the provider received:\n%v\n---\n%s", d.ProviderPrompt, c.prompt)
				}
				var refs []string
				for _, r := range d.ProviderRefs {
					refs = append(refs, r.Role+":"+r.Label+":"+r.Text+":"+r.AssetID)
				}
				if w := "model:::" + model.ID + "|item:Silk shirt::" + shirt.ID + "|mark:Wordmark:gold foil wordmark, placed left chest:" + marks[0] +
					"|mark:Monogram:blind-embossed monogram, placed left chest:" + marks[1]; strings.Join(refs, "|") != w {
					t.Errorf("recorded pictures\n%s\nwant\n%s", strings.Join(refs, "|"), w)
				}
			})
		})
	}
}

// logoPNG is a w x h mark: a bar of c on white.
func logoPNG(t testing.TB, w, h int, c color.NRGBA) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	for y := h / 3; y < 2*h/3; y++ {
		for x := 2; x < w-2; x++ {
			img.SetNRGBA(x, y, c)
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
