package webhook

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/google/uuid"

	"studio/internal/auth"
	"studio/internal/poll"
	"studio/internal/ts"
	"studio/internal/urlguard"
	"studio/internal/webhook/sign"
)

// Store is what webhooks need from persistence.
type Store interface {
	Endpoints(ctx context.Context, house string) ([]Endpoint, error)
	Endpoint(ctx context.Context, house, id string) (Endpoint, error)
	// CreateEndpoint registers e unless its house has most endpoints
	// already (ErrTooManyEndpoints with max), checked and written in one
	// transaction under the house's lock, so racing registrations cannot
	// pass the cap together.
	CreateEndpoint(ctx context.Context, e Endpoint, most int) error
	// DeleteEndpoint removes the endpoint and every delivery of it that is
	// not being sent right now, in one transaction; errs.NotFound when the
	// house has no such endpoint.
	DeleteEndpoint(ctx context.Context, house, id string) error
	// InFlight counts the deleted endpoint's deliveries still being sent
	// (their lease runs past now), removing those whose lease lapsed.
	InFlight(ctx context.Context, house, endpoint string, now time.Time) (int, error)
	// Deliveries lists an endpoint's deliveries, newest first.
	Deliveries(ctx context.Context, house, endpoint string, limit int) ([]Delivery, error)
	// ClaimDelivery takes the delivery due longest (next attempt at or
	// before now) of an active endpoint, or one whose sender's lease
	// lapsed, for worker until leaseUntil, counting the attempt; a
	// delivery whose host has perHost deliveries being sent is passed
	// over. Claims are serialised, so the count holds across processes.
	ClaimDelivery(ctx context.Context, worker string, now, leaseUntil time.Time, perHost int) (Delivery, bool, error)
	// RecordAttempt writes the outcome of the attempt the worker holds (and
	// disables the endpoint on Gone), in one transaction; a delivery
	// whose endpoint was deleted meanwhile is removed instead.
	RecordAttempt(ctx context.Context, d Delivery, worker string, a Attempt) error
	// RecordTest writes a test message's delivery, already attempted once.
	RecordTest(ctx context.Context, d Delivery, a Attempt) error
	// NextDue returns when the earliest pending delivery a sender could
	// claim is due: none being sent, its host below perHost.
	NextDue(ctx context.Context, perHost int) (time.Time, bool, error)
}

// Attempt is what became of one attempt.
type Attempt struct {
	At         time.Time
	Status     string    // Pending (retry at NextAt), Delivered or Failed
	NextAt     time.Time // when Pending
	HTTPStatus int       // 0 when nothing answered
	Error      string    // empty when delivered
	Gone       bool      // answered 410: disable the endpoint
}

// Options tune the service.
type Options struct {
	Guard       *urlguard.Guard // the one way out; urlguard.New() when nil
	Concurrency int             // deliveries sent at once by Run (default 4)
	PerHost     int             // deliveries to one host sent at once, by every sender of every process (default PerHost)
	Lease       time.Duration   // how long a sender holds a delivery (default 1 min; above the guard's 10 s)
	Poll        time.Duration   // the longest an idle sender waits before looking again (default 1 s)
	Now         func() time.Time
	Log         *slog.Logger
	// Attempted, when set, hears each attempt's outcome: "delivered",
	// "retry" (it will be tried again) or "failed" (for good).
	Attempted func(outcome string)
}

// Service is the registry and the delivery worker.
type Service struct {
	store  Store
	guard  *urlguard.Guard
	opts   Options
	now    func() time.Time
	log    *slog.Logger
	worker string
	wake   chan struct{}
}

