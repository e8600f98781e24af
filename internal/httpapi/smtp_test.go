package httpapi_test

import (
	"context"
	"io"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/emersion/go-smtp"

	"studio/internal/app"
	"studio/internal/apptest"
)

// capture is an in-process SMTP server that keeps every letter it receives.
type capture struct {
	mu      sync.Mutex
	letters []letter
}

type letter struct {
	from string
	to   []string
	data string
}

func (c *capture) NewSession(*smtp.Conn) (smtp.Session, error) { return &captureSession{c: c}, nil }

type captureSession struct {
	c   *capture
	cur letter
}

func (s *captureSession) Reset()        { s.cur = letter{} }
func (s *captureSession) Logout() error { return nil }
func (s *captureSession) Mail(from string, _ *smtp.MailOptions) error {
	s.cur.from = from
	return nil
}
func (s *captureSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.cur.to = append(s.cur.to, to)
	return nil
}
func (s *captureSession) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s.cur.data = string(b)
	s.c.mu.Lock()
	s.c.letters = append(s.c.letters, s.cur)
	s.c.mu.Unlock()
	return nil
}

func startSMTP(t *testing.T) (*capture, string) {
	t.Helper()
	c := &capture{}
	srv := smtp.NewServer(c)
	srv.Domain = "localhost"
	srv.AllowInsecureAuth = true
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return c, ln.Addr().String()
}

// TestSignUpMailsOverSMTP: with SMTP_URL set, the verification letter of a
// sign-up goes to the SMTP server, is logged as sent, and its link verifies
// the address.
func TestSignUpMailsOverSMTP(t *testing.T) {
	box, addr := startSMTP(t)
	a := apptest.New(t, apptest.SQLite(t), func(c *app.Config) {
		c.SMTPURL = "smtp://" + addr + "?from=studio@example.com"
	})
	u := a.SignUp(t, "mailed")
	box.mu.Lock()
	letters := append([]letter(nil), box.letters...)
	box.mu.Unlock()
	if len(letters) != 1 || letters[0].from != "studio@example.com" || len(letters[0].to) != 1 || letters[0].to[0] != u.Email {
		t.Fatalf("letters = %+v; want one from studio@example.com to %s", letters, u.Email)
	}
	body := strings.ReplaceAll(letters[0].data, "=\r\n", "")
	if !strings.Contains(body, "Subject: Confirm your e-mail address") || !strings.Contains(body, "/api/auth/verify-email?token=") {
		t.Errorf("letter lacks the subject or the link:\n%s", body)
	}
	logged, err := a.DB.Emails(context.Background(), u.Email)
	if err != nil || len(logged) != 1 || logged[0].Status != "sent" {
		t.Fatalf("e-mail log = %+v %v; want one sent row", logged, err)
	}
	res := a.Do(t, "GET", "/api/auth/verify-email?token="+verificationToken(t, a, u.Email), apptest.Anonymous, nil)
	if res.Status != 200 {
		t.Errorf("verify through the mailed link: %d %s", res.Status, res.Body)
	}
}

// TestSignUpWhenSMTPIsDown: a letter that cannot be delivered is logged as
// failed; the account, already written, is signed in as usual.
func TestSignUpWhenSMTPIsDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	a := apptest.New(t, apptest.SQLite(t), func(c *app.Config) { c.SMTPURL = "smtp://" + addr })
	res := a.Do(t, "POST", "/api/auth/sign-up/email", apptest.Anonymous, map[string]string{"name": "X", "email": "down@example.com", "password": "long enough pw"})
	if res.Status != 200 {
		t.Fatalf("sign-up with SMTP down: %d %s; want the account signed in", res.Status, res.Body)
	}
	logged, _ := a.DB.Emails(context.Background(), "down@example.com")
	if len(logged) != 1 || logged[0].Status != "failed" {
		t.Errorf("e-mail log = %+v; want one failed row", logged)
	}
}

// TestShareLettersOverSMTP: with SMTP_URL set, the link letter reaches the
// recipient (emailed "sent") and the finish letter the minting member, each
// with a plain and an HTML part.
func TestShareLettersOverSMTP(t *testing.T) {
	box, addr := startSMTP(t)
	a := apptest.New(t, apptest.SQLite(t), func(c *app.Config) {
		c.SMTPURL = "smtp://" + addr + "?from=studio@example.com"
	})
	u := a.SignUp(t, "director")
	c := mintShare(t, a, u.Session(), map[string]any{"assetIds": []string{assetID(t, a, u)}, "email": "buyer@example.com",
		"recipientLabel": "Buyer <b>"}, 200)
	if c.Emailed != "sent" {
		t.Errorf("emailed %q; want sent", c.Emailed)
	}
	markFrame(t, a, c.Token, map[string]any{"i": 0, "verdict": "keep", "note": "Use this one"})
	a.Do(t, "POST", "/api/share/"+c.Token+"/finish", apptest.Anonymous, nil)
	box.mu.Lock()
	letters := append([]letter(nil), box.letters...)
	box.mu.Unlock()
	if len(letters) != 3 || letters[1].to[0] != "buyer@example.com" || letters[2].to[0] != u.Email {
		t.Fatalf("letters to %+v; want the verification, the link and the finish letter", letters)
	}
	for _, l := range letters[1:] {
		body := strings.ReplaceAll(l.data, "=\r\n", "")
		if !strings.Contains(body, "multipart/alternative") || !strings.Contains(body, "text/plain") || !strings.Contains(body, "text/html") {
			t.Errorf("letter to %s has not both parts:\n%s", l.to[0], body)
		}
		if strings.Contains(body, "Buyer <b>") && strings.Contains(body, "text/html") && !strings.Contains(body, "Buyer &lt;b&gt;") {
			t.Errorf("the HTML part does not escape the label:\n%s", body)
		}
	}
	if !strings.Contains(strings.ReplaceAll(letters[1].data, "=\r\n", ""), c.URL) {
		t.Errorf("the link letter lacks the link")
	}
}
