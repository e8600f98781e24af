// Package analyst is the platform's internal analyst (SPEC §4.18, §5 rule
// 7, DECISIONS §9): reads that aggregate what the houses did without
// naming anyone (counts, rates and distributions over a window of hours),
// and three actions on the applicant list and the recordings: approve an
// applicant, research an applicant's public homepage, summarize a
// recording.
//
// # Credentials
//
// Every route takes `Authorization: Bearer <ANALYST_TOKEN>`, except the
// approval, which takes `Authorization: Bearer <ANALYST_ACTION_TOKEN>` and
// nothing else. Research and summarize change nothing the service keeps,
// so they take the read token. Tokens are compared in constant time;
// while a token is unset its routes answer 401, as for a missing or wrong
// one. A house key or a session is never accepted.
//
// # No identities
//
// The reads answer counts and rates: no user ids, e-mail addresses, names,
// house ids or house names. The invitations read lists applicants by their
// opaque applicant id (the approve and research actions need it) with their
// status, dates and the structured intake answers, never their name,
// address, house name or free text. longstory may be narrowed to one house
// by organizationId, which the caller already knows.
package analyst

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"strings"
	"time"

	"studio/internal/ai"
	"studio/internal/asset"
	"studio/internal/errs"
	"studio/internal/ts"
	"studio/internal/urlguard"
)

// Codes the analyst routes answer.
var (
	ErrUnauthorized = errs.Msg(errs.Unauthorized, "A valid analyst token is required (Authorization: Bearer <token>).")
	ErrNoActionTok  = errs.Msg(errs.Unauthorized, "This action needs the analyst action token (Authorization: Bearer <token>).")
	ErrReason       = errs.ReasonRequired
	ErrNotPending   = errs.NotPending
	ErrFocusArea    = errs.New(errs.KindInvalid, "FOCUS_AREA_REQUIRED", "focusArea is required: 1 to 200 characters.")
	ErrNoRecording  = errs.Msg(errs.NotFound, "Not found.")
	ErrOrgNotFound  = errs.NotFound
	ErrAINotConfig  = ai.ErrNotConfigured
)

// Store is what the analyst reads and writes.
type Store interface {
	AnalystChat(ctx context.Context, since time.Time) (Chat, []int64, error) // totals and the turns of each session
	AnalystLetters(ctx context.Context, since time.Time) ([]TemplateStatus, error)
	AnalystFailed(ctx context.Context, since time.Time, limit int) ([]FailedJob, int64, error) // failed develops (newest first) and all develops
	AnalystFunnel(ctx context.Context, since time.Time) (FunnelCounts, error)
	AnalystUsage(ctx context.Context, since time.Time) (Usage, error)
	AnalystApplicants(ctx context.Context, since time.Time, status string, limit int) ([]Applicant, []Count, error)
	AnalystLearnings(ctx context.Context, since time.Time, limit int) (Learnings, error)
	AnalystRejections(ctx context.Context, since time.Time) (Rejections, []string, error) // totals and each verdict's findings JSON
	AnalystStory(ctx context.Context, since time.Time, house string) ([]DayCounts, error)
	HouseExists(ctx context.Context, id string) (bool, error)
	AssetHouse(ctx context.Context, id string) (string, error)
	AssetFile(ctx context.Context, house, id string) (asset.File, error)
	// ApplicantForAction reads an applicant's e-mail, website and status.
	ApplicantForAction(ctx context.Context, id string) (ApplicantRow, error)
	// DecideApplicant moves a pending applicant to status with the reason;
	// false when it was no longer pending.
	DecideApplicant(ctx context.Context, id, from, to, reason string, at time.Time) (bool, error)
}

// Inviter lets an address in the way an operator's invitation does: the
// invitation with its token and the letter with the accept link.
type Inviter interface {
	SendInvitation(ctx context.Context, email, byUserID string) (emailed string, err error)
}

// Options configure the service.
type Options struct {
	Token       string // ANALYST_TOKEN; unset: every route answers 401
	ActionToken string // ANALYST_ACTION_TOKEN; unset: approve answers 401
	Guard       *urlguard.Guard
	AIReady     func() bool // whether an AI endpoint is configured (summarize)
	Now         func() time.Time
}

// Service is the analyst's use cases.
type Service struct {
	store   Store
	inviter Inviter
	opts    Options
	token   [32]byte
	action  [32]byte
}

// NewService returns the analyst service.
func NewService(store Store, inviter Inviter, opts Options) *Service {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Guard == nil {
		opts.Guard = ResearchGuard()
	}
	if opts.AIReady == nil {
		opts.AIReady = func() bool { return false }
	}
	return &Service{store: store, inviter: inviter, opts: opts,
		token: sha256.Sum256([]byte(opts.Token)), action: sha256.Sum256([]byte(opts.ActionToken))}
}

// Check admits a request whose Authorization header carries the analyst
// token (action false) or the action token (action true), compared in
// constant time over their SHA-256 (so the length leaks nothing either).
// An unset token admits no one.
func (s *Service) Check(header string, action bool) error {
	want, set, refusal := s.token, s.opts.Token != "", ErrUnauthorized
	if action {
		want, set, refusal = s.action, s.opts.ActionToken != "", ErrNoActionTok
	}
	got, ok := strings.CutPrefix(header, "Bearer ")
	got = strings.TrimSpace(got)
	sum := sha256.Sum256([]byte(got))
	match := subtle.ConstantTimeCompare(sum[:], want[:]) == 1
	if !set || !ok || got == "" || !match {
		return refusal
	}
	return nil
}

// Window is the span a read covers.
type Window struct {
	Hours int     `json:"hours" description:"The window read, in hours back from now."`
	Since ts.Time `json:"since" description:"The window's start."`
}

func (s *Service) window(hours int) (Window, time.Time) {
	since := s.opts.Now().Add(-time.Duration(hours) * time.Hour)
	return Window{Hours: hours, Since: ts.Of(since)}, since
}

// Count is one value and how often it occurs.
type Count struct {
	Key   string `json:"key"`
	Count int64  `json:"count"`
}

// rate is part over whole, 0 when whole is 0, rounded to 4 places.
func rate(part, whole int64) float64 {
	if whole <= 0 {
		return 0
	}
	return float64(int64(float64(part)/float64(whole)*10000+0.5)) / 10000
}
