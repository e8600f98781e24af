package httpapi_test

// The hostile vectors of issue 8 that the HTTP layer answers, each tried on
// both engines: control characters in every kind of text a client sends,
// malformed path ids, overlong idempotency keys and extra parts of a
// single-input role. Each answers its documented refusal and leaves
// nothing behind: no row, no asset, no hold.

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"strings"
	"testing"

	"studio/internal/apptest"
	"studio/internal/ledger"
)

// TestControlCharactersRefused: a NUL or another C0 control in a JSON
// string, a multipart text field or a query value is a 400 on both engines
// (PostgreSQL answered 500 for most of them, SQLite stored them), and
// nothing is written.
func TestControlCharactersRefused(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner := a.SignUp(t, "owner")
		admin := a.SignUpAs(t, &apptest.User{Name: "admin", Email: "admin@studio.test", Password: "correct horse battery"})
		s := owner.Session()
		post, asset, look := postID(t, a, owner), assetID(t, a, owner), lookID(t, a, s)
		job := submitJob(t, a, s, "upscale")

		nul, bell := "a\x00b", "a\x07b"
		tests := []struct {
			name, method, path string
			cred               apptest.Cred
			body               any
			code               string
		}{
			// Unauthenticated: PostgreSQL answered 500 here.
			{"sign-in e-mail", "POST", "/api/auth/sign-in/email", apptest.Anonymous, map[string]string{"email": "ada\x00@studio.test", "password": "whatever it is"}, "BAD_BODY"},
			{"sign-in password", "POST", "/api/auth/sign-in/email", apptest.Anonymous, map[string]string{"email": owner.Email, "password": nul}, "BAD_BODY"},
			{"sign-up name", "POST", "/api/auth/sign-up/email", apptest.Anonymous, map[string]string{"name": nul, "email": "nul-name@studio.test", "password": "correct horse battery"}, "BAD_BODY"},
			{"sign-up e-mail", "POST", "/api/auth/sign-up/email", apptest.Anonymous, map[string]string{"name": "N", "email": "nul\x00@studio.test", "password": "correct horse battery"}, "BAD_BODY"},
			// JSON bodies.
			{"set-active id", "POST", "/api/auth/organization/set-active", s, map[string]string{"organizationId": nul}, "BAD_BODY"},
			{"key name", "POST", "/api/keys", s, map[string]string{"name": bell, "role": "viewer"}, "BAD_BODY"},
			{"post title", "POST", "/posts", s, map[string]string{"title": nul, "body": "text"}, "BAD_BODY"},
			{"post body", "POST", "/posts", s, map[string]string{"title": "T", "body": "escape \x1b[2J"}, "BAD_BODY"},
			{"post patch", "PATCH", "/posts/" + post, s, map[string]string{"title": nul}, "BAD_BODY"},
			{"folder name", "POST", "/api/toolkit/folders", s, map[string]string{"name": nul}, "BAD_BODY"},
			{"asset name", "PATCH", "/api/toolkit/assets/" + asset, s, map[string]any{"name": nul}, "BAD_BODY"},
			{"asset sku", "PATCH", "/api/toolkit/assets/" + asset, s, map[string]any{"sku": nul}, "BAD_BODY"},
			{"batch ids", "PATCH", "/api/toolkit/assets/batch", s, map[string]any{"assetIds": []string{nul}, "approved": true}, "BAD_BODY"},
			{"group ids", "POST", "/api/toolkit/assets/group", s, map[string]any{"assetIds": []string{asset, nul}}, "BAD_BODY"},
			{"pack ids", "POST", "/api/toolkit/assets/pack", s, map[string]any{"assetIds": []string{nul}}, "BAD_BODY"},
			{"read ids", "POST", "/api/notifications/read", s, map[string]any{"ids": []string{nul}}, "BAD_BODY"},
			{"duplicate key", "POST", "/api/toolkit/jobs/" + job + "/duplicate", s, map[string]string{"idempotencyKey": nul}, "BAD_BODY"},
			{"look name", "POST", "/api/toolkit/lookbook/looks", s, withField(lookBody(t, a, s), "name", nul), "BAD_BODY"},
			{"develop-lock key", "POST", "/api/toolkit/lookbook/looks/" + look + "/develop-lock", s, map[string]string{"idempotencyKey": nul}, "BAD_BODY"},
			{"posture prefs", "PUT", "/api/toolkit/postures/prefs", s, map[string]any{"favorites": []string{nul}}, "BAD_BODY"},
			{"grant reason", "POST", "/api/toolkit/admin/grant-tokens", signIn(t, a, admin), map[string]any{"userId": owner.ID, "tokens": 5, "reason": nul}, "BAD_BODY"},
			// Multipart text fields.
			{"upload name", "POST", "/api/toolkit/assets/upload", s, uploadForm(t, "a.jpg", jpegOf(t, 16, 12), "name", nul), "BAD_FORM"},
			{"upload file name", "POST", "/api/toolkit/assets/upload", s, uploadForm(t, "a\x00.jpg", jpegOf(t, 16, 12)), "BAD_FORM"},
			{"upload file name (RFC 2231)", "POST", "/api/toolkit/assets/upload", s, rawUpload(t, `filename*=UTF-8''a%00b.jpg`), "BAD_FORM"},
			{"submit file name", "POST", "/api/toolkit/jobs/submit", s, rawSubmit(t, `filename*=UTF-8''a%01b.png`), "BAD_FORM"},
			{"upload sku", "POST", "/api/toolkit/assets/upload", s, uploadForm(t, "a.jpg", jpegOf(t, 16, 12), "sku", "\x01"), "BAD_FORM"},
			{"submit option", "POST", "/api/toolkit/jobs/submit", s, submitForm(t, "upscale", "image", pngOf(t, 64, 48), "runId", nul), "BAD_FORM"},
			{"submit key", "POST", "/api/toolkit/jobs/submit", s, submitForm(t, "upscale", "image", pngOf(t, 64, 48), "idempotencyKey", nul), "BAD_FORM"},
			{"submit tool", "POST", "/api/toolkit/jobs/submit", s, submitForm(t, "upscale\x00", "image", pngOf(t, 64, 48)), "BAD_FORM"},
			// Query values: the parameter's own code.
			{"verify token", "GET", "/api/auth/verify-email?token=%00", apptest.Anonymous, nil, "BAD_TOKEN"},
			{"assets folder", "GET", "/api/toolkit/assets?folderId=%00", s, nil, "BAD_FOLDER"},
			{"assets folder not UTF-8", "GET", "/api/toolkit/assets?folderId=%FF", s, nil, "BAD_FOLDER"},
			{"runs state", "GET", "/api/toolkit/develops?state=all%00", s, nil, "BAD_STATE"},
			{"jobs since", "GET", "/api/toolkit/jobs?since=%00", s, nil, "BAD_SINCE"},
			{"notifications cursor", "GET", "/api/notifications?before=%00", s, nil, "BAD_CURSOR"},
		}
		before := houseState(t, a, s) // after the table: lookBody uploads
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				res := a.Do(t, tt.method, tt.path, tt.cred, tt.body)
				if res.Status != http.StatusBadRequest || res.Code != tt.code {
					t.Errorf("got %d %s; want 400 %s", res.Status, res.Body, tt.code)
				}
			})
		}
		if after := houseState(t, a, s); after != before {
			t.Errorf("the refusals changed the house: %+v, then %+v", before, after)
		}
		for _, email := range []string{"nul-name@studio.test", "nul\x00@studio.test"} {
			if res := a.Do(t, "POST", "/api/auth/sign-in/email", apptest.Anonymous, map[string]string{"email": email, "password": "correct horse battery"}); res.Status == http.StatusOK {
				t.Errorf("%q signed up", email)
			}
		}

		t.Run("MCP arguments", func(t *testing.T) {
			key := a.Key(t, owner, "member")
			res := mcpPost(t, a, key, rpcRequest(1, "tools/call", map[string]any{"name": "start_develop",
				"arguments": map[string]any{"tool": "upscale", "inputs": map[string]string{"image": asset}, "params": map[string]string{"runId": nul}}}), "MCP-Protocol-Version", "2025-11-25")
			if res.Status != http.StatusOK || !strings.Contains(string(res.Body), `"isError":true`) || !strings.Contains(string(res.Body), "BAD_ARGUMENTS") {
				t.Errorf("got %d %s; want an isError BAD_ARGUMENTS result", res.Status, res.Body)
			}
			if after := houseState(t, a, s); after != before {
				t.Errorf("the refusal changed the house: %+v, then %+v", before, after)
			}
		})
	})
}

