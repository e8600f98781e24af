// Package letters is what the service says by e-mail beyond the letters
// its domains send themselves (SPEC §4.14): the drip letters a scheduler
// asks for with the drip secret, each sent once per dedupeKey, and the
// e-mail provider's delivery webhook (Resend's, Standard Webhooks signed,
// DECISIONS §10), which records what became of each letter in the e-mail
// log and raises an operator alert when one bounced or was marked as spam.
package letters

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"html/template"
	"net/http"
	"net/mail"
	"slices"
	"strings"
	texttemplate "text/template"
	"time"

	"github.com/google/uuid"

	"studio/internal/errs"
	studiomail "studio/internal/mail"
	"studio/internal/webhook/sign"
)

// Codes of the drip route and the delivery webhook (SPEC §4.14).
var (
	ErrDripOff      = errs.New(errs.KindUnavailable, "DRIP_NOT_CONFIGURED", "The drip route is not configured.")
	ErrBadRequest   = errs.New(errs.KindInvalid, "BAD_REQUEST", "template, email and dedupeKey are required, with a legal template.")
	ErrUnparseable  = errs.Msg(errs.Unparseable, "The event is not a provider event object.")
	ErrBadSignature = errs.Msg(errs.BadSignature, "The delivery's signature does not verify.")
	ErrWebhookOff   = errs.New(errs.KindUnavailable, "EMAIL_WEBHOOK_NOT_CONFIGURED", "The e-mail provider's webhook is not configured.")
)

// AlreadySent is the reason a drip letter was not sent again.
const AlreadySent = "ALREADY_SENT"

// Templates are the drip letters (SPEC §4.14).
var Templates = []string{"drip-day3", "develop-interrupted", "look-waiting"}

// DripRequest is the body of POST /api/toolkit/email/drip.
type DripRequest struct {
	Template  string `json:"template" required:"true" enum:"drip-day3,develop-interrupted,look-waiting"`
	Email     string `json:"email" required:"true" maxLength:"320"`
	DedupeKey string `json:"dedupeKey" required:"true" maxLength:"200" description:"One letter per key, ever: a second request with it is {sent: false, reason: ALREADY_SENT}."`
	Name      string `json:"name,omitempty" maxLength:"200"`
}

// Validate checks the template, the address and the key.
func (r *DripRequest) Validate() error {
	r.Email, r.DedupeKey, r.Name = strings.TrimSpace(r.Email), strings.TrimSpace(r.DedupeKey), strings.TrimSpace(r.Name)
	if !slices.Contains(Templates, r.Template) {
		return errs.With(ErrBadRequest, "legal", Templates)
	}
	if a, err := mail.ParseAddress(r.Email); err != nil || a.Address != r.Email {
		return errs.Msg(ErrBadRequest, "email must be a plain e-mail address.")
	}
	if r.DedupeKey == "" || len(r.DedupeKey) > 200 {
		return errs.Msg(ErrBadRequest, "dedupeKey must be 1 to 200 characters.")
	}
	return nil
}

// DripResult answers the drip route.
type DripResult struct {
	Sent     bool   `json:"sent"`
	Template string `json:"template,omitempty"`
	Status   string `json:"status,omitempty" description:"What the mailer recorded: logged (console), sent, failed."`
	Reason   string `json:"reason,omitempty" enum:"ALREADY_SENT"`
}

// WebhookResult answers the delivery webhook.
type WebhookResult struct {
	OK      bool   `json:"ok"`
	Status  string `json:"status,omitempty" description:"The letter's status now."`
	Matched *bool  `json:"matched,omitempty" description:"false: no letter of the e-mail log carries the event's message id."`
	Ignored bool   `json:"ignored,omitempty" description:"true: an event type that says nothing of delivery, or a delivery already seen."`
}

// Store is what letters need from persistence.
type Store interface {
	// ClaimDrip records key once; false when it was already claimed.
	ClaimDrip(ctx context.Context, key, template, to string, at time.Time) (bool, error)
	ReleaseDrip(ctx context.Context, key string) error
	// LatestEmail is the newest e-mail log entry to an address with a template.
	LatestEmail(ctx context.Context, to, template string) (studiomail.Entry, error)
	// SeenWebhook records a delivery id once; false when seen before.
	SeenWebhook(ctx context.Context, id, typ string, at time.Time) (bool, error)
	// MarkEmail sets the status of the letter with the provider's id;
	// NOT_FOUND when none has it.
	MarkEmail(ctx context.Context, providerID, status string, at time.Time) (studiomail.Entry, error)
	RaiseAlert(ctx context.Context, id, kind, subject, detail string, at time.Time) error
}

