// Package share is the outbound review link (SPEC §2 Share and Share mark,
// §3 Share, §4.11, §8): a house sends an ordered snapshot of its frames to
// someone without an account, who opens {WEB_ORIGIN}/s#<token>, marks each
// frame keep or pass with a note and drawings, and finishes; the house sees
// the marks beside its frames and which pieces of a collection are covered.
//
// Choices made where the contract is silent:
//
//   - The token is 32 random bytes, base64url without padding (43
//     characters). Only its SHA-256 (hex) is stored and every reviewer
//     request looks the link up by that hash; the list's token field is the
//     token's first 8 characters (a hint, like a key's prefix), since the
//     whole token exists only in the mint answer. A link lives Life (30
//     days) from its minting.
//   - Expired, revoked and never-existing tokens, a token of the wrong
//     shape, an i past the end (or not a whole number) and a frame whose
//     asset the house removed since all answer the one NOT_FOUND, byte for
//     byte the API's 404. Revocation is read on every reviewer request. A
//     removed frame leaves the manifest; the others keep their i.
//   - Mint needs a member or better (a viewer reads only) and is free. Only
//     the house's live assets among assetIds are shared, in the asked order,
//     each once; none left is 404. Over 60 distinct ids is 400
//     TOO_MANY_FRAMES before anything is read. notes optionally gives a
//     frame its own note (the manifest's note). The mint limit is 30 links
//     an hour per house (429 with Retry-After), counted only for links that
//     are written. With an e-mail, the link is mailed to the recipient and
//     emailed says what the mailer did: sent, logged (the console mailer
//     keeps it in the e-mail log only) or failed (the link exists anyway);
//     none without an e-mail.
//   - i is the frame's position in the snapshot, from 0. A mark upserts one
//     row per (link, frame): fields given replace the stored ones, fields
//     left out are kept ("note": "" and "drawings": [] clear them); a mark
//     with none of verdict, note and drawings is 400 BAD_BODY. A verdict
//     can be changed, not withdrawn. Marks stay open after finish while the
//     link is open.
//   - Drawings: at most 3 strokes; kind free is 1 to 120 points along the
//     stroke, kind circle is exactly 2 points, opposite corners of the box
//     the ellipse fills (coordinates are fractions of the frame's width and
//     height, so a circle on the frame is an ellipse in these units). Each
//     coordinate is a JSON number, finite, in [0,1]; anything else is 400
//     BAD_DRAWING with a reason. A stroke's optional note is at most 200
//     characters.
//   - The mark limit is 300 mark requests an hour per client address
//     (IPv6 by /64), counted once the request's JSON is read, before the
//     token is looked up: a flood of guesses is limited like real marks.
//   - The first mark request of a link raises one share.marked to the
//     minting member, whatever the races (the link's mark counter goes from
//     0 to 1 in exactly one transaction). Finish stamps finishedAt once and
//     raises share.finished to the minting member, in-app and by e-mail,
//     when marks changed since the last finish that notified: a repeated
//     finish with nothing new answers the same and tells nobody again.
//     "Marked" for finish means a frame with a verdict.
//   - export=1 on an original (not on thumb) is a keep signal: it stamps
//     exportedAt on the frame's mark and counts the export, creating the
//     mark without a verdict when the reviewer has not marked the frame; it
//     never sets or changes a verdict and raises no notification. The
//     director sees exportedAt on GET /api/toolkit/share-marks.
//   - thumb=1 answers a rendition whose long edge is at most ThumbEdge
//     (512) pixels, never upscaled, EXIF orientation applied: png for png
//     sources, jpeg otherwise; it is made once and kept in the blob store
//     under thumbs/<house>/<asset>-512.
//   - The list counts frames, answered (frames with a verdict), kept and
//     passed at read time; revoked and expired links stay listed.
//   - share-marks answers the house's marks on the named assets (at most
//     200 ids; none named: the house's latest 200 marks), newest change
//     first, one row per link and frame: two recipients who disagree give
//     two rows. Another house's ids give nothing.
//   - Coverage: see coverage.go.
package share

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"math"
	"net/mail"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"studio/internal/account"
	"studio/internal/asset"
	"studio/internal/errs"
	"studio/internal/ts"
)