// NewService returns the service.
func NewService(store Store, opts Options) *Service {
	if opts.Guard == nil {
		opts.Guard = urlguard.New()
	}
	if opts.Concurrency <= 0 {
		opts.Concurrency = 4
	}
	if opts.PerHost <= 0 {
		opts.PerHost = PerHost
	}
	if opts.Lease <= 0 {
		opts.Lease = time.Minute
	}
	if opts.Poll <= 0 {
		opts.Poll = time.Second
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	return &Service{store: store, guard: opts.Guard, opts: opts, now: opts.Now, log: opts.Log,
		worker: "h-" + uuid.NewString()[:8], wake: make(chan struct{}, 1)}
}

// List returns the house's endpoints, oldest first, without secrets.
func (s *Service) List(ctx context.Context, p auth.Principal) ([]Endpoint, error) {
	if err := p.Role.MayManage(); err != nil {
		return nil, err
	}
	return s.store.Endpoints(ctx, p.HouseID)
}

// Create registers an endpoint after the guard checked its URL (https,
// every address the name resolves to public), with a fresh secret; a house
// with MaxEndpoints already is refused (TOO_MANY_ENDPOINTS).
func (s *Service) Create(ctx context.Context, p auth.Principal, in CreateRequest) (Created, error) {
	if err := p.Role.MayManage(); err != nil {
		return Created{}, err
	}
	if err := s.guard.Check(ctx, in.URL); err != nil {
		return Created{}, err
	}
	e := Endpoint{ID: uuid.Must(uuid.NewV7()).String(), URL: in.URL, Events: in.Events, Active: true,
		CreatedAt: ts.Of(s.now()), HouseID: p.HouseID, UserID: p.UserID, Secret: sign.NewSecret()}
	if err := s.store.CreateEndpoint(ctx, e, MaxEndpoints); err != nil {
		return Created{}, err
	}
	return Created{ID: e.ID, URL: e.URL, Events: e.Events, Active: e.Active, CreatedAt: e.CreatedAt, Secret: e.Secret}, nil
}

// Delete removes an endpoint and drains its queue: once it answers, no
// delivery of it is sent (a send already in flight is waited for).
func (s *Service) Delete(ctx context.Context, p auth.Principal, id string) (Deleted, error) {
	if err := p.Role.MayManage(); err != nil {
		return Deleted{}, err
	}
	if err := s.store.DeleteEndpoint(ctx, p.HouseID, id); err != nil {
		return Deleted{}, err
	}
	t := time.NewTicker(20 * time.Millisecond)
	defer t.Stop()
	for {
		n, err := s.store.InFlight(ctx, p.HouseID, id, s.now())
		if err != nil {
			return Deleted{}, err
		}
		if n == 0 {
			return Deleted{Deleted: true, ID: id}, nil
		}
		select {
		case <-ctx.Done():
			return Deleted{}, ctx.Err()
		case <-t.C:
		}
	}
}

// DeliveriesLimit is how many deliveries the deliveries route lists.
const DeliveriesLimit = 100

// Deliveries lists the endpoint's latest deliveries, newest first.
func (s *Service) Deliveries(ctx context.Context, p auth.Principal, id string) ([]Delivery, error) {
	if err := p.Role.MayManage(); err != nil {
		return nil, err
	}
	if _, err := s.store.Endpoint(ctx, p.HouseID, id); err != nil {
		return nil, err
	}
	return s.store.Deliveries(ctx, p.HouseID, id, DeliveriesLimit)
}

// Test sends a signed webhook.test message to the endpoint now (active or
// not) and answers its outcome; it is recorded among the deliveries and
// never retried. A 410 disables the endpoint, as for any message.
func (s *Service) Test(ctx context.Context, p auth.Principal, id string) (TestResult, error) {
	if err := p.Role.MayManage(); err != nil {
		return TestResult{}, err
	}
	e, err := s.store.Endpoint(ctx, p.HouseID, id)
	if err != nil {
		return TestResult{}, err
	}
	start := s.now()
	msg, err := NewMessage(TestEvent, start, map[string]any{"endpointId": e.ID, "url": e.URL})
	if err != nil {
		return TestResult{}, err
	}
	d := Delivery{ID: uuid.Must(uuid.NewV7()).String(), MessageID: msg.ID, Event: msg.Event, Body: msg.Body,
		HouseID: e.HouseID, EndpointID: e.ID, URL: e.URL, Secret: e.Secret, Attempts: 1, CreatedAt: ts.Of(start)}
	a := s.send(ctx, d)
	if a.Status == Pending {
		a.Status = Failed
	}
	if err := s.store.RecordTest(context.WithoutCancel(ctx), d, a); err != nil {
		return TestResult{}, err
	}
	out := TestResult{MessageID: msg.ID, Delivered: a.Status == Delivered, DurationMs: s.now().Sub(start).Milliseconds()}
	if a.HTTPStatus != 0 {
		out.Status = &a.HTTPStatus
	}
	if a.Error != "" {
		out.Error = &a.Error
	}
	return out, nil
}

// Wake tells an idle sender that a delivery may be due.
func (s *Service) Wake() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Run sends due deliveries until ctx ends, with Concurrency senders. An
// idle sender sleeps until the next delivery is due, Poll at most.
func (s *Service) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	for i := range s.opts.Concurrency {
		name := s.worker + "-" + strconv.Itoa(i)
		wg.Go(func() { s.loop(ctx, name) })
	}
	wg.Wait()
	return nil
}

