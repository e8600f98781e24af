package ops

import (
	"context"
	"strings"
	"unicode/utf8"

	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/mail"
	"studio/internal/ts"
)

// The applicant list as operators work it (SPEC §3 Invitation applicant:
// pending, then invited or declined): they read it and decline an
// applicant with a reason; the approval that invites is the analyst's
// action (SPEC §4.18) or an operator's invitation of the address.

// Applicant is an applicant as operators see it: who asked, and what was
// decided.
type Applicant struct {
	ID             string   `json:"id"`
	Email          string   `json:"email"`
	Name           string   `json:"name"`
	House          *string  `json:"house"`
	Website        *string  `json:"website"`
	Status         string   `json:"status" enum:"pending,invited,declined"`
	DecisionReason *string  `json:"decisionReason" description:"Why it was decided: operators' words, never sent to the applicant."`
	CreatedAt      ts.Time  `json:"createdAt"`
	DecidedAt      *ts.Time `json:"decidedAt"`
}

// ApplicantsQuery filters the list.
type ApplicantsQuery struct {
	Status string `query:"status" enum:"pending,invited,declined,all" default:"pending" refuse:"BAD_STATUS"`
	Limit  int    `query:"limit" minimum:"1" maximum:"200" default:"50" refuse:"BAD_LIMIT"`
}

// DeclineRequest is the body of a decline.
type DeclineRequest struct {
	Reason string `json:"reason" required:"true" maxLength:"500" description:"Why: kept with the decision for the operators; the applicant's letter does not carry it."`
}

// ErrReasonRequired refuses a decline without its reason.
var ErrReasonRequired = errs.Msg(errs.ReasonRequired, "A decline needs a reason: 1 to 500 characters saying why.")

// Validate trims the reason and checks it.
func (in *DeclineRequest) Validate() error {
	in.Reason = strings.TrimSpace(in.Reason)
	if in.Reason == "" || utf8.RuneCountInString(in.Reason) > 500 {
		return ErrReasonRequired
	}
	return nil
}

// Declined answers a decline.
type Declined struct {
	ID              string `json:"id"`
	Status          string `json:"status" enum:"declined"`
	AlreadyDeclined bool   `json:"alreadyDeclined" description:"It was declined before: nothing changed and no letter went out."`
	Emailed         string `json:"emailed" enum:"sent,logged,failed,none" description:"What became of the letter telling the applicant; none when already declined."`
}

// ErrNotPending refuses to decline an applicant already invited.
var ErrNotPending = errs.Msg(errs.NotPending, "The applicant was invited already; a decision is made once.")

// TemplateDeclined is the letter that tells an applicant the door stays
// closed.
const TemplateDeclined = "applicant-declined"

// Applicants lists the applicant list, newest first.
func (s *Service) Applicants(ctx context.Context, p auth.Principal, q ApplicantsQuery) ([]Applicant, error) {
	if err := ensure(ctx, p); err != nil {
		return nil, err
	}
	status := q.Status
	if status == "all" {
		status = ""
	}
	return s.store.Applicants(ctx, status, q.Limit)
}

// Decline moves a pending applicant to declined with the reason and tells
// the address by e-mail (without the reason). Declined already: the answer
// says so, nothing changes and no letter goes out; invited already: 409.
// Asking again later changes nothing (POST /api/toolkit/invite/request
// answers already_requested), so a declined address is not let in by
// asking twice.
func (s *Service) Decline(ctx context.Context, p auth.Principal, id string, in DeclineRequest) (Declined, error) {
	if err := ensure(ctx, p); err != nil {
		return Declined{}, err
	}
	a, err := s.store.Applicant(ctx, id)
	if err != nil {
		return Declined{}, err
	}
	already := Declined{ID: a.ID, Status: "declined", AlreadyDeclined: true, Emailed: "none"}
	if a.Status == "declined" {
		return already, nil
	}
	moved, err := s.store.DecideApplicant(ctx, id, "pending", "declined", in.Reason, s.now())
	if err != nil {
		return Declined{}, err
	}
	if !moved {
		if a, err = s.store.Applicant(ctx, id); err != nil {
			return Declined{}, err
		}
		if a.Status == "declined" { // a concurrent decline won
			return already, nil
		}
		return Declined{}, ErrNotPending
	}
	out := Declined{ID: a.ID, Status: "declined", Emailed: s.carrier()}
	if err := s.mailer.Send(context.WithoutCancel(ctx), declinedLetter(a)); err != nil {
		out.Emailed = "failed"
	}
	return out, nil
}

// declinedLetter tells an applicant their request is closed.
func declinedLetter(a Applicant) mail.Message {
	name := strings.TrimSpace(a.Name)
	greeting := "Hello,"
	if name != "" {
		greeting = "Hello " + name + ","
	}
	return mail.Message{To: a.Email, Template: TemplateDeclined, Subject: "Your request to join the studio",
		Text: greeting + "\n\nThank you for asking to join the studio. We cannot open the door to you for now, " +
			"so your request is closed.\n\nIf your house's work changes, an invitation from someone already in the studio " +
			"still lets you in.\n"}
}
