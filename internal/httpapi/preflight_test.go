package httpapi_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"studio/internal/apptest"
	"studio/internal/asset"
)

// preflightAnswer is the preflight's body as the tests read it.
type preflightAnswer struct {
	OK        bool
	Tool      string
	Engine    *string
	Price     *int64
	Spendable int64
	Note      string
	Problems  []struct{ Code, Message, Role, Option string }
}

func (p preflightAnswer) codes() []string {
	var out []string
	for _, pr := range p.Problems {
		out = append(out, pr.Code)
	}
	return out
}

// TestPreflight: POST /api/toolkit/ai/preflight answers, as JSON or from
// submit's form, every refusal submit would answer as a problem with its
// code (and the role or option it is about), then the local engine's own
// measures (LOW_CONFIDENCE when it would refuse the inputs), holds, queues
// and stores nothing, answers a malformed body 400 and a 61st preflight in a
// minute 429.
func TestPreflight(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner, other := a.SignUp(t, "preflight"), a.SignUp(t, "preflight-other")
		k, viewer := a.Key(t, owner, "member"), a.Key(t, owner, "viewer")
		shirt := upload(t, a, k, jpegOf(t, 64, 48), "kind", "clothes")
		model := upload(t, a, k, jpegOf(t, 48, 64), "kind", "model")
		foreign := upload(t, a, other.Session(), jpegOf(t, 32, 32))
		huge := upload(t, a, k, jpegOf(t, 40, 40))
		if _, err := a.DB.RawExec(context.Background(), `UPDATE assets SET size_bytes = ? WHERE id = ?`, asset.MaxBytes+1, huge.ID); err != nil {
			t.Fatal(err)
		}
		// 2 tokens held by a queued upscale: 58 spendable.
		submitJob(t, a, k, "upscale")
		before, assets := houseBalance(t, a, owner.HouseID), assetCount(t, a, k)

		ask := func(t *testing.T, c apptest.Cred, body any) preflightAnswer {
			t.Helper()
			res := a.Do(t, "POST", "/api/toolkit/ai/preflight", c, body)
			if res.Status != http.StatusOK {
				t.Fatalf("preflight %v: %d %s", body, res.Status, res.Body)
			}
			var out preflightAnswer
			res.JSON(t, &out)
			return out
		}
		img := map[string]string{"image": shirt.ID}
		tests := []struct {
			name         string
			cred         apptest.Cred
			body         any
			code         string // the one problem; "" for ok
			role, option string
		}{
			{"ok", k, map[string]any{"tool": "upscale", "inputs": img, "quality": "2k"}, "", "", ""},
			{"ok by form", k, submitForm(t, "upscale", "image", pngOf(t, 30, 20)), "", "", ""},
			{"an asset id in the form", k, apptestForm(t, "tool", "upscale", "image", shirt.ID), "", "", ""},
			{"viewer", viewer, map[string]any{"tool": "upscale", "inputs": img}, "FORBIDDEN", "", ""},
			{"no tool", k, map[string]any{"tool": ""}, "UNKNOWN_TOOL", "", ""},
			{"no tool in the form", k, apptestForm(t, "image", shirt.ID), "UNKNOWN_TOOL", "", ""},
			{"unknown tool", k, map[string]any{"tool": "teleport", "inputs": img}, "UNKNOWN_TOOL", "", ""},
			{"bad quality", k, map[string]any{"tool": "upscale", "inputs": img, "quality": "8k"}, "BAD_QUALITY", "", ""},
			{"no image", k, map[string]any{"tool": "upscale"}, "NO_IMAGE", "", ""},
			{"a role the tool takes not", k, map[string]any{"tool": "upscale", "inputs": map[string]string{"image": shirt.ID, "mask": shirt.ID}}, "NO_IMAGE", "", ""},
			{"an empty file", k, submitForm(t, "upscale", "image", []byte{}), "EMPTY_IMAGE", "", ""},
			{"not an image", k, submitForm(t, "upscale", "image", []byte("plain text")), "BAD_FORM", "image", ""},
			{"bad option", k, map[string]any{"tool": "color-change", "inputs": img, "options": map[string]string{"color": "blue"}}, "BAD_OPTION", "", "color"},
			{"an option that needs an input", k, map[string]any{"tool": "packshot", "inputs": img, "options": map[string]string{"bg": "image"}}, "NO_INPUTS", "background", "bg"},
			{"no engine here", k, map[string]any{"tool": "generate-character", "options": map[string]string{"prompt": "a tailor"}}, "FAL_NOT_CONFIGURED", "", ""},
			{"a foreign asset", k, map[string]any{"tool": "upscale", "inputs": map[string]string{"image": foreign.ID}}, "ASSET_NOT_FOUND", "image", ""},
			{"an asset over 12 MB", k, map[string]any{"tool": "upscale", "inputs": map[string]string{"image": huge.ID}}, "IMAGE_TOO_LARGE", "image", ""},
			// The local engine's measures: no standing figure in the model
			// picture, so the develop would fail (DECISIONS §11).
			{"the engine would refuse the inputs", k, map[string]any{"tool": "tryon", "inputs": map[string]string{"model": shirt.ID, "garment": shirt.ID}}, "LOW_CONFIDENCE", "", ""},
			{"a key too long", k, apptestForm(t, "tool", "upscale", "image", shirt.ID, "idempotencyKey", strings.Repeat("k", 201)), "BAD_IDEMPOTENCY_KEY", "", ""},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				out := ask(t, tt.cred, tt.body)
				if tt.code == "" {
					if !out.OK || len(out.Problems) != 0 || out.Engine == nil || *out.Engine != "local" || out.Price == nil || out.Spendable != 58 {
						t.Errorf("preflight %+v; want ok on the local engine, priced, 58 spendable", out)
					}
					return
				}
				if out.OK || !slices.Contains(out.codes(), tt.code) {
					t.Fatalf("preflight %+v; want a %s problem", out, tt.code)
				}
				for _, pr := range out.Problems {
					if pr.Code == tt.code && (pr.Role != tt.role || pr.Option != tt.option || pr.Message == "") {
						t.Errorf("%s problem %+v; want role %q option %q and a message", tt.code, pr, tt.role, tt.option)
					}
				}
			})
		}
		t.Run("insufficient tokens", func(t *testing.T) {
			// Three 4k try-ons (54) would leave 4; a fourth preflight at 4k needs 18.
			for range 3 {
				res := a.Do(t, "POST", "/api/toolkit/jobs/submit", k, apptestForm(t, "tool", "tryon", "model", model.ID, "garment", shirt.ID, "quality", "4k"))
				want(t, res, http.StatusAccepted, "")
			}
			out := ask(t, k, map[string]any{"tool": "tryon", "inputs": map[string]string{"model": model.ID, "garment": shirt.ID}, "quality": "4k"})
			if out.OK || !slices.Equal(out.codes(), []string{"INSUFFICIENT_TOKENS"}) || out.Spendable != 4 || *out.Price != 18 {
				t.Errorf("preflight %+v; want one INSUFFICIENT_TOKENS problem, 4 spendable, price 18", out)
			}
		})
		if after := houseBalance(t, a, owner.HouseID); after.Held != before.Held+54 {
			t.Errorf("held %d after the preflights; want only the three try-ons' 54 more than %d", after.Held, before.Held)
		}
		if n := assetCount(t, a, k); n != assets {
			t.Errorf("%d assets after preflights with files; want %d: nothing is stored", n, assets)
		}
		for _, tt := range []struct {
			name string
			body any
			code string
		}{
			{"not JSON", `{"tool":`, "BAD_JSON"},
			{"inputs of the wrong type", map[string]any{"tool": "upscale", "inputs": []string{shirt.ID}}, "BAD_BODY"},
		} {
			t.Run(tt.name, func(t *testing.T) {
				want(t, a.Do(t, "POST", "/api/toolkit/ai/preflight", k, tt.body), http.StatusBadRequest, tt.code)
			})
		}
		t.Run("60 a minute per house", func(t *testing.T) {
			house := a.SignUp(t, "preflight-limit")
			hk := a.Key(t, house, "member")
			body := map[string]any{"tool": "upscale"}
			for i := range 60 {
				if res := a.Do(t, "POST", "/api/toolkit/ai/preflight", hk, body); res.Status != http.StatusOK {
					t.Fatalf("preflight %d: %d %s", i+1, res.Status, res.Body)
				}
			}
			res := a.Do(t, "POST", "/api/toolkit/ai/preflight", hk, body)
			want(t, res, http.StatusTooManyRequests, "RATE_LIMITED")
			if res.Header.Get("Retry-After") == "" {
				t.Error("429 without Retry-After")
			}
			// Another house is counted apart.
			ask(t, k, body)
		})
	})
}

