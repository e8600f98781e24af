// Package mail sends the service's letters: to the console (and the e-mail
// log) by default, over SMTP when SMTP_URL is set, or through Resend's HTTP
// API when RESEND_API_KEY is set. Every letter, its text and HTML parts,
// is archived in the e-mail log, with the secrets it carries masked.
package mail

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	gomail "github.com/wneessen/go-mail"
)

// Message is one letter.
type Message struct {
	UserID   string
	To       string
	Template string
	Subject  string
	Text     string
	HTML     string // an alternative HTML part; empty for plain text only
	// Secrets are the values in the letter that grant something to whoever
	// holds them: a share link's token, an invitation's, an e-mail
	// verification's. The letter carries them; the e-mail log, which
	// operators read, keeps each as its first HintChars characters and
	// "…", so a letter can be read back but its link never used. A letter
	// that must be sent again is built again, with a fresh secret.
	Secrets []string
}

// HintChars is how much of a secret the e-mail log keeps (the share list's
// token hint is as long).
const HintChars = 8

// Masked returns s with every secret cut to its hint.
func Masked(s string, secrets []string) string {
	for _, sec := range secrets {
		if len(sec) <= HintChars {
			continue // too short to be a secret worth a hint; callers pass tokens
		}
		s = strings.ReplaceAll(s, sec, sec[:HintChars]+"…")
	}
	return s
}

// Sender delivers letters.
type Sender interface {
	Send(ctx context.Context, m Message) error
}

// Log is the e-mail log every letter is written to, whatever carries it.
type Log interface {
	LogEmail(ctx context.Context, e Entry) error
}

// Entry is a row of the e-mail log.
type Entry struct {
	ID         string
	UserID     string
	To         string
	Template   string
	Subject    string
	Text       string
	HTML       string
	Status     string // logged (console), sent, failed; then what the provider reports: delivered, delayed, bounced, complained
	ProviderID string
	CreatedAt  time.Time
}

// Transport carries a letter somewhere and returns the provider's id.
type Transport interface {
	Deliver(ctx context.Context, m Message) (providerID string, err error)
	Name() string
}

// Mailer writes each letter to the log after handing it to the transport.
type Mailer struct {
	T   Transport
	Log Log
	Now func() time.Time
	// Tap, when set, sees each letter the transport took, secrets whole
	// (tests read links from it, as a recipient reads them from the letter).
	Tap func(Message)
	// Sent, when set, hears each letter's outcome: "sent", "logged" (the
	// console transport) or "failed".
	Sent func(outcome string)
}

// Send delivers m and records it. A failed delivery is logged as failed and
// returned.
func (ml *Mailer) Send(ctx context.Context, m Message) error {
	id, err := ml.T.Deliver(ctx, m)
	status := "sent"
	if ml.T.Name() == "console" {
		status = "logged"
	}
	if err != nil {
		status = "failed"
	} else if ml.Tap != nil {
		ml.Tap(m)
	}
	if ml.Sent != nil {
		ml.Sent(status)
	}
	e := Entry{ID: uuid.Must(uuid.NewV7()).String(), UserID: m.UserID, To: m.To, Template: m.Template,
		Subject: Masked(m.Subject, m.Secrets), Text: Masked(m.Text, m.Secrets), HTML: Masked(m.HTML, m.Secrets),
		Status: status, ProviderID: id, CreatedAt: ml.Now()}
	if lerr := ml.Log.LogEmail(ctx, e); lerr != nil {
		return lerr
	}
	if err != nil {
		return fmt.Errorf("mail to %s: %w", m.To, err)
	}
	return nil
}

// Carrier names the transport: console, smtp, resend. A caller that reports what
// became of a letter (e.g. "logged" rather than "sent") reads it.
func (ml *Mailer) Carrier() string { return ml.T.Name() }

// Console prints letters to the log; they are kept in the e-mail log.
type Console struct{ Logger *slog.Logger }

func (Console) Name() string { return "console" }

func (c Console) Deliver(ctx context.Context, m Message) (string, error) {
	c.Logger.InfoContext(ctx, "mail", "to", m.To, "template", m.Template, "subject", m.Subject, "text", m.Text)
	return "", nil
}

// SMTP sends letters through the server in an smtp:// or smtps:// URL
// (smtp://user:pass@host:port?from=studio@example.com).
type SMTP struct {
	host, user, pass, from string
	port                   int
	tls                    bool
}

// NewSMTP parses the SMTP_URL setting.
func NewSMTP(raw string) (*SMTP, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "smtp" && u.Scheme != "smtps") || u.Hostname() == "" {
		return nil, fmt.Errorf("SMTP_URL must look like smtp://user:pass@host:587?from=studio@example.com")
	}
	s := &SMTP{host: u.Hostname(), tls: u.Scheme == "smtps", from: u.Query().Get("from"), port: 587}
	if s.tls {
		s.port = 465
	}
	if p := u.Port(); p != "" {
		if s.port, err = strconv.Atoi(p); err != nil {
			return nil, fmt.Errorf("SMTP_URL port: %w", err)
		}
	}
	if u.User != nil {
		s.user = u.User.Username()
		s.pass, _ = u.User.Password()
	}
	if s.from == "" {
		s.from = "studio@" + s.host
	}
	return s, nil
}

func (*SMTP) Name() string { return "smtp" }

// Deliver sends m. Plain SMTP upgrades with STARTTLS when the server offers it.
func (s *SMTP) Deliver(ctx context.Context, m Message) (string, error) {
	msg := gomail.NewMsg()
	if err := msg.From(s.from); err != nil {
		return "", err
	}
	if err := msg.To(m.To); err != nil {
		return "", err
	}
	msg.Subject(m.Subject)
	msg.SetBodyString(gomail.TypeTextPlain, m.Text)
	if m.HTML != "" {
		msg.AddAlternativeString(gomail.TypeTextHTML, m.HTML)
	}
	id := uuid.Must(uuid.NewV7()).String() + "@studio"
	msg.SetMessageIDWithValue(id)
	opts := []gomail.Option{gomail.WithPort(s.port), gomail.WithTimeout(10 * time.Second)}
	if s.tls {
		opts = append(opts, gomail.WithSSL())
	} else {
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSOpportunistic))
	}
	if s.user != "" {
		opts = append(opts, gomail.WithSMTPAuth(gomail.SMTPAuthAutoDiscover), gomail.WithUsername(s.user), gomail.WithPassword(s.pass))
	}
	c, err := gomail.NewClient(s.host, opts...)
	if err != nil {
		return "", err
	}
	if err := c.DialAndSendWithContext(ctx, msg); err != nil {
		return "", err
	}
	return id, nil
}
