package analyst

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/net/html"

	"studio/internal/asset"
	"studio/internal/ts"
	"studio/internal/urlguard"
)

// ApplicantRow is what an action reads of an applicant.
type ApplicantRow struct {
	ID, Email, Website, Details, Status string
}

// ApproveRequest is the body of the approve action.
type ApproveRequest struct {
	Reason string `json:"reason" required:"true" minLength:"1" maxLength:"500" description:"Why the applicant is let in; kept with the decision."`
}

// Validate checks the reason.
func (r *ApproveRequest) Validate() error {
	r.Reason = strings.TrimSpace(r.Reason)
	if r.Reason == "" || utf8.RuneCountInString(r.Reason) > 500 {
		return ErrReason
	}
	return nil
}

// Approved answers the approve action.
type Approved struct {
	ID             string `json:"id" description:"The applicant's id."`
	Status         string `json:"status" enum:"invited"`
	AlreadyInvited bool   `json:"alreadyInvited" description:"The applicant was invited before; nothing changed and no letter went out."`
	Emailed        string `json:"emailed" enum:"sent,logged,failed,none" description:"What became of the invitation letter with the accept link (as an operator's invitation): none when already invited."`
}

// Approve moves a pending applicant to invited and lets the address in as
// an operator's invitation does (the invitation and its letter). An
// applicant already invited answers alreadyInvited; a declined one is 409
// NOT_PENDING; an unknown id is the one 404.
func (s *Service) Approve(ctx context.Context, id string, in ApproveRequest) (Approved, error) {
	a, err := s.store.ApplicantForAction(ctx, id)
	if err != nil {
		return Approved{}, err
	}
	already := Approved{ID: a.ID, Status: "invited", AlreadyInvited: true, Emailed: "none"}
	switch a.Status {
	case "invited":
		return already, nil
	case "pending":
	default:
		return Approved{}, ErrNotPending
	}
	moved, err := s.store.DecideApplicant(ctx, id, "pending", "invited", in.Reason, s.opts.Now())
	if err != nil {
		return Approved{}, err
	}
	if !moved { // decided meanwhile by a concurrent request
		if a, err = s.store.ApplicantForAction(ctx, id); err != nil {
			return Approved{}, err
		}
		if a.Status == "invited" {
			return already, nil
		}
		return Approved{}, ErrNotPending
	}
	emailed, err := s.inviter.SendInvitation(ctx, a.Email, "")
	if err != nil {
		// The invitation could not be written: the applicant stays pending.
		_, undo := s.store.DecideApplicant(context.WithoutCancel(ctx), id, "invited", "pending", "", s.opts.Now())
		return Approved{}, errors.Join(err, undo)
	}
	return Approved{ID: a.ID, Status: "invited", Emailed: emailed}, nil
}

// Research limits.
const (
	researchPrefix  = 256 << 10 // bytes of a page read
	researchTimeout = 8 * time.Second
	researchHops    = 3
	excerptRunes    = 1500
	maxProducts     = 20
)

// ResearchGuard is the guard research reads through: http allowed (a
// homepage on plain http is still public), 256 KiB, 8 s an exchange; extra
// options come from tests (urlguard.AllowLoopbackForTest).
func ResearchGuard(extra ...urlguard.Option) *urlguard.Guard {
	opts := append([]urlguard.Option{urlguard.AllowHTTP(), urlguard.WithMaxBody(researchPrefix), urlguard.WithTimeout(researchTimeout)}, extra...)
	return urlguard.New(opts...)
}

// socialHosts are the hosts research never reads: a profile on them is a
// person's, not the house's homepage.
var socialHosts = []string{
	"instagram.com", "facebook.com", "fb.com", "fb.me", "tiktok.com", "x.com", "twitter.com", "t.co", "linkedin.com",
	"lnkd.in", "pinterest.com", "pin.it", "youtube.com", "youtu.be", "threads.net", "snapchat.com", "reddit.com",
	"tumblr.com", "behance.net", "dribbble.com", "vk.com", "weibo.com", "xiaohongshu.com", "whatsapp.com", "wa.me",
	"telegram.org", "t.me", "bsky.app", "mastodon.social", "linktr.ee",
}

// Social reports whether host is a social network's (or a subdomain of one).
func Social(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	for _, s := range socialHosts {
		if host == s || strings.HasSuffix(host, "."+s) {
			return true
		}
	}
	return false
}