// Limits of a link (SPEC §8, DECISIONS §8).
const (
	MaxFrames      = 60
	MaxNote        = 600
	MaxStrokes     = 3
	MaxPoints      = 120
	MaxStrokeNote  = 200
	MaxLabel       = 200
	MaxMessage     = 2000
	MaxMarkAssets  = 200
	ThumbEdge      = 512
	Life           = 30 * 24 * time.Hour
	MintPerHour    = 30
	MarkPerHour    = 300
	tokenBytes     = 32
	tokenLen       = 43 // base64url of 32 bytes, unpadded
	tokenHintChars = 8
)

// Verdict is a reviewer's answer on a frame.
type Verdict string

// The verdicts.
const (
	Keep Verdict = "keep"
	Pass Verdict = "pass"
)

// Verdicts lists the legal verdicts.
var Verdicts = []Verdict{Keep, Pass}

// Drawing kinds.
const (
	Circle = "circle"
	Free   = "free"
)

// DrawingKinds lists the legal kinds of a stroke.
var DrawingKinds = []string{Circle, Free}

// What the mint answer's emailed says.
const (
	EmailedNone   = "none"
	EmailedSent   = "sent"
	EmailedLogged = "logged"
	EmailedFailed = "failed"
)

// Codes of the share routes.
var (
	ErrTooManyFrames = errs.With(errs.Msg(errs.TooManyFrames, "A link shares at most 60 frames."), "max", MaxFrames)
	ErrNoFrames      = errs.Msg(asset.ErrBadAssetIDs, "Name 1 to 60 of the house's frames in assetIds.")
	ErrBadRecipient  = errs.Msg(account.ErrBadEmail, "The recipient's e-mail address is not valid.")
	ErrNoteTooLong   = errs.With(errs.New(errs.KindInvalid, "NOTE_TOO_LONG", "A note is at most 600 characters."), "max", MaxNote)
	ErrBadDrawing    = errs.New(errs.KindInvalid, "BAD_DRAWING", "Drawings are at most 3 strokes of at most 120 points, each coordinate a number in [0,1].")
	ErrNothingMarked = errs.New(errs.KindInvalid, "NOTHING_MARKED", "Mark at least one frame keep or pass before finishing.")
	ErrBadMarkAssets = errs.With(errs.Msg(asset.ErrBadAssetIDs, "assetIds names at most 200 asset ids."), "max", MaxMarkAssets)
)

