package engine

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strconv"
	"time"

	"studio/internal/tool"
)

// Codes of the provider failures a failed develop shows (the job's
// errorCode), the same for every provider. PROVIDER_TIMEOUT is also the
// code of a develop past its render deadline (DECISIONS §11).
const (
	CodeKeyRefused  = "PROVIDER_KEY_REFUSED"   // the provider refused our key
	CodeOutOfCredit = "PROVIDER_OUT_OF_CREDIT" // our account at the provider has no credit left
	CodeBusy        = "PROVIDER_BUSY"          // 429 or 5xx through every retry
	CodeUnreachable = "PROVIDER_UNREACHABLE"   // no connection
	CodeTimeout     = "PROVIDER_TIMEOUT"       // no answer in time
	CodeRefused     = "PROVIDER_REFUSED"       // its safety check refused the picture or the words
	CodeRejected    = "PROVIDER_REJECTED"      // it refused the request itself (another 4xx)
	CodeFailed      = "PROVIDER_FAILED"        // it accepted the request and reported a failure
	CodeBadResult   = "PROVIDER_BAD_RESULT"    // its result is not what the tool makes
)

// Upstream names a provider in the sentences its failures show, with the
// setting that holds our key there, so that every provider's failures read
// the same: "fal refused our key (check FAL_KEY).", "FASHN says our account
// there is out of credit.", "The image endpoint did not answer within 60 s."
type Upstream struct {
	Name    string // as a sentence begins with it: "fal", "FASHN", "The image endpoint"
	Setting string // the setting holding the key: "FAL_KEY"
}

const nothingCharged = " Nothing was charged."

func (p Upstream) fail(tool, code, reason string, cause error) *Error {
	return &Error{Fault: FaultProvider, Tool: tool, Code: code, Reason: reason + nothingCharged, Err: cause}
}

// KeyRefused: the provider answered that our key is not good (401, 403).
func (p Upstream) KeyRefused(tool string, cause error) *Error {
	return p.fail(tool, CodeKeyRefused, p.Name+" refused our key (check "+p.Setting+").", cause)
}

// OutOfCredit: the provider answered that our account there has no credit.
func (p Upstream) OutOfCredit(tool string, cause error) *Error {
	return p.fail(tool, CodeOutOfCredit, p.Name+" says our account there is out of credit.", cause)
}

// Busy: the provider answered status (429 or 5xx) to every try.
func (p Upstream) Busy(tool string, status, tries int, cause error) *Error {
	s := p.Name + " was busy: it answered " + strconv.Itoa(status)
	if tries > 1 {
		s += " to each of " + strconv.Itoa(tries) + " tries"
	}
	return p.fail(tool, CodeBusy, s+".", cause)
}

// Unreachable: no connection to the provider.
func (p Upstream) Unreachable(tool string, cause error) *Error {
	return p.fail(tool, CodeUnreachable, p.Name+" could not be reached.", cause)
}

// TimedOut: the provider did not answer one request within d.
func (p Upstream) TimedOut(tool string, d time.Duration, cause error) *Error {
	return p.fail(tool, CodeTimeout, p.Name+" did not answer within "+Seconds(d)+".", cause)
}

// Refused is the provider's safety check refusing the request: an input
// fault, since the same request would be refused again.
func (p Upstream) Refused(tool string, cause error) *Error {
	return &Error{Fault: FaultInput, Tool: tool, Code: CodeRefused,
		Reason: p.Name + "'s safety check refused this picture, so no frame was made." + nothingCharged, Err: cause}
}

// Rejected: the provider refused the request itself (a 4xx that is none of
// the above), which a retry will not change.
func (p Upstream) Rejected(tool string, status int, cause error) *Error {
	return p.fail(tool, CodeRejected, p.Name+" refused the request as invalid (it answered "+strconv.Itoa(status)+").", cause)
}

// Failed: the provider accepted the request and then reported it failed;
// why, when it said in words people can read ("out of memory"), ends the
// sentence.
func (p Upstream) Failed(tool, why string, cause error) *Error {
	s := p.Name + " could not complete the request"
	if why != "" {
		s += ": " + why
	}
	return p.fail(tool, CodeFailed, s+".", cause)
}

// BadResult: the provider's result is not what tool makes (what says how).
func (p Upstream) BadResult(tool, what string, cause error) *Error {
	return p.fail(tool, CodeBadResult, p.Name+"'s result is not what "+tool+" makes: "+what+".", cause)
}