// rawUpload and rawSubmit send a file part whose Content-Disposition
// carries the given filename parameter as written.
func rawUpload(t *testing.T, filename string) apptest.Form {
	return rawForm(t, "file", filename, jpegOf(t, 16, 12))
}

func rawSubmit(t *testing.T, filename string) apptest.Form {
	f := rawForm(t, "image", filename, pngOf(t, 64, 48), "tool", "upscale")
	return f
}

func rawForm(t *testing.T, field, filename string, data []byte, values ...string) apptest.Form {
	t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	for i := 0; i+1 < len(values); i += 2 {
		if err := w.WriteField(values[i], values[i+1]); err != nil {
			t.Fatal(err)
		}
	}
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="`+field+`"; `+filename)
	h.Set("Content-Type", "application/octet-stream")
	p, err := w.CreatePart(h)
	if err != nil {
		t.Fatal(err)
	}
	p.Write(data)
	w.Close()
	return apptest.Form{Body: b.Bytes(), ContentType: w.FormDataContentType()}
}

func withField(m map[string]any, k string, v any) map[string]any {
	m[k] = v
	return m
}

// TestMalformedPathIDsAreTheOne404: a path id with a NUL, a space, a quote,
// a percent sign or 300 characters is answered by the one 404, byte for byte
// the 404 of an id that never existed, on both engines (PostgreSQL answered
// 500 for a NUL).
func TestMalformedPathIDsAreTheOne404(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner := a.SignUp(t, "owner")
		s := owner.Session()
		want := a.Do(t, "GET", "/posts/0190a1c2-0000-7000-8000-000000000000", s, nil)
		if want.Status != http.StatusNotFound {
			t.Fatalf("missing post: %d %s", want.Status, want.Body)
		}
		for _, id := range []string{"%00", "a%00b", "a%20b", "a%27b", "a%22b", "%25", "a%0Ab", strings.Repeat("a", 300), "%FF"} {
			for _, rt := range []struct{ method, path string }{
				{"GET", "/posts/" + id},
				{"DELETE", "/api/keys/" + id},
				{"GET", "/api/toolkit/assets/" + id + "/file"},
				{"PATCH", "/api/toolkit/assets/" + id},
				{"POST", "/api/toolkit/jobs/" + id + "/cancel"},
				{"GET", "/api/toolkit/lookbook/looks/" + id},
				{"GET", "/api/toolkit/packs/" + id},
				{"GET", "/api/toolkit/lookbook/templates/" + id},
			} {
				var body any
				if rt.method == "PATCH" {
					body = map[string]string{"name": "x"}
				}
				res := a.Do(t, rt.method, rt.path, s, body)
				if res.Status != http.StatusNotFound || !bytes.Equal(res.Body, want.Body) {
					t.Errorf("%s %s: got %d %s; want the one 404 %s", rt.method, rt.path, res.Status, res.Body, want.Body)
				}
			}
		}
	})
}

// TestIdempotencyKeyCapped: a key over 200 characters is refused with 400
// BAD_IDEMPOTENCY_KEY on every route that takes one, before anything is
// held; 200 characters pass.
func TestIdempotencyKeyCapped(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner := a.SignUp(t, "owner")
		s := owner.Session()
		job, look := submitJob(t, a, s, "upscale"), lookID(t, a, s)
		asset := assetID(t, a, owner)
		long, longest := strings.Repeat("k", 201), strings.Repeat("é", 200)
		before := houseState(t, a, s)
		for _, tt := range []struct {
			name, method, path string
			body               any
		}{
			{"submit", "POST", "/api/toolkit/jobs/submit", submitForm(t, "upscale", "image", pngOf(t, 64, 48), "idempotencyKey", long)},
			{"duplicate", "POST", "/api/toolkit/jobs/" + job + "/duplicate", map[string]string{"idempotencyKey": long}},
			{"duplicate of 10,000", "POST", "/api/toolkit/jobs/" + job + "/duplicate", map[string]string{"idempotencyKey": strings.Repeat("k", 10000)}},
			{"develop-lock", "POST", "/api/toolkit/lookbook/looks/" + look + "/develop-lock", map[string]string{"idempotencyKey": long}},
			{"variations", "POST", "/api/toolkit/lookbook/looks/" + look + "/variations", map[string]any{"keys": []string{"front"}, "idempotencyKey": long}},
		} {
			t.Run(tt.name, func(t *testing.T) {
				res := a.Do(t, tt.method, tt.path, s, tt.body)
				if res.Status != http.StatusBadRequest || res.Code != "BAD_IDEMPOTENCY_KEY" {
					t.Errorf("got %d %s; want 400 BAD_IDEMPOTENCY_KEY", res.Status, res.Body)
				}
			})
		}
		t.Run("MCP start_develop", func(t *testing.T) {
			res := mcpPost(t, a, a.Key(t, owner, "member"), rpcRequest(1, "tools/call", map[string]any{"name": "start_develop",
				"arguments": map[string]any{"tool": "upscale", "inputs": map[string]string{"image": asset}, "idempotencyKey": long}}))
			if !strings.Contains(string(res.Body), `"isError":true`) || !strings.Contains(string(res.Body), "BAD_IDEMPOTENCY_KEY") {
				t.Errorf("got %d %s; want an isError BAD_IDEMPOTENCY_KEY result", res.Status, res.Body)
			}
		})
		if after := houseState(t, a, s); after != before {
			t.Errorf("the refusals changed the house: %+v, then %+v", before, after)
		}
		if res := a.Do(t, "POST", "/api/toolkit/jobs/"+job+"/duplicate", s, map[string]string{"idempotencyKey": longest}); res.Status != http.StatusAccepted {
			t.Errorf("a key of 200 characters: got %d %s; want 202", res.Status, res.Body)
		}
	})
}

// TestSingleRolePartsRefused: a single-image tool given 1,000 image parts
// is 400 BAD_FORM and stores nothing (it stored 1,000 assets for a 2-token
// job); garment repeats for tryon, up to its bound.
func TestSingleRolePartsRefused(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner := a.SignUp(t, "owner")
		s := owner.Session()
		before := houseState(t, a, s)
		img := pngOf(t, 16, 16)
		parts := []apptest.Part{{Name: "tool", Value: "upscale"}}
		for range 1000 {
			parts = append(parts, apptest.Part{Name: "image", Filename: "i.png", Data: img})
		}
		res := a.Do(t, "POST", "/api/toolkit/jobs/submit", s, apptest.Multipart(t, parts...))
		if res.Status != http.StatusBadRequest || res.Code != "BAD_FORM" {
			t.Errorf("1,000 image parts: got %d %s; want 400 BAD_FORM", res.Status, res.Body)
		}
		two := apptest.Multipart(t, apptest.Part{Name: "tool", Value: "harmonize"},
			apptest.Part{Name: "image", Filename: "a.png", Data: img}, apptest.Part{Name: "background", Filename: "b.png", Data: img},
			apptest.Part{Name: "background", Filename: "c.png", Data: img})
		if res := a.Do(t, "POST", "/api/toolkit/jobs/submit", s, two); res.Status != http.StatusBadRequest || res.Code != "BAD_FORM" {
			t.Errorf("two backgrounds: got %d %s; want 400 BAD_FORM", res.Status, res.Body)
		}
		if res := a.Do(t, "POST", "/api/toolkit/assets/upload", s, apptest.Multipart(t,
			apptest.Part{Name: "file", Filename: "a.jpg", Data: jpegOf(t, 16, 12)}, apptest.Part{Name: "file", Filename: "b.jpg", Data: jpegOf(t, 16, 12)})); res.Status != http.StatusBadRequest || res.Code != "BAD_FORM" {
			t.Errorf("two upload files: got %d %s; want 400 BAD_FORM", res.Status, res.Body)
		}
		if after := houseState(t, a, s); after != before {
			t.Errorf("the refusals changed the house: %+v, then %+v", before, after)
		}
		garments := []apptest.Part{{Name: "tool", Value: "tryon"}, {Name: "model", Filename: "m.png", Data: pngOf(t, 60, 90)}}
		for range 2 {
			garments = append(garments, apptest.Part{Name: "garment", Filename: "g.png", Data: pngOf(t, 30, 30)})
		}
		if res := a.Do(t, "POST", "/api/toolkit/jobs/submit", s, apptest.Multipart(t, garments...)); res.Status != http.StatusAccepted {
			t.Errorf("two garments: got %d %s; want 202", res.Status, res.Body)
		}
	})
}

// state is what a refusal must leave alone: the house's assets, its
// balance and holds, its jobs and posts.
type state struct {
	assets, jobs, posts int
	balance, held       int64
}

// houseState reads the house's state (the tests run no workers, so queued
// jobs stay as they are).
func houseState(t *testing.T, a *apptest.App, c apptest.Cred) state {
	t.Helper()
	var st state
	var assets struct{ Assets []struct{ ID string } }
	a.Do(t, "GET", "/api/toolkit/assets", c, nil).JSON(t, &assets)
	st.assets = len(assets.Assets)
	var jobs struct{ Jobs []struct{ ID string } }
	a.Do(t, "GET", "/api/toolkit/jobs?since=0", c, nil).JSON(t, &jobs)
	st.jobs = len(jobs.Jobs)
	var posts []struct{ ID string }
	a.Do(t, "GET", "/posts", c, nil).JSON(t, &posts)
	st.posts = len(posts)
	var b ledger.Balance
	a.Do(t, "GET", "/api/toolkit/ai/billing/balance", c, nil).JSON(t, &b)
	st.balance, st.held = b.Balance, b.Held
	return st
}
