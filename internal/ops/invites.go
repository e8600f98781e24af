package ops

import (
	"context"
	"errors"
	"fmt"
	"html/template"
	"strings"
	"time"

	"github.com/google/uuid"

	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/invite"
	"studio/internal/mail"
	"studio/internal/ts"
)

// Codes of minting invite codes.
var (
	ErrBadLabel   = errs.New(errs.KindInvalid, "BAD_LABEL", "label is 1 to 24 of A-Z, 0-9 and inner dashes.")
	ErrBadGrant   = errs.New(errs.KindInvalid, "BAD_GRANT", "grantTokens is a whole number from 0 to 100000.")
	ErrBadMaxUses = errs.New(errs.KindInvalid, "BAD_MAX_USES", "maxUses is a whole number from 1 to 100000.")
	ErrBadExpiry  = errs.New(errs.KindInvalid, "BAD_EXPIRY", "expiresInDays is a whole number from 1 to 3650, or null.")
)

// MintRequest is the body of POST /api/toolkit/admin/invite-codes.
type MintRequest struct {
	Label         string `json:"label" required:"true" maxLength:"24" description:"The vanity prefix, A-Z, 0-9 and inner dashes (lower case is raised)."`
	GrantTokens   *int64 `json:"grantTokens" minimum:"0" maximum:"100000" description:"Tokens the house of each address let in receives at sign-up; default 0."`
	MaxUses       *int64 `json:"maxUses" minimum:"1" maximum:"100000" description:"How many addresses it may let in; default 1."`
	ExpiresInDays *int64 `json:"expiresInDays" minimum:"1" maximum:"3650" description:"Days until it stops opening doors; null or absent: never."`
}

// Validate checks and normalises the body.
func (in *MintRequest) Validate() error {
	in.Label = strings.ToUpper(strings.TrimSpace(in.Label))
	if !invite.ValidLabel(in.Label) {
		return ErrBadLabel
	}
	if in.GrantTokens != nil && (*in.GrantTokens < 0 || *in.GrantTokens > 100000) {
		return ErrBadGrant
	}
	if in.MaxUses != nil && (*in.MaxUses < 1 || *in.MaxUses > 100000) {
		return ErrBadMaxUses
	}
	if in.ExpiresInDays != nil && (*in.ExpiresInDays < 1 || *in.ExpiresInDays > 3650) {
		return ErrBadExpiry
	}
	return nil
}

// CodeBody answers one code.
type CodeBody struct {
	Code invite.Code `json:"code"`
}

// MintCode mints an operator's invite code LABEL-XXXXXX; a drawn suffix
// that exists already is drawn again.
func (s *Service) MintCode(ctx context.Context, p auth.Principal, in MintRequest) (invite.Code, error) {
	if err := ensure(ctx, p); err != nil {
		return invite.Code{}, err
	}
	if err := in.Validate(); err != nil {
		return invite.Code{}, err
	}
	now := s.now()
	c := invite.Code{ID: uuid.Must(uuid.NewV7()).String(), Label: in.Label, MaxUses: 1, CreatedBy: p.UserID, CreatedAt: ts.Of(now)}
	if in.GrantTokens != nil {
		c.GrantTokens = *in.GrantTokens
	}
	if in.MaxUses != nil {
		c.MaxUses = *in.MaxUses
	}
	if in.ExpiresInDays != nil {
		exp := ts.Of(now.Add(time.Duration(*in.ExpiresInDays) * 24 * time.Hour))
		c.ExpiresAt = &exp
	}
	for range 8 {
		c.Code = invite.NewCode(c.Label)
		err := s.store.InsertCode(ctx, c)
		if errors.Is(err, invite.ErrCodeTaken) {
			continue
		}
		if err != nil {
			return invite.Code{}, err
		}
		return c, nil
	}
	return invite.Code{}, fmt.Errorf("mint code %s: every suffix drawn was taken", c.Label)
}