// Answered maps a non-2xx answer to its failure: 401 and 403 a refused
// key, 402 no credit, 408 and 504 no answer in time, 429 and 5xx busy,
// any other 4xx a rejected request. A provider that says more in its body
// (a locked account, a quota) decides before calling this.
func (p Upstream) Answered(tool string, status int, cause error) *Error {
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return p.KeyRefused(tool, cause)
	case status == http.StatusPaymentRequired:
		return p.OutOfCredit(tool, cause)
	case status == http.StatusRequestTimeout || status == http.StatusGatewayTimeout:
		return p.fail(tool, CodeTimeout, p.Name+" gave up waiting for its own model (it answered "+strconv.Itoa(status)+").", cause)
	case Retryable(status):
		return p.Busy(tool, status, 1, cause)
	}
	return p.Rejected(tool, status, cause)
}

// Unsent maps an error of an HTTP client's Do (no answer at all): a
// timeout of the client's own (limit) or a connection that failed. The
// caller checks its context first: a render stopped by its context is
// neither.
func (p Upstream) Unsent(tool string, limit time.Duration, err error) *Error {
	if ne, ok := errors.AsType[net.Error](err); (ok && ne.Timeout()) || errors.Is(err, context.DeadlineExceeded) {
		return p.TimedOut(tool, limit, err)
	}
	return p.Unreachable(tool, err)
}

// Backoff spaces the tries of a provider's submit answered 429 or 5xx
// (Retryable): the provider did not take the request, so sending it again
// is not a second charge. Waits double from First up to Most, or are what
// the answer's Retry-After asks; a wait that would pass the context's
// deadline is not begun.
type Backoff struct {
	Tries       int           // at most this many submits (default 4)
	First, Most time.Duration // the first wait and the longest (default 1 s and 30 s)
	// Sleep waits d or until ctx ends (a timer when nil; tests record).
	Sleep func(ctx context.Context, d time.Duration) error
}

// DefaultBackoff is the providers' submit backoff.
var DefaultBackoff = Backoff{Tries: 4, First: time.Second, Most: 30 * time.Second}

// Again waits before the next submit after tries failed ones, the last
// answered with retryAfter (0 when it said nothing); false when there is
// no next try: all were made, ctx ended, or the wait would pass ctx's
// deadline.
func (b Backoff) Again(ctx context.Context, tries int, retryAfter time.Duration) bool {
	if tries >= max(1, b.Tries) {
		return false
	}
	d := retryAfter
	if d <= 0 {
		d = b.First << min(tries-1, 16)
		if b.Most > 0 {
			d = min(d, b.Most)
		}
	}
	if end, ok := ctx.Deadline(); ok && time.Until(end) <= d {
		return false
	}
	sleep := b.Sleep
	if sleep == nil {
		sleep = func(ctx context.Context, d time.Duration) error {
			t := time.NewTimer(d)
			defer t.Stop()
			select {
			case <-t.C:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
	return sleep(ctx, d) == nil && ctx.Err() == nil
}

// Retryable reports whether a submit answered status may be sent again: a
// rate limit (429) or a server error (5xx), which the provider did not take.
func Retryable(status int) bool {
	return status == http.StatusTooManyRequests || status >= 500
}

// RetryAfter reads a Retry-After header (seconds, or an HTTP date against
// now), or OpenAI's retry-after-ms; 0 when absent or unreadable.
func RetryAfter(h http.Header, now time.Time) time.Duration {
	if n, err := strconv.Atoi(h.Get("Retry-After-Ms")); err == nil && n > 0 {
		return time.Duration(n) * time.Millisecond
	}
	v := h.Get("Retry-After")
	if v == "" {
		return 0
	}
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// Seconds writes d in whole seconds ("600 s"), at least 1.
func Seconds(d time.Duration) string {
	return strconv.FormatInt(max(1, int64((d+time.Second/2)/time.Second)), 10) + " s"
}

// Upstreamed is an engine that names its provider in failures (fal's
// Upstream, the image endpoint's).
type Upstreamed interface {
	Upstream() Upstream
}

// UpstreamOf is the provider of the engine within e that performs the tool name,
// in failures' words: the engine's own (Upstreamed), else "The <name>
// engine" ("The local engine").
func UpstreamOf(e Engine, name string) Upstream {
	s := Serving(e, name)
	if u, ok := s.(Upstreamed); ok {
		return u.Upstream()
	}
	engine := "engine"
	if s != nil {
		engine = s.Name()
		if engine == tool.Lookbook {
			engine = tool.Local
		}
		engine += " engine"
	}
	return Upstream{Name: "The " + engine}
}
