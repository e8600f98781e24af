package console

import (
	"net/http"

	"studio/internal/account"
	"studio/internal/billing"
	"studio/internal/job"
)

// moneyData is the money page: the balance and its spend, the catalog's
// plans, packs and tool prices, the holdings and the invoices.
type moneyData struct {
	Account  account.View
	Catalog  job.Catalog
	Holdings billing.Holdings
}

// money is GET /money. Buying is the owner's (the API refuses anyone
// else, in its own words); the page offers it to the owner.
func (c *Console) money(w http.ResponseWriter, r *http.Request) error {
	var d moneyData
	me, err := c.visitor(w, r, read{path: "/api/account", out: &d.Account}, read{path: "/api/toolkit/ai/billing/catalog", out: &d.Catalog},
		read{path: "/api/toolkit/entitlements", out: &d.Holdings})
	if err != nil {
		return err
	}
	return c.render(w, http.StatusOK, "money", view{Title: "Money", Section: "money", Me: me, Data: d})
}
