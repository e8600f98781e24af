package onboarding_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/onboarding"
)

// store is the house's facts and each user's marks, in memory; a repeat
// mark keeps the first, as the store does.
type store struct {
	facts map[string]bool
	marks map[string]map[string]time.Time // user -> step -> at
}

func (s *store) OnboardingFacts(_ context.Context, _ string) (map[string]bool, error) {
	return s.facts, nil
}

func (s *store) OnboardingMarks(_ context.Context, _, user string) (map[string]time.Time, error) {
	return s.marks[user], nil
}

func (s *store) MarkOnboarding(_ context.Context, _, user, step string, at time.Time) error {
	if s.marks[user] == nil {
		s.marks[user] = map[string]time.Time{}
	}
	if _, ok := s.marks[user][step]; !ok {
		s.marks[user][step] = at
	}
	return nil
}

func code(err error) string {
	if e, ok := errs.As(err); ok {
		return e.Code
	}
	return ""
}

// TestChecklist: the six steps in order; a step is done when the house did
// it (derived) or the caller marked it, and a mark is the caller's own. Any
// seat may mark; an unknown step is UNKNOWN_STEP with the legal ones; no
// seat, no checklist.
func TestChecklist(t *testing.T) {
	st := &store{facts: map[string]bool{onboarding.FirstUpload: true, onboarding.KeyMinted: true}, marks: map[string]map[string]time.Time{}}
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	svc := onboarding.NewService(st, func() time.Time { return at })
	ctx := context.Background()
	viewer := auth.Principal{UserID: "u-viewer", HouseID: "h", Role: auth.Viewer}
	owner := auth.Principal{UserID: "u-owner", HouseID: "h", Role: auth.Owner}

	cl, err := svc.Checklist(ctx, owner)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range cl.Steps {
		ids = append(ids, s.ID)
		if s.Done != s.Derived || s.MarkedAt != nil {
			t.Errorf("%s: done %v, derived %v, marked %v before any mark", s.ID, s.Done, s.Derived, s.MarkedAt)
		}
	}
	if !slices.Equal(ids, onboarding.StepIDs()) || cl.Total != 6 || cl.Completed != 2 {
		t.Fatalf("checklist %v: %d of %d done; want the six steps, 2 done", ids, cl.Completed, cl.Total)
	}

	for range 2 { // a repeat changes nothing
		if cl, err = svc.Mark(ctx, viewer, onboarding.MarkRequest{Step: onboarding.FirstShare}); err != nil {
			t.Fatal(err)
		}
		at = at.Add(time.Hour)
	}
	share := cl.Steps[slices.Index(onboarding.StepIDs(), onboarding.FirstShare)]
	if !share.Done || share.Derived || share.MarkedAt == nil || !share.MarkedAt.Equal(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)) || cl.Completed != 3 {
		t.Errorf("after the viewer's mark: %+v, %d done; want done, marked at the first mark, 3 done", share, cl.Completed)
	}
	// Marked on a derived step: done either way, counted once.
	if cl, err = svc.Mark(ctx, viewer, onboarding.MarkRequest{Step: onboarding.FirstUpload}); err != nil || cl.Completed != 3 {
		t.Errorf("marking a derived step: %d done, %v; want 3", cl.Completed, err)
	}
	if cl, _ = svc.Checklist(ctx, owner); cl.Completed != 2 {
		t.Errorf("the owner's checklist counts %d done; want 2 (the viewer's marks are the viewer's)", cl.Completed)
	}

	_, err = svc.Mark(ctx, owner, onboarding.MarkRequest{Step: "first-dance"})
	if code(err) != "UNKNOWN_STEP" {
		t.Errorf("an unknown step: %v; want UNKNOWN_STEP", err)
	}
	for _, p := range []auth.Principal{{UserID: "u", HouseID: "h"}, {UserID: "u", Role: auth.Owner}, {HouseID: "h", Role: auth.Owner}} {
		if _, err := svc.Checklist(ctx, p); code(err) != "FORBIDDEN" {
			t.Errorf("checklist for %+v: %v; want FORBIDDEN", p, err)
		}
	}
}
