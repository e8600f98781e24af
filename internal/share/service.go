package share

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"studio/internal/asset"
	"studio/internal/auth"
	"studio/internal/blob"
	"studio/internal/errs"
	"studio/internal/imagemem"
	"studio/internal/mail"
	"studio/internal/notify"
	"studio/internal/ratelimit"
	"studio/internal/ts"
)

// Store is what share links need from persistence. House methods name the
// house; reviewer methods take the Link the token resolved to.
type Store interface {
	// ShareableAssets returns the house's live assets among ids, in the
	// order of ids.
	ShareableAssets(ctx context.Context, house string, ids []string) ([]string, error)
	// InsertShare writes a link and its frames (asset ids in order, with
	// their notes) in one transaction.
	InsertShare(ctx context.Context, l Link, tokenHash, tokenHint string, email *string, createdAt time.Time, frames []string, notes map[string]string) error
	// ListShares lists the house's links, newest first, with their counts.
	ListShares(ctx context.Context, house string) ([]Share, error)
	// RevokeShare stamps revokedAt on a link of the house (the first stamp
	// is kept); errs.NotFound for another house's or a missing id.
	RevokeShare(ctx context.Context, house, id string, at time.Time) error
	// LinkByHash finds a link of any house by its token's hash.
	LinkByHash(ctx context.Context, hash string) (Link, error)
	// ManifestFrames lists a link's frames in order, with their marks.
	ManifestFrames(ctx context.Context, l Link) ([]Frame, error)
	// FrameFile describes the bytes of frame i of a link; errs.NotFound
	// past the end and for an asset the house removed.
	FrameFile(ctx context.Context, l Link, i int) (asset.File, error)
	// UpsertMark records a mark on frame i of an open link at now. When it
	// is the link's first mark it raises first in the same transaction and
	// returns it with its event sequence number; otherwise nil.
	// errs.NotFound when i is past the end or the link closed meanwhile.
	UpsertMark(ctx context.Context, l Link, i int, in MarkRequest, now time.Time, first notify.Notification) error
	// RecordExport stamps an export of frame i of a link at now.
	RecordExport(ctx context.Context, l Link, i int, now time.Time) error
	// FinishShare stamps finishedAt once and counts the verdicts, in one
	// transaction; when marks changed since the last finish that notified,
	// it raises the notification made by notice and returns it.
	// ErrNothingMarked when no frame has a verdict.
	FinishShare(ctx context.Context, l Link, now time.Time, notice func(Finished) notify.Notification) (Finished, *notify.Notification, error)
	// ShareMarks lists the house's marks on the assets (all of them when
	// ids is empty), newest change first, at most limit.
	ShareMarks(ctx context.Context, house string, ids []string, limit int) ([]Mark, error)
	// CoverageFacts reads a collection's pieces, the house's groups that
	// hold them and the house's develops (Facts without Frames);
	// errs.NotFound for a folder that is not the house's.
	CoverageFacts(ctx context.Context, house, folder string) (Facts, error)
	// FrameFacts reads what was said about the house's live assets among
	// ids; removed and unknown ids are left out. A link is open at now.
	FrameFacts(ctx context.Context, house string, ids []string, now time.Time) (map[string]FrameFact, error)
	// Member names a user and their address, for the finish letter.
	Member(ctx context.Context, user string) (name, email string, err error)
}

// Limiter counts events per key in fixed windows (ratelimit.Limiter).
type Limiter interface {
	Take(ctx context.Context, key string, limit int, window time.Duration) (allowed bool, retryAfter time.Duration, err error)
}

// Limits are the hourly limits; zero fields take DECISIONS §8's values.
type Limits struct {
	MintPerHour int // links a house may mint an hour
	MarkPerHour int // mark requests an address may send an hour
}

func (l Limits) withDefaults() Limits {
	if l.MintPerHour <= 0 {
		l.MintPerHour = MintPerHour
	}
	if l.MarkPerHour <= 0 {
		l.MarkPerHour = MarkPerHour
	}
	return l
}

// Options configure the service.
type Options struct {
	Blobs     blob.Store
	Mailer    mail.Sender
	Limiter   Limiter
	Limits    Limits
	Decoding  *imagemem.Budget // shared by the process; 1 GiB of its own when nil
	WebOrigin string           // where /s is served: the link is {WebOrigin}/s#<token>
	Now       func() time.Time
	Log       *slog.Logger
}

// Service runs the share use cases. Role rules live here.
type Service struct {
	store     Store
	blobs     blob.Store
	mailer    mail.Sender
	limiter   Limiter
	limits    atomic.Pointer[Limits]
	webOrigin string
	now       func() time.Time
	log       *slog.Logger
	decoding  *imagemem.Budget // memory for decoding originals into thumbnails
}

