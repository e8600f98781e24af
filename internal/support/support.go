// Package support is the help desk (SPEC §2 Support ticket, §3, §4.14):
// tickets any seat opens and replies to, noted reports that ask for no
// reply, screenshots kept behind expiring signed links and swept after
// SUPPORT_SHOT_RETENTION_DAYS, and escalations the support bridge (the
// assistant in front of the desk) hands over with their transcript.
//
// The desk is this service's own database: the operators read and answer
// tickets there. A ticket is its house's, like all of a house's work
// (SPEC §1 rule 1): every seat of the house lists it, reads its thread and
// replies; the user who opened it is its author. A thread of another house
// answers the same 503 as one that never existed (SPEC §4.14, DECISIONS §1).
package support

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"studio/internal/asset"
	"studio/internal/auth"
	"studio/internal/blob"
	"studio/internal/errs"
	"studio/internal/mail"
	"studio/internal/ts"
)

// Statuses of a ticket (SPEC §3).
const (
	StatusOpen  = "open"
	StatusNoted = "noted"
)

// Authors of a message. Internal notes never leave the desk.
const (
	AuthorCustomer = "customer"
	AuthorSupport  = "support"
	AuthorNote     = "note"
)

// Topics and escalation reasons (SPEC §4.14).
var (
	Topics  = []string{"develop", "billing", "identity", "quality", "access", "api", "other"}
	Reasons = []string{"handoff", "turn_limit", "ai_down", "leak_guard", "requested"}
)

// Limits of a ticket's text.
const (
	MinSubject     = 3
	MaxSubject     = 200
	MinBody        = 20 // "a few sentences"
	MaxBody        = 10_000
	MaxScreenshots = 5
	MaxTranscript  = 200 // lines of an escalation's transcript
	ShotLifetime   = 24 * time.Hour
	// DefaultRetention is SUPPORT_SHOT_RETENTION_DAYS (DECISIONS §8: 30).
	DefaultRetention = 30 * 24 * time.Hour
)

// Codes raised by the desk.
var (
	ErrNeedsDetail  = errs.New(errs.KindInvalid, "SUPPORT_DETAIL_NEEDED", "A ticket needs a subject and a few sentences.")
	ErrDeskNoThread = errs.New(errs.KindUnavailable, "SUPPORT_UNAVAILABLE", "The support desk cannot answer for this thread.")
	ErrBadLink      = errs.New(errs.KindForbidden, "BAD_LINK", "The link's signature is wrong or has expired.")
	ErrBadShotType  = errs.New(errs.KindUnsupported, "UNSUPPORTED_TYPE", "A screenshot must be a PNG, JPEG or WebP image.")
	ErrBridgeOff    = errs.New(errs.KindUnavailable, "SUPPORT_BRIDGE_NOT_CONFIGURED", "The support bridge is not configured.")
	ErrBadReason    = errs.Msg(errs.BadReason, "reason must be handoff, turn_limit, ai_down, leak_guard or requested.")
)

// Ticket is a thread with the desk (SPEC §2). A noted report has a null id.
type Ticket struct {
	ID            *string `json:"id" description:"Null for a noted report (needsReply false)."`
	Status        string  `json:"status" enum:"open,closed,noted" description:"closed: the desk closed it; the thread still reads, and a reply opens it again."`
	Summary       string  `json:"summary"`
	MessageCount  int     `json:"messageCount"`
	UnreadCount   int     `json:"unreadCount" description:"Answers from the desk the caller has not opened yet."`
	CreatedAt     ts.Time `json:"createdAt"`
	LastMessageAt ts.Time `json:"lastMessageAt"`
}

// Message is one message of a thread.
type Message struct {
	ID         string  `json:"id"`
	Content    string  `json:"content"`
	Author     string  `json:"author" enum:"customer,support"`
	AuthorName string  `json:"authorName"`
	CreatedAt  ts.Time `json:"createdAt"`
}

// Thread is a ticket's status and its messages, oldest first.
type Thread struct {
	Status   string    `json:"status" enum:"open,closed,noted"`
	Messages []Message `json:"messages"`
}

// Row is a ticket as the desk keeps it.
type Row struct {
	ID, House, UserID, Status, Subject, Topic string
	ContactEmail, CurrentURL, Source, Reason  string
	SessionID                                 string
	Rating                                    *int
	Screen, Transcript                        json.RawMessage
	Screenshots                               []string
	CreatedAt                                 time.Time
}

