package invite

import (
	"bytes"
	"context"
	"errors"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/net/html"

	"studio/internal/errs"
	"studio/internal/urlguard"
)

// Preview limits.
const (
	MaxPreviewLinks = 6
	previewPrefix   = 32 << 10 // bytes of a page read: the head is near the top
	previewHops     = 3        // redirects followed, each checked again
	previewTimeout  = 5 * time.Second
)

// previewGuard is the guard previews use: http allowed (a portfolio on
// plain http is still a page a person wants to see, and a preview sends no
// secret), a 32 KiB prefix, 5 s an exchange.
func previewGuard(extra ...urlguard.Option) *urlguard.Guard {
	opts := append([]urlguard.Option{urlguard.AllowHTTP(), urlguard.WithMaxBody(previewPrefix), urlguard.WithTimeout(previewTimeout)}, extra...)
	return urlguard.New(opts...)
}

// PreviewGuard returns the guard previews use, with extra options (tests
// add urlguard.AllowLoopbackForTest).
func PreviewGuard(extra ...urlguard.Option) *urlguard.Guard { return previewGuard(extra...) }

// PreviewRequest is the body of POST /api/toolkit/invite/preview.
type PreviewRequest struct {
	Links []string `json:"links" required:"true" minItems:"1" maxItems:"6" description:"1 to 6 links to read, each at most 2048 characters."`
}

// Validate checks there are 1 to 6 links of sane length.
func (r *PreviewRequest) Validate() error {
	if len(r.Links) < 1 || len(r.Links) > MaxPreviewLinks {
		return errs.Msg(errs.BadBody, "links must hold 1 to 6 links.")
	}
	for i, l := range r.Links {
		r.Links[i] = strings.TrimSpace(l)
		if r.Links[i] == "" || len(r.Links[i]) > 2048 {
			return errs.Msg(errs.BadBody, "Each link must be 1 to 2048 characters.")
		}
	}
	return nil
}

// Card is what a link shows: its page's title, description, picture and icon.
type Card struct {
	Link        string `json:"link" description:"The link as sent."`
	OK          bool   `json:"ok" description:"false when the page could not be read: refused, unreachable, not HTML, or an error answer."`
	Host        string `json:"host" description:"The link's host name; empty when the link is not a URL."`
	Title       string `json:"title" description:"og:title, else the page's title; empty when none."`
	Description string `json:"description" description:"og:description, else the description meta; empty when none."`
	ImageURL    string `json:"imageUrl" description:"og:image (or twitter:image) as an absolute http(s) URL; empty when none."`
	IconURL     string `json:"iconUrl" description:"The page's declared icon, else /favicon.ico of its site; empty when the page was not read."`
}

// Cards answers a preview.
type Cards struct {
	Cards []Card `json:"cards" description:"One card a link, in request order."`
}

// Preview reads each link's page through the URL guard (at most a 32 KiB
// prefix, at most 3 redirects, each hop checked again, none into private
// space) and makes a card of its head. An unreadable link is ok: false.
func (s *Service) Preview(ctx context.Context, client string, in PreviewRequest) (Cards, error) {
	if err := s.take(ctx, "invite-preview:"+client, 20, time.Minute); err != nil {
		return Cards{}, err
	}
	out := make([]Card, len(in.Links))
	var wg sync.WaitGroup
	for i, link := range in.Links {
		wg.Go(func() { out[i] = s.card(ctx, link) })
	}
	wg.Wait()
	return Cards{Cards: out}, nil
}

