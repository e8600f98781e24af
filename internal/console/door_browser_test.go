package console_test

import (
	"net/http"
	"testing"

	"studio/internal/apptest"
)

// TestDoorInBrowser is the door as a person walks through it, in headless
// Chromium: /docs sends them to sign in and back; they create an account
// from there and are sent back to the reference; sign out from the menu; a wrong
// password is refused in the API's words; the right one signs them in.
// Then a house offers a seat to a new address: the letter's link sends the
// visitor to sign in, they create the account with the address filled in,
// come back to the offer, accept it and land in that house. Every page
// passes axe-core and raises no script error or CSP violation.
func TestDoorInBrowser(t *testing.T) {
	a := apptest.New(t, apptest.SQLite(t))
	p := openPage(t, a, "door", 1280, 800, false)

	p.goTo("/docs")
	p.waitPath("/sign-in?next=%2Fdocs")
	p.check("sign-in")
	p.shot("sign-in")
	p.click(`a[href^="/sign-up"]`)
	p.waitPath("/sign-up?next=%2Fdocs")
	p.check("sign-up")
	p.typeInto("#name", "Iris Vale")
	p.typeInto("#email", "iris@studio.test")
	p.typeInto("#password", "short")
	p.click(`button[type=submit]`)
	p.until(`document.querySelector("#password").validity.tooShort && location.pathname === "/sign-up"`, 10e9, "the form to hold a short password back")
	p.typeInto("#password", "a long enough password")
	p.click(`button[type=submit]`)
	// Back at the reference: its page is the API's (TestDoorRules reads
	// it); rendering its two hundred routes is no part of the door.
	p.until(`location.pathname === "/docs"`, 20e9, "the way back to the reference")

	p.goTo("/")
	p.waitText("h1", "Iris Vale's house")
	p.check("home")
	p.shot("home")
	p.click(".menu summary")
	p.click(`button[data-api="POST /api/auth/sign-out"]`)
	p.waitPath("/sign-in")

	p.typeInto("#email", "iris@studio.test")
	p.typeInto("#password", "not the password")
	p.click(`button[type=submit]`)
	p.waitText("[data-msg]", "")
	p.until(`document.querySelector("[data-msg]").getAttribute("role") === "alert"`, 10e9, "the refusal")
	p.shot("refused")
	p.typeInto("#password", "a long enough password")
	p.click(`button[type=submit]`)
	p.waitPath("/")
	p.waitText("h1", "Iris Vale's house")

	// A seat offered to a new address, accepted from the letter's link.
	owner := a.SignUpAs(t, &apptest.User{Name: "Maison Orée", Email: "oree@studio.test", Password: "correct horse battery"})
	res := a.Do(t, "POST", "/api/toolkit/org/seats/invite", owner.Session(), map[string]string{"email": "noa@studio.test", "role": "member"})
	if res.Status != http.StatusOK {
		t.Fatalf("invite: %d %s", res.Status, res.Body)
	}
	p.click(".menu summary")
	p.click(`button[data-api="POST /api/auth/sign-out"]`)
	p.waitPath("/sign-in")
	link := seatLink(t, a, "noa@studio.test")
	p.goTo(link)
	p.waitPath("/sign-in?next=")
	p.click(`a[href^="/sign-up"]`)
	p.waitPath("/sign-up")
	p.typeInto("#name", "Noa")
	p.typeInto("#email", "noa@studio.test")
	p.typeInto("#password", "another long password")
	p.click(`button[type=submit]`)
	p.waitPath("/join?invitation=")
	p.check("join")
	p.shot("join")
	p.click(`button[data-api="POST /api/toolkit/org/seats/accept"]`)
	p.waitPath("/?joined=")
	p.waitText("h1", "Maison Orée's house")
	p.check("joined")
	p.shot("joined")

	// The people page as Noa, a member: every seat, none to change but
	// her own, which she may leave.
	tom := seat(t, a, owner, "viewer")
	later := "later@studio.test"
	if res := a.Do(t, "POST", "/api/toolkit/org/seats/invite", owner.Session(), map[string]string{"email": later, "role": "viewer"}); res.Status != http.StatusOK {
		t.Fatalf("invite: %d %s", res.Status, res.Body)
	}
	p.goTo("/house/people")
	p.until(`document.querySelectorAll("#seats > li").length === 3`, 10e9, "the house's three seats")
	p.until(`!document.querySelector("#seats form, #seats button") && !document.getElementById("offers")`+
		` && !!document.querySelector('button[data-api^="DELETE /api/toolkit/org/seats/"][data-then="go:/"]')`, 10e9,
		"a member's page: no seat to change, no open offers, her own seat to leave")
	p.check("people-member")

	// The owner manages the seats: Noa made an admin, Tom removed, an open
	// offer's link at hand, then the house handed to Noa.
	signIn(t, p, owner)
	p.goTo("/house/people")
	p.waitText("#offers", later)
	noa := `#seats > li[data-seat="` + seatID(t, a, owner, "noa@studio.test") + `"]`
	p.until(`!document.querySelector('#seats > li[data-seat="`+owner.ID+`"] button')`, 10e9, "no action on the founder's own seat")
	p.check("people-owner")
	p.shot("people-owner")
	p.b.Eval(t, `document.querySelector(`+jsString(noa+` select`)+`).value = "admin"`, nil)
	p.click(noa + ` form button`)
	p.waitText(noa+` [data-role]`, "admin")
	p.click(`#seats > li[data-seat="` + tom.ID + `"] button.danger`)
	p.waitText(`#seats > li[data-seat="`+tom.ID+`"] button.danger`, "Press again")
	p.click(`#seats > li[data-seat="` + tom.ID + `"] button.danger`)
	p.until(`document.querySelectorAll("#seats > li").length === 2`, 10e9, "Tom's seat gone")
	p.click(noa + ` button[data-api="POST /api/toolkit/org/transfer"]`)
	p.waitText(noa+` button[data-api="POST /api/toolkit/org/transfer"]`, "Press again")
	p.click(noa + ` button[data-api="POST /api/toolkit/org/transfer"]`)
	p.waitText(noa+` [data-role]`, "owner")
	p.waitText(`#seats > li[data-seat="`+owner.ID+`"] [data-role]`, "admin")
	p.until(`!document.querySelector(`+jsString(noa+` button`)+`)`, 10e9, "an admin's page: nothing to do to the owner's seat")
	p.check("people-handed-over")
	p.shot("people-handed-over")
}

// seatID is the user id of the seat an address holds in u's house, as the
// seats list answers it.
func seatID(t *testing.T, a *apptest.App, u *apptest.User, email string) string {
	t.Helper()
	var l struct {
		Seats []struct{ UserID, Email string }
	}
	a.Do(t, "GET", "/api/toolkit/org/seats", u.Session(), nil).JSON(t, &l)
	for _, s := range l.Seats {
		if s.Email == email {
			return s.UserID
		}
	}
	t.Fatalf("no seat of %s in %+v", email, l.Seats)
	return ""
}
