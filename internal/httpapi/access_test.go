package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"studio/internal/apptest"
)

// accessWalk: what a user may open, and a tool's curated items (whose path
// names a built-in tool every house shares).
var accessWalk = walkArea{
	samples: map[string]sampleFunc{
		"GET /api/toolkit/my-access":          static("/api/toolkit/my-access", nil),
		"GET /api/toolkit/tools/{slug}/items": static("/api/toolkit/tools/camera-lens/items", nil),
	},
	global: []string{"GET /api/toolkit/tools/{slug}/items"},
}

type wireAccess struct {
	Toolkits []struct {
		ID, Slug, Name string
		SortOrder      int
		Accessible     bool
		Tools          []string
	}
	Tools []struct {
		ID, Slug, Name, Toolkit string
		SortOrder               int
		Accessible              bool
		Settings                []struct{ Name string }
	}
	TrialExpired, TrialActive bool
	TrialDaysLeft             int
}

// accessOf reads my-access as c and answers which toolkits ("kit:<slug>")
// and tools are open.
func accessOf(t *testing.T, a *apptest.App, c apptest.Cred) (wireAccess, map[string]bool) {
	t.Helper()
	res := a.Do(t, "GET", "/api/toolkit/my-access", c, nil)
	if res.Status != http.StatusOK {
		t.Fatalf("my-access: %d %s", res.Status, res.Body)
	}
	var out wireAccess
	res.JSON(t, &out)
	open := map[string]bool{}
	for _, k := range out.Toolkits {
		open["kit:"+k.Slug] = k.Accessible
	}
	for _, tl := range out.Tools {
		open[tl.Slug] = tl.Accessible
	}
	return out, open
}

// setPlan rewrites a house's plan: its status, and the period's end and the
// cancelled plan's end as offsets from now (0: NULL).
func setPlan(t *testing.T, a *apptest.App, house, status string, renews, ends time.Duration) {
	t.Helper()
	at := func(d time.Duration) string {
		if d == 0 {
			return "NULL"
		}
		return fmt.Sprint(time.Now().Add(d).UnixMilli())
	}
	q := fmt.Sprintf("UPDATE plans SET status = '%s', renews_at = %s, ends_at = %s WHERE organization_id = '%s'", status, at(renews), at(ends), house)
	if _, err := a.DB.Pool().ExecContext(context.Background(), q); err != nil {
		t.Fatal(err)
	}
}