// apptestForm is a multipart form of text fields, given as name, value pairs.
func apptestForm(t testing.TB, fields ...string) apptest.Form {
	t.Helper()
	var parts []apptest.Part
	for i := 0; i+1 < len(fields); i += 2 {
		parts = append(parts, apptest.Part{Name: fields[i], Value: fields[i+1]})
	}
	return apptest.Multipart(t, parts...)
}

// TestPreflightRefusesAFormAsSubmitDoes: a multipart preflight reads the
// form as submit does: a form that does not parse and an image over the
// cap are refused as submit refuses them (the route's documented
// BAD_FORM and IMAGE_TOO_LARGE), changing nothing. A readable form's
// other faults are problems in a 200 answer (TestPreflight).
func TestPreflightRefusesAFormAsSubmitDoes(t *testing.T) {
	a := apptest.New(t, apptest.SQLite(t))
	owner := a.SignUp(t, "preflight-form")
	k := a.Key(t, owner, "member")
	big := make([]byte, 12<<20+10)
	tests := []struct {
		name       string
		body       apptest.Form
		wantStatus int
		wantCode   string
	}{
		{"a form that does not parse", apptest.Form{Body: []byte("--x\r\nnot a part"), ContentType: "multipart/form-data; boundary=x"}, 400, "BAD_FORM"},
		{"an image over 12 MB", submitForm(t, "upscale", "image", big), 413, "IMAGE_TOO_LARGE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, assets := houseBalance(t, a, owner.HouseID), assetCount(t, a, k)
			res := a.Do(t, "POST", "/api/toolkit/ai/preflight", k, tt.body)
			if res.Status != tt.wantStatus || res.Code != tt.wantCode {
				t.Fatalf("got %d %q %s; want %d %q", res.Status, res.Code, res.Body, tt.wantStatus, tt.wantCode)
			}
			if after := houseBalance(t, a, owner.HouseID); after.Balance != before.Balance || after.Held != before.Held || assetCount(t, a, k) != assets {
				t.Errorf("a refused preflight changed something: %+v -> %+v", before, after)
			}
		})
	}
}
