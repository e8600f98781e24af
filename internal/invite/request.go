package invite

import (
	"context"
	_ "embed"
	"encoding/json"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"studio/internal/account"
	"studio/internal/errs"
	"studio/internal/ts"
)

// ErrDisposable refuses a throwaway address.
var ErrDisposable = errs.New(errs.KindInvalid, "DISPOSABLE_EMAIL", "Throwaway e-mail addresses cannot be let in; use an address you keep.")

//go:embed disposable.txt
var disposableList string

var disposable = func() map[string]bool {
	m := map[string]bool{}
	for line := range strings.SplitSeq(disposableList, "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			m[line] = true
		}
	}
	return m
}()

// Disposable reports whether a normalised address is at a throwaway
// domain (the embedded list) or a subdomain of one.
func Disposable(email string) bool {
	domain := email[strings.LastIndexByte(email, '@')+1:]
	for {
		if disposable[domain] {
			return true
		}
		i := strings.IndexByte(domain, '.')
		if i < 0 {
			return false
		}
		domain = domain[i+1:]
	}
}

// Intake is what an applicant tells about their house.
type Intake struct {
	Audience string   `json:"audience,omitempty" maxLength:"200"`
	Volume   string   `json:"volume,omitempty" maxLength:"200"`
	Draws    string   `json:"draws,omitempty" maxLength:"200"`
	AiToday  string   `json:"aiToday,omitempty" maxLength:"200"`
	Pain     string   `json:"pain,omitempty" maxLength:"200"`
	Cost     []string `json:"cost,omitempty" maxItems:"10" description:"At most 10 entries of at most 200 characters."`
	PainText string   `json:"painText,omitempty" maxLength:"2000"`
}

// ApplyRequest is the body of POST /api/toolkit/invite/request.
type ApplyRequest struct {
	Name       string   `json:"name" required:"true" minLength:"1" maxLength:"200"`
	Email      string   `json:"email" required:"true" maxLength:"254"`
	House      string   `json:"house,omitempty" maxLength:"200"`
	Collection string   `json:"collection,omitempty" maxLength:"200"`
	Intake     *Intake  `json:"intake,omitempty"`
	Link       string   `json:"link,omitempty" maxLength:"2048" description:"An http(s) link to the house's work."`
	Links      []string `json:"links,omitempty" maxItems:"10" description:"At most 10 http(s) links."`
	LogoURL    string   `json:"logoUrl,omitempty" format:"uri" maxLength:"2048"`
	Website    string   `json:"website,omitempty" maxLength:"2048"`
}

// Validate checks the fields' bounds and the address.
func (r *ApplyRequest) Validate() error {
	r.Name = strings.TrimSpace(r.Name)
	if r.Name == "" || utf8.RuneCountInString(r.Name) > 200 {
		return errs.Msg(errs.BadBody, "A name of 1 to 200 characters is required.")
	}
	e, err := account.NormalEmail(r.Email)
	if err != nil {
		return err
	}
	r.Email = e
	short := []*string{&r.House, &r.Collection}
	if r.Intake != nil {
		short = append(short, &r.Intake.Audience, &r.Intake.Volume, &r.Intake.Draws, &r.Intake.AiToday, &r.Intake.Pain)
		if len(r.Intake.Cost) > 10 {
			return errs.Msg(errs.BadBody, "intake.cost holds at most 10 entries.")
		}
		for i := range r.Intake.Cost {
			short = append(short, &r.Intake.Cost[i])
		}
		r.Intake.PainText = strings.TrimSpace(r.Intake.PainText)
		if utf8.RuneCountInString(r.Intake.PainText) > 2000 {
			return errs.Msg(errs.BadBody, "intake.painText is at most 2000 characters.")
		}
	}
	for _, f := range short {
		*f = strings.TrimSpace(*f)
		if utf8.RuneCountInString(*f) > 200 {
			return errs.Msg(errs.BadBody, "Each short answer is at most 200 characters.")
		}
	}
	if len(r.Links) > 10 {
		return errs.Msg(errs.BadBody, "links holds at most 10 links.")
	}
	urls := append([]*string{&r.Link, &r.LogoURL}, ptrs(r.Links)...)
	for _, u := range urls {
		*u = strings.TrimSpace(*u)
		if *u != "" && !webURL(*u) {
			return errs.Msg(errs.BadBody, "link, links and logoUrl must be http or https URLs of at most 2048 characters.")
		}
	}
	r.Website = strings.TrimSpace(r.Website)
	if len(r.Website) > 2048 {
		return errs.Msg(errs.BadBody, "website is at most 2048 characters.")
	}
	return nil
}

func ptrs(ss []string) []*string {
	out := make([]*string, len(ss))
	for i := range ss {
		out[i] = &ss[i]
	}
	return out
}

// webURL reports whether s is an absolute http(s) URL with a host.
func webURL(s string) bool {
	if len(s) > 2048 {
		return false
	}
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// Applied answers a request to be let in.
type Applied struct {
	Status string `json:"status" enum:"received,already_requested" description:"received: the address joined the applicant list; already_requested: it was on it, nothing changed."`
}

// Applicant is a row of the applicant list (SPEC §3: pending, then invited
// or declined).
type Applicant struct {
	ID        string
	Email     string
	Name      string
	House     string
	Website   string
	Details   string // the rest of the request, JSON
	Status    string
	CreatedAt ts.Time
}

// Apply puts an address on the applicant list.
func (s *Service) Apply(ctx context.Context, client string, in ApplyRequest) (Applied, error) {
	if Disposable(in.Email) {
		return Applied{}, ErrDisposable
	}
	if err := s.take(ctx, "invite-request:"+client, 5, time.Hour); err != nil {
		return Applied{}, err
	}
	details, err := json.Marshal(struct {
		Collection string   `json:"collection,omitempty"`
		Intake     *Intake  `json:"intake,omitempty"`
		Link       string   `json:"link,omitempty"`
		Links      []string `json:"links,omitempty"`
		LogoURL    string   `json:"logoUrl,omitempty"`
	}{in.Collection, in.Intake, in.Link, in.Links, in.LogoURL})
	if err != nil {
		return Applied{}, err
	}
	added, err := s.store.AddApplicant(ctx, Applicant{
		ID: uuid.Must(uuid.NewV7()).String(), Email: in.Email, Name: in.Name, House: in.House, Website: in.Website,
		Details: string(details), Status: "pending", CreatedAt: ts.Of(s.opts.Now()),
	})
	if err != nil {
		return Applied{}, err
	}
	if !added {
		return Applied{Status: "already_requested"}, nil
	}
	return Applied{Status: "received"}, nil
}
