package letters_test

import (
	"strings"
	"testing"

	"studio/internal/errs"
	"studio/internal/letters"
)

// TestDripRequest: a drip letter names a legal template, a bare address
// (no display name) and a key of 1 to 200 characters, each trimmed.
func TestDripRequest(t *testing.T) {
	for name, tc := range map[string]struct {
		in    letters.DripRequest
		valid bool
	}{
		"whole":             {letters.DripRequest{Template: "look-waiting", Email: " grace@example.com ", DedupeKey: " look-1 ", Name: "Grace"}, true},
		"each template":     {letters.DripRequest{Template: "develop-interrupted", Email: "g@example.com", DedupeKey: "k"}, true},
		"a bad template":    {letters.DripRequest{Template: "x", Email: "g@example.com", DedupeKey: "k"}, false},
		"a display name":    {letters.DripRequest{Template: "drip-day3", Email: "Grace <g@example.com>", DedupeKey: "k"}, false},
		"not an address":    {letters.DripRequest{Template: "drip-day3", Email: "grace", DedupeKey: "k"}, false},
		"no key":            {letters.DripRequest{Template: "drip-day3", Email: "g@example.com"}, false},
		"a blank key":       {letters.DripRequest{Template: "drip-day3", Email: "g@example.com", DedupeKey: "   "}, false},
		"a key too long":    {letters.DripRequest{Template: "drip-day3", Email: "g@example.com", DedupeKey: strings.Repeat("k", 201)}, false},
		"as long as it may": {letters.DripRequest{Template: "drip-day3", Email: "g@example.com", DedupeKey: strings.Repeat("k", 200)}, true},
	} {
		in := tc.in
		err := in.Validate()
		if e, ok := errs.As(err); tc.valid != (err == nil) || !tc.valid && (!ok || e.Code != "BAD_REQUEST") {
			t.Errorf("%s: %v; want valid %v (else BAD_REQUEST)", name, err, tc.valid)
		}
		if tc.valid && (in.Email != strings.TrimSpace(tc.in.Email) || in.DedupeKey != strings.TrimSpace(tc.in.DedupeKey)) {
			t.Errorf("%s: kept %q %q; want them trimmed", name, in.Email, in.DedupeKey)
		}
	}
}

// TestRender: every template has a subject, a text and an HTML part that
// greet by name (or without one) and link into the web app.
func TestRender(t *testing.T) {
	for _, tmpl := range letters.Templates {
		for _, name := range []string{"Grace", ""} {
			m, err := letters.Render(tmpl, "grace@example.com", name, "https://app.example")
			if err != nil {
				t.Fatalf("%s: %v", tmpl, err)
			}
			hello := "Hello,"
			if name != "" {
				hello = "Hello " + name + ","
			}
			if m.To != "grace@example.com" || m.Template != tmpl || m.Subject == "" || !strings.HasPrefix(m.Text, hello) ||
				!strings.Contains(m.HTML, "<p>"+hello+"</p>") || !strings.Contains(m.Text, "https://app.example/") ||
				!strings.Contains(m.HTML, `href="https://app.example/`) {
				t.Errorf("%s, name %q: %+v", tmpl, name, m)
			}
		}
	}
	if _, err := letters.Render("x", "grace@example.com", "", "https://app.example"); err == nil {
		t.Error("an unknown template rendered")
	}
	m, err := letters.Render("drip-day3", "grace@example.com", "<b>Grace</b>", "https://app.example")
	if err != nil || strings.Contains(m.HTML, "<b>Grace</b>") {
		t.Errorf("a name is escaped in the HTML part: %v %q", err, m.HTML)
	}
}
