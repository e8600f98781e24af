// Package onboarding is a house's first steps (SPEC §4.19): a checklist
// derived from what the house has done (a first upload, develop, look and
// share, a key minted, a teammate invited), where a user may also mark a
// step complete themselves, idempotently.
package onboarding

import (
	"context"
	"slices"
	"time"

	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/ts"
)

// Step ids, in the order the checklist lists them.
const (
	FirstUpload     = "first-upload"
	FirstDevelop    = "first-develop"
	FirstLook       = "first-look"
	FirstShare      = "first-share"
	KeyMinted       = "key-minted"
	TeammateInvited = "teammate-invited"
)

// Steps are the checklist's steps with their titles.
var Steps = []struct{ ID, Title string }{
	{FirstUpload, "Upload a first piece"},
	{FirstDevelop, "Develop a first frame"},
	{FirstLook, "Compose a first look"},
	{FirstShare, "Share frames with a reviewer"},
	{KeyMinted, "Mint an API key"},
	{TeammateInvited, "Invite a teammate"},
}

// StepIDs lists the step ids in order.
func StepIDs() []string {
	out := make([]string, len(Steps))
	for i, s := range Steps {
		out[i] = s.ID
	}
	return out
}

// ErrUnknownStep refuses a step that is not on the checklist.
var ErrUnknownStep = errs.New(errs.KindInvalid, "UNKNOWN_STEP", "step must be one of the checklist's steps.")

// Step is one line of the checklist.
type Step struct {
	ID       string   `json:"id" enum:"first-upload,first-develop,first-look,first-share,key-minted,teammate-invited"`
	Title    string   `json:"title"`
	Done     bool     `json:"done" description:"The house did it, or you marked it complete."`
	Derived  bool     `json:"derived" description:"The house did it (read from its rows at this moment)."`
	MarkedAt *ts.Time `json:"markedAt" description:"When you marked it complete; null when you did not."`
}

// Checklist is the answer of both onboarding routes.
type Checklist struct {
	Steps     []Step `json:"steps"`
	Completed int    `json:"completed"`
	Total     int    `json:"total"`
}

// MarkRequest is the body of POST /api/toolkit/onboarding.
type MarkRequest struct {
	Step string `json:"step" required:"true" enum:"first-upload,first-develop,first-look,first-share,key-minted,teammate-invited"`
}

// Validate checks the step.
func (in *MarkRequest) Validate() error {
	if !slices.Contains(StepIDs(), in.Step) {
		return errs.With(ErrUnknownStep, "legal", StepIDs())
	}
	return nil
}

// Store reads what the house did and keeps the marks.
type Store interface {
	OnboardingFacts(ctx context.Context, house string) (map[string]bool, error)
	OnboardingMarks(ctx context.Context, house, user string) (map[string]time.Time, error)
	MarkOnboarding(ctx context.Context, house, user, step string, at time.Time) error
}

// Service answers and marks the checklist.
type Service struct {
	store Store
	now   func() time.Time
}

// NewService returns the onboarding service.
func NewService(store Store, now func() time.Time) *Service { return &Service{store: store, now: now} }

func seated(p auth.Principal) error {
	if p.UserID == "" {
		return auth.ErrNoSeat
	}
	if err := p.MayRead(); err != nil {
		return err
	}
	return nil
}

// Checklist answers the caller's checklist in their house.
func (s *Service) Checklist(ctx context.Context, p auth.Principal) (Checklist, error) {
	if err := seated(p); err != nil {
		return Checklist{}, err
	}
	facts, err := s.store.OnboardingFacts(ctx, p.HouseID)
	if err != nil {
		return Checklist{}, err
	}
	marks, err := s.store.OnboardingMarks(ctx, p.HouseID, p.UserID)
	if err != nil {
		return Checklist{}, err
	}
	out := Checklist{Steps: make([]Step, 0, len(Steps)), Total: len(Steps)}
	for _, st := range Steps {
		step := Step{ID: st.ID, Title: st.Title, Derived: facts[st.ID]}
		if at, ok := marks[st.ID]; ok {
			t := ts.Of(at)
			step.MarkedAt = &t
		}
		step.Done = step.Derived || step.MarkedAt != nil
		if step.Done {
			out.Completed++
		}
		out.Steps = append(out.Steps, step)
	}
	return out, nil
}

// Mark marks a step complete for the caller (a repeat keeps the first
// mark) and answers the checklist. Any seat may mark its own progress.
func (s *Service) Mark(ctx context.Context, p auth.Principal, in MarkRequest) (Checklist, error) {
	if err := seated(p); err != nil {
		return Checklist{}, err
	}
	if err := in.Validate(); err != nil {
		return Checklist{}, err
	}
	if err := s.store.MarkOnboarding(ctx, p.HouseID, p.UserID, in.Step, s.now()); err != nil {
		return Checklist{}, err
	}
	return s.Checklist(ctx, p)
}