// NewToken returns a fresh 256-bit token, base64url without padding.
func NewToken() string {
	var b [tokenBytes]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// HashToken is the stored form of a token: SHA-256, hex.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// WellFormed reports whether token has the shape NewToken makes, so a
// malformed one is refused without a lookup.
func WellFormed(token string) bool {
	if len(token) != tokenLen {
		return false
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(token)
	return err == nil && len(b) == tokenBytes
}

// URL is the reviewer's link: the token rides in the fragment, so it never
// reaches a server log or a Referer.
func URL(webOrigin, token string) string { return strings.TrimRight(webOrigin, "/") + "/s#" + token }

// Share is a link as the house's list shows it.
type Share struct {
	ID             string   `json:"id"`
	Token          string   `json:"token" description:"The token's first 8 characters: a hint to tell links apart. Only the token's hash is stored; the whole token is in the mint answer alone."`
	RecipientLabel *string  `json:"recipientLabel"`
	Email          *string  `json:"email" description:"Where the link was mailed; null when it was not."`
	Frames         int      `json:"frames"`
	Answered       int      `json:"answered" description:"Frames with a verdict, counted at read time."`
	Kept           int      `json:"kept"`
	Passed         int      `json:"passed"`
	FinishedAt     *ts.Time `json:"finishedAt" description:"When the reviewer first finished; null before."`
	ExpiresAt      ts.Time  `json:"expiresAt"`
	RevokedAt      *ts.Time `json:"revokedAt"`
	CreatedAt      ts.Time  `json:"createdAt"`
}

// Link is a stored link as the reviewer routes resolve it.
type Link struct {
	ID             string
	HouseID        string
	HouseName      string
	UserID         string // the minting member
	RecipientLabel *string
	Message        *string
	Frames         int
	FinishedAt     *ts.Time
	ExpiresAt      time.Time
	RevokedAt      *time.Time
}

// Open reports whether the link still answers at now.
func (l Link) Open(now time.Time) bool { return l.RevokedAt == nil && now.Before(l.ExpiresAt) }

// Drawing is one stroke a reviewer drew on a frame.
type Drawing struct {
	Kind   string       `json:"kind" enum:"circle,free"`
	Points [][2]float64 `json:"points" description:"[x, y] pairs, fractions of the frame's width and height in [0,1]: 1 to 120 along a free stroke; for a circle, 2 opposite corners of the box the ellipse fills." maxItems:"120"`
	Note   *string      `json:"note,omitempty" maxLength:"200"`
}

// Manifest is what a reviewer sees: labels and positions, no ids.
type Manifest struct {
	House          string   `json:"house" description:"The house's name."`
	RecipientLabel *string  `json:"recipientLabel"`
	Message        *string  `json:"message" description:"The house's message to the reviewer; null when none."`
	ExpiresAt      ts.Time  `json:"expiresAt"`
	FinishedAt     *ts.Time `json:"finishedAt"`
	Frames         []Frame  `json:"frames"`
}

// Frame is one frame of a manifest with the reviewer's current mark.
type Frame struct {
	I        int       `json:"i" description:"The frame's position in the link, from 0; its bytes are /api/share/{token}/f/{i}."`
	Name     string    `json:"name"`
	Note     *string   `json:"note" description:"The house's note on this frame; null when none."`
	W        int       `json:"w"`
	H        int       `json:"h"`
	Mark     *Verdict  `json:"mark" enum:"keep,pass" description:"The reviewer's verdict; null before one."`
	MarkNote *string   `json:"markNote"`
	Drawings []Drawing `json:"drawings"`
}

// Mark is a reviewer's mark as the director sees it.
type Mark struct {
	AssetID        string    `json:"assetId"`
	ShareID        string    `json:"shareId"`
	RecipientLabel *string   `json:"recipientLabel"`
	Verdict        *Verdict  `json:"verdict" enum:"keep,pass" description:"null when the reviewer only wrote, drew or exported."`
	Note           *string   `json:"note"`
	Drawings       []Drawing `json:"drawings"`
	ExportedAt     *ts.Time  `json:"exportedAt" description:"When the reviewer last downloaded the original (export=1): a keep signal."`
	At             ts.Time   `json:"at" description:"The mark's latest change."`
}

// MintRequest is the body of POST /api/share.
type MintRequest struct {
	AssetIDs       []string          `json:"assetIds" required:"true" minItems:"1" maxItems:"60" description:"The house's frames, in the order the reviewer sees them; others' and removed ids are skipped, repeats count once."`
	RecipientLabel *string           `json:"recipientLabel,omitempty" maxLength:"200"`
	Email          *string           `json:"email,omitempty" description:"Mail the link to this address."`
	Message        *string           `json:"message,omitempty" maxLength:"2000"`
	Notes          map[string]string `json:"notes,omitempty" description:"A note per frame, by asset id (at most 600 characters each)."`
}

// Validate checks the request and tidies it: ids distinct in order, text
// trimmed, empty text left out.
func (r *MintRequest) Validate() error {
	ids := make([]string, 0, len(r.AssetIDs))
	for _, id := range r.AssetIDs {
		if id == "" || len(id) > 64 {
			return ErrNoFrames
		}
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	switch {
	case len(ids) == 0:
		return ErrNoFrames
	case len(ids) > MaxFrames:
		return errs.With(ErrTooManyFrames, "frames", len(ids))
	}
	r.AssetIDs = ids
	var err error
	if r.RecipientLabel, err = cleanText(r.RecipientLabel, "recipientLabel", MaxLabel, false); err != nil {
		return err
	}
	if r.Message, err = cleanText(r.Message, "message", MaxMessage, true); err != nil {
		return err
	}
	if r.Email != nil {
		e := strings.ToLower(strings.TrimSpace(*r.Email))
		a, perr := mail.ParseAddress(e)
		if perr != nil || a.Address != e || len(e) > 254 || !strings.Contains(e[strings.IndexByte(e, '@'):], ".") {
			return ErrBadRecipient
		}
		r.Email = &e
	}
	for id, n := range r.Notes {
		if utf8.RuneCountInString(n) > MaxNote {
			return ErrNoteTooLong
		}
		if hasControl(n, true) {
			return errs.Msg(errs.BadBody, "A note holds no control characters.")
		}
		if strings.TrimSpace(n) == "" {
			delete(r.Notes, id)
		}
	}
	return nil
}

// cleanText trims an optional text field: nil stays nil, empty becomes nil.
func cleanText(s *string, field string, max int, multiline bool) (*string, error) {
	if s == nil {
		return nil, nil
	}
	v := strings.TrimSpace(*s)
	if utf8.RuneCountInString(v) > max {
		return nil, errs.With(errs.Msg(errs.BadBody, field+" is at most "+strconv.Itoa(max)+" characters."), "max", max)
	}
	if hasControl(v, multiline) {
		return nil, errs.Msg(errs.BadBody, field+" holds no control characters.")
	}
	if v == "" {
		return nil, nil
	}
	return &v, nil
}

// hasControl reports a C0 control character (tab and, when multiline,
// newline and carriage return aside), DEL or invalid UTF-8 (DECISIONS §10).
func hasControl(s string, multiline bool) bool {
	if !utf8.ValidString(s) {
		return true
	}
	for _, r := range s {
		switch {
		case r == '\t':
		case multiline && (r == '\n' || r == '\r'):
		case r < 0x20 || r == 0x7f:
			return true
		}
	}
	return false
}

// Created answers a mint.
type Created struct {
	ID      string `json:"id"`
	URL     string `json:"url" description:"{WEB_ORIGIN}/s#<token>: the token rides in the fragment."`
	Token   string `json:"token" description:"The 256-bit token, base64url; shown only here."`
	Frames  int    `json:"frames" description:"How many frames the link shares."`
	Emailed string `json:"emailed" enum:"none,sent,logged,failed" description:"What the mailer did with the link: none (no e-mail given), sent, logged (kept in the e-mail log by the console mailer) or failed."`
}

// Revoked answers a revoke.
type Revoked struct {
	Revoked bool `json:"revoked"`
}

// Recorded answers a mark.
type Recorded struct {
	Recorded bool `json:"recorded"`
}

// Finished answers a finish.
type Finished struct {
	Finished bool `json:"finished"`
	Kept     int  `json:"kept"`
	Passed   int  `json:"passed"`
}

// MarkRequest is the body of POST /api/share/{token}/mark. Drawings are
// kept as sent and checked by Validate, so a coordinate that is not a
// number is BAD_DRAWING rather than a shape error.
type MarkRequest struct {
	I        *int      `json:"i" required:"true" minimum:"0" description:"The frame's position in the link."`
	Verdict  *Verdict  `json:"verdict,omitempty" enum:"keep,pass"`
	Note     *string   `json:"note,omitempty" maxLength:"600" description:"Replaces the frame's note; \"\" clears it."`
	Drawings []Drawing `json:"drawings,omitempty" maxItems:"3" description:"Replaces the frame's drawings; [] clears them."`

	rawDrawings json.RawMessage
}

// UnmarshalJSON decodes the body, keeping drawings raw for Validate.
func (r *MarkRequest) UnmarshalJSON(b []byte) error {
	type plain MarkRequest
	aux := struct {
		*plain
		Drawings json.RawMessage `json:"drawings"`
	}{plain: (*plain)(r)}
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	r.rawDrawings = aux.Drawings
	return nil
}

// HasDrawings reports whether the request replaces the drawings.
func (r *MarkRequest) HasDrawings() bool {
	return len(r.rawDrawings) > 0 && string(r.rawDrawings) != "null"
}

// Validate checks the request and parses its drawings.
func (r *MarkRequest) Validate() error {
	if r.I == nil {
		return errs.Msg(errs.BadBody, "i is required: the frame's position in the link.")
	}
	if r.Verdict != nil && !slices.Contains(Verdicts, *r.Verdict) {
		return errs.With(errs.Msg(errs.BadBody, "verdict must be keep or pass."), "legal", Verdicts)
	}
	if r.Note != nil {
		n := strings.TrimSpace(*r.Note)
		if utf8.RuneCountInString(n) > MaxNote {
			return ErrNoteTooLong
		}
		if hasControl(n, true) {
			return errs.Msg(errs.BadBody, "note holds no control characters.")
		}
		r.Note = &n
	}
	if r.HasDrawings() {
		d, err := ParseDrawings(r.rawDrawings)
		if err != nil {
			return err
		}
		r.Drawings = d
	}
	if r.Verdict == nil && r.Note == nil && !r.HasDrawings() {
		return errs.Msg(errs.BadBody, "Give a verdict, a note or drawings.")
	}
	return nil
}

// badDrawing is BAD_DRAWING with the reason.
func badDrawing(reason string) error { return errs.With(ErrBadDrawing, "reason", reason) }

// ParseDrawings reads strokes as sent: at most 3, each of a legal kind
// with 1 to 120 points (exactly 2 for a circle), every coordinate a JSON
// number that is finite and in [0,1].
func ParseDrawings(raw json.RawMessage) ([]Drawing, error) {
	var strokes []json.RawMessage
	if err := json.Unmarshal(raw, &strokes); err != nil {
		return nil, badDrawing("drawings must be an array of strokes.")
	}
	if len(strokes) > MaxStrokes {
		return nil, badDrawing("at most 3 strokes.")
	}
	out := make([]Drawing, 0, len(strokes))
	for _, s := range strokes {
		var st struct {
			Kind   *string           `json:"kind"`
			Points []json.RawMessage `json:"points"`
			Note   *string           `json:"note"`
		}
		if err := json.Unmarshal(s, &st); err != nil {
			return nil, badDrawing("each stroke is an object {kind, points, note?}.")
		}
		if st.Kind == nil || !slices.Contains(DrawingKinds, *st.Kind) {
			return nil, badDrawing("kind must be circle or free.")
		}
		switch {
		case len(st.Points) == 0:
			return nil, badDrawing("a stroke needs points.")
		case len(st.Points) > MaxPoints:
			return nil, badDrawing("at most 120 points a stroke.")
		case *st.Kind == Circle && len(st.Points) != 2:
			return nil, badDrawing("a circle is 2 points: opposite corners of its box.")
		}
		d := Drawing{Kind: *st.Kind, Points: make([][2]float64, len(st.Points))}
		for i, p := range st.Points {
			xy, err := point(p)
			if err != nil {
				return nil, err
			}
			d.Points[i] = xy
		}
		if st.Note != nil {
			n := strings.TrimSpace(*st.Note)
			if utf8.RuneCountInString(n) > MaxStrokeNote || hasControl(n, true) {
				return nil, badDrawing("a stroke's note is at most 200 characters of text.")
			}
			if n != "" {
				d.Note = &n
			}
		}
		out = append(out, d)
	}
	return out, nil
}

// point reads [x, y]: two JSON numbers, finite, in [0,1].
func point(raw json.RawMessage) ([2]float64, error) {
	var pair []json.RawMessage
	if err := json.Unmarshal(raw, &pair); err != nil || len(pair) != 2 {
		return [2]float64{}, badDrawing("each point is [x, y].")
	}
	var xy [2]float64
	for i, c := range pair {
		v, ok := number(c)
		if !ok {
			return [2]float64{}, badDrawing("each coordinate is a number.")
		}
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v > 1 {
			return [2]float64{}, badDrawing("each coordinate is a finite number in [0,1].")
		}
		xy[i] = v
	}
	return xy, nil
}

// number parses a JSON number literal; strings, booleans, null and
// anything else are not numbers, and an overflowing literal is not finite.
func number(raw json.RawMessage) (float64, bool) {
	s := strings.TrimSpace(string(raw))
	if s == "" || (s[0] != '-' && (s[0] < '0' || s[0] > '9')) {
		return 0, false
	}
	if !json.Valid([]byte(s)) {
		return 0, false
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return math.Inf(1), true
	}
	return v, true
}
