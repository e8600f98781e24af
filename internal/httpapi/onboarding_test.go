package httpapi_test

import (
	"context"
	"net/http"
	"testing"

	"studio/internal/apptest"
	"studio/internal/auth"
	"studio/internal/onboarding"
)

var onboardingWalk = walkArea{
	samples: map[string]sampleFunc{
		"GET /api/toolkit/onboarding":  static("/api/toolkit/onboarding", nil),
		"POST /api/toolkit/onboarding": static("/api/toolkit/onboarding", map[string]any{"step": "first-share"}),
	},
}

func checklist(t *testing.T, a *apptest.App, c apptest.Cred) (onboarding.Checklist, map[string]onboarding.Step) {
	t.Helper()
	res := a.Do(t, "GET", "/api/toolkit/onboarding", c, nil)
	if res.Status != http.StatusOK {
		t.Fatalf("checklist: %d %s", res.Status, res.Body)
	}
	var cl onboarding.Checklist
	res.JSON(t, &cl)
	by := map[string]onboarding.Step{}
	for _, s := range cl.Steps {
		by[s.ID] = s
	}
	return cl, by
}

// TestOnboarding: each step turns done when the house takes it; a mark is
// the user's own, idempotent, and any seat may mark.
func TestOnboarding(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner, mate := a.SignUp(t, "owner"), a.SignUp(t, "mate")
		c := owner.Session()
		cl, _ := checklist(t, a, c)
		if cl.Total != 6 || cl.Completed != 0 || len(cl.Steps) != 6 || cl.Steps[0].ID != "first-upload" {
			t.Fatalf("a new house's checklist %+v", cl)
		}

		res := a.Do(t, "POST", "/api/toolkit/onboarding", c, map[string]any{"step": "first-share"})
		var marked onboarding.Checklist
		res.JSON(t, &marked)
		again := a.Do(t, "POST", "/api/toolkit/onboarding", c, map[string]any{"step": "first-share"})
		_, by := checklist(t, a, c)
		if res.Status != 200 || again.Status != 200 || marked.Completed != 1 || !by["first-share"].Done || by["first-share"].Derived ||
			by["first-share"].MarkedAt == nil || string(res.Body) != string(again.Body) {
			t.Errorf("marking twice: %s then %s", res.Body, again.Body)
		}

		key := a.Key(t, owner, "viewer")
		assetID(t, a, owner)
		submitJob(t, a, a.Key(t, owner, "member"), "upscale")
		lookID(t, a, c)
		if err := a.DB.AddSeat(context.Background(), owner.HouseID, mate.ID, auth.Viewer); err != nil {
			t.Fatal(err)
		}
		cl, by = checklist(t, a, key)
		for _, id := range []string{"first-upload", "first-develop", "first-look", "key-minted", "teammate-invited"} {
			if !by[id].Derived || !by[id].Done || by[id].MarkedAt != nil {
				t.Errorf("step %s: %+v; want done by the house", id, by[id])
			}
		}
		if !by["first-share"].Done || by["first-share"].Derived || cl.Completed != 6 {
			t.Errorf("the key's user is the owner, whose mark counts: %+v", cl)
		}
		mintShare(t, a, c, map[string]any{"assetIds": []string{assetID(t, a, owner)}}, http.StatusOK)
		if _, by := checklist(t, a, c); !by["first-share"].Derived {
			t.Errorf("a minted share: %+v", by["first-share"])
		}

		view := signIn(t, a, mate)
		a.Do(t, "POST", "/api/auth/organization/set-active", view, map[string]string{"organizationId": owner.HouseID})
		if _, by := checklist(t, a, view); by["first-share"].MarkedAt != nil {
			t.Errorf("another seat sees the owner's mark: %+v", by["first-share"])
		}
		want(t, a.Do(t, "POST", "/api/toolkit/onboarding", view, map[string]any{"step": "first-share"}), 200, "")
		want(t, a.Do(t, "POST", "/api/toolkit/onboarding", c, map[string]any{"step": "first-pony"}), 400, "UNKNOWN_STEP")
		want(t, a.Do(t, "POST", "/api/toolkit/onboarding", c, map[string]any{}), 400, "UNKNOWN_STEP")
	})
}
