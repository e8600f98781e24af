package sign

import (
	"encoding/base64"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

// The Standard Webhooks test vector (spec/standard-webhooks.md's reference
// libraries: libraries/go/webhook_test.go TestWebhookSign and its twins in
// every other language).
const (
	vectorSecret    = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	vectorID        = "msg_p5jXN8AQM9LWM0D4loKWxJek"
	vectorTimestamp = 1614265330
	vectorBody      = `{"test": 2432232314}`
	vectorSignature = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
)

func vectorKey(t *testing.T) Key {
	k, err := ParseSecret(vectorSecret)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestSpecVector(t *testing.T) {
	k := vectorKey(t)
	at := time.Unix(vectorTimestamp, 0)
	if got := k.Sign(vectorID, at, []byte(vectorBody)); got != vectorSignature {
		t.Fatalf("Sign = %s; want %s", got, vectorSignature)
	}
	h := http.Header{}
	h.Set("webhook-id", vectorID)
	h.Set("webhook-timestamp", strconv.Itoa(vectorTimestamp))
	h.Set("webhook-signature", "v1,bm9wZQ== v1a,abc "+vectorSignature)
	if id, err := k.Verify(h, []byte(vectorBody), at.Add(time.Minute)); err != nil || id != vectorID {
		t.Errorf("Verify = %q, %v", id, err)
	}
	// The prefix is optional, as in the reference libraries.
	if k2, err := ParseSecret(strings.TrimPrefix(vectorSecret, SecretPrefix)); err != nil || k2.Sign(vectorID, at, []byte(vectorBody)) != vectorSignature {
		t.Errorf("unprefixed secret: %v", err)
	}
}

// TestOfficialLibrary cross-checks against the official Go library in both
// directions: it verifies what we sign, and we verify what it signs.
func TestOfficialLibrary(t *testing.T) {
	secret := NewSecret()
	k, err := ParseSecret(secret)
	if err != nil {
		t.Fatal(err)
	}
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	body := []byte(`{"type":"develop.done","timestamp":"2026-11-22T07:20:49.123Z","data":{"id":"x"}}`)
	now := time.Now()
	if err := wh.Verify(body, k.Headers("msg_01", now, body)); err != nil {
		t.Errorf("official Verify of our signature: %v", err)
	}
	theirs, err := wh.Sign("msg_02", now, body)
	if err != nil {
		t.Fatal(err)
	}
	if theirs != k.Sign("msg_02", now, body) {
		t.Errorf("signatures differ: %s vs %s", theirs, k.Sign("msg_02", now, body))
	}
	h := http.Header{}
	h.Set(standardwebhooks.HeaderWebhookID, "msg_02")
	h.Set(standardwebhooks.HeaderWebhookTimestamp, strconv.FormatInt(now.Unix(), 10))
	h.Set(standardwebhooks.HeaderWebhookSignature, theirs)
	if _, err := k.Verify(h, body, now); err != nil {
		t.Errorf("our Verify of the official signature: %v", err)
	}
	// A tampered body fails for both.
	if err := wh.Verify(append(body, ' '), k.Headers("msg_01", now, body)); err == nil {
		t.Error("official Verify accepted a tampered body")
	}
}

func TestVerify(t *testing.T) {
	k := vectorKey(t)
	other, _ := ParseSecret(NewSecret())
	body := []byte(vectorBody)
	at := time.Unix(vectorTimestamp, 0)
	headers := func(kv ...string) http.Header {
		h := http.Header{}
		for i := 0; i+1 < len(kv); i += 2 {
			h.Set(kv[i], kv[i+1])
		}
		return h
	}
	ts := strconv.Itoa(vectorTimestamp)
	for _, tt := range []struct {
		name string
		h    http.Header
		body string
		now  time.Time
		want error
	}{
		{"valid", k.Headers(vectorID, at, body), vectorBody, at, nil},
		{"svix headers", headers("svix-id", vectorID, "svix-timestamp", ts, "svix-signature", vectorSignature), vectorBody, at, nil},
		{"several signatures, ours last", headers(HeaderID, vectorID, HeaderTimestamp, ts, HeaderSignature, other.Sign(vectorID, at, body)+"  "+vectorSignature), vectorBody, at, nil},
		{"rotated secret only", other.Headers(vectorID, at, body), vectorBody, at, ErrNoMatch},
		{"tampered body", k.Headers(vectorID, at, body), vectorBody + " ", at, ErrNoMatch},
		{"other id", headers(HeaderID, "msg_other", HeaderTimestamp, ts, HeaderSignature, vectorSignature), vectorBody, at, ErrNoMatch},
		{"other timestamp", headers(HeaderID, vectorID, HeaderTimestamp, strconv.Itoa(vectorTimestamp+1), HeaderSignature, vectorSignature), vectorBody, at, ErrNoMatch},
		{"v2 prefix", headers(HeaderID, vectorID, HeaderTimestamp, ts, HeaderSignature, "v2,"+vectorSignature[3:]), vectorBody, at, ErrNoMatch},
		{"partial signature", headers(HeaderID, vectorID, HeaderTimestamp, ts, HeaderSignature, "v1,"), vectorBody, at, ErrNoMatch},
		{"five minutes old", k.Headers(vectorID, at, body), vectorBody, at.Add(Tolerance), nil},
		{"five minutes ahead", k.Headers(vectorID, at, body), vectorBody, at.Add(-Tolerance), nil},
		{"too old", k.Headers(vectorID, at, body), vectorBody, at.Add(Tolerance + time.Second), ErrTooOld},
		{"too new", k.Headers(vectorID, at, body), vectorBody, at.Add(-Tolerance - time.Second), ErrTooNew},
		{"no headers", http.Header{}, vectorBody, at, ErrMissingHeaders},
		{"no id", headers(HeaderTimestamp, ts, HeaderSignature, vectorSignature), vectorBody, at, ErrMissingHeaders},
		{"mixed sets", headers(HeaderID, vectorID, "svix-timestamp", ts, "svix-signature", vectorSignature), vectorBody, at, ErrMissingHeaders},
		{"float timestamp", headers(HeaderID, vectorID, HeaderTimestamp, ts+".5", HeaderSignature, vectorSignature), vectorBody, at, ErrBadTimestamp},
		{"signed timestamp", headers(HeaderID, vectorID, HeaderTimestamp, "+"+ts, HeaderSignature, vectorSignature), vectorBody, at, ErrBadTimestamp},
	} {
		_, err := k.Verify(tt.h, []byte(tt.body), tt.now)
		if !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
			t.Errorf("%s: got %v; want %v", tt.name, err, tt.want)
		}
	}
}

func TestSecrets(t *testing.T) {
	s := NewSecret()
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(s, SecretPrefix))
	if !strings.HasPrefix(s, SecretPrefix) || err != nil || len(key) != 32 {
		t.Errorf("NewSecret = %q", s)
	}
	if s == NewSecret() {
		t.Error("two secrets alike")
	}
	for _, bad := range []string{"", SecretPrefix, "whsec_not base64!"} {
		if _, err := ParseSecret(bad); !errors.Is(err, ErrBadSecret) {
			t.Errorf("ParseSecret(%q) = %v", bad, err)
		}
	}
	raw := RawKey([]byte("polar-style-plain-secret"))
	at := time.Unix(vectorTimestamp, 0)
	wh, _ := standardwebhooks.NewWebhookRaw([]byte("polar-style-plain-secret"))
	if theirs, _ := wh.Sign(vectorID, at, []byte(vectorBody)); theirs != raw.Sign(vectorID, at, []byte(vectorBody)) {
		t.Error("raw keys disagree with the official library")
	}
}

