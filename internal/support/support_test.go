package support_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"studio/internal/errs"
	"studio/internal/support"
)

func code(err error) string {
	if e, ok := errs.As(err); ok {
		return e.Code
	}
	return ""
}

// linkParts splits a screenshot link into what Verify takes.
func linkParts(t *testing.T, url string) (id, o, e, s string) {
	t.Helper()
	rest, ok := strings.CutPrefix(url, "https://studio.example/api/toolkit/support/screenshots/")
	if !ok {
		t.Fatalf("link %q is not under the public URL's screenshot route", url)
	}
	id, query, _ := strings.Cut(rest, "?")
	v := map[string]string{}
	for kv := range strings.SplitSeq(query, "&") {
		k, val, _ := strings.Cut(kv, "=")
		v[k] = val
	}
	return id, v["o"], v["e"], v["s"]
}

// TestShotLinks: a screenshot link works for a day, for its screenshot and
// house only; any change to it, or its expiry passed, is BAD_LINK.
func TestShotLinks(t *testing.T) {
	desk := support.NewService(nil, support.Options{LinkSecret: []byte("link-secret"), PublicURL: "https://studio.example/"})
	now := time.Now()
	shot := support.Shot{ID: uuid.Must(uuid.NewV7()).String(), House: uuid.Must(uuid.NewV7()).String()}
	link := desk.Link(shot, now)
	if got := link.ExpiresAt.Sub(now); got < support.ShotLifetime-time.Second || got > support.ShotLifetime {
		t.Errorf("the link lives %v; want %v", got, support.ShotLifetime)
	}
	id, o, e, s := linkParts(t, link.URL)
	if id != shot.ID || o != shot.House || e != strconv.FormatInt(link.ExpiresAt.Unix(), 10) {
		t.Fatalf("link %q names %s %s %s", link.URL, id, o, e)
	}
	if err := desk.Verify(id, o, e, s, now.Add(support.ShotLifetime-time.Second)); err != nil {
		t.Fatalf("a fresh link: %v", err)
	}
	other := support.NewService(nil, support.Options{LinkSecret: []byte("another secret")})
	later, _ := strconv.ParseInt(e, 10, 64)
	for name, tc := range map[string]struct {
		desk        *support.Service
		id, o, e, s string
		at          time.Time
	}{
		"expired":             {desk, id, o, e, s, now.Add(support.ShotLifetime + time.Second)},
		"tampered":            {desk, id, o, e, "x" + s, now},
		"no signature":        {desk, id, o, e, "", now},
		"another house":       {desk, id, uuid.Must(uuid.NewV7()).String(), e, s, now},
		"no house":            {desk, id, "", e, s, now},
		"another screenshot":  {desk, uuid.Must(uuid.NewV7()).String(), o, e, s, now},
		"expiry pushed later": {desk, id, o, strconv.FormatInt(later+3600, 10), s, now},
		"expiry not a number": {desk, id, o, "tomorrow", s, now},
		"another key":         {other, id, o, e, s, now},
	} {
		err := tc.desk.Verify(tc.id, tc.o, tc.e, tc.s, tc.at)
		if code(err) != "BAD_LINK" {
			t.Errorf("%s: %v; want BAD_LINK", name, err)
		}
	}
}

func ptr[T any](v T) *T { return &v }