// Service sends drip letters and reads the provider's deliveries.
type Service struct {
	store   Store
	mailer  studiomail.Sender
	drip    string // DRIP_SECRET
	hook    string // EMAIL_WEBHOOK_SECRET
	web     string // the web app's origin, for links
	now     func() time.Time
	onAlert func(kind, subject string)
}

// Options configure the service.
type Options struct {
	DripSecret, WebhookSecret, WebOrigin string
	Now                                  func() time.Time
	OnAlert                              func(kind, subject string) // told of each alert (the log)
}

// NewService returns the letters service.
func NewService(store Store, mailer studiomail.Sender, o Options) *Service {
	return &Service{store: store, mailer: mailer, drip: o.DripSecret, hook: o.WebhookSecret, web: strings.TrimRight(o.WebOrigin, "/"), now: o.Now, onAlert: o.OnAlert}
}

// CheckDrip compares the bearer token with DRIP_SECRET in constant time:
// 503 while unset, 401 when it differs.
func (s *Service) CheckDrip(authorization string) error {
	if s.drip == "" {
		return ErrDripOff
	}
	tok, ok := strings.CutPrefix(authorization, "Bearer ")
	if !ok || subtle.ConstantTimeCompare([]byte(tok), []byte(s.drip)) != 1 {
		return errs.Unauthorized
	}
	return nil
}

// Drip sends one drip letter per dedupeKey. The key is claimed first; a
// letter the transport fails to take gives the key back, so a retry sends.
func (s *Service) Drip(ctx context.Context, in DripRequest) (DripResult, error) {
	now := s.now()
	ok, err := s.store.ClaimDrip(ctx, in.DedupeKey, in.Template, in.Email, now)
	if err != nil {
		return DripResult{}, err
	}
	if !ok {
		return DripResult{Sent: false, Reason: AlreadySent}, nil
	}
	m, err := Render(in.Template, in.Email, in.Name, s.web)
	if err != nil {
		return DripResult{}, err
	}
	if err := s.mailer.Send(ctx, m); err != nil {
		if rerr := s.store.ReleaseDrip(context.WithoutCancel(ctx), in.DedupeKey); rerr != nil {
			return DripResult{}, errors.Join(err, rerr)
		}
		return DripResult{Sent: false, Template: in.Template, Status: "failed"}, nil
	}
	e, err := s.store.LatestEmail(ctx, in.Email, in.Template)
	if err != nil {
		return DripResult{}, err
	}
	return DripResult{Sent: true, Template: in.Template, Status: e.Status}, nil
}

// event is the part of a Resend webhook event the service reads.
type event struct {
	Type      string `json:"type"`
	CreatedAt string `json:"created_at"`
	Data      struct {
		EmailID string   `json:"email_id"`
		To      []string `json:"to"`
		Subject string   `json:"subject"`
		Bounce  *struct {
			Message string `json:"message"`
			Type    string `json:"type"`
		} `json:"bounce"`
	} `json:"data"`
}

// statuses maps the provider's delivery events to the log's statuses;
// other event types (opened, clicked, contact...) are ignored.
var statuses = map[string]string{
	"email.sent":             "sent",
	"email.delivered":        "delivered",
	"email.delivery_delayed": "delayed",
	"email.bounced":          "bounced",
	"email.complained":       "complained",
	"email.failed":           "failed",
}

