// Package access answers what a user may open (GET /api/toolkit/my-access)
// and each tool's curated items (GET /api/toolkit/tools/{slug}/items),
// SPEC §4.9.
//
// The toolkits are the service's areas of work (brand, casting, lookbook,
// share, studio: the ones operators grant, POST /api/toolkit/admin/access);
// the tools are the develop tools (the submit route's), each in one
// toolkit; a tool's settings are the options it takes on submit, as the
// billing catalog lists them (DECISIONS §10). A user may open
// everything while the house's plan is open: a trial before its end, or a
// paid plan (active, past due, or canceled and running to its period's
// end). Beyond that a user opens what an operator granted them: a toolkit
// (and so every tool in it) or a single tool. The trial's state is read
// from the house's plan: trialActive while a trial runs, trialExpired once
// a trial's period has ended without a paid plan, trialDaysLeft the whole
// days left (rounded up) while it runs, else 0.
package access

import (
	"context"
	"errors"
	"math"
	"regexp"
	"slices"
	"time"

	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/job"
	"studio/internal/ledger"
	"studio/internal/tool"
	"studio/internal/ts"
)

// Store is what access reads.
type Store interface {
	Plan(ctx context.Context, house string) (ledger.Plan, error)
	// AccessOf lists the toolkits and tools granted to a user.
	AccessOf(ctx context.Context, user string) (toolkits, tools []string, err error)
	// ToolItems lists a tool's curated items, in sort order.
	ToolItems(ctx context.Context, tool string) ([]Item, error)
}

// Kit is a toolkit and its tools, in the order my-access lists them.
type Kit struct {
	Slug, Name string
	Tools      []string
}

// Kits are the toolkits and the develop tools each holds.
var Kits = []Kit{
	{Slug: "studio", Name: "Studio", Tools: []string{"upscale", "reframe", "packshot", "remove-background", "camera-lens",
		"harmonize", "iron", "cleanup", "color-change", "fit-adjust", "tryon"}},
	{Slug: "lookbook", Name: "Lookbook", Tools: []string{"lookbook-video"}},
	{Slug: "casting", Name: "Casting", Tools: []string{"generate-character"}},
	{Slug: "brand", Name: "Brand"},
	{Slug: "share", Name: "Share"},
}

// Toolkit is one toolkit as my-access lists it.
type Toolkit struct {
	ID         string   `json:"id"`
	Slug       string   `json:"slug"`
	Name       string   `json:"name"`
	SortOrder  int      `json:"sortOrder"`
	Accessible bool     `json:"accessible"`
	Tools      []string `json:"tools" description:"The slugs of the toolkit's tools."`
}

// Tool is one tool as my-access lists it.
type Tool struct {
	ID         string           `json:"id"`
	Slug       string           `json:"slug"`
	Name       string           `json:"name"`
	SortOrder  int              `json:"sortOrder"`
	Accessible bool             `json:"accessible"`
	Toolkit    string           `json:"toolkit" description:"The slug of the toolkit that holds the tool."`
	Settings   []job.OptionSpec `json:"settings" description:"The options the tool takes on submit (DECISIONS §10), as the billing catalog lists them."`
}

// Mine is what my-access answers.
type Mine struct {
	Toolkits      []Toolkit `json:"toolkits"`
	Tools         []Tool    `json:"tools"`
	TrialExpired  bool      `json:"trialExpired"`
	TrialActive   bool      `json:"trialActive"`
	TrialDaysLeft int       `json:"trialDaysLeft"`
}

// Item is one curated item of a tool, in the spec's field names.
type Item struct {
	ID        string  `json:"id"`
	ToolID    string  `json:"tool_id"`
	Category  string  `json:"category"`
	TitleHe   string  `json:"title_he"`
	LabelHe   string  `json:"label_he"`
	ContentEn string  `json:"content_en"`
	ImageURL  *string `json:"image_url"`
	NotesHe   *string `json:"notes_he"`
	SortOrder int     `json:"sort_order"`
	CreatedAt ts.Time `json:"created_at"`
}

// Items wraps a tool's items.
type Items struct {
	Items []Item `json:"items"`
}

// Settings lists a tool's options; nil lists none.
type Settings func(tool string) []job.OptionSpec

// Service answers access.
type Service struct {
	store    Store
	settings Settings
	now      func() time.Time
}

// NewService returns the access service.
func NewService(store Store, settings Settings, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	if settings == nil {
		settings = func(string) []job.OptionSpec { return nil }
	}
	return &Service{store: store, settings: settings, now: now}
}

// ErrNoSuchTool refuses an items request for a slug that names no tool;
// the body lists the slugs that do (legal).
var ErrNoSuchTool = errs.Msg(job.ErrUnknownTool, "No tool has this slug.")

// Mine answers what the caller may open.
func (s *Service) Mine(ctx context.Context, p auth.Principal) (Mine, error) {
	plan, err := s.store.Plan(ctx, p.HouseID)
	if err != nil && !errors.Is(err, errs.NotFound) {
		return Mine{}, err
	}
	kits, tools, err := s.store.AccessOf(ctx, p.UserID)
	if err != nil {
		return Mine{}, err
	}
	now := s.now()
	out := Mine{Toolkits: []Toolkit{}, Tools: []Tool{}}
	open := false
	switch plan.Status {
	case ledger.Trialing:
		if plan.RenewsAt != nil && plan.RenewsAt.Time.After(now) {
			open, out.TrialActive = true, true
			out.TrialDaysLeft = int(math.Ceil(plan.RenewsAt.Time.Sub(now).Hours() / 24))
		} else {
			out.TrialExpired = true
		}
	case ledger.Active, ledger.PastDue:
		open = true
	case ledger.Canceled:
		open = plan.EndsAt != nil && plan.EndsAt.Time.After(now)
	}
	order := 0
	for i, k := range Kits {
		kitOpen := open || slices.Contains(kits, k.Slug)
		out.Toolkits = append(out.Toolkits, Toolkit{ID: k.Slug, Slug: k.Slug, Name: k.Name, SortOrder: (i + 1) * 10,
			Accessible: kitOpen, Tools: append([]string{}, k.Tools...)})
		for _, t := range k.Tools {
			order += 10
			settings := s.settings(t)
			if settings == nil {
				settings = []job.OptionSpec{}
			}
			decl, _ := tool.Get(t)
			out.Tools = append(out.Tools, Tool{ID: t, Slug: t, Name: decl.Title, SortOrder: order,
				Accessible: kitOpen || slices.Contains(tools, t), Toolkit: k.Slug, Settings: settings})
		}
	}
	return out, nil
}

var slugShape = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,59}$`)

// Tools lists the tools my-access lists, in its order.
func Tools() []string {
	var out []string
	for _, k := range Kits {
		out = append(out, k.Tools...)
	}
	return out
}

// IsTool reports whether slug names a tool my-access lists.
func IsTool(slug string) bool {
	for _, k := range Kits {
		if slices.Contains(k.Tools, slug) {
			return true
		}
	}
	return false
}

// ToolItems lists a tool's curated items; a slug that names no tool is
// 400 UNKNOWN_TOOL.
func (s *Service) ToolItems(ctx context.Context, slug string) (Items, error) {
	if !slugShape.MatchString(slug) || !IsTool(slug) {
		return Items{}, errs.With(ErrNoSuchTool, "legal", Tools())
	}
	items, err := s.store.ToolItems(ctx, slug)
	if err != nil {
		return Items{}, err
	}
	if items == nil {
		items = []Item{}
	}
	return Items{Items: items}, nil
}