// TicketRequest is the body of POST /api/toolkit/support/tickets.
type TicketRequest struct {
	Subject      *string        `json:"subject" required:"true" maxLength:"200"`
	Body         *string        `json:"body" required:"true" maxLength:"10000"`
	Topic        string         `json:"topic,omitempty" enum:"develop,billing,identity,quality,access,api,other"`
	ContactEmail string         `json:"contactEmail,omitempty" maxLength:"320"`
	CurrentURL   string         `json:"currentUrl,omitempty" maxLength:"2000"`
	Screenshots  []string       `json:"screenshots,omitempty" maxItems:"5" description:"Signed screenshot URLs from POST /api/toolkit/support/screenshots."`
	TicketID     string         `json:"ticketId,omitempty" description:"Reply on this ticket instead of opening one."`
	Rating       *int           `json:"rating,omitempty" minimum:"1" maximum:"5"`
	Screen       map[string]any `json:"screen,omitempty"`
	NeedsReply   *bool          `json:"needsReply,omitempty" description:"false: a noted report with a null id; the desk reads it, nobody answers."`
}

// Validate checks what a ticket needs.
func (r *TicketRequest) Validate() error {
	if r.Subject == nil || r.Body == nil {
		return ErrNeedsDetail
	}
	*r.Subject, *r.Body = strings.TrimSpace(*r.Subject), strings.TrimSpace(*r.Body)
	if utf8.RuneCountInString(*r.Subject) < MinSubject || utf8.RuneCountInString(*r.Body) < MinBody {
		return ErrNeedsDetail
	}
	if r.Topic != "" && !slices.Contains(Topics, r.Topic) {
		return errs.With(errs.Msg(errs.BadBody, "topic must be one of the legal topics."), "legal", Topics)
	}
	if r.Rating != nil && (*r.Rating < 1 || *r.Rating > 5) {
		return errs.Msg(errs.BadBody, "rating must be a whole number from 1 to 5.")
	}
	if len(r.Screenshots) > MaxScreenshots {
		return errs.Msg(errs.BadBody, "At most 5 screenshots a message.")
	}
	return nil
}

// EscalationRequest is the body of POST /api/support/escalations.
type EscalationRequest struct {
	Reason         string           `json:"reason" required:"true" enum:"handoff,turn_limit,ai_down,leak_guard,requested"`
	SessionID      string           `json:"sessionId" required:"true" maxLength:"200"`
	OrganizationID string           `json:"organizationId,omitempty" format:"uuid"`
	ContactEmail   string           `json:"contactEmail,omitempty" maxLength:"320"`
	Transcript     []map[string]any `json:"transcript,omitempty" maxItems:"200"`
}

// Validate checks the reason and the session.
func (r *EscalationRequest) Validate() error {
	if !slices.Contains(Reasons, r.Reason) {
		return errs.With(ErrBadReason, "legal", Reasons)
	}
	if strings.TrimSpace(r.SessionID) == "" {
		return errs.Msg(errs.BadBody, "sessionId is required.")
	}
	if r.OrganizationID != "" {
		if _, err := uuid.Parse(r.OrganizationID); err != nil {
			return errs.Msg(errs.BadBody, "organizationId must be a UUID.")
		}
	}
	if len(r.Transcript) > MaxTranscript {
		return errs.Msg(errs.BadBody, "At most 200 transcript lines.")
	}
	return nil
}

// Shot is a stored screenshot.
type Shot struct {
	ID, House, UserID, Mime, Key string
	CreatedAt                    time.Time
}

// ShotLink answers a screenshot upload.
type ShotLink struct {
	ID        string  `json:"id"`
	URL       string  `json:"url" description:"Signed with o, e and s; it works until expiresAt."`
	ExpiresAt ts.Time `json:"expiresAt"`
}

