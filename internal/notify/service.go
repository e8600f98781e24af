package notify

import (
	"context"
	"slices"
	"time"

	"studio/internal/auth"
)

// Store is what notifications need from persistence. Every method names
// the house; the user is the caller, who sees the house's notifications
// addressed to the house or to them.
type Store interface {
	// ListNotifications answers a page of the notifications the caller sees.
	ListNotifications(ctx context.Context, house, user string, q Query) ([]Notification, error)
	// CountUnread counts the caller's matured unread notifications raised
	// at or after from.
	CountUnread(ctx context.Context, house, user string, from, now time.Time) (int, error)
	// MarkRead marks the caller's unread notifications among ids (all of
	// them when all is set) read at now and returns the ids it marked.
	MarkRead(ctx context.Context, house, user string, ids []string, all bool, now time.Time) ([]string, error)
}

// Service lists notifications and marks them read.
type Service struct {
	store Store
	now   func() time.Time
}

// NewService returns the notifications service.
func NewService(store Store, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{store: store, now: now}
}

// List answers a page of the caller's notifications and the unread count.
func (s *Service) List(ctx context.Context, p auth.Principal, q Query) (Page, error) {
	if q.Limit <= 0 {
		q.Limit = DefaultLimit
	}
	q.Limit = min(q.Limit, MaxLimit)
	now := s.now()
	ns, err := s.store.ListNotifications(ctx, p.HouseID, p.UserID, q)
	if err != nil {
		return Page{}, err
	}
	unread, err := s.store.CountUnread(ctx, p.HouseID, p.UserID, now.Add(-UnreadWindow), now)
	if err != nil {
		return Page{}, err
	}
	for i := range ns {
		ns[i].At(now)
	}
	page := Page{Notifications: ns, Unread: unread}
	if !q.Backfill && len(ns) == q.Limit {
		c := Cursor(ns[len(ns)-1].EventSeq)
		page.NextCursor = &c
	}
	return page, nil
}

// Read marks the caller's notifications read; reading twice marks nothing.
func (s *Service) Read(ctx context.Context, p auth.Principal, in ReadRequest) (Marked, error) {
	if err := in.Validate(); err != nil {
		return Marked{}, err
	}
	ids := slices.Clone(in.IDs)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	marked, err := s.store.MarkRead(ctx, p.HouseID, p.UserID, ids, in.All, s.now())
	if err != nil {
		return Marked{}, err
	}
	if marked == nil {
		marked = []string{}
	}
	slices.Sort(marked)
	return Marked{Marked: len(marked), IDs: marked}, nil
}
