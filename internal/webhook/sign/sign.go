// Package sign signs and verifies Standard Webhooks
// (https://www.standardwebhooks.com, spec/standard-webhooks.md): the HMAC-SHA256
// of "id.timestamp.body", keyed with the endpoint secret and sent as
// "v1,<base64>" in webhook-signature beside webhook-id and
// webhook-timestamp. Outbound deliveries are signed here, and the inbound
// routes (payment and e-mail providers) verify here; Svix-branded senders
// (Resend) use the same scheme under svix-id, svix-timestamp and
// svix-signature, which Verify accepts too.
package sign

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// SecretPrefix marks a serialised secret: "whsec_" + base64 of the key.
const SecretPrefix = "whsec_"

// Tolerance is how far a timestamp may be from now, either way.
const Tolerance = 5 * time.Minute

// Header names. Verify falls back to the svix- forms when the webhook-
// set is absent.
const (
	HeaderID        = "webhook-id"
	HeaderTimestamp = "webhook-timestamp"
	HeaderSignature = "webhook-signature"
)

var (
	ErrBadSecret      = errors.New("sign: the secret is not whsec_ + base64 of a non-empty key")
	ErrMissingHeaders = errors.New("sign: webhook-id, webhook-timestamp or webhook-signature is missing")
	ErrBadTimestamp   = errors.New("sign: webhook-timestamp is not a whole number of seconds")
	ErrTooOld         = errors.New("sign: the message is older than the tolerance")
	ErrTooNew         = errors.New("sign: the message is dated beyond the tolerance")
	ErrNoMatch        = errors.New("sign: no signature matches")
)

// NewSecret returns a fresh secret: "whsec_" + base64 of 32 random bytes.
func NewSecret() string {
	key := make([]byte, 32)
	_, _ = rand.Read(key) // never fails (crypto/rand)
	return SecretPrefix + base64.StdEncoding.EncodeToString(key)
}

// Key signs and verifies with one secret.
type Key struct{ key []byte }

// ParseSecret reads "whsec_<base64>" (the prefix is optional, as in the
// reference libraries).
func ParseSecret(secret string) (Key, error) {
	k, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, SecretPrefix))
	if err != nil || len(k) == 0 {
		return Key{}, ErrBadSecret
	}
	return Key{k}, nil
}

// RawKey keys with bytes as given, for providers whose secret is not
// base64 (Polar hands out a plain string that its SDK uses as the key).
func RawKey(key []byte) Key { return Key{key} }

// mac is the raw HMAC of "id.timestamp.body".
func (k Key) mac(id string, ts int64, body []byte) []byte {
	h := hmac.New(sha256.New, k.key)
	h.Write([]byte(id))
	h.Write([]byte{'.'})
	h.Write(strconv.AppendInt(nil, ts, 10))
	h.Write([]byte{'.'})
	h.Write(body)
	return h.Sum(nil)
}

// Sign returns the signature header value "v1,<base64>".
func (k Key) Sign(id string, ts time.Time, body []byte) string {
	return "v1," + base64.StdEncoding.EncodeToString(k.mac(id, ts.Unix(), body))
}

// Headers returns the three headers of a signed delivery.
func (k Key) Headers(id string, ts time.Time, body []byte) http.Header {
	h := http.Header{}
	h.Set(HeaderID, id)
	h.Set(HeaderTimestamp, strconv.FormatInt(ts.Unix(), 10))
	h.Set(HeaderSignature, k.Sign(id, ts, body))
	return h
}

// Verify checks a delivery's headers against body at now: the timestamp
// within Tolerance, and one of the space-separated v1 signatures equal (in
// constant time) to ours. It returns the message id, the key for
// de-duplication.
func (k Key) Verify(h http.Header, body []byte, now time.Time) (string, error) {
	id, tsText, sigs := h.Get(HeaderID), h.Get(HeaderTimestamp), h.Get(HeaderSignature)
	if id == "" && tsText == "" && sigs == "" {
		id, tsText, sigs = h.Get("svix-id"), h.Get("svix-timestamp"), h.Get("svix-signature")
	}
	if id == "" || tsText == "" || sigs == "" {
		return "", ErrMissingHeaders
	}
	ts, err := ParseTimestamp(tsText)
	if err != nil {
		return "", err
	}
	switch d := now.Sub(time.Unix(ts, 0)); {
	case d > Tolerance:
		return "", ErrTooOld
	case d < -Tolerance:
		return "", ErrTooNew
	}
	want := k.mac(id, ts, body)
	for _, got := range ParseSignatures(sigs) {
		if hmac.Equal(got, want) {
			return id, nil
		}
	}
	return "", ErrNoMatch
}

// ParseTimestamp reads webhook-timestamp: decimal digits only, seconds
// since the Unix epoch.
func ParseTimestamp(s string) (int64, error) {
	if s == "" || len(s) > 12 || strings.TrimLeft(s, "0123456789") != "" {
		return 0, ErrBadTimestamp
	}
	return strconv.ParseInt(s, 10, 64)
}

// ParseSignatures returns the decoded v1 MACs of a webhook-signature
// value; entries of other versions (v1a, v2) and malformed ones are
// skipped. At most 16 entries are read.
func ParseSignatures(v string) [][]byte {
	var out [][]byte
	for i, entry := range strings.Fields(v) {
		if i == 16 {
			break
		}
		b64, ok := strings.CutPrefix(entry, "v1,")
		if !ok {
			continue
		}
		mac, err := base64.StdEncoding.Strict().DecodeString(b64)
		if err != nil || len(mac) != sha256.Size {
			continue
		}
		out = append(out, mac)
	}
	return out
}