// Store is what the help desk needs from persistence.
type Store interface {
	DeskStore
	// InsertTicket writes a ticket with its first message.
	InsertTicket(ctx context.Context, t Row, first Message) error
	// AppendMessage adds a customer message to a ticket of the house that
	// is not a noted report, opening it again when the desk had closed it;
	// NOT_FOUND otherwise.
	AppendMessage(ctx context.Context, house, user, ticket string, m Message, screenshots []string) error
	Tickets(ctx context.Context, house, user string) ([]Ticket, error)
	// Thread returns an open ticket of the house, its messages without
	// internal notes, and marks the desk's answers read; NOT_FOUND otherwise.
	Thread(ctx context.Context, house, user, ticket string, at time.Time) (Thread, error)
	InsertShot(ctx context.Context, s Shot) error
	// Shot returns a live screenshot of the house; NOT_FOUND otherwise.
	Shot(ctx context.Context, house, id string) (Shot, error)
	// OldShots lists screenshots taken before before (at most limit).
	OldShots(ctx context.Context, before time.Time, limit int) ([]Shot, error)
	DeleteShot(ctx context.Context, house, id string) error
	// UserName returns a user's name and e-mail.
	UserName(ctx context.Context, user string) (name, email string, err error)
	// UserByEmail finds the user with that address who holds a seat in
	// house (any house when house is ""); NOT_FOUND otherwise.
	UserByEmail(ctx context.Context, email, house string) (string, error)
	HouseExists(ctx context.Context, house string) (bool, error)
}

// Service runs the desk.
type Service struct {
	store  Store
	blobs  blob.Store
	keep   time.Duration // SUPPORT_SHOT_RETENTION_DAYS
	secret []byte        // signs screenshot links
	bridge string        // SUPPORT_BRIDGE_SECRET; empty: the bridge is off
	public string        // the service's public URL
	mailer mail.Sender   // carries the desk's replies; nil sends none
	now    func() time.Time
}

// Options configure the desk.
type Options struct {
	Blobs        blob.Store
	Retention    time.Duration // how long screenshots are kept; 30 days when zero
	LinkSecret   []byte
	BridgeSecret string
	PublicURL    string
	Mailer       mail.Sender
	Now          func() time.Time
}

// NewService returns the desk.
func NewService(store Store, o Options) *Service {
	if o.Retention <= 0 {
		o.Retention = DefaultRetention
	}
	return &Service{store: store, blobs: o.Blobs, keep: o.Retention, secret: o.LinkSecret, bridge: o.BridgeSecret, public: strings.TrimRight(o.PublicURL, "/"),
		mailer: o.Mailer, now: o.Now}
}

func newID() string { return uuid.Must(uuid.NewV7()).String() }

// Open opens a ticket, notes a report (needsReply false: stored, id null)
// or, with ticketId, replies on the caller's ticket.
func (s *Service) Open(ctx context.Context, p auth.Principal, in TicketRequest) (Ticket, error) {
	now := s.now()
	name, email, err := s.store.UserName(ctx, p.UserID)
	if err != nil {
		return Ticket{}, err
	}
	for _, u := range in.Screenshots {
		if !s.validLink(u, p.HouseID, now) {
			return Ticket{}, errs.Msg(errs.BadBody, "screenshots must be links this desk signed, not yet expired.")
		}
	}
	msg := Message{ID: newID(), Content: *in.Body, Author: AuthorCustomer, AuthorName: name, CreatedAt: ts.Of(now)}
	if in.TicketID != "" {
		if err := s.store.AppendMessage(ctx, p.HouseID, p.UserID, in.TicketID, msg, in.Screenshots); err != nil {
			if errors.Is(err, errs.NotFound) {
				return Ticket{}, ErrDeskNoThread
			}
			return Ticket{}, err
		}
		for _, t := range mustTickets(s.store.Tickets(ctx, p.HouseID, p.UserID)) {
			if t.ID != nil && *t.ID == in.TicketID {
				return t, nil
			}
		}
		return Ticket{}, ErrDeskNoThread
	}
	status := StatusOpen
	if in.NeedsReply != nil && !*in.NeedsReply {
		status = StatusNoted
	}
	contact := strings.TrimSpace(in.ContactEmail)
	if contact == "" {
		contact = email
	}
	screen, _ := json.Marshal(in.Screen)
	row := Row{ID: newID(), House: p.HouseID, UserID: p.UserID, Status: status, Subject: *in.Subject, Topic: in.Topic,
		ContactEmail: contact, CurrentURL: in.CurrentURL, Source: "app", Rating: in.Rating, Screen: screen,
		Screenshots: in.Screenshots, CreatedAt: now}
	if err := s.store.InsertTicket(ctx, row, msg); err != nil {
		return Ticket{}, err
	}
	t := Ticket{ID: &row.ID, Status: status, Summary: row.Subject, MessageCount: 1, CreatedAt: ts.Of(now), LastMessageAt: ts.Of(now)}
	if status == StatusNoted {
		t.ID = nil
	}
	return t, nil
}

