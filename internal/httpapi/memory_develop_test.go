package httpapi_test

import (
	"context"
	"strings"
	"testing"

	"studio/internal/apptest"
	"studio/internal/auth"
	"studio/internal/memory"
)

// TestMemoryReachesDevelops: the memories in force ride a develop's
// recorded prompt only while the house lets them (issue 15), between the
// standing notes and the frame's own words; a person's own memory rides
// only their own develops, and another house's memory never.
func TestMemoryReachesDevelops(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner := a.SignUp(t, "maison")
		other := a.SignUp(t, "atelier")
		member := seated(t, a, owner.HouseID, auth.Member)
		memberC := inHouse(t, a, member, owner.HouseID)
		ownerC := owner.Session()

		writeMemory(t, a, ownerC, houseMemory("We never shoot on grey seamless."), 201)
		writeMemory(t, a, ownerC, map[string]any{"statement": "I like a low horizon.", "scope": "user", "memoryClass": "preference"}, 201)
		writeMemory(t, a, memberC, map[string]any{"statement": "Keep the cuffs visible.", "scope": "user", "memoryClass": "lesson"}, 201)
		retired := writeMemory(t, a, ownerC, houseMemory("Always shoot at noon."), 201)
		if res := a.Do(t, "DELETE", "/api/account/memory/"+retired.ID, ownerC, nil); res.Status != 200 {
			t.Fatalf("retire: %d %s", res.Status, res.Body)
		}
		writeMemory(t, a, other.Session(), houseMemory("The atelier shoots on grey seamless."), 201)
		if res := a.Do(t, "POST", "/api/toolkit/standing-notes", ownerC, map[string]any{"text": "Never crop the hem.", "scopeTools": []string{"upscale"}}); res.Status != 201 {
			t.Fatalf("standing note: %d %s", res.Status, res.Body)
		}

		prompt := func(house, id string) string {
			t.Helper()
			d, ok, err := a.DB.JobDirection(context.Background(), house, id)
			if err != nil || !ok {
				t.Fatalf("direction of %s: %v %v", id, ok, err)
			}
			return d.Prompt
		}
		settings := func(c apptest.Cred) memory.Settings {
			t.Helper()
			var s memory.Settings
			a.Do(t, "GET", "/api/account/memory/settings", c, nil).JSON(t, &s)
			return s
		}

		// Off by default: nothing of the memory rides, and nothing reads projected.
		if s := settings(memberC); s.DevelopsEnabled || s.UpdatedAt != nil {
			t.Errorf("default settings %+v; want off, never set", s)
		}
		id := submitWith(t, a, ownerC, "upscale", garmentPNG(t, 64), "prompt", "On a linen drape.")
		developAll(t, a)
		if p := prompt(owner.HouseID, id); strings.Contains(p, "remembers") {
			t.Errorf("memory rode while off:\n%s", p)
		}

		// Only an owner or an admin turns it on; a member and a viewer are refused.
		viewer := seated(t, a, owner.HouseID, auth.Viewer)
		for _, c := range []apptest.Cred{memberC, inHouse(t, a, viewer, owner.HouseID)} {
			if res := a.Do(t, "PATCH", "/api/account/memory/settings", c, map[string]any{"developsEnabled": true}); res.Status != 403 || res.Code != "FORBIDDEN" {
				t.Errorf("a seat below admin turns memory on: %d %s", res.Status, res.Body)
			}
		}
		if res := a.Do(t, "PATCH", "/api/account/memory/settings", ownerC, map[string]any{"enabled": true}); res.Status != 400 || res.Code != "BAD_BODY" {
			t.Errorf("without developsEnabled: %d %s", res.Status, res.Body)
		}
		var on memory.Settings
		a.Do(t, "PATCH", "/api/account/memory/settings", ownerC, map[string]any{"developsEnabled": true}).JSON(t, &on)
		if !on.DevelopsEnabled || on.UpdatedAt == nil || !settings(memberC).DevelopsEnabled {
			t.Errorf("after turning it on: %+v", on)
		}

		// The owner's develop carries the house's memory and the owner's own, after the note, before the words.
		id = submitWith(t, a, ownerC, "upscale", garmentPNG(t, 72), "prompt", "On a linen drape.")
		mid := submitWith(t, a, memberC, "upscale", garmentPNG(t, 80))
		developAll(t, a)
		p := prompt(owner.HouseID, id)
		note, house, own := strings.Index(p, "Never crop the hem."), strings.Index(p, "The house remembers (preference): We never shoot on grey seamless."),
			strings.Index(p, "The director remembers (preference): I like a low horizon.")
		if note < 0 || house < note || own < 0 || strings.Index(p, "On a linen drape.") < max(house, own) {
			t.Errorf("the owner's develop:\n%s", p)
		}
		for _, absent := range []string{"Keep the cuffs visible.", "Always shoot at noon.", "The atelier"} {
			if strings.Contains(p, absent) {
				t.Errorf("the owner's develop carries %q:\n%s", absent, p)
			}
		}
		// The member's develop carries the house's memory and the member's own, not the owner's.
		if p := prompt(owner.HouseID, mid); !strings.Contains(p, "We never shoot on grey seamless.") ||
			!strings.Contains(p, "The director remembers (lesson): Keep the cuffs visible.") || strings.Contains(p, "low horizon") {
			t.Errorf("the member's develop:\n%s", p)
		}
		// The list says which memories are projected: the active ones in scope.
		var list struct{ Memories []memory.Memory }
		a.Do(t, "GET", "/api/account/memory", ownerC, nil).JSON(t, &list)
		for _, m := range list.Memories {
			if m.Projected != (m.Status == "active") {
				t.Errorf("memory %q (%s) projected %v", m.Statement, m.Status, m.Projected)
			}
		}

		// The other house never turned it on: its develops carry no memory.
		oid := submitWith(t, a, other.Session(), "upscale", garmentPNG(t, 64))
		developAll(t, a)
		if p := prompt(other.HouseID, oid); strings.Contains(p, "remembers") {
			t.Errorf("the other house's develop:\n%s", p)
		}

		// Off again: the next develop carries none.
		a.Do(t, "PATCH", "/api/account/memory/settings", ownerC, map[string]any{"developsEnabled": false})
		id = submitWith(t, a, ownerC, "upscale", garmentPNG(t, 88))
		developAll(t, a)
		if p := prompt(owner.HouseID, id); strings.Contains(p, "remembers") {
			t.Errorf("memory rode after it was turned off:\n%s", p)
		}
	})
}
