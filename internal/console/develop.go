package console

import (
	"net/http"
	"net/url"

	"studio/internal/asset"
	"studio/internal/httpapi"
	"studio/internal/job"
	"studio/internal/judge"
	"studio/internal/ledger"
	"studio/internal/tool"
)

// Develop: pick a tool from the catalog, give it inputs and options, see
// the preflight answer, submit, follow the job live, answer the result.

// toolRow is one tool the submit route takes, as the catalog prices it.
type toolRow struct {
	job.CatalogTool
	Required, Optional []string // its input roles (package tool)
}

// roleField is one input role of the chosen tool on the form.
type roleField struct {
	Name       string
	Required   bool
	Repeatable bool     // several inputs (garments)
	Chosen     []string // asset ids the address names
	Choices    []asset.Asset
}

// developData is what the develop page shows.
type developData struct {
	Tools     []toolRow
	Tool      *toolRow
	Roles     []roleField
	Options   []job.OptionSpec
	Tiers     []ledger.Tier
	Quality   string
	Preflight bool // the API answers POST /api/toolkit/ai/preflight
	Job       *job.Job
	Verdict   *judge.Verdict
	Query     url.Values
}

// Price is the tool's price at a tier.
func (t toolRow) Price(tier ledger.Tier) int64 { return t.Prices.At(tier) }

// Again is this page's address showing another job: the placeholder
// names the field of the API's answer that holds its id.
func (d developData) Again(placeholder string) string {
	q := url.Values{}
	for k, v := range d.Query {
		if k != "job" {
			q[k] = v
		}
	}
	if len(q) == 0 {
		return "/develop?job=" + placeholder
	}
	return "/develop?" + q.Encode() + "&job=" + placeholder
}

// develop is GET /develop: ?tool= the tool chosen, ?<role>=<asset id> its
// inputs, ?quality=, ?job= a develop to show beside them.
func (c *Console) develop(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	d := developData{Tiers: ledger.Tiers, Quality: q.Get("quality"), Query: q,
		Preflight: c.has(http.MethodPost, "/api/toolkit/ai/preflight")}
	if d.Quality == "" {
		d.Quality = string(ledger.Tier1K)
	}
	var cat job.Catalog
	var as httpapi.AssetsBody
	var js httpapi.JobsBody
	var vs httpapi.VerdictsBody
	reads := []read{{path: "/api/toolkit/ai/billing/catalog", out: &cat}}
	if q.Get("tool") != "" {
		reads = append(reads, read{path: "/api/toolkit/assets", out: &as})
	}
	id := q.Get("job")
	if id != "" {
		reads = append(reads, read{path: "/api/toolkit/jobs?since=0", out: &js},
			read{path: "/api/toolkit/judge/verdicts?jobIds=" + url.QueryEscape(id), out: &vs})
	}
	me, err := c.visitor(w, r, reads...)
	if err != nil {
		return err
	}
	for _, t := range cat.Tools {
		decl, ok := tool.Get(t.Tool)
		if !ok || !decl.Submit {
			continue // priced, but not a tool the submit route takes (look frames)
		}
		d.Tools = append(d.Tools, toolRow{CatalogTool: t, Required: decl.Required(), Optional: decl.Optional()})
	}
	for i := range d.Tools {
		if d.Tools[i].Tool == q.Get("tool") {
			d.Tool = &d.Tools[i]
		}
	}
	if d.Tool != nil {
		decl, _ := tool.Get(d.Tool.Tool)
		for _, r := range decl.Roles {
			d.Roles = append(d.Roles, roleField{Name: r.Name, Required: r.Required,
				Repeatable: r.Limit() > 1, Chosen: q[r.Name], Choices: as.Assets})
		}
		for _, o := range d.Tool.Options {
			if o.Name != "runId" { // a grouping the console does not offer
				d.Options = append(d.Options, o)
			}
		}
	}
	for i := range js.Jobs {
		if js.Jobs[i].ID == id {
			d.Job = &js.Jobs[i]
		}
	}
	if d.Job != nil && d.Job.Status == job.Done && len(vs.Verdicts) > 0 {
		d.Verdict = &vs.Verdicts[0]
	}
	title := "Develop"
	if d.Tool != nil {
		title = "Develop: " + d.Tool.Tool
	}
	return c.render(w, http.StatusOK, "develop", view{Title: title, Section: "develop", Me: me, Data: d, Script: "develop.js"})
}

// runs is GET /develop/runs: the house's develop runs, newest first.
func (c *Console) runs(w http.ResponseWriter, r *http.Request) error {
	var rs httpapi.RunsBody
	me, err := c.visitor(w, r, read{path: "/api/toolkit/develops?state=all&limit=100", out: &rs})
	if err != nil {
		return err
	}
	return c.render(w, http.StatusOK, "runs", view{Title: "Runs", Section: "develop", Me: me, Data: rs.Runs, Script: "develop.js"})
}