func (s *Service) card(ctx context.Context, link string) Card {
	c := Card{Link: link}
	u, err := url.Parse(link)
	if err != nil || u.Host == "" {
		return c
	}
	c.Host = u.Hostname()
	ctx, cancel := context.WithTimeout(ctx, 2*previewTimeout)
	defer cancel()
	target := u.String()
	for range previewHops + 1 {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
		if err != nil {
			return c
		}
		req.Header.Set("User-Agent", "StudioPreview/1.0 (+link cards)")
		req.Header.Set("Accept", "text/html,application/xhtml+xml;q=0.9,*/*;q=0.1")
		res, err := s.opts.Guard.Do(req)
		if re, ok := errors.AsType[*urlguard.RedirectError](err); ok && re.Location != "" {
			target = re.Location
			continue
		}
		if err != nil || res.StatusCode < 200 || res.StatusCode > 299 || !htmlAnswer(res) {
			return c
		}
		base, _ := url.Parse(target)
		head := readHead(res.Body, base)
		c.OK, c.Title, c.Description, c.ImageURL, c.IconURL = true, head.title, head.description, head.image, head.icon
		if c.IconURL == "" {
			c.IconURL = (&url.URL{Scheme: base.Scheme, Host: base.Host, Path: "/favicon.ico"}).String()
		}
		return c
	}
	return c
}

// htmlAnswer reports whether an answer is an HTML page: its declared type,
// or the bytes when it declares none.
func htmlAnswer(res *urlguard.Response) bool {
	ct := res.Header.Get("Content-Type")
	if ct == "" {
		ct = http.DetectContentType(res.Body)
	}
	mt, _, _ := mime.ParseMediaType(ct)
	return mt == "text/html" || mt == "application/xhtml+xml"
}

type head struct {
	title, description, image, icon string
}

// readHead reads a page's head from a prefix of its bytes: the title, the
// Open Graph and description metas, and the icon link. Relative URLs are
// resolved against base (or the page's <base href>); only http(s) URLs
// are kept. Reading stops at <body> or the end of the prefix.
func readHead(prefix []byte, base *url.URL) head {
	z := html.NewTokenizer(bytes.NewReader(prefix))
	var h head
	var title, ogTitle, ogDesc, desc, ogImage, icon string
	inTitle := false
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		if tt == html.TextToken && inTitle {
			title += string(z.Text())
			continue
		}
		if tt == html.EndTagToken {
			if name, _ := z.TagName(); string(name) == "title" {
				inTitle = false
			} else if string(name) == "head" {
				break
			}
			continue
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		name, hasAttr := z.TagName()
		attrs := map[string]string{}
		for hasAttr {
			var k, v []byte
			k, v, hasAttr = z.TagAttr()
			attrs[strings.ToLower(string(k))] = string(v)
		}
		switch string(name) {
		case "body":
			goto done
		case "title":
			inTitle = tt == html.StartTagToken && title == ""
		case "base":
			if b, err := base.Parse(attrs["href"]); err == nil && attrs["href"] != "" {
				base = b
			}
		case "meta":
			key := strings.ToLower(attrs["property"])
			if key == "" {
				key = strings.ToLower(attrs["name"])
			}
			v := attrs["content"]
			switch key {
			case "og:title":
				ogTitle = first(ogTitle, v)
			case "og:description":
				ogDesc = first(ogDesc, v)
			case "description", "twitter:description":
				desc = first(desc, v)
			case "og:image", "og:image:url", "og:image:secure_url", "twitter:image":
				ogImage = first(ogImage, v)
			}
		case "link":
			for rel := range strings.FieldsSeq(strings.ToLower(attrs["rel"])) {
				if rel == "icon" || rel == "apple-touch-icon" {
					icon = first(icon, attrs["href"])
				}
			}
		}
	}
done:
	h.title = clean(first(ogTitle, title), 200)
	h.description = clean(first(ogDesc, desc), 500)
	h.image = absolute(base, ogImage)
	h.icon = absolute(base, icon)
	return h
}

func first(have, v string) string {
	if strings.TrimSpace(have) != "" {
		return have
	}
	return v
}

// clean collapses whitespace, drops invalid UTF-8 and cuts to n runes.
func clean(s string, n int) string {
	s = strings.Join(strings.Fields(strings.ToValidUTF8(s, "")), " ")
	if utf8.RuneCountInString(s) > n {
		s = string([]rune(s)[:n-1]) + "…"
	}
	return s
}

// absolute resolves ref against base; "" unless the result is http(s).
func absolute(base *url.URL, ref string) string {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return ""
	}
	u, err := base.Parse(ref)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || len(u.String()) > 2048 {
		return ""
	}
	return u.String()
}
