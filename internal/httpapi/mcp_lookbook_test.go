package httpapi_test

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"reflect"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"studio/internal/apptest"
)

// TestMCPLookbook is the lookbook story as an agent runs it, over MCP
// alone with the official Go SDK client, against the real service and its
// workers: upload two garments and a model, develop_lookbook with two
// looks (the whole cost held at once; the same key again holds nothing
// more), watch the base frames to done with get_develop (each linked as a
// resource_link), look at one with get_asset's preview, lock a look on its
// frame, two variations, read the judge's verdict, share the frames, and
// open the reviewer's manifest over HTTP as the reviewer would.
func TestMCPLookbook(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		ctx, stop := context.WithCancel(context.Background())
		workers := make(chan error, 1)
		go func() { workers <- a.RunWorkers(ctx) }()
		t.Cleanup(func() {
			stop()
			if err := <-workers; err != nil && !errors.Is(err, context.Canceled) {
				t.Errorf("workers: %v", err)
			}
		})
		owner := a.SignUp(t, "mcp-lookbook")
		c := connectMCP(t, a, a.Key(t, owner, "member"))

		up := func(kind, name string, data []byte) string {
			t.Helper()
			out := c.ok(t, "upload_asset", map[string]any{"kind": kind, "name": name, "data": base64.StdEncoding.EncodeToString(data)})
			asset := out["asset"].(map[string]any)
			if asset["kind"] != kind || asset["name"] != name {
				t.Fatalf("upload_asset %s: %v", name, asset)
			}
			return asset["id"].(string)
		}
		shirt := up("clothes", "Silk shirt", productJPEG(t, 200, 240))
		trousers := up("clothes", "Linen trousers", productJPEG(t, 180, 260))
		model := up("model", "Ines", modelJPEG(t))

		book := map[string]any{"modelAssetId": model, "garmentAssetIds": []string{shirt, trousers}, "looks": 2,
			"brief": "Noir evenings on the beach", "quality": "1k", "idempotencyKey": "book-1"}
		first := c.ok(t, "develop_lookbook", book)
		looks := first["looks"].([]any)
		if len(looks) != 2 || num(first["tokensHeld"]) != 2 || first["aesthetic"] != "noir" ||
			first["background"].(map[string]any)["value"] != "beach" || first["quality"] != "1k" {
			t.Fatalf("develop_lookbook %v; want two looks holding 2 tokens (local proofs), noir on the beach", first)
		}
		if again := c.ok(t, "develop_lookbook", book); !reflect.DeepEqual(again, first) {
			t.Errorf("the same key again: %v; want the first answer %v", again, first)
		}
		// The workers run beside the test, and a frame the test binary has
		// rendered before is answered at once (apptest's render memo): the
		// two tokens may be held, one held and one spent, or both spent;
		// never taken twice.
		if bal := c.ok(t, "check_balance", nil); num(bal["held"]) > 2 || num(bal["balance"]) != 58 {
			t.Errorf("balance %v; want 2 held once (or settled), 58 spendable", bal)
		}

		// Watch every base frame to done; each links its frame.
		frames := map[string]string{} // look id -> its base frame
		for _, l := range looks {
			l := l.(map[string]any)
			d := watch(t, c, l["jobId"].(string))
			frames[l["lookId"].(string)] = d["resultAssetId"].(string)
			if len(c.content) != 1 {
				t.Fatalf("get_develop of a done frame: content %v; want one resource_link", c.content)
			}
			link, ok := c.content[0].(*sdk.ResourceLink)
			if !ok || link.URI != d["resultUrl"] {
				t.Errorf("content %#v; want a resource_link to %v", c.content[0], d["resultUrl"])
			}
		}
		lookID := looks[0].(map[string]any)["lookId"].(string)
		base := frames[lookID]

		seen := c.ok(t, "get_asset", map[string]any{"assetId": base, "preview": true})
		if seen["asset"].(map[string]any)["id"] != base || len(c.content) != 1 {
			t.Fatalf("get_asset with preview: %v, content %v", seen, c.content)
		}
		if img, ok := c.content[0].(*sdk.ImageContent); !ok || len(img.Data) == 0 || img.MIMEType == "" {
			t.Errorf("preview %#v; want an image content block", c.content[0])
		}

		detail := c.ok(t, "get_look", map[string]any{"lookId": lookID})
		if ld := detail["lockDevelop"].(map[string]any); ld["status"] != "done" || ld["resultAssetId"] != base {
			t.Errorf("get_look %v; want its base frame done", detail)
		}
		locked := c.ok(t, "lock_look", map[string]any{"lookId": lookID, "assetId": base})["look"].(map[string]any)
		if locked["status"] != "locked" || locked["lookBaseAssetId"] != base {
			t.Fatalf("lock_look %v", locked)
		}
		vars := c.ok(t, "develop_variations", map[string]any{"lookId": lookID, "keys": []string{"front", "back"}, "idempotencyKey": "vars-1"})
		var shared []string
		shared = append(shared, base)
		for _, v := range vars["jobs"].([]any) {
			shared = append(shared, watch(t, c, v.(map[string]any)["jobId"].(string))["resultAssetId"].(string))
		}
		if len(shared) != 3 {
			t.Fatalf("variations %v; want two", vars)
		}

		// The judge scores every frame; its verdict is read by the frame.
		var verdict map[string]any
		for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(100 * time.Millisecond) {
			out, isError := c.call(t, "get_verdict", map[string]any{"assetId": base})
			if !isError {
				verdict = out
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("no verdict after 90s: %v", out)
			}
		}
		if verdict["jobId"] != looks[0].(map[string]any)["jobId"] || verdict["rubricVersion"] == nil {
			t.Errorf("get_verdict %v; want the base frame's verdict", verdict)
		}

		link := c.ok(t, "share_frames", map[string]any{"assetIds": shared, "recipientLabel": "Buyer"})
		if num(link["frames"]) != 3 || link["token"] == "" {
			t.Fatalf("share_frames %v; want a link to 3 frames", link)
		}
		res := a.Do(t, http.MethodGet, "/api/share/"+link["token"].(string), apptest.Cred{}, nil)
		var manifest struct {
			Frames []struct{ I int }
		}
		res.JSON(t, &manifest)
		if res.Status != http.StatusOK || len(manifest.Frames) != 3 {
			t.Errorf("the reviewer's manifest: %d %s; want 3 frames", res.Status, res.Body)
		}
		// Four lookbook frames, local proofs at 1 token, settled; nothing left held.
		if bal := c.ok(t, "check_balance", nil); num(bal["held"]) != 0 || num(bal["balance"]) != 60-4*1 {
			t.Errorf("balance %v; want 56 spendable, nothing held", bal)
		}
	})
}

// watch polls get_develop until the develop is done and returns its
// answer (the client keeps its content blocks).
func watch(t *testing.T, c *mcpClient, jobID string) map[string]any {
	t.Helper()
	for deadline := time.Now().Add(120 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		out := c.ok(t, "get_develop", map[string]any{"jobId": jobID})
		switch out["status"] {
		case "done":
			return out
		case "failed", "cancelled":
			t.Fatalf("develop %s: %v", jobID, out)
		}
		if time.Now().After(deadline) {
			t.Fatalf("develop %s still %v after 120s", jobID, out["status"])
		}
	}
}
