package ledger

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"studio/internal/errs"
)

// FuzzGrantRequest decodes arbitrary bodies as the grant route does and
// validates them: nothing panics, a refusal is one of the route's codes, and
// an accepted request is within every bound (a user, 1 to 100000 whole
// tokens, an expiry of 1 to 3650 days or none, a reason of at most 500
// characters). Count.Int agrees with strconv on integer literals.
//
//	go test -run=^$ -fuzz=FuzzGrantRequest ./internal/ledger
func FuzzGrantRequest(f *testing.F) {
	for _, seed := range []string{
		`{"userId":"u","tokens":5}`,
		`{"userId":"u","tokens":100000,"expiryDays":3650,"reason":"r"}`,
		`{"userId":"u","tokens":100001}`,
		`{"userId":" ","tokens":5}`,
		`{"userId":"u","tokens":"5"}`,
		`{"userId":"u","tokens":1.5}`,
		`{"userId":"u","tokens":1e3}`,
		`{"userId":"u","tokens":-0}`,
		`{"userId":"u","tokens":null,"expiryDays":null}`,
		`{"userId":"u","tokens":9223372036854775808}`,
		`{"userId":"u","tokens":5,"expiryDays":0}`,
		`{"userId":"u","tokens":5,"reason":"` + strings.Repeat("x", 501) + `"}`,
		`{}`, `[]`, `null`, `"x"`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var r GrantRequest
		if json.Unmarshal(body, &r) != nil {
			return // decode answers BAD_JSON or BAD_BODY before Validate runs
		}
		raw := append([]byte(nil), r.Tokens.raw...)
		err := r.Validate()
		if err != nil {
			e, ok := errs.As(err)
			if !ok {
				t.Fatalf("%s: not an *errs.Error: %v", body, err)
			}
			switch e.Code {
			case "USER_REQUIRED", "BAD_BODY":
			case "BAD_TOKENS":
				if e.Fields["max"] != MaxGrant {
					t.Fatalf("%s: BAD_TOKENS without max", body)
				}
			default:
				t.Fatalf("%s: code %s", body, e.Code)
			}
		} else {
			if r.UserID == "" || r.UserID != strings.TrimSpace(r.UserID) {
				t.Fatalf("%s: accepted user %q", body, r.UserID)
			}
			if r.tokens < 1 || r.tokens > MaxGrant {
				t.Fatalf("%s: accepted %d tokens", body, r.tokens)
			}
			if r.ExpiryDays != nil && (*r.ExpiryDays < 1 || *r.ExpiryDays > MaxExpiryDays) {
				t.Fatalf("%s: accepted expiryDays %d", body, *r.ExpiryDays)
			}
			if !utf8.ValidString(r.Reason) || utf8.RuneCountInString(r.Reason) > MaxReason {
				t.Fatalf("%s: accepted a reason of %d runes", body, utf8.RuneCountInString(r.Reason))
			}
		}
		// Count.Int reads exactly the JSON integer literals that fit an int64.
		n, ok := r.Tokens.Int()
		lit := strings.TrimSpace(string(raw))
		want, perr := strconv.ParseInt(lit, 10, 64)
		literal := perr == nil && !strings.HasPrefix(lit, "+") && json.Valid([]byte(lit))
		if ok != literal || (ok && n != want) {
			t.Fatalf("Int(%q) = %d, %v; strconv says %d, %v", lit, n, ok, want, perr)
		}
	})
}