// TestTicketRequest: a ticket needs a subject of 3 characters and a body of
// 20 (trimmed), a legal topic, a rating from 1 to 5 and at most 5
// screenshots.
func TestTicketRequest(t *testing.T) {
	body := "My develop has been queued for an hour now."
	for name, tc := range map[string]struct {
		in   support.TicketRequest
		code string
	}{
		"whole":             {support.TicketRequest{Subject: ptr("Frames stuck"), Body: ptr(body), Topic: "develop", Rating: ptr(2)}, ""},
		"no subject":        {support.TicketRequest{Body: ptr(body)}, "SUPPORT_DETAIL_NEEDED"},
		"no body":           {support.TicketRequest{Subject: ptr("Help")}, "SUPPORT_DETAIL_NEEDED"},
		"a short subject":   {support.TicketRequest{Subject: ptr("  Hi  "), Body: ptr(body)}, "SUPPORT_DETAIL_NEEDED"},
		"a body too short":  {support.TicketRequest{Subject: ptr("Help"), Body: ptr("Broken.")}, "SUPPORT_DETAIL_NEEDED"},
		"spaces pad a body": {support.TicketRequest{Subject: ptr("Help"), Body: ptr("   Broken.           ")}, "SUPPORT_DETAIL_NEEDED"},
		"a bad topic":       {support.TicketRequest{Subject: ptr("Help"), Body: ptr(body), Topic: "gossip"}, "BAD_BODY"},
		"rating 0":          {support.TicketRequest{Subject: ptr("Help"), Body: ptr(body), Rating: ptr(0)}, "BAD_BODY"},
		"rating 6":          {support.TicketRequest{Subject: ptr("Help"), Body: ptr(body), Rating: ptr(6)}, "BAD_BODY"},
		"six screenshots":   {support.TicketRequest{Subject: ptr("Help"), Body: ptr(body), Screenshots: make([]string, 6)}, "BAD_BODY"},
	} {
		in := tc.in
		if got := code(in.Validate()); got != tc.code {
			t.Errorf("%s: %q; want %q", name, got, tc.code)
		}
		if tc.code == "" && (*in.Subject != strings.TrimSpace(*tc.in.Subject) || *in.Body != strings.TrimSpace(*tc.in.Body)) {
			t.Errorf("%s: subject and body are kept trimmed: %q %q", name, *in.Subject, *in.Body)
		}
	}
}

// TestEscalations: the bridge's secret is compared whole (unset, every
// escalation is 503); a reason must be one of the legal ones, the session
// named, an organization a UUID, a transcript at most 200 lines.
func TestEscalations(t *testing.T) {
	on := support.NewService(nil, support.Options{BridgeSecret: "bridge-secret"})
	off := support.NewService(nil, support.Options{})
	for name, tc := range map[string]struct {
		desk *support.Service
		got  string
		code string
	}{
		"the secret":     {on, "bridge-secret", ""},
		"a wrong case":   {on, "bridge-secreT", "UNAUTHORIZED"},
		"a prefix":       {on, "bridge-secre", "UNAUTHORIZED"},
		"longer":         {on, "bridge-secret!", "UNAUTHORIZED"},
		"none":           {on, "", "UNAUTHORIZED"},
		"bridge off":     {off, "bridge-secret", "SUPPORT_BRIDGE_NOT_CONFIGURED"},
		"off, none sent": {off, "", "SUPPORT_BRIDGE_NOT_CONFIGURED"},
	} {
		if got := code(tc.desk.CheckBridge(tc.got)); got != tc.code {
			t.Errorf("CheckBridge %s: %q; want %q", name, got, tc.code)
		}
	}
	for name, tc := range map[string]struct {
		in   support.EscalationRequest
		code string
	}{
		"whole":             {support.EscalationRequest{Reason: "turn_limit", SessionID: "bridge-42", OrganizationID: uuid.Must(uuid.NewV7()).String()}, ""},
		"no house":          {support.EscalationRequest{Reason: "ai_down", SessionID: "anon"}, ""},
		"a bad reason":      {support.EscalationRequest{Reason: "bored", SessionID: "s"}, "BAD_REASON"},
		"no session":        {support.EscalationRequest{Reason: "handoff"}, "BAD_BODY"},
		"a blank session":   {support.EscalationRequest{Reason: "handoff", SessionID: "   "}, "BAD_BODY"},
		"a house not uuid":  {support.EscalationRequest{Reason: "handoff", SessionID: "s", OrganizationID: "house-1"}, "BAD_BODY"},
		"a long transcript": {support.EscalationRequest{Reason: "handoff", SessionID: "s", Transcript: make([]map[string]any, 201)}, "BAD_BODY"},
	} {
		in := tc.in
		if got := code(in.Validate()); got != tc.code {
			t.Errorf("escalation %s: %q; want %q", name, got, tc.code)
		}
	}
}
