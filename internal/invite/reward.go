package invite

import "time"

// Arrival is one way a paying house's founder came in through an invite
// code, as the store reads it: the invitation, the code's owner ("" for a
// code minted by the platform, not a user's own) and that owner's personal
// house ("" when the owner has none).
type Arrival struct {
	InvitationID string
	CodeOwner    string
	HostHouseID  string
}

// HostReward is the reward a host earns when a guest's house pays its
// first subscription: credited to the host's personal house once its hold
// ends (void if the subscription is revoked before).
type HostReward struct {
	InvitationID string
	HostUserID   string
	HostHouseID  string
	Tokens       int64
	DueAt        time.Time
}

// RewardFor decides the host's reward for a house's first paid
// subscription, paid at paidAt: the founder's first arrival (oldest first)
// through another user's own referral code, when that user has a personal
// house to credit. A founder who came in by a platform code, by their own
// code, or through a host with no personal house earns nobody a reward.
func RewardFor(founder string, arrivals []Arrival, paidAt time.Time) (HostReward, bool) {
	for _, a := range arrivals {
		if a.CodeOwner == "" || a.CodeOwner == founder || a.HostHouseID == "" {
			continue
		}
		return HostReward{InvitationID: a.InvitationID, HostUserID: a.CodeOwner, HostHouseID: a.HostHouseID,
			Tokens: ReferralHostTokens, DueAt: paidAt.Add(ReferralHoldDays * 24 * time.Hour)}, true
	}
	return HostReward{}, false
}