// Codes lists the operators' invite codes, newest first (users' own
// referral codes are not listed).
func (s *Service) Codes(ctx context.Context, p auth.Principal) ([]invite.Code, error) {
	if err := ensure(ctx, p); err != nil {
		return nil, err
	}
	return s.store.OperatorCodes(ctx)
}

// RevokeCode withdraws an operator's code; a repeat keeps the first time.
func (s *Service) RevokeCode(ctx context.Context, p auth.Principal, id string) (invite.Code, error) {
	if err := ensure(ctx, p); err != nil {
		return invite.Code{}, err
	}
	return s.store.RevokeCode(ctx, id, s.now())
}

// InviteRequest is the body of POST /api/toolkit/admin/invite.
type InviteRequest struct {
	Email string `json:"email" required:"true" maxLength:"254"`
}

// Invited answers an operator's invitation.
type Invited struct {
	invite.Issued
	ToolkitsOpened []string `json:"toolkitsOpened" description:"The toolkits the address may use once signed up: every toolkit is open to every account; grants add none here."`
	Emailed        string   `json:"emailed" enum:"sent,logged,failed,none" description:"What became of the letter with the link: none when the invitation was already accepted."`
}

// Invite issues (or re-issues, idempotently per address) an operator's
// invitation and sends the address the letter with its accept link.
func (s *Service) Invite(ctx context.Context, p auth.Principal, in InviteRequest) (Invited, error) {
	if err := ensure(ctx, p); err != nil {
		return Invited{}, err
	}
	return s.invite(ctx, in.Email, p.UserID)
}

// SendInvitation lets an address in as an operator's invitation does (the
// invitation and the letter with its accept link) for a caller the
// operators' check does not apply to: the analyst's approval of an
// applicant (package analyst), which checked its own token. It answers
// what became of the letter (sent, logged, failed, or none when the
// address had accepted an invitation already).
func (s *Service) SendInvitation(ctx context.Context, email, byUserID string) (string, error) {
	out, err := s.invite(ctx, email, byUserID)
	return out.Emailed, err
}

func (s *Service) invite(ctx context.Context, email, byUserID string) (Invited, error) {
	iss, err := s.door.Issue(ctx, email, byUserID)
	if err != nil {
		return Invited{}, err
	}
	out := Invited{Issued: iss, ToolkitsOpened: Toolkits, Emailed: "none"}
	if iss.Token == "" {
		return out, nil
	}
	out.Emailed = s.carrier()
	var h strings.Builder
	if err := invitationHTML.Execute(&h, iss); err != nil {
		h.Reset() // fixed template over strings; the plain part stands alone if it ever failed
	}
	if err := s.mailer.Send(ctx, mail.Message{To: iss.Email, Template: "invitation", Secrets: []string{iss.Token},
		Subject: "You are invited to the studio",
		Text: "Hello,\n\nYou are invited to the studio, where fashion houses develop their imagery.\n\n" +
			"Accept the invitation and make your account:\n" + iss.URL + "\n\nSign up with this address, " + iss.Email + ".\n",
		HTML: h.String(),
	}); err != nil {
		out.Emailed = "failed"
	}
	return out, nil
}

func (s *Service) carrier() string {
	if c, ok := s.mailer.(interface{ Carrier() string }); ok && c.Carrier() == "console" {
		return "logged"
	}
	return "sent"
}

// invitationHTML is the operator's invitation letter's HTML part: the
// plain part's words with the accept link.
var invitationHTML = template.Must(template.New("invitation").Parse(`<!doctype html><html><body style="font-family:sans-serif;line-height:1.5">
<p>Hello,</p>
<p>You are invited to the studio, where fashion houses develop their imagery.</p>
<p><a href="{{.URL}}" style="display:inline-block;padding:8px 16px;background:#111;color:#fff;text-decoration:none">Accept the invitation and make your account</a></p>
<p style="color:#666">Sign up with this address, {{.Email}}.</p>
</body></html>`))
