package console

import (
	"errors"
	"net/http"
	"net/url"

	"studio/internal/account"
	"studio/internal/asset"
	"studio/internal/auth"
	"studio/internal/brand"
	"studio/internal/httpapi"
	"studio/internal/judge"
	"studio/internal/notify"
	"studio/internal/seat"
	"studio/internal/support"
	"studio/internal/webhook"
)

// The house: its brand and marks, casting board, standing notes, people,
// API keys, webhooks, notifications, help desk, and the account.

// houseTabs is the house's own navigation.
var houseTabs = []navItem{
	{Href: "/house", Label: "Brand and notes", Section: "brand"},
	{Href: "/house/casting", Label: "Casting", Section: "casting"},
	{Href: "/house/people", Label: "People", Section: "people"},
	{Href: "/house/keys", Label: "API keys", Section: "keys"},
	{Href: "/house/webhooks", Label: "Webhooks", Section: "webhooks"},
	{Href: "/house/notifications", Label: "Notifications", Section: "notifications"},
	{Href: "/house/support", Label: "Help", Section: "support"},
}

// housePage is what every page of the house shows: its tab and its data.
type housePage struct {
	Tab  string
	Tabs []navItem
	Data any
}

// house renders one page of the house.
func (c *Console) house(w http.ResponseWriter, me *visitor, tab, title, name string, data any, script string) error {
	return c.render(w, http.StatusOK, name, view{Title: title, Section: "house", Me: me, Script: script,
		Data: housePage{Tab: tab, Tabs: houseTabs, Data: data}})
}

// brandData is the brand page: the profile, the marks, the library's mark
// renditions and the standing notes.
type brandData struct {
	Profile brand.Profile
	Marks   []brand.Mark
	Riding  string
	Assets  []asset.Asset // renditions uploaded with kind mark
	Notes   []judge.Note
}

// brandPage is GET /house.
func (c *Console) brandPage(w http.ResponseWriter, r *http.Request) error {
	var d brandData
	var b httpapi.ProfileBody
	var ms brand.MarksList
	var as httpapi.AssetsBody
	var ns judge.NotesBody
	me, err := c.visitor(w, r, read{path: "/api/toolkit/brand", out: &b}, read{path: "/api/toolkit/brand/marks", out: &ms},
		read{path: "/api/toolkit/assets", out: &as}, read{path: "/api/toolkit/standing-notes", out: &ns})
	if err != nil {
		return err
	}
	d.Profile, d.Marks, d.Riding, d.Notes = b.Profile, ms.House, ms.Riding, ns.Notes
	for _, a := range as.Assets {
		if a.Kind != nil && *a.Kind == asset.Mark {
			d.Assets = append(d.Assets, a)
		}
	}
	return c.house(w, me, "brand", "Brand and notes", "brand", d, "")
}

// castingPage is GET /house/casting.
func (c *Console) castingPage(w http.ResponseWriter, r *http.Request) error {
	var d struct {
		httpapi.ModelsBody
		Photos []asset.Asset
	}
	var as httpapi.AssetsBody
	me, err := c.visitor(w, r, read{path: "/api/toolkit/models", out: &d.ModelsBody}, read{path: "/api/toolkit/assets", out: &as})
	if err != nil {
		return err
	}
	for _, a := range as.Assets {
		if a.Kind != nil && *a.Kind == asset.Model {
			d.Photos = append(d.Photos, a)
		}
	}
	return c.house(w, me, "casting", "Casting", "casting", d, "")
}

// peopleData is the people page: the house's seats and open offers, the
// roles an offer may carry and those a seat's change may set.
type peopleData struct {
	seat.List
	Me       seat.Seat // the visitor's own seat
	Acts     bool      // the visitor may remove another seat or hand the house to one
	Roles    []auth.Role
	Settable []auth.Role
}

