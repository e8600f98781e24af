// Package webhook tells a house's own systems what happened: a registry of
// endpoints per house (https URLs that pass urlguard, the events each
// hears, the whsec_ secret it is signed with), an outbox of messages
// written in the transaction whose state they report, and a delivery
// worker that sends them after commit, signed to the Standard Webhooks
// scheme (internal/webhook/sign), through urlguard's client (the resolved
// address is checked inside the dialer, no redirects, 10 s, a small prefix
// of the answer read).
//
// A message is {type, timestamp, data} (DECISIONS §8). Its webhook-id is
// the same on every attempt and for every endpoint that hears it. A
// delivery is tried at once, then after 5 s, 5 min, 30 min, 2 h, 5 h and
// 10 h, each wait stretched or shrunk by up to a tenth at random (so
// endpoints that failed together are not retried together), then marked
// failed. Any 2xx is success; 410 Gone disables the endpoint (active:
// false) and fails what it still had queued; a redirect, another status,
// a refused address or a network error is a failed attempt. Deliveries
// live in the database and are claimed with a lease, so they survive a
// restart and several workers never send one attempt twice. A house has
// at most MaxEndpoints endpoints, and at most PerHost deliveries to one
// host are being sent at any moment, across every sender of every process
// (the claim counts them in the database), so many endpoints naming one
// host cannot turn one event into a flood. Deleting an
// endpoint drops what it had queued and waits for a send already in
// flight to end, so nothing reaches it after the answer.
package webhook

import (
	"encoding/hex"
	"encoding/json"
	"math/rand/v2"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"studio/internal/errs"
	"studio/internal/ts"
	"studio/internal/urlguard"
)

// The events a house may register (SPEC §6), and the one the test route
// sends.
const (
	DevelopDone    = "develop.done"
	VerdictWritten = "verdict.written"
	TestEvent      = "webhook.test"
)

// Events lists the registrable events.
var Events = []string{DevelopDone, VerdictWritten}

// MaxURL is the longest URL an endpoint may have.
const MaxURL = 2048

// MaxEndpoints is how many endpoints a house may register (DECISIONS §11).
const MaxEndpoints = 20

// PerHost is how many deliveries to one host are sent at once, at most.
const PerHost = 2

// Errors of the registry.
var (
	ErrBadEvents = errs.Msg(errs.BadBody, "events must list one or more of develop.done and verdict.written.")
	// ErrTooManyEndpoints refuses a registration past MaxEndpoints; its
	// max field says how many a house may have.
	ErrTooManyEndpoints = errs.New(errs.KindInvalid, "TOO_MANY_ENDPOINTS", "The house has as many webhook endpoints as it may; delete one to add another.")
)

// Host is what deliveries are counted by for PerHost: the URL's host name,
// lower case, without port; "" for a URL that does not parse.
func Host(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
}

// Endpoint is a registered receiver (SPEC §2 Webhook endpoint). The secret
// is shown only when the endpoint is created.
type Endpoint struct {
	ID        string   `json:"id"`
	URL       string   `json:"url"`
	Events    []string `json:"events" description:"What the endpoint hears: develop.done, verdict.written."`
	Active    bool     `json:"active" description:"false once a delivery was answered 410 Gone; nothing more is sent."`
	CreatedAt ts.Time  `json:"createdAt"`

	HouseID string `json:"-"`
	UserID  string `json:"-"`
	Secret  string `json:"-"`
}

// Created is the answer to a registration: the endpoint and, this once,
// its secret.
type Created struct {
	ID        string   `json:"id"`
	URL       string   `json:"url"`
	Events    []string `json:"events"`
	Active    bool     `json:"active"`
	CreatedAt ts.Time  `json:"createdAt"`
	Secret    string   `json:"secret" description:"whsec_ followed by the base64 of 32 random bytes: the HMAC-SHA256 key of the webhook-signature header. Shown only now."`
}

// Deleted answers a deletion.
type Deleted struct {
	Deleted bool   `json:"deleted"`
	ID      string `json:"id"`
}

// CreateRequest registers an endpoint.
type CreateRequest struct {
	URL    string   `json:"url" required:"true" format:"uri" description:"An https URL whose host resolves only to public addresses."`
	Events []string `json:"events" required:"true" minItems:"1" description:"One or more of develop.done, verdict.written."`
}