func openOnes(open map[string]bool) []string {
	var out []string
	for name, ok := range open {
		if ok {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

func TestAccess(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner, other := a.SignUp(t, "maison"), a.SignUp(t, "atelier")
		op := a.SignUpAs(t, &apptest.User{Name: "admin", Email: "admin@studio.test", Password: "correct horse battery"})
		key := a.Key(t, owner, "viewer")

		t.Run("a new house's trial opens everything, in the spec's field names", func(t *testing.T) {
			got, open := accessOf(t, a, key)
			if !got.TrialActive || got.TrialExpired || got.TrialDaysLeft != 14 || len(got.Toolkits) != 5 || len(got.Tools) != 13 {
				t.Fatalf("trial: %+v", got)
			}
			if closed := len(open) - len(openOnes(open)); closed != 0 {
				t.Errorf("%d closed during the trial: %v", closed, open)
			}
			var raw struct{ Tools []map[string]any }
			a.Do(t, "GET", "/api/toolkit/my-access", key, nil).JSON(t, &raw)
			for _, f := range []string{"id", "slug", "name", "sortOrder", "accessible", "settings"} {
				if _, ok := raw.Tools[0][f]; !ok {
					t.Errorf("a tool has no %s: %v", f, raw.Tools[0])
				}
			}
			for _, tl := range got.Tools {
				if tl.Slug == "color-change" && (len(tl.Settings) == 0 || tl.Settings[0].Name != "color") {
					t.Errorf("color-change settings %+v; want its options, color first", tl.Settings)
				}
			}
		})

		t.Run("the plan decides", func(t *testing.T) {
			day := 24 * time.Hour
			for _, c := range []struct {
				status        string
				renews, ends  time.Duration
				open          bool
				active, ended bool
				daysLeft      int
			}{
				{"trialing", 36 * time.Hour, 0, true, true, false, 2},
				{"trialing", -time.Hour, 0, false, false, true, 0},
				{"active", 30 * day, 0, true, false, false, 0},
				{"past_due", -day, 0, true, false, false, 0},
				{"canceled", 5 * day, 5 * day, true, false, false, 0},
				{"canceled", -day, -day, false, false, false, 0},
			} {
				setPlan(t, a, other.HouseID, c.status, c.renews, c.ends)
				got, open := accessOf(t, a, other.Session())
				if got.TrialActive != c.active || got.TrialExpired != c.ended || got.TrialDaysLeft != c.daysLeft ||
					open["kit:studio"] != c.open || open["packshot"] != c.open {
					t.Errorf("%s renews %v ends %v: %+v; want open %v, trialActive %v, trialExpired %v, %d days left",
						c.status, c.renews, c.ends, got, c.open, c.active, c.ended, c.daysLeft)
				}
			}
		})

		t.Run("past the trial, the admin route's grants and revokes open and close", func(t *testing.T) {
			setPlan(t, a, owner.HouseID, "trialing", -time.Hour, 0)
			setPlan(t, a, other.HouseID, "trialing", -time.Hour, 0)
			change := func(action, kind, item string) {
				t.Helper()
				body := map[string]any{"action": action, "userId": owner.ID, kind: item}
				if res := a.Do(t, "POST", "/api/toolkit/admin/access", op.Session(), body); res.Status != 200 {
					t.Fatalf("admin access %v: %d %s", body, res.Status, res.Body)
				}
			}
			studio := []string{"camera-lens", "cleanup", "color-change", "fit-adjust", "harmonize", "iron", "kit:studio",
				"packshot", "reframe", "remove-background", "tryon", "upscale"}
			for _, c := range []struct {
				action, kind, item string
				open               []string
			}{
				{"", "", "", nil},
				{"grant_toolkit", "toolkitId", "studio", studio},
				{"grant_tool", "toolId", "generate-character", append([]string{"generate-character"}, studio...)},
				{"revoke_toolkit", "toolkitId", "studio", []string{"generate-character"}},
				{"grant_toolkit", "toolkitId", "casting", []string{"generate-character", "kit:casting"}},
				{"revoke_tool", "toolId", "generate-character", []string{"generate-character", "kit:casting"}},
				{"revoke_toolkit", "toolkitId", "casting", nil},
			} {
				if c.action != "" {
					change(c.action, c.kind, c.item)
				}
				want := slices.Sorted(slices.Values(c.open))
				// The grants follow the person: the session and the key
				// they minted see them; another house's user does not.
				for _, cred := range []apptest.Cred{owner.Session(), key} {
					got, open := accessOf(t, a, cred)
					if ones := openOnes(open); !slices.Equal(ones, want) || !got.TrialExpired {
						t.Errorf("after %s %s: open %v; want %v", c.action, c.item, ones, want)
					}
				}
				if _, open := accessOf(t, a, other.Session()); len(openOnes(open)) != 0 {
					t.Errorf("after %s %s another user opens %v", c.action, c.item, openOnes(open))
				}
			}
		})

		t.Run("curated items", func(t *testing.T) {
			res := a.Do(t, "GET", "/api/toolkit/tools/camera-lens/items", key, nil)
			var items struct{ Items []map[string]any }
			res.JSON(t, &items)
			if res.Status != 200 || len(items.Items) != 5 {
				t.Fatalf("items: %d %s", res.Status, res.Body)
			}
			for _, f := range []string{"id", "tool_id", "category", "title_he", "label_he", "content_en", "image_url", "notes_he", "sort_order", "created_at"} {
				if _, ok := items.Items[0][f]; !ok {
					t.Errorf("an item has no %s: %v", f, items.Items[0])
				}
			}
			var lenses []any
			for _, it := range items.Items {
				lenses = append(lenses, it["content_en"])
			}
			if fmt.Sprint(lenses) != "[24mm 35mm 50mm 85mm f/1.4 135mm f/2]" || items.Items[0]["tool_id"] != "camera-lens" {
				t.Errorf("items out of order: %s", res.Body)
			}
			var none struct{ Items []map[string]any }
			res = a.Do(t, "GET", "/api/toolkit/tools/upscale/items", key, nil)
			if res.JSON(t, &none); res.Status != 200 || none.Items == nil || len(none.Items) != 0 {
				t.Errorf("a tool without items: %d %s", res.Status, res.Body)
			}
			for _, slug := range []string{"no-such-tool", "lookbook", "UPSCALE"} {
				res := a.Do(t, "GET", "/api/toolkit/tools/"+slug+"/items", key, nil)
				want(t, res, 400, "UNKNOWN_TOOL")
				var legal struct{ Legal []string }
				if res.JSON(t, &legal); !slices.Contains(legal.Legal, "camera-lens") {
					t.Errorf("%s: %s; want the legal slugs", slug, res.Body)
				}
			}
		})
	})
}
