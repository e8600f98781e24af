package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"

	"studio/internal/apptest"
	"studio/internal/asset"
	"studio/internal/auth"
	"studio/internal/job"
)

// TestKeysPerHouse: a user seated in two houses sends the same idempotency
// keys, with the same bytes, in each house: a submit, a duplicate, an MCP
// start_develop, a develop-lock and variations. Each gives one job and one
// hold per house; a retry replays in its own house only.
func TestKeysPerHouse(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		ctx := context.Background()
		u, other := a.SignUp(t, "two-houses"), a.SignUp(t, "host")
		if err := a.DB.AddSeat(ctx, other.HouseID, u.ID, auth.Member); err != nil {
			t.Fatal(err)
		}
		keyA := a.Key(t, u, "member")
		want(t, a.Do(t, "POST", "/api/auth/organization/set-active", u.Session(), map[string]string{"organizationId": other.HouseID}), 200, "")
		keyB := a.Key(t, u, "member")
		houses := []struct {
			id  string
			key apptest.Cred
		}{{u.HouseID, keyA}, {other.HouseID, keyB}}
		image := pngOf(t, 96, 64)

		type flow struct {
			name string
			send func(k apptest.Cred) []string // the job ids it queued
		}
		jobIDs := func(res apptest.Resp, path ...string) []string {
			t.Helper()
			if res.Status != http.StatusAccepted {
				t.Fatalf("%d %s", res.Status, res.Body)
			}
			var body struct {
				JobID string
				Jobs  []struct{ JobID string }
			}
			res.JSON(t, &body)
			if body.JobID != "" {
				return []string{body.JobID}
			}
			var ids []string
			for _, j := range body.Jobs {
				ids = append(ids, j.JobID)
			}
			return ids
		}
		source := map[string]string{} // house -> the submitted job, for duplicate
		assets := map[string]string{} // house -> an uploaded asset, for MCP
		looks := map[string]string{}  // house -> a look, developed and locked before variations
		houseOf := map[apptest.Cred]string{keyA: u.HouseID, keyB: other.HouseID}
		for _, h := range houses {
			assets[h.id] = upload(t, a, h.key, image).ID
			looks[h.id] = lookID(t, a, h.key)
		}
		flows := []flow{
			{"develop-lock", func(k apptest.Cred) []string {
				return jobIDs(a.Do(t, "POST", looksPath(looks[houseOf[k]], "/develop-lock"), k, map[string]string{"idempotencyKey": "same-lock"}))
			}},
			{"variations", func(k apptest.Cred) []string {
				return jobIDs(a.Do(t, "POST", looksPath(looks[houseOf[k]], "/variations"), k,
					map[string]any{"keys": []string{"front", "back"}, "idempotencyKey": "same-variations"}))
			}},
			{"submit", func(k apptest.Cred) []string {
				ids := jobIDs(a.Do(t, "POST", "/api/toolkit/jobs/submit", k, submitForm(t, "upscale", "image", image, "idempotencyKey", "same-submit")))
				source[houseOf[k]] = ids[0]
				return ids
			}},
			{"duplicate", func(k apptest.Cred) []string {
				return jobIDs(a.Do(t, "POST", "/api/toolkit/jobs/"+source[houseOf[k]]+"/duplicate", k, map[string]string{"idempotencyKey": "same-duplicate"}))
			}},
			{"start_develop", func(k apptest.Cred) []string {
				res := mcpPost(t, a, k, rpcRequest(1, "tools/call", map[string]any{"name": "start_develop", "arguments": map[string]any{
					"tool": "upscale", "inputs": map[string]string{"image": assets[houseOf[k]]}, "quality": "1k", "idempotencyKey": "same-mcp"}}))
				var rpc rpcAnswer
				res.JSON(t, &rpc)
				var out struct {
					StructuredContent struct{ JobID, Error string }
				}
				if err := json.Unmarshal(rpc.Result, &out); err != nil || out.StructuredContent.JobID == "" {
					t.Fatalf("start_develop: %s %v", res.Body, err)
				}
				return []string{out.StructuredContent.JobID}
			}},
		}
		for _, f := range flows {
			if f.name == "variations" {
				settleQueued(t, a) // the lock develops land; each house locks its look on its frame
				for _, h := range houses {
					var detail struct {
						LockDevelop struct{ ResultAssetID string }
					}
					a.Do(t, "GET", looksPath(looks[h.id]), h.key, nil).JSON(t, &detail)
					want(t, a.Do(t, "POST", looksPath(looks[h.id], "/lock"), h.key, map[string]string{"assetId": detail.LockDevelop.ResultAssetID}), 200, "")
				}
			}
			seen := map[string]string{} // job id -> house
			for _, h := range houses {
				first := f.send(h.key)
				if again := f.send(h.key); len(again) != len(first) || again[0] != first[0] {
					t.Errorf("%s: a retry in house %s gave %v; want the first %v", f.name, h.id, again, first)
				}
				for _, id := range first {
					if prev, ok := seen[id]; ok {
						t.Errorf("%s: house %s got house %s's job %s back", f.name, h.id, prev, id)
					}
					seen[id] = h.id
					if _, err := a.DB.Job(ctx, h.id, id); err != nil {
						t.Errorf("%s: job %s is not house %s's: %v", f.name, id, h.id, err)
					}
					if _, err := a.DB.JobHold(ctx, h.id, id); err != nil {
						t.Errorf("%s: job %s holds nothing in house %s: %v", f.name, id, h.id, err)
					}
				}
			}
		}
		for _, h := range houses {
			if err := a.DB.CheckLedger(ctx, h.id); err != nil {
				t.Error(err)
			}
		}
	})
}

// settleQueued lands every queued job through the store, as the worker
// does after a render (claim, then the frame, the posted hold and the event
// in one transaction), without rendering: the tests that use it are about
// what the jobs hold and which house they belong to, and renders under the
// race detector cost a minute.
func settleQueued(t *testing.T, a *apptest.App) {
	t.Helper()
	ctx := context.Background()
	for {
		j, ok, err := a.DB.Claim(ctx, "settle", time.Now().Add(time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return
		}
		id := uuid.Must(uuid.NewV7()).String()
		f := job.Frame{AssetID: id, Name: asset.FrameName(j.Tool, id), BlobKey: asset.BlobKey(j.HouseID, id),
			Mime: asset.MimePNG, Width: 1, Height: 1, Size: 1, SHA256: "00"}
		if _, err := a.DB.Finish(ctx, j, "settle", f); err != nil {
			t.Fatal(err)
		}
	}
}
