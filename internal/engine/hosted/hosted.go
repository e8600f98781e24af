// Package hosted is what the engines of hosted providers share (fal's
// queue, FASHN's prediction API): one authorised JSON client on a base URL
// whose failures read as every provider's (engine.Upstream), a submit
// retried on 429 and 5xx with engine.Backoff (honouring Retry-After, never
// past the deadline), a status poll that tolerates three failed polls in
// a row, a cancel told whatever the context says, and the download of a
// result (a data URI, or an http(s) URL that hears the key only on the
// base URL's origin). Each engine says how its provider reads: the
// Authorization header, its error body, its statuses. No engine imports
// another; both import this.
package hosted

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"studio/internal/engine"
)

// MaxJSONBytes caps a JSON answer: a larger one is a provider fault.
const MaxJSONBytes = 8 << 20

// Client talks to one hosted provider. It is safe for concurrent use once
// built; its fields are set by the engine that owns it, before use.
type Client struct {
	Upstream engine.Upstream
	Base     *url.URL     // the provider's base URL (the key goes only to its origin)
	Auth     string       // the Authorization header's value ("Key ...", "Bearer ...")
	HTTP     *http.Client // one request's timeout is its Timeout
	PollMin  time.Duration
	PollMax  time.Duration
	Backoff  engine.Backoff
	// Fault reads a non-2xx answer: it fills he's Name and Detail from
	// the body and returns the develop's failure, or nil for the plain
	// one (Upstream.Answered).
	Fault func(tool string, he *HTTPError, body []byte) error
}

// New is a Client of the provider up at baseURL (defaultURL when empty)
// with the key, polling from pollMin to 3 s; name is the engine's package
// name, as its errors begin.
func New(name string, up engine.Upstream, key, baseURL, defaultURL string, pollMin time.Duration) (*Client, error) {
	if baseURL == "" {
		baseURL = defaultURL
	}
	u, err := url.Parse(strings.TrimRight(baseURL, "/"))
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("%s: base URL %q is not an http(s) URL", name, baseURL)
	}
	if strings.TrimSpace(key) == "" {
		return nil, fmt.Errorf("%s: the API key is empty", name)
	}
	return &Client{Upstream: up, Base: u, HTTP: &http.Client{Timeout: 60 * time.Second},
		PollMin: pollMin, PollMax: 3 * time.Second, Backoff: engine.DefaultBackoff}, nil
}

// HTTPError is a non-2xx answer from the provider.
type HTTPError struct {
	Provider   string
	Status     int
	Name       string        // the provider's error name, where it gives one
	Detail     string        // its message
	RetryAfter time.Duration // what its Retry-After asked, 0 when nothing
}

func (h *HTTPError) Error() string {
	if h.Name != "" {
		return fmt.Sprintf("%s answered %d %s: %s", h.Provider, h.Status, h.Name, h.Detail)
	}
	return fmt.Sprintf("%s answered %d: %s", h.Provider, h.Status, h.Detail)
}

// Transient reports whether a status poll may be tried again: a network
// error, 429 or 5xx.
func Transient(err error) bool {
	if he, ok := errors.AsType[*HTTPError](err); ok {
		return engine.Retryable(he.Status)
	}
	return !engine.IsInput(err)
}