// Delivery verifies and applies one delivery of the provider's webhook.
func (s *Service) Delivery(ctx context.Context, h http.Header, body []byte) (WebhookResult, error) {
	if s.hook == "" {
		return WebhookResult{}, ErrWebhookOff
	}
	key, err := sign.ParseSecret(s.hook)
	if err != nil {
		return WebhookResult{}, errs.Wrap(ErrWebhookOff, err)
	}
	now := s.now()
	id, err := key.Verify(h, body, now)
	if err != nil {
		return WebhookResult{}, errs.Wrap(ErrBadSignature, err)
	}
	var ev event
	if err := json.Unmarshal(body, &ev); err != nil || ev.Type == "" {
		return WebhookResult{}, ErrUnparseable
	}
	status, known := statuses[ev.Type]
	if !known {
		return WebhookResult{OK: true, Ignored: true}, nil
	}
	if ev.Data.EmailID == "" {
		return WebhookResult{}, errs.Msg(ErrUnparseable, "A delivery event needs data.email_id.")
	}
	fresh, err := s.store.SeenWebhook(ctx, id, ev.Type, now)
	if err != nil {
		return WebhookResult{}, err
	}
	if !fresh {
		return WebhookResult{OK: true, Ignored: true}, nil
	}
	e, err := s.store.MarkEmail(ctx, ev.Data.EmailID, status, now)
	if errors.Is(err, errs.NotFound) {
		no := false
		return WebhookResult{OK: true, Matched: &no}, nil
	}
	if err != nil {
		return WebhookResult{}, err
	}
	if status == "bounced" || status == "complained" {
		subject := "A letter to " + e.To + " " + status + " (" + e.Template + ")"
		detail, _ := json.Marshal(map[string]any{"emailLogId": e.ID, "providerId": ev.Data.EmailID, "to": e.To, "template": e.Template,
			"event": ev.Type, "bounce": ev.Data.Bounce})
		if err := s.store.RaiseAlert(ctx, uuid.Must(uuid.NewV7()).String(), "email."+status, subject, string(detail), now); err != nil {
			return WebhookResult{}, err
		}
		if s.onAlert != nil {
			s.onAlert("email."+status, subject)
		}
	}
	return WebhookResult{OK: true, Status: status}, nil
}

// letter is a drip template: its subject and its text and HTML bodies.
type letter struct {
	subject string
	text    *texttemplate.Template
	html    *template.Template
}

const htmlFrame = `<!doctype html><html><body style="font-family:Helvetica,Arial,sans-serif;color:#111;line-height:1.5">` +
	`<p>Hello{{if .Name}} {{.Name}}{{end}},</p>{{template "body" .}}<p>The studio</p></body></html>`

func mustLetter(subject, text, html string) letter {
	h := template.Must(template.New("frame").Parse(htmlFrame))
	template.Must(h.New("body").Parse(html))
	return letter{subject: subject, text: texttemplate.Must(texttemplate.New("t").Parse("Hello{{if .Name}} {{.Name}}{{end}},\n\n" + text + "\n\nThe studio\n")), html: h}
}

var drips = map[string]letter{
	"drip-day3": mustLetter("Three days in: your first look",
		"You have had the studio for three days. Compose a look (a model, a few pieces, a ground) and develop it:\n{{.Link}}/lookbook",
		`<p>You have had the studio for three days. Compose a look (a model, a few pieces, a ground) and develop it.</p><p><a href="{{.Link}}/lookbook">Open the lookbook</a></p>`),
	"develop-interrupted": mustLetter("Your develop stopped before it finished",
		"A develop of yours stopped before its frames landed. Nothing was charged for what did not land. Start it again from your library:\n{{.Link}}/library",
		`<p>A develop of yours stopped before its frames landed. Nothing was charged for what did not land.</p><p><a href="{{.Link}}/library">Start it again from your library</a></p>`),
	"look-waiting": mustLetter("A look is waiting for you",
		"A look you composed is still a draft. Lock it on a frame and ask for its variations:\n{{.Link}}/lookbook",
		`<p>A look you composed is still a draft. Lock it on a frame and ask for its variations.</p><p><a href="{{.Link}}/lookbook">Open the lookbook</a></p>`),
}

// Render makes a drip letter for an address.
func Render(tmpl, to, name, web string) (studiomail.Message, error) {
	l, ok := drips[tmpl]
	if !ok {
		return studiomail.Message{}, errs.With(ErrBadRequest, "legal", Templates)
	}
	data := struct{ Name, Link string }{name, web}
	var t, h bytes.Buffer
	if err := l.text.Execute(&t, data); err != nil {
		return studiomail.Message{}, err
	}
	if err := l.html.Execute(&h, data); err != nil {
		return studiomail.Message{}, err
	}
	return studiomail.Message{To: to, Template: tmpl, Subject: l.subject, Text: t.String(), HTML: h.String()}, nil
}