// Validate checks the events (a non-empty subset of Events, kept in
// Events' order) and the URL's length and shape; the guard checks the rest.
func (r *CreateRequest) Validate() error {
	if len(r.Events) == 0 {
		return ErrBadEvents
	}
	var evs []string
	for _, e := range Events {
		if slices.Contains(r.Events, e) {
			evs = append(evs, e)
		}
	}
	for _, e := range r.Events {
		if !slices.Contains(Events, e) {
			return ErrBadEvents
		}
	}
	r.Events = evs
	if len(r.URL) > MaxURL {
		return badURL(urlguard.ReasonMalformed, "The URL is longer than 2048 characters.")
	}
	if u, err := url.Parse(r.URL); err != nil || u.Fragment != "" {
		return badURL(urlguard.ReasonMalformed, "The URL is not a valid absolute URL without a fragment.")
	}
	return nil
}

func badURL(reason, message string) error {
	return errs.With(errs.Msg(urlguard.ErrBadURL, message), "reason", reason)
}

// Hears reports whether the endpoint is active and registered for event.
func (e Endpoint) Hears(event string) bool {
	return e.Active && slices.Contains(e.Events, event)
}

// Message is one thing to tell: its webhook-id, event and signed body.
type Message struct {
	ID    string
	Event string
	Body  []byte
}

// NewMessage builds the body {type, timestamp, data} of an event that
// happened at at; data is the Job shape for develop.done and the Verdict
// shape for verdict.written.
func NewMessage(event string, at time.Time, data any) (Message, error) {
	body, err := json.Marshal(struct {
		Type      string  `json:"type"`
		Timestamp ts.Time `json:"timestamp"`
		Data      any     `json:"data"`
	}{event, ts.Of(at), data})
	if err != nil {
		return Message{}, err
	}
	id := uuid.Must(uuid.NewV7())
	return Message{ID: "msg_" + hex.EncodeToString(id[:]), Event: event, Body: body}, nil
}

// Delivery states.
const (
	Pending   = "pending"
	Delivered = "delivered"
	Failed    = "failed"
)

// Delivery is one message to one endpoint, as the deliveries route shows
// it, and (unexported on the wire) what the worker needs to send it.
type Delivery struct {
	MessageID     string   `json:"messageId" description:"The webhook-id header: the same on every attempt."`
	Event         string   `json:"event"`
	Status        string   `json:"status" enum:"pending,delivered,failed"`
	Attempts      int      `json:"attempts"`
	LastStatus    *int     `json:"lastStatus" description:"The HTTP status the last attempt was answered with; null when none answered."`
	LastError     *string  `json:"lastError" description:"Why the last attempt failed; null when it did not."`
	NextAttemptAt *ts.Time `json:"nextAttemptAt" description:"When the next attempt is due; null once delivered or failed."`
	DeliveredAt   *ts.Time `json:"deliveredAt"`
	CreatedAt     ts.Time  `json:"createdAt"`

	ID         string `json:"-"`
	HouseID    string `json:"-"`
	EndpointID string `json:"-"`
	Body       []byte `json:"-"`
	URL        string `json:"-"`
	Secret     string `json:"-"`
}

// TestResult is the outcome of a test message sent now.
type TestResult struct {
	MessageID  string  `json:"messageId"`
	Delivered  bool    `json:"delivered" description:"The endpoint answered 2xx."`
	Status     *int    `json:"status" description:"The HTTP status it answered; null when none."`
	Error      *string `json:"error" description:"Why the message was not delivered; null when it was."`
	DurationMs int64   `json:"durationMs"`
}

// Schedule is the wait before each retry: after the first attempt fails
// the second comes 5 s later, and so on; after the seventh the delivery
// has failed.
var Schedule = []time.Duration{5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour, 10 * time.Hour}

// MaxAttempts is how many times a delivery is tried.
var MaxAttempts = len(Schedule) + 1

// Jitter is the largest share a wait is stretched or shrunk by.
const Jitter = 0.1

// RetryAt returns when to try again after attempt (1-based) failed at
// now, or false when that was the last attempt. u in [0, 1) picks the
// jitter.
func RetryAt(attempt int, now time.Time, u float64) (time.Time, bool) {
	if attempt < 1 || attempt > len(Schedule) {
		return time.Time{}, false
	}
	d := Schedule[attempt-1]
	d = time.Duration(float64(d) * (1 - Jitter + 2*Jitter*u))
	return now.Add(d), true
}

func jitter() float64 { return rand.Float64() }
