// Package notify is the house's notifications (SPEC §2 Notification, §4.14,
// §6 "Notifications (pull)"): what a notification is, how it matures, and
// the service that lists them and marks them read.
//
// Choices made where the contract is silent:
//
//   - A notification belongs to a house; UserID names its one recipient,
//     or nobody (the whole house). A caller sees the house's notifications
//     addressed to the house or to itself; reading one marks it read for
//     every caller who sees it.
//   - It matures Grace (10 s, DECISIONS §8) after it is raised: the list
//     shows it at once with maturesInMs > 0, the unread count only once it
//     has matured, and only within the last 90 days.
//   - The list is newest first, paged by an opaque cursor (before), or,
//     with since, the notifications raised after that eventSeq in ascending
//     order (a backfill after a socket reconnect); since and before are not
//     combined. limit is 1 to 200, default 50.
//   - POST /api/notifications/read marks the caller's unread notifications
//     among ids (or all of them) and answers those it marked; marking twice
//     marks nothing the second time. source is validated and not stored.
package notify

import (
	"encoding/base64"
	"slices"
	"strconv"
	"strings"
	"time"

	"studio/internal/errs"
	"studio/internal/ts"
)

// Grace is how long after it is raised a notification matures.
const Grace = 10 * time.Second

// UnreadWindow bounds the unread count (SPEC §8 "unread badge window").
const UnreadWindow = 90 * 24 * time.Hour

// List limits.
const (
	DefaultLimit = 50
	MaxLimit     = 200
	// MaxIDs caps the ids of one read request.
	MaxIDs = 1000
)

// Kinds of notification raised today (SPEC §6, DECISIONS §1b).
const (
	KindPackReady     = "pack.ready"     // a queued pack is built
	KindShareMarked   = "share.marked"   // the first mark on a share link, once a link
	KindShareFinished = "share.finished" // a reviewer finished a share link
	// KindDevelopOpinion is raised once when a run settles and the judge
	// flagged some of its frames (or could not read them): subjectType run,
	// subjectId the run's id, payload {runId, title, jobIds, flaggedJobIds};
	// GET /api/notifications/{id}/opinion answers the facts behind it.
	KindDevelopOpinion = "develop.opinion"
)

// Notification is one notice to a house or a seat, as the wire shows it.
type Notification struct {
	ID          string         `json:"id"`
	Kind        string         `json:"kind" description:"What happened, e.g. pack.ready."`
	SubjectType string         `json:"subjectType" description:"The kind of thing it is about, e.g. pack."`
	SubjectID   string         `json:"subjectId"`
	Payload     map[string]any `json:"payload" description:"Facts of the notification; their shape depends on kind."`
	CreatedAt   ts.Time        `json:"createdAt"`
	MaturesInMs int64          `json:"maturesInMs" description:"Milliseconds until it matures and counts as unread; 0 once matured."`
	EventSeq    int64          `json:"eventSeq" description:"The house's event cursor when it was raised."`
	Read        bool           `json:"read"`
	NeedsYou    bool           `json:"needsYou" description:"It asks the reader to act."`
	Answered    bool           `json:"answered" description:"A notification that needs you has been acted on."`

	// HouseID and UserID (the recipient; "" is the whole house) are stored, not sent.
	HouseID   string    `json:"-"`
	UserID    string    `json:"-"`
	MaturesAt time.Time `json:"-"`
}

// New returns a notification of the house raised at now; the store gives
// it its event sequence number.
func New(id, house, user, kind, subjectType, subjectID string, payload map[string]any, now time.Time) Notification {
	if payload == nil {
		payload = map[string]any{}
	}
	return Notification{ID: id, HouseID: house, UserID: user, Kind: kind, SubjectType: subjectType, SubjectID: subjectID,
		Payload: payload, CreatedAt: ts.Of(now), MaturesAt: now.Add(Grace)}
}

// At fills the fields that depend on the moment it is shown.
func (n *Notification) At(now time.Time) {
	n.MaturesInMs = max(0, n.MaturesAt.Sub(now).Milliseconds())
	n.NeedsYou = needsYou(n.Kind)
}

// needsYou reports whether a kind asks the reader to act; none of today's do.
func needsYou(kind string) bool { return false }

// Codes the notification routes answer besides the shared ones.
var (
	ErrBadCursor = errs.BadCursor
	errBadRead   = errs.Msg(errs.BadBody, "Give ids or all.")
	errTooMany   = errs.Msg(errs.BadBody, "At most 1000 ids may be marked at once.")
	errBadSource = errs.With(errs.Msg(errs.BadBody, "source must be open, presence, all or chat."), "legal", Sources)
	errBadIDs    = errs.Msg(errs.BadBody, "ids must be notification ids.")
)

// Sources are where a read may come from.
var Sources = []string{"open", "presence", "all", "chat"}

// Query selects a page of the list.
type Query struct {
	Backfill bool  // ascending after Since
	Since    int64 // the eventSeq a backfill starts after
	Before   int64 // > 0: newest first below this eventSeq (decoded cursor)
	Limit    int
}

// Page is one answer of the list.
type Page struct {
	Notifications []Notification `json:"notifications"`
	Unread        int            `json:"unread" description:"Matured unread notifications of the last 90 days."`
	NextCursor    *string        `json:"nextCursor" description:"Pass as before for the next older page; null at the end and in a since backfill."`
}

const cursorPrefix = "n1:"

// Cursor encodes the position below eventSeq as an opaque string.
func Cursor(seq int64) string {
	return base64.RawURLEncoding.EncodeToString([]byte(cursorPrefix + strconv.FormatInt(seq, 10)))
}

// ParseCursor decodes a cursor made by Cursor; ErrBadCursor otherwise.
func ParseCursor(s string) (int64, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || !strings.HasPrefix(string(b), cursorPrefix) {
		return 0, ErrBadCursor
	}
	n, err := strconv.ParseInt(string(b[len(cursorPrefix):]), 10, 64)
	if err != nil || n <= 0 {
		return 0, ErrBadCursor
	}
	return n, nil
}

// ReadRequest is the body of POST /api/notifications/read.
type ReadRequest struct {
	IDs    []string `json:"ids,omitempty" description:"The notifications to mark read; others of the house and unknown ids are skipped."`
	All    bool     `json:"all,omitempty" description:"Mark every notification the caller sees."`
	Source string   `json:"source,omitempty" enum:"open,presence,all,chat" description:"Where the read happened."`
}

// Validate checks the request: ids or all, at most 1000 ids.
func (r *ReadRequest) Validate() error {
	if len(r.IDs) == 0 && !r.All {
		return errBadRead
	}
	if len(r.IDs) > MaxIDs {
		return errTooMany
	}
	for _, id := range r.IDs {
		if id == "" || len(id) > 64 {
			return errBadIDs
		}
	}
	if r.Source != "" && !slices.Contains(Sources, r.Source) {
		return errBadSource
	}
	return nil
}

// Marked answers a read.
type Marked struct {
	Marked int      `json:"marked" description:"How many notifications this request marked read."`
	IDs    []string `json:"ids" description:"The notifications this request marked read."`
}
