package asset

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"path"
	"time"

	"studio/internal/errs"
	"studio/internal/urlguard"
)

// Fetching an image a caller names by URL (MCP upload_asset's url): the
// one way out is the URL guard (https only, no private address at
// registration or at dial time, each redirect checked again), at most
// MaxBytes read, FetchTimeout for the whole exchange. What comes back is
// uploaded as bytes would be: sniffed, measured, stored.

// Fetch limits.
const (
	FetchTimeout   = 20 * time.Second
	fetchRedirects = 3
)

// ErrFetchFailed refuses a URL whose server did not answer an image: a
// failed exchange, a status other than 200, a timeout. Nothing is stored.
var ErrFetchFailed = errs.New(errs.KindUnprocessable, "FETCH_FAILED", "The URL did not answer with an image; nothing was stored.")

// FetchGuard returns the guard image fetches go through, with extra
// options (tests add urlguard.AllowLoopbackForTest and their root CAs).
func FetchGuard(extra ...urlguard.Option) *urlguard.Guard {
	opts := append([]urlguard.Option{urlguard.WithMaxBody(MaxBytes), urlguard.WithTimeout(FetchTimeout),
		urlguard.WithRedirects(fetchRedirects)}, extra...)
	return urlguard.New(opts...)
}

// Fetch reads the image at rawURL through the service's fetch guard and
// returns its bytes and a file name from the URL's path. A refused URL is
// BAD_URL (with its reason), an answer over MaxBytes IMAGE_TOO_LARGE, any
// other failure FETCH_FAILED; nothing is stored either way. The bytes are
// not yet checked to be an image: Upload does that.
func (s *Service) Fetch(ctx context.Context, rawURL string) (data []byte, filename string, err error) {
	if s.fetch == nil {
		return nil, "", errs.Msg(ErrFetchFailed, "This server fetches no URLs; send the image's bytes instead.")
	}
	res, err := s.fetch.Get(ctx, rawURL)
	switch {
	case err == nil:
	case urlguard.Reason(err) != "":
		return nil, "", err
	case errors.Is(err, urlguard.ErrRedirect):
		return nil, "", errs.Wrap(errs.Msg(ErrFetchFailed, "The URL redirects more than 3 times, or to a URL that is refused."), err)
	default:
		return nil, "", errs.Wrap(ErrFetchFailed, err)
	}
	if res.StatusCode != http.StatusOK {
		return nil, "", errs.With(errs.Msg(ErrFetchFailed, "The URL answered "+http.StatusText(res.StatusCode)+", not an image; nothing was stored."),
			"status", res.StatusCode)
	}
	if res.Truncated {
		return nil, "", ErrTooLarge
	}
	if len(res.Body) == 0 {
		return nil, "", ErrEmptyImage
	}
	if u, err := url.Parse(rawURL); err == nil {
		filename = path.Base(u.Path)
	}
	return res.Body, filename, nil
}
