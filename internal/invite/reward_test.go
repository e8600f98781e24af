package invite

import (
	"testing"
	"time"
)

func TestRewardFor(t *testing.T) {
	paid := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	due := paid.Add(14 * 24 * time.Hour)
	host := Arrival{InvitationID: "i-host", CodeOwner: "host", HostHouseID: "h-host"}
	for _, tc := range []struct {
		name     string
		arrivals []Arrival
		want     HostReward
		ok       bool
	}{
		{"no arrival by code", nil, HostReward{}, false},
		{"another user's code", []Arrival{host},
			HostReward{InvitationID: "i-host", HostUserID: "host", HostHouseID: "h-host", Tokens: 100, DueAt: due}, true},
		{"a platform code", []Arrival{{InvitationID: "i1", HostHouseID: "h"}}, HostReward{}, false},
		{"the founder's own code", []Arrival{{InvitationID: "i1", CodeOwner: "founder", HostHouseID: "h-founder"}}, HostReward{}, false},
		{"a host with no personal house", []Arrival{{InvitationID: "i1", CodeOwner: "host"}}, HostReward{}, false},
		{"the first arrival that earns one", []Arrival{{InvitationID: "i0", CodeOwner: "founder", HostHouseID: "h"}, host,
			{InvitationID: "i-late", CodeOwner: "late", HostHouseID: "h-late"}},
			HostReward{InvitationID: "i-host", HostUserID: "host", HostHouseID: "h-host", Tokens: 100, DueAt: due}, true},
	} {
		got, ok := RewardFor("founder", tc.arrivals, paid)
		if ok != tc.ok || got != tc.want {
			t.Errorf("%s: RewardFor = %+v, %v; want %+v, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}