// NewService returns the share service.
func NewService(store Store, opts Options) *Service {
	s := &Service{store: store, blobs: opts.Blobs, mailer: opts.Mailer, limiter: opts.Limiter,
		webOrigin: opts.WebOrigin, now: opts.Now, log: opts.Log, decoding: opts.Decoding}
	if s.decoding == nil {
		s.decoding = imagemem.New(0)
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	s.SetLimits(opts.Limits)
	return s
}

// SetLimits replaces the hourly limits (zero fields: DECISIONS §8's).
// Tests use it to reach them with a few requests.
func (s *Service) SetLimits(l Limits) {
	l = l.withDefaults()
	s.limits.Store(&l)
}

// take counts one event against key's hourly limit: RATE_LIMITED with
// Retry-After once it is spent.
func (s *Service) take(ctx context.Context, key string, limit int) error {
	if s.limiter == nil {
		return nil
	}
	ok, retry, err := s.limiter.Take(ctx, key, limit, time.Hour)
	if err != nil {
		return err
	}
	if !ok {
		return ratelimit.Refused(retry)
	}
	return nil
}

// Mint writes a link to the house's live frames among in.AssetIDs and,
// with an e-mail, mails it. Nothing is written on a refusal.
func (s *Service) Mint(ctx context.Context, p auth.Principal, in MintRequest) (Created, error) {
	if err := p.MayEdit(); err != nil {
		return Created{}, err
	}
	if err := in.Validate(); err != nil {
		return Created{}, err
	}
	ids, err := s.store.ShareableAssets(ctx, p.HouseID, in.AssetIDs)
	if err != nil {
		return Created{}, err
	}
	if len(ids) == 0 {
		return Created{}, errs.NotFound
	}
	if err := s.take(ctx, "share-mint:"+p.HouseID, s.limits.Load().MintPerHour); err != nil {
		return Created{}, err
	}
	now := s.now()
	token := NewToken()
	l := Link{ID: uuid.Must(uuid.NewV7()).String(), HouseID: p.HouseID, UserID: p.UserID, RecipientLabel: in.RecipientLabel,
		Message: in.Message, Frames: len(ids), ExpiresAt: now.Add(Life)}
	if err := s.store.InsertShare(ctx, l, HashToken(token), token[:tokenHintChars], in.Email, now, ids, in.Notes); err != nil {
		return Created{}, err
	}
	c := Created{ID: l.ID, URL: URL(s.webOrigin, token), Token: token, Frames: len(ids), Emailed: EmailedNone}
	if in.Email != nil {
		c.Emailed = s.send(ctx, linkLetter(p, l, *in.Email, token, c.URL, now))
	}
	return c, nil
}

// send hands a letter to the mailer and says what became of it. A failed
// letter is logged (the e-mail log records it as failed), never returned:
// what it reports on is already written.
func (s *Service) send(ctx context.Context, m mail.Message) string {
	if s.mailer == nil {
		return EmailedFailed
	}
	if err := s.mailer.Send(context.WithoutCancel(ctx), m); err != nil {
		s.log.WarnContext(ctx, "share letter not delivered", "template", m.Template, "err", err)
		return EmailedFailed
	}
	if c, ok := s.mailer.(interface{ Carrier() string }); ok && c.Carrier() == "console" {
		return EmailedLogged
	}
	return EmailedSent
}

// List lists the house's links, newest first; any role may read them.
func (s *Service) List(ctx context.Context, p auth.Principal) ([]Share, error) {
	return s.store.ListShares(ctx, p.HouseID)
}

// Revoke closes a link of the house; every later reviewer request is the
// one 404. Revoking again changes nothing.
func (s *Service) Revoke(ctx context.Context, p auth.Principal, id string) error {
	if err := p.MayEdit(); err != nil {
		return err
	}
	return s.store.RevokeShare(ctx, p.HouseID, id, s.now())
}

// resolve finds the open link a token names; anything else is the one 404.
func (s *Service) resolve(ctx context.Context, token string) (Link, error) {
	if !WellFormed(token) {
		return Link{}, errs.NotFound
	}
	l, err := s.store.LinkByHash(ctx, HashToken(token))
	if err != nil {
		return Link{}, err
	}
	if !l.Open(s.now()) {
		return Link{}, errs.NotFound
	}
	return l, nil
}

// Manifest is what the reviewer of token sees.
func (s *Service) Manifest(ctx context.Context, token string) (Manifest, error) {
	l, err := s.resolve(ctx, token)
	if err != nil {
		return Manifest{}, err
	}
	frames, err := s.store.ManifestFrames(ctx, l)
	if err != nil {
		return Manifest{}, err
	}
	return Manifest{House: l.HouseName, RecipientLabel: l.RecipientLabel, Message: l.Message, ExpiresAt: ts.Of(l.ExpiresAt),
		FinishedAt: l.FinishedAt, Frames: frames}, nil
}

// FrameBytes opens frame i of token's link: the original, or with thumb
// its small rendition. export (originals only) records a keep signal.
func (s *Service) FrameBytes(ctx context.Context, token string, i int, thumb, export bool) (Bytes, error) {
	l, err := s.resolve(ctx, token)
	if err != nil {
		return Bytes{}, err
	}
	f, err := s.store.FrameFile(ctx, l, i)
	if err != nil {
		return Bytes{}, err
	}
	if thumb {
		return s.thumb(ctx, f)
	}
	obj, err := s.blobs.Open(ctx, f.BlobKey)
	if errors.Is(err, blob.ErrNotFound) {
		return Bytes{}, errs.NotFound
	}
	if err != nil {
		return Bytes{}, err
	}
	if export {
		if err := s.store.RecordExport(ctx, l, i, s.now()); err != nil {
			obj.Close()
			return Bytes{}, err
		}
	}
	return Bytes{Object: obj, Mime: f.Mime, ETag: f.ETag, ModTime: f.CreatedAt.Time}, nil
}

// Bytes is an opened frame ready to serve.
type Bytes struct {
	Object  blob.Object
	Mime    string
	ETag    string
	ModTime time.Time
}

// Mark records a reviewer's mark on a frame of token's link. addr is the
// client's address key; its hourly limit is counted before anything else.
func (s *Service) Mark(ctx context.Context, token, addr string, in MarkRequest) (Recorded, error) {
	if err := s.take(ctx, "share-mark:"+addr, s.limits.Load().MarkPerHour); err != nil {
		return Recorded{}, err
	}
	if err := in.Validate(); err != nil {
		return Recorded{}, err
	}
	l, err := s.resolve(ctx, token)
	if err != nil {
		return Recorded{}, err
	}
	if *in.I < 0 || *in.I >= l.Frames {
		return Recorded{}, errs.NotFound
	}
	now := s.now()
	first := notify.New(uuid.Must(uuid.NewV7()).String(), l.HouseID, l.UserID, notify.KindShareMarked, "share", l.ID,
		payload(l, nil), now)
	if err := s.store.UpsertMark(ctx, l, *in.I, in, now, first); err != nil {
		return Recorded{}, err
	}
	return Recorded{Recorded: true}, nil
}

// payload is a share notification's facts: the link, its label when it
// has one, its frame count, and more.
func payload(l Link, more map[string]any) map[string]any {
	p := map[string]any{"shareId": l.ID, "frames": l.Frames}
	if l.RecipientLabel != nil {
		p["recipientLabel"] = *l.RecipientLabel
	}
	for k, v := range more {
		p[k] = v
	}
	return p
}

// Finish stamps the link finished and, when its marks changed since the
// last finish that told the minting member, tells them in-app and by
// e-mail.
func (s *Service) Finish(ctx context.Context, token string) (Finished, error) {
	l, err := s.resolve(ctx, token)
	if err != nil {
		return Finished{}, err
	}
	now := s.now()
	f, n, err := s.store.FinishShare(ctx, l, now, func(f Finished) notify.Notification {
		return notify.New(uuid.Must(uuid.NewV7()).String(), l.HouseID, l.UserID, notify.KindShareFinished, "share", l.ID,
			payload(l, map[string]any{"kept": f.Kept, "passed": f.Passed}), now)
	})
	if err != nil {
		return Finished{}, err
	}
	if n != nil {
		s.letFinishKnown(ctx, l, f)
	}
	return f, nil
}

// letFinishKnown mails the finish letter to the minting member; a letter
// that cannot be written or sent is logged, never returned.
func (s *Service) letFinishKnown(ctx context.Context, l Link, f Finished) {
	name, email, err := s.store.Member(ctx, l.UserID)
	if err != nil {
		s.log.WarnContext(ctx, "share finish letter: no member", "share", l.ID, "err", err)
		return
	}
	frames, err := s.store.ManifestFrames(ctx, l)
	if err != nil {
		s.log.WarnContext(ctx, "share finish letter: frames", "share", l.ID, "err", err)
		return
	}
	s.send(ctx, finishLetter(l, l.UserID, name, email, frames, f, s.webOrigin))
}

// Marks lists the house's marks on the named assets; any role may read them.
func (s *Service) Marks(ctx context.Context, p auth.Principal, ids []string) ([]Mark, error) {
	if len(ids) > MaxMarkAssets {
		return nil, errs.With(ErrBadMarkAssets, "given", len(ids))
	}
	return s.store.ShareMarks(ctx, p.HouseID, ids, MaxMarkAssets)
}

// Coverage derives which pieces of a collection are covered; any role may
// read it.
func (s *Service) Coverage(ctx context.Context, p auth.Principal, folder string) (Coverage, error) {
	facts, err := s.store.CoverageFacts(ctx, p.HouseID, folder)
	if err != nil {
		return Coverage{}, err
	}
	if facts.Frames, err = s.store.FrameFacts(ctx, p.HouseID, Candidates(facts), s.now()); err != nil {
		return Coverage{}, err
	}
	return Derive(facts), nil
}
