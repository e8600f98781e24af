package console

import (
	"net/http"
	"net/url"

	"studio/internal/httpapi"
	"studio/internal/ops"
	"studio/internal/support"
)

// The operators' pages: the platform administrators' views over every
// house, each a face of an admin route (SPEC §4.17). The API refuses
// anyone else (403), and the console shows its refusal.

// adminTabs is the operators' own navigation.
var adminTabs = []navItem{
	{Href: "/admin", Label: "Houses and frames", Section: "houses"},
	{Href: "/admin/develops", Label: "Develops", Section: "develops"},
	{Href: "/admin/failures", Label: "Failures", Section: "failures"},
	{Href: "/admin/emails", Label: "E-mail log", Section: "emails"},
	{Href: "/admin/grants", Label: "Grants", Section: "grants"},
	{Href: "/admin/support", Label: "Support desk", Section: "support"},
}

// admin renders one operators' page.
func (c *Console) admin(w http.ResponseWriter, me *visitor, tab, title, name string, data any) error {
	return c.render(w, http.StatusOK, name, view{Title: title, Section: "admin", Me: me, Script: "",
		Data: housePage{Tab: tab, Tabs: adminTabs, Data: data}})
}

// adminHouses is GET /admin: the houses with live frames and the newest
// frames of every house (?house= one house's).
func (c *Console) adminHouses(w http.ResponseWriter, r *http.Request) error {
	var fs ops.Frames
	path := "/api/toolkit/admin/frames"
	if h := r.URL.Query().Get("house"); h != "" {
		path += "?house=" + url.QueryEscape(h)
	}
	me, err := c.visitor(w, r, read{path: path, out: &fs})
	if err != nil {
		return err
	}
	if len(fs.Frames) > 60 {
		fs.Frames = fs.Frames[:60]
	}
	return c.admin(w, me, "houses", "Operators", "admin-houses", struct {
		Frames  []ops.Frame
		Filters ops.FrameFilters
		House   string
	}{fs.Frames, fs.Filters, r.URL.Query().Get("house")})
}

// adminDevelops is GET /admin/develops: runs of every house, with retry
// and cancel; ?state= active, failed or all.
func (c *Console) adminDevelops(w http.ResponseWriter, r *http.Request) error {
	state := r.URL.Query().Get("state")
	if state == "" {
		state = "all"
	}
	var rs httpapi.AdminRunsBody
	me, err := c.visitor(w, r, read{path: "/api/toolkit/admin/develops?limit=100&state=" + url.QueryEscape(state), out: &rs})
	if err != nil {
		return err
	}
	return c.admin(w, me, "develops", "Develops", "admin-develops", struct {
		Runs  []ops.HouseRun
		State string
	}{rs.Runs, state})
}

// adminFailures is GET /admin/failures.
func (c *Console) adminFailures(w http.ResponseWriter, r *http.Request) error {
	var f ops.Failures
	me, err := c.visitor(w, r, read{path: "/api/toolkit/admin/failures", out: &f})
	if err != nil {
		return err
	}
	return c.admin(w, me, "failures", "Failures", "admin-failures", f)
}

// adminEmails is GET /admin/emails, ?id= one letter with its text.
func (c *Console) adminEmails(w http.ResponseWriter, r *http.Request) error {
	var ls httpapi.EmailsBody
	path := "/api/toolkit/admin/emails"
	if id := r.URL.Query().Get("id"); id != "" {
		path += "?id=" + url.QueryEscape(id)
	}
	me, err := c.visitor(w, r, read{path: path, out: &ls})
	if err != nil {
		return err
	}
	return c.admin(w, me, "emails", "E-mail log", "admin-emails", ls)
}

// adminGrants is GET /admin/grants: grant tokens to a user.
func (c *Console) adminGrants(w http.ResponseWriter, r *http.Request) error {
	me, err := c.visitor(w, r)
	if err != nil {
		return err
	}
	if !me.Operator { // no read to refuse it: say what the grant route would
		return &apiError{Status: http.StatusForbidden, Code: "FORBIDDEN", Message: "This page is for platform administrators."}
	}
	return c.admin(w, me, "grants", "Grants", "admin-grants", nil)
}

// adminSupport is GET /admin/support: the desk's tickets, ?status=.
func (c *Console) adminSupport(w http.ResponseWriter, r *http.Request) error {
	status := r.URL.Query().Get("status")
	if status == "" {
		status = "open"
	}
	var ts httpapi.DeskTicketsBody
	me, err := c.visitor(w, r, read{path: "/api/toolkit/admin/support/tickets?status=" + url.QueryEscape(status), out: &ts})
	if err != nil {
		return err
	}
	return c.admin(w, me, "support", "Support desk", "admin-support", struct {
		Tickets []support.DeskTicket
		Status  string
	}{ts.Tickets, status})
}

// adminTicket is GET /admin/support/{id}: a thread with the notes, reply,
// note, close and reopen.
func (c *Console) adminTicket(w http.ResponseWriter, r *http.Request) error {
	var th support.DeskThread
	me, err := c.visitor(w, r, read{path: "/api/toolkit/admin/support/tickets/" + url.PathEscape(r.PathValue("id")), out: &th})
	if err != nil {
		return err
	}
	return c.admin(w, me, "support", "Ticket", "admin-ticket", th)
}