func mustTickets(ts []Ticket, err error) []Ticket {
	if err != nil {
		return nil
	}
	return ts
}

// List returns the caller's tickets in the house, newest first (noted
// reports are not threads and are not listed).
func (s *Service) List(ctx context.Context, p auth.Principal) ([]Ticket, error) {
	return s.store.Tickets(ctx, p.HouseID, p.UserID)
}

// Thread returns the caller's ticket, oldest message first, with the desk's
// replies and without its internal notes, and its status (open or closed);
// the desk's answers become read. Another's ticket
// and one that never existed are the same 503.
func (s *Service) Thread(ctx context.Context, p auth.Principal, id string) (Thread, error) {
	t, err := s.store.Thread(ctx, p.HouseID, p.UserID, id, s.now())
	if errors.Is(err, errs.NotFound) {
		return Thread{}, ErrDeskNoThread
	}
	return t, err
}

// CheckBridge compares the bridge's secret in constant time: 503 while
// none is configured, 401 when it differs.
func (s *Service) CheckBridge(got string) error {
	if s.bridge == "" {
		return ErrBridgeOff
	}
	if subtle.ConstantTimeCompare([]byte(got), []byte(s.bridge)) != 1 {
		return errs.Unauthorized
	}
	return nil
}

// Escalate opens a ticket the support bridge hands over, with its
// transcript. organizationId and contactEmail attach it to a house and a
// user when they name ones that exist.
func (s *Service) Escalate(ctx context.Context, in EscalationRequest) (Ticket, error) {
	now := s.now()
	row := Row{ID: newID(), Status: StatusOpen, Subject: "Escalated by the support assistant: " + strings.ReplaceAll(in.Reason, "_", " "),
		ContactEmail: strings.TrimSpace(in.ContactEmail), Source: "bridge", Reason: in.Reason, SessionID: in.SessionID, CreatedAt: now}
	if in.OrganizationID != "" {
		ok, err := s.store.HouseExists(ctx, in.OrganizationID)
		if err != nil {
			return Ticket{}, err
		}
		if ok {
			row.House = in.OrganizationID
		}
	}
	if row.ContactEmail != "" {
		if u, err := s.store.UserByEmail(ctx, row.ContactEmail, row.House); err == nil && row.House != "" {
			row.UserID = u
		} else if err != nil && !errors.Is(err, errs.NotFound) {
			return Ticket{}, err
		}
	}
	transcript, _ := json.Marshal(in.Transcript)
	if in.Transcript == nil {
		transcript = []byte("[]")
	}
	row.Transcript = transcript
	first := Message{ID: newID(), Content: transcriptText(in.Transcript), Author: AuthorCustomer, AuthorName: row.ContactEmail, CreatedAt: ts.Of(now)}
	if err := s.store.InsertTicket(ctx, row, first); err != nil {
		return Ticket{}, err
	}
	return Ticket{ID: &row.ID, Status: StatusOpen, Summary: row.Subject, MessageCount: 1, CreatedAt: ts.Of(now), LastMessageAt: ts.Of(now)}, nil
}

// transcriptText renders a transcript as the thread's first message.
func transcriptText(lines []map[string]any) string {
	if len(lines) == 0 {
		return "(no transcript)"
	}
	var b strings.Builder
	for _, l := range lines {
		role, _ := l["role"].(string)
		text, _ := l["text"].(string)
		if text == "" {
			text, _ = l["content"].(string)
		}
		if role == "" {
			role = "?"
		}
		b.WriteString(role + ": " + text + "\n")
	}
	return strings.TrimSpace(b.String())
}