func (s *Service) loop(ctx context.Context, name string) {
	poll.Loop(ctx, s.wake, func() time.Duration { return s.idle(ctx) },
		func() (bool, error) { return s.one(ctx, name) },
		func(err error) {
			if ctx.Err() == nil {
				s.log.Error("webhook sender", "worker", name, "err", err)
			}
		})
}

// idle is how long a sender waits before looking again: until the next
// delivery is due, Poll at most.
func (s *Service) idle(ctx context.Context) time.Duration {
	wait := s.opts.Poll
	if at, ok, err := s.store.NextDue(ctx, s.opts.PerHost); err == nil && ok {
		wait = min(wait, max(at.Sub(s.now()), time.Millisecond))
	}
	return wait
}

// One sends the delivery due longest, if any, and reports whether there
// was one.
func (s *Service) One(ctx context.Context) (bool, error) { return s.one(ctx, s.worker) }

func (s *Service) one(ctx context.Context, worker string) (bool, error) {
	now := s.now()
	d, ok, err := s.store.ClaimDelivery(ctx, worker, now, now.Add(s.opts.Lease), s.opts.PerHost)
	if err != nil || !ok {
		return false, err
	}
	a := s.send(ctx, d)
	if ctx.Err() != nil {
		return true, ctx.Err() // shutting down: the lease lapses and the attempt is made again
	}
	if a.Status == Pending {
		next, retry := RetryAt(d.Attempts, a.At, jitter())
		if retry {
			a.NextAt = next
		} else {
			a.Status = Failed
		}
	}
	if a.Gone {
		s.log.Warn("webhook endpoint answered 410 Gone: disabled", "house", d.HouseID, "endpoint", d.EndpointID)
	}
	err = s.store.RecordAttempt(context.WithoutCancel(ctx), d, worker, a)
	if err == nil && s.opts.Attempted != nil {
		outcome := a.Status // delivered or failed
		if a.Status == Pending {
			outcome = "retry"
		}
		s.opts.Attempted(outcome)
	}
	return true, err
}

// send makes one attempt: the body signed with the endpoint's secret at
// the attempt's time, posted through the guard.
func (s *Service) send(ctx context.Context, d Delivery) Attempt {
	at := s.now()
	a := Attempt{At: at, Status: Pending}
	key, err := sign.ParseSecret(d.Secret)
	if err != nil {
		a.Status, a.Error = Failed, "The endpoint's secret is unreadable."
		return a
	}
	h := key.Headers(d.MessageID, at, d.Body)
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", "studio-webhooks/1")
	res, err := s.guard.Post(ctx, d.URL, h, d.Body)
	a.At = s.now()
	switch {
	case err != nil:
		a.Error = failure(err)
		if re, ok := errors.AsType[*urlguard.RedirectError](err); ok {
			a.HTTPStatus = re.StatusCode
		}
	case res.StatusCode >= 200 && res.StatusCode < 300:
		a.Status, a.HTTPStatus = Delivered, res.StatusCode
	case res.StatusCode == http.StatusGone:
		a.Status, a.HTTPStatus, a.Gone = Failed, res.StatusCode, true
		a.Error = "The endpoint answered 410 Gone: it is disabled."
	default:
		a.HTTPStatus = res.StatusCode
		a.Error = fmt.Sprintf("The endpoint answered %d.", res.StatusCode)
	}
	return a
}

// failure is the sentence a failed send shows in the deliveries list.
func failure(err error) string {
	if r := urlguard.Reason(err); r != "" {
		return "Refused by the URL guard (" + r + "): nothing was sent."
	}
	if re, ok := errors.AsType[*urlguard.RedirectError](err); ok {
		return fmt.Sprintf("The endpoint answered a %d redirect, which is never followed.", re.StatusCode)
	}
	if errors.Is(err, context.DeadlineExceeded) || isTimeout(err) {
		return "The endpoint did not answer within 10 seconds."
	}
	msg := err.Error()
	if len(msg) > 300 {
		msg = msg[:300]
	}
	return "The request failed: " + msg
}

func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}
