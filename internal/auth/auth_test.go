package auth

import "testing"

// TestRules: each role rule, for every role, through a session and a key.
// A refusal is the rule's one error value (the very value, not a copy).
func TestRules(t *testing.T) {
	type rule struct {
		name string
		ask  func(Principal) error
		no   error
	}
	rules := []rule{
		{"spend", Principal.MaySpend, ErrViewerSpend},
		{"edit", Principal.MayEdit, ErrViewerEdit},
		{"manage", func(p Principal) error { return p.Role.MayManage() }, ErrNotAdmin},
		{"pay", Principal.MayPay, ErrNotPayer},
		{"mint keys", Principal.MayMintKeys, ErrNotKeyMaker},
		{"read", Principal.MayRead, ErrNoSeat},
	}
	// What each rule admits, by role, for a session and for a key.
	admits := map[string]map[Role][2]bool{
		"spend":     {Viewer: {false, false}, Member: {true, true}, Admin: {true, true}, Owner: {true, true}},
		"edit":      {Viewer: {false, false}, Member: {true, true}, Admin: {true, true}, Owner: {true, true}},
		"manage":    {Viewer: {false, false}, Member: {false, false}, Admin: {true, true}, Owner: {true, true}},
		"pay":       {Viewer: {false, false}, Member: {false, false}, Admin: {false, false}, Owner: {true, false}},
		"mint keys": {Viewer: {false, false}, Member: {true, false}, Admin: {true, false}, Owner: {true, false}},
		"read":      {Viewer: {true, true}, Member: {true, true}, Admin: {true, true}, Owner: {true, true}},
	}
	for _, r := range rules {
		for _, role := range append([]Role{""}, Roles...) {
			for i, cred := range []Credential{CredSession, CredKey} {
				want := admits[r.name][role][i] // the zero role (no seat) is admitted by nothing
				err := r.ask(Principal{HouseID: "h", Role: role, Cred: cred})
				if (err == nil) != want || (err != nil && err != r.no) {
					t.Errorf("%s by %q (cred %d): %v; want admitted %v", r.name, role, cred, err, want)
				}
			}
		}
	}
}

// TestHouseAndOperator: a principal without a house reads nothing; only an
// allowlisted session operates, whatever its role.
func TestHouseAndOperator(t *testing.T) {
	if err := (Principal{Role: Owner, Cred: CredSession}).MayRead(); err != ErrNoSeat {
		t.Errorf("no house: %v; want ErrNoSeat", err)
	}
	for _, tc := range []struct {
		p    Principal
		want bool
	}{
		{Principal{PlatformAdmin: true, Cred: CredSession}, true},
		{Principal{PlatformAdmin: true, Cred: CredSession, Role: Viewer, HouseID: "h"}, true},
		{Principal{PlatformAdmin: true, Cred: CredKey, Role: Owner, HouseID: "h"}, false},
		{Principal{Cred: CredSession, Role: Owner, HouseID: "h"}, false},
	} {
		if err := tc.p.MayOperate(); (err == nil) != tc.want || (err != nil && err != ErrNotOperator) {
			t.Errorf("MayOperate(%+v) = %v; want admitted %v", tc.p, err, tc.want)
		}
	}
}
