package httpapi_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"studio/internal/apptest"
	"studio/internal/auth"
	"studio/internal/seat"
)

// testSeatList reads a house's seats as each kind of caller: everyone sees
// every seat, newest first; only an owner or an admin sees the open
// offers; and each seat's may-flags are what the change routes answer.
func testSeatList(t *testing.T, a *apptest.App) {
	owner := a.SignUp(t, "owner")
	admin := seated(t, a, owner.HouseID, auth.Admin)
	member := seated(t, a, owner.HouseID, auth.Member)
	viewer := seated(t, a, owner.HouseID, auth.Viewer)
	outsider := a.SignUp(t, "outsider")
	offer := func(email string) string {
		res := a.Do(t, "POST", "/api/toolkit/org/seats/invite", owner.Session(), map[string]string{"email": email, "role": "viewer"})
		if res.Status != 200 {
			t.Fatalf("invite: %d %s", res.Status, res.Body)
		}
		return res.Map(t)["id"].(string)
	}
	again := freshEmail("again")
	offer(again) // superseded by the next
	open := offer(again)
	lapsed := offer(freshEmail("lapsed"))
	if _, err := a.DB.RawExec(context.Background(), `UPDATE seat_invitations SET expires_at = 1 WHERE id = ?`, lapsed); err != nil {
		t.Fatal(err)
	}
	list := func(c apptest.Cred) seat.List {
		t.Helper()
		res := a.Do(t, "GET", "/api/toolkit/org/seats", c, nil)
		if res.Status != 200 {
			t.Fatalf("list: %d %s", res.Status, res.Body)
		}
		var l seat.List
		res.JSON(t, &l)
		if l.Invitations == nil {
			t.Errorf("invitations is null; want a list: %s", res.Body)
		}
		return l
	}
	// flags is what a caller may do to each seat: role, remove, transfer.
	type flags [3]bool
	tests := []struct {
		name    string
		cred    apptest.Cred
		you     string
		offers  bool
		mayDoTo map[string]flags
	}{
		{"owner", owner.Session(), owner.ID, true, map[string]flags{
			owner.ID: {false, false, false}, // the last owner, the founder
			admin.ID: {true, true, true}, member.ID: {true, true, true}, viewer.ID: {true, true, true}}},
		{"admin", inHouse(t, a, admin, owner.HouseID), admin.ID, true, map[string]flags{
			owner.ID: {false, false, false}, admin.ID: {false, true, false}, // leaves, never re-seats an admin
			member.ID: {true, true, false}, viewer.ID: {true, true, false}}},
		{"member", inHouse(t, a, member, owner.HouseID), member.ID, false, map[string]flags{
			owner.ID: {}, admin.ID: {}, member.ID: {false, true, false}, viewer.ID: {}}},
		{"viewer", inHouse(t, a, viewer, owner.HouseID), viewer.ID, false, map[string]flags{
			owner.ID: {}, admin.ID: {}, member.ID: {}, viewer.ID: {false, true, false}}},
		// A key acts with at most a member's authority, for its minter.
		{"owner's member key", a.Key(t, owner, "member"), owner.ID, false, map[string]flags{
			owner.ID: {}, admin.ID: {}, member.ID: {}, viewer.ID: {}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := list(tt.cred)
			var ids []string
			for _, s := range l.Seats {
				ids = append(ids, s.UserID)
				want, ok := tt.mayDoTo[s.UserID]
				if !ok {
					t.Errorf("a seat of someone else: %+v", s)
					continue
				}
				if got := (flags{s.MayChangeRole, s.MayRemove, s.MayTransfer}); got != want {
					t.Errorf("%s's seat (%s): may change role, remove, transfer %v; want %v", s.Email, s.Role, got, want)
				}
				if s.You != (s.UserID == tt.you) {
					t.Errorf("%s's seat: you %v", s.Email, s.You)
				}
				if s.Founder != (s.UserID == owner.ID) || s.Name == "" || s.Email == "" || s.JoinedAt.IsZero() {
					t.Errorf("seat %+v", s)
				}
				// What the list says about a role change is what the route
				// answers (the seat's own role again: an accepted change
				// changes nothing).
				role := string(s.Role)
				if role == "owner" {
					role = "admin"
				}
				res := a.Do(t, "POST", "/api/toolkit/org/seats/role", tt.cred, map[string]string{"userId": s.UserID, "role": role})
				if (res.Status == 200) != s.MayChangeRole || (res.Status != 200 && res.Status != 403) {
					t.Errorf("%s's seat: the list says may change role %v; the route answers %d %s", s.Email, s.MayChangeRole, res.Status, res.Body)
				}
			}
			if want := []string{viewer.ID, member.ID, admin.ID, owner.ID}; !slices.Equal(ids, want) {
				t.Errorf("seats %v; want every seat, newest first %v", ids, want)
			}
			if !tt.offers {
				if len(l.Invitations) != 0 {
					t.Errorf("offers shown to a %s: %+v", tt.name, l.Invitations)
				}
				return
			}
			if len(l.Invitations) != 1 {
				t.Fatalf("offers %+v; want only the open one (not the superseded, not the lapsed)", l.Invitations)
			}
			o := l.Invitations[0]
			if o.ID != open || o.Email != again || o.Role != auth.Viewer || o.InvitedBy != owner.Name ||
				!strings.HasSuffix(o.URL, "/join?invitation="+open) || !o.ExpiresAt.After(o.CreatedAt.Time) {
				t.Errorf("offer %+v", o)
			}
		})
	}
	// Another house's list names only its own seat.
	if l := list(outsider.Session()); len(l.Seats) != 1 || l.Seats[0].UserID != outsider.ID || !l.Seats[0].You {
		t.Errorf("the outsider's house: %+v", l.Seats)
	}
	// Removing a seat takes it off the list.
	if res := a.Do(t, "DELETE", "/api/toolkit/org/seats/"+viewer.ID, owner.Session(), nil); res.Status != 200 {
		t.Fatalf("remove: %d %s", res.Status, res.Body)
	}
	if l := list(owner.Session()); len(l.Seats) != 3 || slices.ContainsFunc(l.Seats, func(s seat.Seat) bool { return s.UserID == viewer.ID }) {
		t.Errorf("after removal: %+v", l.Seats)
	}
}