// Page is what research read of one address.
type Page struct {
	URL         string `json:"url" description:"The address read (after at most 3 redirects, each checked again); empty when there was none to read."`
	Fetched     bool   `json:"fetched" description:"An answer came back and was read."`
	Status      int    `json:"status" description:"The HTTP status of the answer; 0 when none came."`
	Refused     string `json:"refused,omitempty" enum:"no_website,not_a_url,social_host,private_host,unreachable,not_html,not_json" description:"Why nothing was read: no_website (the applicant gave none), not_a_url, social_host (a social network's page is never read), private_host (the URL guard refused the address), unreachable, or an answer of another type."`
	Title       string `json:"title,omitempty" description:"og:title, else the page's title."`
	Description string `json:"description,omitempty" description:"og:description, else the description meta."`
	Excerpt     string `json:"excerpt,omitempty" description:"The page's visible text, whitespace folded, at most 1500 characters."`
}

// Products is what research read of the homepage's public product feed.
type Products struct {
	Page
	Count  int      `json:"count" description:"Products the feed's first page lists."`
	Titles []string `json:"titles" description:"At most 20 product titles."`
}

// Research is the research answer.
type Research struct {
	ApplicantID string   `json:"applicantId"`
	Homepage    Page     `json:"homepage" description:"The root page of the applicant's website."`
	Products    Products `json:"products" description:"The website's public product feed, /products.json at the homepage's origin (the feed Shopify stores publish); nothing else is fetched."`
	ReadAt      ts.Time  `json:"readAt"`
}

// Research reads the applicant's public homepage and its product feed
// through the URL guard, and nothing else: a social network's host is
// never read, a private or internal address is refused at every dial.
// Nothing is stored.
func (s *Service) Research(ctx context.Context, id string) (Research, error) {
	a, err := s.store.ApplicantForAction(ctx, id)
	if err != nil {
		return Research{}, err
	}
	out := Research{ApplicantID: a.ID, Products: Products{Titles: []string{}}, ReadAt: ts.Of(s.opts.Now())}
	site := strings.TrimSpace(a.Website)
	if site == "" {
		var d struct {
			Link string `json:"link"`
		}
		_ = json.Unmarshal([]byte(a.Details), &d)
		site = strings.TrimSpace(d.Link)
	}
	if site == "" {
		out.Homepage.Refused, out.Products.Refused = "no_website", "no_website"
		return out, nil
	}
	if !strings.Contains(site, "://") {
		site = "https://" + site
	}
	u, err := url.Parse(site)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		out.Homepage.Refused, out.Products.Refused = "not_a_url", "not_a_url"
		return out, nil
	}
	home := (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/"}).String()
	body, page := s.fetch(ctx, home, "text/html")
	out.Homepage = page
	if page.Fetched && page.Refused == "" {
		out.Homepage.Title, out.Homepage.Description, out.Homepage.Excerpt = readPage(body)
	}
	origin := home
	if page.URL != "" { // the homepage's final origin, after its redirects
		if f, err := url.Parse(page.URL); err == nil {
			origin = (&url.URL{Scheme: f.Scheme, Host: f.Host, Path: "/"}).String()
		}
	}
	if page.Refused == "social_host" || page.Refused == "private_host" {
		out.Products.Page = Page{URL: origin + "products.json", Refused: page.Refused}
		return out, nil
	}
	pbody, ppage := s.fetch(ctx, origin+"products.json", "application/json")
	out.Products.Page = ppage
	if ppage.Fetched && ppage.Refused == "" {
		var feed struct {
			Products []struct {
				Title string `json:"title"`
			} `json:"products"`
		}
		if json.Unmarshal(pbody, &feed) != nil {
			out.Products.Refused = "not_json"
		} else {
			out.Products.Count = len(feed.Products)
			for _, p := range feed.Products {
				if len(out.Products.Titles) < maxProducts && strings.TrimSpace(p.Title) != "" {
					out.Products.Titles = append(out.Products.Titles, clip(p.Title, 200))
				}
			}
		}
	}
	return out, nil
}