// sign is the link signature of screenshot id for house o until e.
func (s *Service) sign(id, o string, e int64) string {
	m := hmac.New(sha256.New, s.secret)
	m.Write([]byte("support-shot\x00" + id + "\x00" + o + "\x00" + strconv.FormatInt(e, 10)))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// Link is the signed URL of a screenshot, valid until its expiry.
func (s *Service) Link(sh Shot, now time.Time) ShotLink {
	e := now.Add(ShotLifetime).Unix()
	url := s.public + "/api/toolkit/support/screenshots/" + sh.ID + "?o=" + sh.House + "&e=" + strconv.FormatInt(e, 10) + "&s=" + s.sign(sh.ID, sh.House, e)
	return ShotLink{ID: sh.ID, URL: url, ExpiresAt: ts.Of(time.Unix(e, 0))}
}

// Verify checks a screenshot link's signature and expiry: BAD_LINK
// (403) otherwise.
func (s *Service) Verify(id, o, e, sig string, now time.Time) error {
	exp, err := strconv.ParseInt(e, 10, 64)
	if err != nil || o == "" || now.Unix() > exp {
		return ErrBadLink
	}
	if !hmac.Equal([]byte(sig), []byte(s.sign(id, o, exp))) {
		return ErrBadLink
	}
	return nil
}

// validLink reports whether u is a live screenshot link of the house.
func (s *Service) validLink(u, house string, now time.Time) bool {
	rest, ok := strings.CutPrefix(u, s.public+"/api/toolkit/support/screenshots/")
	if !ok {
		return false
	}
	id, query, _ := strings.Cut(rest, "?")
	v := map[string]string{}
	for kv := range strings.SplitSeq(query, "&") {
		k, val, _ := strings.Cut(kv, "=")
		v[k] = val
	}
	return v["o"] == house && s.Verify(id, v["o"], v["e"], v["s"], now) == nil
}

// Upload keeps a screenshot of the caller's house: its bytes must be a
// PNG, JPEG or WebP image (sniffed; 415 otherwise). It answers the signed
// link.
func (s *Service) Upload(ctx context.Context, p auth.Principal, data []byte) (ShotLink, error) {
	mime := asset.Sniff(data)
	if mime == "" {
		return ShotLink{}, errs.With(ErrBadShotType, "accepted", asset.Accepted)
	}
	sh := Shot{ID: newID(), House: p.HouseID, UserID: p.UserID, Mime: mime, CreatedAt: s.now()}
	sh.Key = "support/" + sh.House + "/" + sh.ID
	if _, err := s.blobs.Put(ctx, sh.Key, bytes.NewReader(data)); err != nil {
		return ShotLink{}, err
	}
	if err := s.store.InsertShot(ctx, sh); err != nil {
		_ = s.blobs.Delete(context.WithoutCancel(ctx), sh.Key)
		return ShotLink{}, err
	}
	return s.Link(sh, sh.CreatedAt), nil
}

// Open reads a screenshot through its signed link: 403 for a bad or
// expired signature, 404 when it was removed.
func (s *Service) OpenShot(ctx context.Context, id, o, e, sig string) (Shot, blob.Object, error) {
	if err := s.Verify(id, o, e, sig, s.now()); err != nil {
		return Shot{}, nil, err
	}
	sh, err := s.store.Shot(ctx, o, id)
	if err != nil {
		return Shot{}, nil, err
	}
	obj, err := s.blobs.Open(ctx, sh.Key)
	if errors.Is(err, blob.ErrNotFound) {
		return Shot{}, nil, errs.NotFound
	}
	return sh, obj, err
}

// Sweep removes the screenshots older than the retention, bytes first,
// and says how many went.
func (s *Service) Sweep(ctx context.Context) (int, error) {
	n := 0
	for {
		old, err := s.store.OldShots(ctx, s.now().Add(-s.keep), 200)
		if err != nil || len(old) == 0 {
			return n, err
		}
		for _, sh := range old {
			if err := s.blobs.Delete(ctx, sh.Key); err != nil {
				return n, err
			}
			if err := s.store.DeleteShot(ctx, sh.House, sh.ID); err != nil {
				return n, err
			}
			n++
		}
	}
}

// Run sweeps old screenshots at start and then every interval until ctx ends.
func (s *Service) Run(ctx context.Context, every time.Duration, log func(n int, err error)) error {
	for {
		n, err := s.Sweep(ctx)
		if log != nil && (n > 0 || err != nil) {
			log(n, err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(every):
		}
	}
}