// FuzzParseSignatures: any header value parses without panic into 32-byte
// MACs, and a value that holds our signature among junk still verifies.
func FuzzParseSignatures(f *testing.F) {
	for _, s := range []string{vectorSignature, "v1,bm9wZQ== " + vectorSignature, "v1a,x v1,", "", " ", "v1,,,", "v1," + strings.Repeat("A", 44)} {
		f.Add(s)
	}
	k := RawKey([]byte("fuzz"))
	at := time.Unix(vectorTimestamp, 0)
	body := []byte(vectorBody)
	good := k.Sign(vectorID, at, body)
	f.Fuzz(func(t *testing.T, v string) {
		for _, mac := range ParseSignatures(v) {
			if len(mac) != 32 {
				t.Fatalf("%q gave a %d-byte MAC", v, len(mac))
			}
		}
		h := http.Header{}
		h.Set(HeaderID, vectorID)
		h.Set(HeaderTimestamp, strconv.Itoa(vectorTimestamp))
		h.Set(HeaderSignature, good+" "+v)
		if _, err := k.Verify(h, body, at); err != nil {
			t.Fatalf("our signature before %q: %v", v, err)
		}
		h.Set(HeaderSignature, v)
		if _, err := k.Verify(h, body, at); err == nil && !strings.Contains(v, good[3:]) {
			t.Fatalf("%q verified without our MAC", v)
		}
	})
}
