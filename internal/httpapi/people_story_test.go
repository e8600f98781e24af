package httpapi_test

import (
	"testing"

	"studio/internal/app"
	"studio/internal/apptest"
	"studio/internal/auth"
)

// TestPeopleStory is issue 14 tried as a new user would, on an
// installation where sign-up is by invitation: the owner invites an admin
// and a viewer by e-mail; both sign up with the invited addresses and
// accept from the letters in the e-mail log; the admin invites a member;
// the viewer cannot spend, mint a key, delete the library's pieces,
// manage seats or edit the brand; the owner hands the house to the admin and is an admin
// from then on; the member removes themselves and their frames stay.
func TestPeopleStory(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e, func(c *app.Config) { c.Signup = "invite" })
		owner := a.SignUpAs(t, &apptest.User{Name: "Odile", Email: "odile@maison.test", Password: "correct horse battery"})
		invite := func(by apptest.Cred, email, role string) {
			t.Helper()
			if res := a.Do(t, "POST", "/api/toolkit/org/seats/invite", by, map[string]string{"email": email, "role": role}); res.Status != 200 {
				t.Fatalf("invite %s as %s: %d %s", email, role, res.Status, res.Body)
			}
		}
		// join signs the invitee up (the offer opens the door) and accepts
		// the offer from the letter; the session lands in the house.
		join := func(name, email string, want auth.Role) (*apptest.User, apptest.Cred) {
			t.Helper()
			u := a.SignUpAs(t, &apptest.User{Name: name, Email: email, Password: "correct horse battery"})
			res := a.Do(t, "POST", "/api/toolkit/org/seats/accept", u.Session(), map[string]string{"invitationId": offerFromLetter(t, a, email)})
			if res.Status != 200 || res.Map(t)["role"] != string(want) || res.Map(t)["organizationId"] != owner.HouseID {
				t.Fatalf("%s accepts: %d %s", name, res.Status, res.Body)
			}
			return u, u.Session()
		}
		invite(owner.Session(), "adele@maison.test", "admin")
		invite(owner.Session(), "victor@maison.test", "viewer")
		admin, adminC := join("Adèle", "adele@maison.test", auth.Admin)
		_, viewerC := join("Victor", "victor@maison.test", auth.Viewer)
		invite(adminC, "marc@maison.test", "member")
		member, memberC := join("Marc", "marc@maison.test", auth.Member)

		// The viewer reads the house and changes nothing.
		upload(t, a, memberC, pngOf(t, 40, 40))
		if res := a.Do(t, "GET", "/api/toolkit/assets", viewerC, nil); res.Status != 200 {
			t.Errorf("the viewer reads the library: %d", res.Status)
		}
		refused := []struct {
			name, method, path string
			body               any
		}{
			{"spend tokens", "POST", "/api/toolkit/jobs/submit", submitForm(t, "upscale", "image", pngOf(t, 32, 32))},
			{"mint a key", "POST", "/api/keys", map[string]string{"name": "mine"}},
			{"delete pieces", "POST", "/api/toolkit/assets/batch/delete", map[string]any{"assetIds": []string{assetID(t, a, owner)}}},
			{"invite a seat", "POST", "/api/toolkit/org/seats/invite", map[string]string{"email": "x@maison.test"}},
			{"edit posture preferences", "PUT", "/api/toolkit/postures/prefs", map[string]any{"favorites": []string{}}},
			{"edit the brand", "PATCH", "/api/toolkit/brand", map[string]any{"injectEnabled": true}},
		}
		for _, r := range refused {
			if res := a.Do(t, r.method, r.path, viewerC, r.body); res.Status != 403 {
				t.Errorf("the viewer may %s: %d %s; want 403", r.name, res.Status, res.Body)
			}
		}

		// The member develops a frame in the house.
		k := a.KeyIn(t, memberC, "member")
		submitJob(t, a, k, "upscale")
		develop(t, a)
		frames := assetCount(t, a, owner.Session())

		// The owner hands the house to the admin and is an admin now.
		if res := a.Do(t, "POST", "/api/toolkit/org/transfer", owner.Session(), map[string]string{"userId": admin.ID}); res.Status != 200 {
			t.Fatalf("transfer: %d %s", res.Status, res.Body)
		}
		if seatOf(t, a, owner.HouseID, owner.ID) != auth.Admin || seatOf(t, a, owner.HouseID, admin.ID) != auth.Owner {
			t.Errorf("after the transfer the founder is %s and the heir %s", seatOf(t, a, owner.HouseID, owner.ID), seatOf(t, a, owner.HouseID, admin.ID))
		}
		if v := accountView(t, a, owner.Session(), ""); v.Billing.CanManage {
			t.Errorf("the former owner still manages the money")
		}
		if v := accountView(t, a, adminC, ""); !v.Billing.CanManage {
			t.Errorf("the new owner does not manage the money")
		}

		// The member leaves; the frames stay with the house.
		res := a.Do(t, "DELETE", "/api/toolkit/org/seats/"+member.ID, memberC, nil)
		if res.Status != 200 || res.Map(t)["workStaysWithHouse"] != true {
			t.Fatalf("the member leaves: %d %s", res.Status, res.Body)
		}
		if got := assetCount(t, a, owner.Session()); got != frames || frames < 2 {
			t.Errorf("the house has %d assets after the member left; want %d", got, frames)
		}
		if seatOf(t, a, owner.HouseID, member.ID) != "" {
			t.Errorf("the member still holds a seat")
		}
	})
}