// fetch reads one address through the guard, following at most 3
// redirects, each checked again (and never onto a social host).
func (s *Service) fetch(ctx context.Context, target, want string) ([]byte, Page) {
	ctx, cancel := context.WithTimeout(ctx, 2*researchTimeout)
	defer cancel()
	p := Page{URL: target}
	for range researchHops + 1 {
		p.URL = target
		u, err := url.Parse(target)
		if err != nil || u.Hostname() == "" {
			p.Refused = "not_a_url"
			return nil, p
		}
		if Social(u.Hostname()) {
			p.Refused = "social_host"
			return nil, p
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
		if err != nil {
			p.Refused = "not_a_url"
			return nil, p
		}
		req.Header.Set("User-Agent", "StudioResearch/1.0 (+applicant homepage)")
		req.Header.Set("Accept", want+";q=1, */*;q=0.1")
		res, err := s.opts.Guard.Do(req)
		if re, ok := errors.AsType[*urlguard.RedirectError](err); ok && re.Location != "" {
			next, perr := u.Parse(re.Location)
			if perr != nil {
				p.Refused = "not_a_url"
				return nil, p
			}
			target = next.String()
			continue
		}
		if urlguard.Reason(err) == urlguard.ReasonMalformed || urlguard.Reason(err) == urlguard.ReasonNotHTTPS || urlguard.Reason(err) == urlguard.ReasonUserinfo {
			p.Refused = "not_a_url"
			return nil, p
		}
		if urlguard.Reason(err) != "" && urlguard.Reason(err) != urlguard.ReasonUnresolvable {
			p.Refused = "private_host"
			return nil, p
		}
		if err != nil {
			p.Refused = "unreachable"
			return nil, p
		}
		p.Fetched, p.Status = true, res.StatusCode
		if res.StatusCode < 200 || res.StatusCode > 299 {
			p.Refused = "unreachable"
			return nil, p
		}
		ct := res.Header.Get("Content-Type")
		if ct == "" {
			ct = http.DetectContentType(res.Body)
		}
		mt, _, _ := mime.ParseMediaType(ct)
		switch {
		case want == "text/html" && mt != "text/html" && mt != "application/xhtml+xml":
			p.Refused = "not_html"
			return nil, p
		case want == "application/json" && mt != "application/json" && !strings.HasSuffix(mt, "+json"):
			p.Refused = "not_json"
			return nil, p
		}
		return res.Body, p
	}
	p.Refused = "unreachable" // too many redirects
	return nil, p
}

// readPage reads a page's title, description and visible text.
func readPage(b []byte) (title, description, excerpt string) {
	z := html.NewTokenizer(bytes.NewReader(b))
	var ogTitle, ogDesc, desc string
	var text strings.Builder
	inTitle, skip := false, 0
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		switch tt {
		case html.TextToken:
			t := string(z.Text())
			if inTitle && title == "" {
				title = t
			} else if skip == 0 && text.Len() < excerptRunes*4 {
				text.WriteString(t)
				text.WriteByte(' ')
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			switch string(name) {
			case "title":
				inTitle = false
			case "script", "style", "noscript", "template", "svg", "head":
				if skip > 0 {
					skip--
				}
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			attrs := map[string]string{}
			for hasAttr {
				var k, v []byte
				k, v, hasAttr = z.TagAttr()
				attrs[strings.ToLower(string(k))] = string(v)
			}
			switch string(name) {
			case "title":
				inTitle = tt == html.StartTagToken
			case "script", "style", "noscript", "template", "svg":
				if tt == html.StartTagToken {
					skip++
				}
			case "meta":
				key := strings.ToLower(attrs["property"])
				if key == "" {
					key = strings.ToLower(attrs["name"])
				}
				switch key {
				case "og:title":
					ogTitle = firstOf(ogTitle, attrs["content"])
				case "og:description":
					ogDesc = firstOf(ogDesc, attrs["content"])
				case "description":
					desc = firstOf(desc, attrs["content"])
				}
			}
		}
	}
	return clip(firstOf(ogTitle, title), 200), clip(firstOf(ogDesc, desc), 500), clip(text.String(), excerptRunes)
}

func firstOf(have, v string) string {
	if strings.TrimSpace(have) != "" {
		return have
	}
	return v
}

// clip folds whitespace, drops invalid UTF-8 and cuts to n runes.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(strings.ToValidUTF8(s, "")), " ")
	if utf8.RuneCountInString(s) > n {
		s = string([]rune(s)[:n-1]) + "…"
	}
	return s
}

// SummarizeRequest is the body of the summarize action.
type SummarizeRequest struct {
	FocusArea string `json:"focusArea" required:"true" minLength:"1" maxLength:"200" description:"What the summary should look at."`
}

// Validate checks the focus area.
func (r *SummarizeRequest) Validate() error {
	r.FocusArea = strings.TrimSpace(r.FocusArea)
	if r.FocusArea == "" || utf8.RuneCountInString(r.FocusArea) > 200 {
		return ErrFocusArea
	}
	return nil
}

// Summary would be a recording's summary.
type Summary struct {
	RecordingID string `json:"recordingId"`
	FocusArea   string `json:"focusArea"`
	Summary     string `json:"summary"`
}

// Summarize would summarize a recording with the AI endpoint: 503
// AI_NOT_CONFIGURED without one; with one, the id is the one 404, since
// the service records no sessions and so has nothing to summarize (no
// model is called and nothing is charged).
func (s *Service) Summarize(_ context.Context, _ string, _ SummarizeRequest) (Summary, error) {
	if !s.opts.AIReady() {
		return Summary{}, ErrAINotConfig
	}
	return Summary{}, ErrNoRecording
}

// Preview returns the stored file of any house's live asset, whose
// thumbnail the route serves.
func (s *Service) Preview(ctx context.Context, id string) (asset.File, error) {
	house, err := s.store.AssetHouse(ctx, id)
	if err != nil {
		return asset.File{}, err
	}
	return s.store.AssetFile(ctx, house, id)
}
