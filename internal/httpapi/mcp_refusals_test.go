package httpapi_test

import (
	"crypto/x509"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/google/uuid"

	"studio/internal/app"
	"studio/internal/apptest"
	"studio/internal/asset"
	"studio/internal/urlguard"
)

// TestMCPToolRefusals: every tool beyond SPEC §4.2's six refuses as its
// HTTP route does, as a result with isError: bad arguments, a viewer key
// where the route spends or changes, another house's ids exactly as
// unknown ones (ASSET_NOT_FOUND for assets, NOT_FOUND otherwise), and 402
// with need, spendable and held, nothing held.
func TestMCPToolRefusals(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		img := productJPEG(t, 120, 160)
		srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/shirt.jpg":
				w.Header().Set("Content-Type", "image/jpeg")
				_, _ = w.Write(img)
			case "/away":
				http.Redirect(w, r, "https://127.0.0.1:1/elsewhere.jpg", http.StatusFound)
			default:
				http.NotFound(w, r)
			}
		}))
		t.Cleanup(srv.Close)
		pool := x509.NewCertPool()
		pool.AddCert(srv.Certificate())
		a := apptest.NewWith(t, e, func(o *app.Options) {
			o.FetchGuard = asset.FetchGuard(urlguard.AllowLoopbackForTest(t, netip.MustParseAddrPort(srv.Listener.Addr().String())), urlguard.WithRootCAs(pool))
		})
		owner, other := a.SignUp(t, "mcp-refusals"), a.SignUp(t, "mcp-stranger")
		c := connectMCP(t, a, a.Key(t, owner, "member"))
		viewer := connectMCP(t, a, a.Key(t, owner, "viewer"))
		stranger := connectMCP(t, a, a.Key(t, other, "member"))

		// The same refusal for another house's id as for an unknown one.
		same := func(t *testing.T, tool string, unknownArgs, foreignArgs map[string]any, code string) {
			t.Helper()
			if got, want := stranger.refused(t, tool, foreignArgs, code), stranger.refused(t, tool, unknownArgs, code); got != want {
				t.Errorf("%s: another house's id answers %q; an unknown one %q", tool, got, want)
			}
		}
		unknown := uuid.NewString()

		var shirt, model string
		t.Run("upload_asset", func(t *testing.T) {
			out := c.ok(t, "upload_asset", map[string]any{"kind": "clothes", "url": srv.URL + "/shirt.jpg"})
			shirt = out["asset"].(map[string]any)["id"].(string)
			if out["asset"].(map[string]any)["name"] != "shirt" {
				t.Errorf("fetched asset %v; want it named after the URL's file", out)
			}
			model = c.ok(t, "upload_asset", map[string]any{"kind": "model", "data": "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(modelJPEG(t))})["asset"].(map[string]any)["id"].(string)
			data := base64.StdEncoding.EncodeToString(img)
			viewer.refused(t, "upload_asset", map[string]any{"kind": "clothes", "data": data}, "FORBIDDEN")
			c.refused(t, "upload_asset", map[string]any{"data": data}, "BAD_ARGUMENTS")
			c.refused(t, "upload_asset", map[string]any{"kind": "clothes"}, "BAD_ARGUMENTS")
			c.refused(t, "upload_asset", map[string]any{"kind": "clothes", "data": data, "url": srv.URL + "/shirt.jpg"}, "BAD_ARGUMENTS")
			c.refused(t, "upload_asset", map[string]any{"kind": "clothes", "data": 7}, "BAD_ARGUMENTS")
			c.refused(t, "upload_asset", map[string]any{"kind": "hat", "data": data}, "BAD_KIND")
			c.refused(t, "upload_asset", map[string]any{"kind": "clothes", "data": "not base64!"}, "BAD_DATA")
			c.refused(t, "upload_asset", map[string]any{"kind": "clothes", "data": base64.StdEncoding.EncodeToString([]byte("plain text, no picture"))}, "BAD_FORM")
			// Over 12 MB decoded is IMAGE_TOO_LARGE: a 16 MB argument, too slow to send here under the
			// race detector, is mcp's TestDecodeBase64.
			c.refused(t, "upload_asset", map[string]any{"kind": "clothes", "url": strings.Replace(srv.URL, "https", "http", 1) + "/shirt.jpg"}, "BAD_URL")
			c.refused(t, "upload_asset", map[string]any{"kind": "clothes", "url": "https://10.0.0.1/shirt.jpg"}, "BAD_URL")
			c.refused(t, "upload_asset", map[string]any{"kind": "clothes", "url": srv.URL + "/missing.jpg"}, "FETCH_FAILED")
			c.refused(t, "upload_asset", map[string]any{"kind": "clothes", "url": srv.URL + "/away"}, "BAD_URL") // a redirect into private space
			c.refused(t, "upload_asset", map[string]any{"kind": "clothes", "data": data, "folderId": unknown}, "NOT_FOUND")
		})
		foreign := upload(t, a, other.Session(), productJPEG(t, 90, 90), "kind", "clothes").ID

		t.Run("get_asset", func(t *testing.T) {
			same(t, "get_asset", map[string]any{"assetId": unknown}, map[string]any{"assetId": shirt}, "ASSET_NOT_FOUND")
			c.refused(t, "get_asset", nil, "BAD_ARGUMENTS")
			c.refused(t, "get_asset", map[string]any{"assetId": shirt, "preview": "yes"}, "BAD_ARGUMENTS")
			if out := viewer.ok(t, "get_asset", map[string]any{"assetId": shirt}); out["asset"].(map[string]any)["id"] != shirt {
				t.Errorf("a viewer reads an asset: %v", out)
			}
		})

		var queued string
		t.Run("cancel_develop", func(t *testing.T) {
			queued = c.ok(t, "start_develop", map[string]any{"tool": "upscale", "inputs": map[string]any{"image": shirt}})["jobId"].(string)
			viewer.refused(t, "cancel_develop", map[string]any{"jobId": queued}, "FORBIDDEN")
			same(t, "cancel_develop", map[string]any{"jobId": unknown}, map[string]any{"jobId": queued}, "NOT_FOUND")
			c.refused(t, "cancel_develop", map[string]any{}, "BAD_ARGUMENTS")
			out := c.ok(t, "cancel_develop", map[string]any{"jobId": queued})
			if out["cancelled"] != true || num(out["tokensReleased"]) != 2 || out["state"] != "cancelled" {
				t.Errorf("cancel_develop %v; want cancelled, 2 tokens released", out)
			}
			if again := c.ok(t, "cancel_develop", map[string]any{"jobId": queued}); again["cancelled"] != false || again["reason"] != "ALREADY_SETTLED" {
				t.Errorf("cancel again: %v; want ALREADY_SETTLED", again)
			}
		})

		t.Run("preflight_develop", func(t *testing.T) {
			codes := func(out map[string]any) []string {
				var got []string
				for _, p := range out["problems"].([]any) {
					got = append(got, p.(map[string]any)["code"].(string))
				}
				return got
			}
			out := c.ok(t, "preflight_develop", map[string]any{"tool": "upscale", "inputs": map[string]any{"image": shirt}, "quality": "2k"})
			if out["ok"] != true || num(out["price"]) != 3 || out["engine"] != "local" || len(codes(out)) != 0 {
				t.Errorf("preflight of a good develop: %v", out)
			}
			for _, tt := range []struct {
				cl   *mcpClient
				args map[string]any
				code string
			}{
				{c, map[string]any{"tool": "nope"}, "UNKNOWN_TOOL"},
				{c, map[string]any{"tool": "upscale", "inputs": map[string]any{"image": foreign}}, "ASSET_NOT_FOUND"},
				{c, map[string]any{"tool": "upscale", "inputs": map[string]any{"image": shirt}, "quality": "8k"}, "BAD_QUALITY"},
				{c, map[string]any{"tool": "color-change", "inputs": map[string]any{"image": shirt}, "params": map[string]any{"color": "blue"}}, "BAD_OPTION"},
				{c, map[string]any{"tool": "tryon", "inputs": map[string]any{"model": model}}, "NO_IMAGE"},
				{viewer, map[string]any{"tool": "upscale", "inputs": map[string]any{"image": shirt}}, "FORBIDDEN"},
			} {
				if out := tt.cl.ok(t, "preflight_develop", tt.args); out["ok"] != false || !strings.Contains(strings.Join(codes(out), ","), tt.code) {
					t.Errorf("preflight %v: %v; want a %s problem", tt.args, out, tt.code)
				}
			}
			c.refused(t, "preflight_develop", map[string]any{"tool": "upscale", "params": map[string]any{"seed": 1}}, "BAD_ARGUMENTS")
		})

		var draft string
		t.Run("create_look", func(t *testing.T) {
			body := map[string]any{"name": "Spring", "modelAssetId": model, "itemAssetIds": []map[string]any{{"assetId": shirt, "role": "top"}},
				"background": map[string]any{"kind": "preset", "value": "studio-white"}, "aesthetic": "editorial"}
			draft = c.ok(t, "create_look", body)["look"].(map[string]any)["id"].(string)
			viewer.refused(t, "create_look", body, "FORBIDDEN")
			body["modelAssetId"] = foreign
			c.refused(t, "create_look", body, "ASSET_NOT_FOUND")
			body["modelAssetId"], body["aesthetic"] = model, "vaporwave"
			c.refused(t, "create_look", body, "BAD_AESTHETIC")
			body["itemAssetIds"] = "shirt"
			c.refused(t, "create_look", body, "BAD_ARGUMENTS")
		})

		t.Run("get_look, develop_look, lock_look, develop_variations", func(t *testing.T) {
			same(t, "get_look", map[string]any{"lookId": unknown}, map[string]any{"lookId": draft}, "NOT_FOUND")
			c.refused(t, "get_look", map[string]any{"lookId": 5}, "BAD_ARGUMENTS")
			if out := viewer.ok(t, "get_look", map[string]any{"lookId": draft}); out["look"].(map[string]any)["status"] != "draft" {
				t.Errorf("a viewer reads a look: %v", out)
			}
			viewer.refused(t, "develop_look", map[string]any{"lookId": draft}, "FORBIDDEN")
			same(t, "develop_look", map[string]any{"lookId": unknown}, map[string]any{"lookId": draft}, "NOT_FOUND")
			c.refused(t, "develop_look", map[string]any{"lookId": draft, "output": "billboard"}, "UNKNOWN_DESTINATION")
			c.refused(t, "develop_look", map[string]any{"lookId": draft, "quality": "8k"}, "BAD_QUALITY")
			viewer.refused(t, "lock_look", map[string]any{"lookId": draft, "assetId": shirt}, "FORBIDDEN")
			same(t, "lock_look", map[string]any{"lookId": unknown, "assetId": shirt}, map[string]any{"lookId": draft, "assetId": shirt}, "NOT_FOUND")
			c.refused(t, "lock_look", map[string]any{"lookId": draft, "assetId": shirt}, "NOT_A_LOOK_FRAME")
			c.refused(t, "lock_look", map[string]any{"lookId": draft}, "ASSET_REQUIRED")
			viewer.refused(t, "develop_variations", map[string]any{"lookId": draft, "keys": []string{"front"}}, "FORBIDDEN")
			same(t, "develop_variations", map[string]any{"lookId": unknown, "keys": []string{"front"}}, map[string]any{"lookId": draft, "keys": []string{"front"}}, "NOT_FOUND")
			c.refused(t, "develop_variations", map[string]any{"lookId": draft, "keys": []string{"front"}}, "LOCK_REQUIRED")
			c.refused(t, "develop_variations", map[string]any{"lookId": draft, "keys": "front"}, "BAD_ARGUMENTS")
		})

		t.Run("get_verdict", func(t *testing.T) {
			same(t, "get_verdict", map[string]any{"assetId": unknown}, map[string]any{"assetId": shirt}, "ASSET_NOT_FOUND")
			c.refused(t, "get_verdict", map[string]any{"assetId": shirt}, "ASSET_NOT_FOUND") // an upload, no develop's frame
			c.refused(t, "get_verdict", map[string]any{"jobId": queued}, "NOT_FOUND")        // never judged
			c.refused(t, "get_verdict", map[string]any{}, "BAD_ARGUMENTS")
			c.refused(t, "get_verdict", map[string]any{"assetId": shirt, "jobId": queued}, "BAD_ARGUMENTS")
		})

		t.Run("share_frames", func(t *testing.T) {
			viewer.refused(t, "share_frames", map[string]any{"assetIds": []string{shirt}}, "FORBIDDEN")
			same(t, "share_frames", map[string]any{"assetIds": []string{unknown}}, map[string]any{"assetIds": []string{shirt}}, "ASSET_NOT_FOUND")
			c.refused(t, "share_frames", map[string]any{"assetIds": []string{}}, "BAD_ASSET_IDS")
			c.refused(t, "share_frames", map[string]any{"assetIds": shirt}, "BAD_ARGUMENTS")
		})

		// 402: 2 tokens are held by a queued upscale, the rest drained to 3
		// spendable; four looks at 4k (local proofs, 1 token each) need 4,
		// one frame short. Nothing more is held, no look made.
		t.Run("develop_lookbook", func(t *testing.T) {
			trousers := upload(t, a, owner.Session(), productJPEG(t, 100, 140), "kind", "clothes").ID
			scarf := upload(t, a, owner.Session(), productJPEG(t, 110, 140), "kind", "clothes").ID
			coat := upload(t, a, owner.Session(), productJPEG(t, 120, 140), "kind", "clothes").ID
			c.ok(t, "start_develop", map[string]any{"tool": "upscale", "inputs": map[string]any{"image": shirt}})
			garments := []string{shirt, trousers, scarf, coat}
			book := map[string]any{"modelAssetId": model, "garmentAssetIds": garments, "quality": "4k"}
			viewer.refused(t, "develop_lookbook", book, "FORBIDDEN")
			drain(t, a, owner.HouseID, 3)
			held := houseBalance(t, a, owner.HouseID).Held
			out, _ := c.call(t, "develop_lookbook", book)
			if msg, _ := out["error"].(string); !strings.HasPrefix(msg, "INSUFFICIENT_TOKENS: ") || num(out["need"]) != 4 || num(out["spendable"]) != 3 || num(out["held"]) != held {
				t.Errorf("develop_lookbook short by one frame: %v; want INSUFFICIENT_TOKENS with need 4, spendable 3, held %d", out, held)
			}
			if bal := c.ok(t, "check_balance", nil); num(bal["held"]) != held {
				t.Errorf("a refused lookbook held: %v", bal)
			}
			if n := len(a.Do(t, "GET", "/api/toolkit/lookbook/looks", owner.Session(), nil).Map(t)["looks"].([]any)); n != 1 {
				t.Errorf("%d looks after a refused lookbook; want the one draft", n)
			}
			c.refused(t, "develop_lookbook", map[string]any{"modelAssetId": model, "garmentAssetIds": []string{shirt, foreign}}, "ASSET_NOT_FOUND")
			c.refused(t, "develop_lookbook", map[string]any{"modelAssetId": foreign, "garmentAssetIds": []string{shirt}}, "ASSET_NOT_FOUND")
			c.refused(t, "develop_lookbook", map[string]any{"modelAssetId": model, "garmentAssetIds": []string{shirt, trousers}, "looks": 3}, "BAD_LOOK_COUNT")
			c.refused(t, "develop_lookbook", map[string]any{"modelAssetId": model, "garmentAssetIds": []string{shirt, shirt}}, "BAD_ITEM")
			c.refused(t, "develop_lookbook", map[string]any{"modelAssetId": model, "garmentAssetIds": thirteen()}, "TOO_MANY_GARMENTS")
			c.refused(t, "develop_lookbook", map[string]any{"modelAssetId": model, "garmentAssetIds": []string{shirt}, "quality": "8k"}, "BAD_QUALITY")
			c.refused(t, "develop_lookbook", map[string]any{"modelAssetId": model, "garmentAssetIds": []string{shirt}, "looks": "two"}, "BAD_ARGUMENTS")
			c.refused(t, "develop_lookbook", map[string]any{"garmentAssetIds": []string{shirt}}, "BAD_ARGUMENTS")
			// A key used for another lookbook is refused, holding nothing.
			c.ok(t, "develop_lookbook", map[string]any{"modelAssetId": model, "garmentAssetIds": []string{shirt}, "idempotencyKey": "k"})
			c.refused(t, "develop_lookbook", map[string]any{"modelAssetId": model, "garmentAssetIds": []string{trousers}, "idempotencyKey": "k"}, "IDEMPOTENCY_KEY_REUSED")
		})
	})
}

// thirteen is thirteen distinct ids: one garment too many for a lookbook.
func thirteen() []string {
	out := make([]string, 13)
	for i := range out {
		out[i] = uuid.NewString()
	}
	return out
}
