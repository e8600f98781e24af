package mail

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/resend/resend-go/v2"
)

// DefaultResendURL is Resend's API.
const DefaultResendURL = "https://api.resend.com/"

// Resend sends letters through Resend's HTTP API (POST /emails), which
// answers the provider's message id; the e-mail log keeps it, so the
// delivery webhook can find the letter again.
type Resend struct {
	client *resend.Client
	from   string
}

// NewResend returns the Resend transport: apiKey is RESEND_API_KEY, from
// the sender ("Studio <studio@example.com>"), baseURL Resend's API (tests
// point it at a local stand-in).
func NewResend(apiKey, from, baseURL string) (*Resend, error) {
	if baseURL == "" {
		baseURL = DefaultResendURL
	}
	if !strings.HasSuffix(baseURL, "/") {
		baseURL += "/"
	}
	u, err := url.Parse(baseURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") {
		return nil, fmt.Errorf("RESEND_URL must be an http(s) URL")
	}
	if strings.TrimSpace(from) == "" {
		return nil, fmt.Errorf("RESEND_FROM names the sender, e.g. Studio <studio@example.com>")
	}
	c := resend.NewCustomClient(&http.Client{Timeout: 15 * time.Second}, apiKey)
	c.BaseURL = u
	return &Resend{client: c, from: from}, nil
}

func (*Resend) Name() string { return "resend" }

// Deliver sends m with its text and HTML parts and returns Resend's id.
func (r *Resend) Deliver(ctx context.Context, m Message) (string, error) {
	res, err := r.client.Emails.SendWithContext(ctx, &resend.SendEmailRequest{
		From: r.from, To: []string{m.To}, Subject: m.Subject, Text: m.Text, Html: m.HTML,
		Tags: []resend.Tag{{Name: "template", Value: tagValue(m.Template)}},
	})
	if err != nil {
		return "", fmt.Errorf("resend: %w", err)
	}
	if res.Id == "" {
		return "", fmt.Errorf("resend: the answer carries no id")
	}
	return res.Id, nil
}

// tagValue keeps what Resend accepts in a tag: ASCII letters, digits, _ and -.
func tagValue(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, s)
}