// peoplePage is GET /house/people: the house's seats with what the
// visitor may do to each (change a role, remove, hand the house over),
// the open offers, a new offer (with the letter's link), the houses the
// visitor sits in, and leaving this one.
func (c *Console) peoplePage(w http.ResponseWriter, r *http.Request) error {
	d := peopleData{Roles: auth.Roles, Settable: seat.Settable}
	me, err := c.visitor(w, r, read{path: "/api/toolkit/org/seats", out: &d.List})
	if err != nil {
		return err
	}
	for _, s := range d.Seats {
		if s.You {
			d.Me = s
		} else if s.MayRemove || s.MayTransfer {
			d.Acts = true
		}
	}
	return c.house(w, me, "people", "People", "people", d, "")
}

// keysPage is GET /house/keys.
func (c *Console) keysPage(w http.ResponseWriter, r *http.Request) error {
	var d httpapi.KeysBody
	me, err := c.visitor(w, r, read{path: "/api/keys", out: &d})
	if err != nil {
		return err
	}
	return c.house(w, me, "keys", "API keys", "keys", d.Keys, "")
}

// hook is an endpoint with its latest deliveries.
type hook struct {
	webhook.Endpoint
	Deliveries []webhook.Delivery
}

// webhooksPage is GET /house/webhooks (owner or admin: the API refuses
// anyone else, and the page says so).
func (c *Console) webhooksPage(w http.ResponseWriter, r *http.Request) error {
	me, err := c.visitor(w, r)
	if err != nil {
		return err
	}
	var d struct {
		Hooks   []hook
		Refusal string
	}
	var es httpapi.EndpointsBody
	if err := c.get(w, r, "/api/toolkit/webhooks", &es); err != nil {
		e, ok := errors.AsType[*apiError](err)
		if !ok || e.Status != http.StatusForbidden {
			return err
		}
		d.Refusal = e.Message
	}
	for _, e := range es.Endpoints {
		h := hook{Endpoint: e}
		var ds httpapi.DeliveriesBody
		if err := c.get(w, r, "/api/toolkit/webhooks/"+url.PathEscape(e.ID)+"/deliveries", &ds); err != nil {
			return err
		}
		h.Deliveries = ds.Deliveries
		if len(h.Deliveries) > 10 {
			h.Deliveries = h.Deliveries[:10]
		}
		d.Hooks = append(d.Hooks, h)
	}
	return c.house(w, me, "webhooks", "Webhooks", "webhooks", d, "")
}

// notificationsPage is GET /house/notifications.
func (c *Console) notificationsPage(w http.ResponseWriter, r *http.Request) error {
	var d notify.Page
	me, err := c.visitor(w, r, read{path: "/api/notifications?limit=100", out: &d})
	if err != nil {
		return err
	}
	return c.house(w, me, "notifications", "Notifications", "notifications", d, "")
}

// supportPage is GET /house/support: the caller's tickets and a new one.
func (c *Console) supportPage(w http.ResponseWriter, r *http.Request) error {
	me, err := c.visitor(w, r)
	if err != nil {
		return err
	}
	var d struct {
		httpapi.TicketsBody
		Refusal string
	}
	if err := c.get(w, r, "/api/toolkit/support/tickets", &d.TicketsBody); err != nil {
		e, ok := errors.AsType[*apiError](err)
		if !ok || e.Status != http.StatusServiceUnavailable {
			return err
		}
		d.Refusal = e.Message
	}
	return c.house(w, me, "support", "Help", "support", d, "")
}

// ticketPage is GET /house/support/{id}: a thread, and a reply.
func (c *Console) ticketPage(w http.ResponseWriter, r *http.Request) error {
	d := struct {
		ID string
		support.Thread
	}{ID: r.PathValue("id")}
	me, err := c.visitor(w, r, read{path: "/api/toolkit/support/tickets/" + url.PathEscape(d.ID), out: &d.Thread})
	if err != nil {
		return err
	}
	return c.house(w, me, "support", "Help", "ticket", d, "")
}

// accountPage is GET /account: the person, the plan, the balance and its
// spend, the invoices, the export and the erasure.
func (c *Console) accountPage(w http.ResponseWriter, r *http.Request) error {
	var v account.View
	me, err := c.visitor(w, r, read{path: "/api/account", out: &v})
	if err != nil {
		return err
	}
	return c.render(w, http.StatusOK, "account", view{Title: "Account", Section: "account", Me: me, Data: v})
}
