package invite

import (
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseCode(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"SPRING-7K3M9Q", "SPRING-7K3M9Q", true},
		{"  spring-7k3m9q ", "SPRING-7K3M9Q", true},
		{"SPRING-OIL0IL", "SPRING-011011", true}, // Crockford: O is 0, I and L are 1
		{"SS-27-ABCDEF", "SS-27-ABCDEF", true},   // inner dashes in the label
		{"SPRING-7K3M9", "", false},              // five characters
		{"SPRING-7K3M9QQ", "", false},            // seven
		{"SPRING-7K3M9U", "", false},             // U is not in the alphabet
		{"-7K3M9Q", "", false},                   // no label
		{"SPR ING-7K3M9Q", "", false},
		{"SPRING7K3M9Q", "", false},
		{strings.Repeat("A", 25) + "-7K3M9Q", "", false},
		{"ÉTÉ-7K3M9Q", "", false},
	} {
		got, ok := ParseCode(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ParseCode(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
	for range 100 {
		c := NewCode("FRIEND")
		if got, ok := ParseCode(c); !ok || got != c {
			t.Fatalf("a minted code %q reads as %q, %v", c, got, ok)
		}
	}
}

func FuzzParseCode(f *testing.F) {
	for _, s := range []string{"SPRING-7K3M9Q", "a-b", "", "--------", "X-OOOOOO"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := ParseCode(s)
		if !ok {
			return
		}
		// What reads as a code is a code in its canonical form, and reads as itself.
		again, ok2 := ParseCode(got)
		if !ok2 || again != got || got != strings.ToUpper(got) || len(got) > MaxLabel+7 {
			t.Fatalf("ParseCode(%q) = %q; reading it again gives %q, %v", s, got, again, ok2)
		}
	})
}

func TestDisposable(t *testing.T) {
	for email, want := range map[string]bool{
		"a@mailinator.com": true, "a@eu.yopmail.com": true, "a@maison.test": false, "a@notmailinator.com": false, "a@com": false,
	} {
		if got := Disposable(email); got != want {
			t.Errorf("Disposable(%q) = %v", email, got)
		}
	}
}

func TestReferralLabel(t *testing.T) {
	for name, want := range map[string]string{"Ada Lovelace": "ADA", "Céline": "CLINE", "李": "FRIEND", "  x9 y": "X9",
		"Bartholomew-Alexander": "BARTHOLOMEWA"} {
		if got := referralLabel(name); got != want || !ValidLabel(got) {
			t.Errorf("referralLabel(%q) = %q; want %q", name, got, want)
		}
	}
}

func TestReadHead(t *testing.T) {
	base, _ := url.Parse("https://maison.test/a/page")
	for _, tc := range []struct {
		name, html string
		want       head
	}{
		{"og wins", `<head><title>T</title><meta property="og:title" content="OG"><meta name="description" content="D">
			<meta property="og:image" content="img.jpg"><link rel="icon" href="//cdn.test/i.png"></head>`,
			head{"OG", "D", "https://maison.test/a/img.jpg", "https://cdn.test/i.png"}},
		{"title alone", `<title>  A   page </title>`, head{title: "A page"}},
		{"base href", `<base href="https://other.test/x/"><meta property="og:image" content="y.png">`,
			head{image: "https://other.test/x/y.png"}},
		{"no script urls", `<meta property="og:image" content="javascript:alert(1)"><link rel="icon" href="data:image/png;base64,AA">`, head{}},
		{"stops at body", `<title>T</title><body><meta property="og:title" content="late">`, head{title: "T"}},
		{"apple icon", `<link rel="apple-touch-icon" href="/a.png">`, head{icon: "https://maison.test/a.png"}},
	} {
		if got := readHead([]byte(tc.html), base); got != tc.want {
			t.Errorf("%s: %+v; want %+v", tc.name, got, tc.want)
		}
	}
	long := readHead([]byte("<title>"+strings.Repeat("é", 300)+"</title>"), base)
	if utf8.RuneCountInString(long.title) != 200 {
		t.Errorf("a long title is %d runes; want 200", utf8.RuneCountInString(long.title))
	}
}

func FuzzReadHead(f *testing.F) {
	f.Add([]byte(`<head><title>T</title><meta property="og:image" content="/x.png"></head>`))
	f.Add([]byte("<title>\xff\xfe</title><link rel=icon href=::>"))
	base, _ := url.Parse("https://maison.test/")
	f.Fuzz(func(t *testing.T, b []byte) {
		h := readHead(b, base)
		for _, s := range []string{h.title, h.description, h.image, h.icon} {
			if !utf8.ValidString(s) {
				t.Fatalf("invalid UTF-8 in %+v", h)
			}
		}
		for _, u := range []string{h.image, h.icon} {
			if u != "" && !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
				t.Fatalf("a non-web URL %q", u)
			}
		}
	})
}