// Send makes one authorised JSON request (with header added) and decodes
// a 2xx answer into out. Its errors are provider faults, wrapping an
// *HTTPError for a non-2xx answer.
func (c *Client) Send(ctx context.Context, tool, method, u string, body []byte, header http.Header, out any) error {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return engine.ProviderError(tool, "The "+c.Upstream.Name+" request could not be made.", err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("Authorization", c.Auth)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := c.HTTP.Do(req)
	if err != nil {
		return c.Upstream.Unsent(tool, c.HTTP.Timeout, err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(io.LimitReader(res.Body, MaxJSONBytes))
	if err != nil {
		return engine.ProviderError(tool, c.Upstream.Name+"'s answer could not be read.", err)
	}
	if res.StatusCode < 200 || res.StatusCode > 299 {
		he := &HTTPError{Provider: c.Upstream.Name, Status: res.StatusCode, RetryAfter: engine.RetryAfter(res.Header, time.Now())}
		if c.Fault != nil {
			if err := c.Fault(tool, he, data); err != nil {
				return err
			}
		}
		return c.Upstream.Answered(tool, res.StatusCode, he)
	}
	if err := json.Unmarshal(data, out); err != nil {
		return engine.ProviderError(tool, c.Upstream.Name+"'s answer is not the expected JSON.", err)
	}
	return nil
}

// Submit posts body to u and decodes the answer into out. An answer the
// provider did not take (429 or 5xx, where busy agrees; nothing runs,
// nothing is billed) is sent again with the backoff, honouring
// Retry-After, while the context's deadline allows; header, when set,
// makes each try's headers. A submit that failed any other way is not sent
// again: the provider may have taken it.
func (c *Client) Submit(ctx context.Context, tool, u string, body []byte, header func() http.Header, busy func(*HTTPError) bool, out any) error {
	for tries := 1; ; tries++ {
		var h http.Header
		if header != nil {
			h = header()
		}
		err := c.Send(ctx, tool, http.MethodPost, u, body, h, out)
		if ctx.Err() != nil {
			return fmt.Errorf("%s: submit stopped: %w", strings.ToLower(c.Upstream.Name), ctx.Err())
		}
		he, ok := errors.AsType[*HTTPError](err)
		switch {
		case err == nil:
			return nil
		case !ok || !engine.Retryable(he.Status) || (busy != nil && !busy(he)):
			return err
		case !c.Backoff.Again(ctx, tries, he.RetryAfter):
			if ctx.Err() != nil {
				return fmt.Errorf("%s: submit stopped: %w", strings.ToLower(c.Upstream.Name), ctx.Err())
			}
			return c.Upstream.Busy(tool, he.Status, tries, he)
		}
	}
}

// Poll reads the status at u, waiting from PollMin growing to PollMax
// between reads, until ended says the request ended (with its error, if
// any) or ctx ends. A read that fails by network, 429 or 5xx is tried
// again, three in a row at most.
func Poll[S any](ctx context.Context, c *Client, tool, u string, ended func(S) (bool, error)) (S, error) {
	var zero S
	wait := c.PollMin
	failures := 0
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return zero, ctx.Err()
		case <-timer.C:
		}
		var st S
		err := c.Send(ctx, tool, http.MethodGet, u, nil, nil, &st)
		switch {
		case ctx.Err() != nil:
			return zero, ctx.Err()
		case err != nil && Transient(err) && failures < 3:
			failures++
		case err != nil:
			return zero, err
		default:
			failures = 0
			if done, err := ended(st); done || err != nil {
				return st, err
			}
		}
		wait = min(c.PollMax, wait*3/2)
		timer.Reset(wait)
	}
}

// TellCancel sends method to u (the provider's cancel), whatever ctx says,
// for at most 10 s; its answer changes nothing.
func (c *Client) TellCancel(ctx context.Context, method, u string) {
	cctx, stop := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer stop()
	req, err := http.NewRequestWithContext(cctx, method, u, nil)
	if err == nil {
		req.Header.Set("Authorization", c.Auth)
		if res, err := c.HTTP.Do(req); err == nil {
			io.Copy(io.Discard, io.LimitReader(res.Body, 4096))
			res.Body.Close()
		}
	}
}

// SameOrigin reports whether u is on the base URL's origin.
func (c *Client) SameOrigin(u *url.URL) bool {
	return strings.EqualFold(u.Scheme, c.Base.Scheme) && strings.EqualFold(u.Host, c.Base.Host)
}

// Download fetches a result file of at most limit bytes, and its content
// type: a data URI, or an http(s) URL. The key is sent only to the base
// URL's origin, never to a CDN.
func (c *Client) Download(ctx context.Context, tool, raw string, limit int64) ([]byte, string, error) {
	up := c.Upstream
	if rest, ok := strings.CutPrefix(raw, "data:"); ok {
		meta, payload, ok := strings.Cut(rest, ",")
		if !ok || !strings.HasSuffix(meta, ";base64") {
			return nil, "", up.BadResult(tool, "its result is a data URI that is not base64", nil)
		}
		data, err := base64.StdEncoding.DecodeString(payload)
		if err != nil {
			return nil, "", up.BadResult(tool, "its result's data URI does not decode", err)
		}
		return data, strings.TrimSuffix(meta, ";base64"), nil
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, "", up.BadResult(tool, "its result is not an http(s) URL", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, "", engine.ProviderError(tool, up.Name+"'s result could not be requested.", err)
	}
	if c.SameOrigin(u) {
		req.Header.Set("Authorization", c.Auth)
	}
	res, err := c.HTTP.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, "", fmt.Errorf("%s: download stopped: %w", strings.ToLower(up.Name), ctx.Err())
		}
		return nil, "", up.Unsent(tool, c.HTTP.Timeout, err)
	}
	defer res.Body.Close()
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return nil, "", engine.ProviderError(tool, fmt.Sprintf("%s's result download answered %d.", up.Name, res.StatusCode), nil)
	}
	data, err := io.ReadAll(io.LimitReader(res.Body, limit+1))
	if err != nil {
		return nil, "", engine.ProviderError(tool, up.Name+"'s result could not be downloaded.", err)
	}
	if int64(len(data)) > limit {
		return nil, "", engine.ProviderError(tool, up.Name+"'s result is larger than we accept.", nil)
	}
	return data, res.Header.Get("Content-Type"), nil
}
