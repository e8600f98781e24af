package console

import (
	"net/http"

	"studio/internal/httpapi"
)

// shares is GET /shares: the house's review links with their answers so
// far (read again while the page is open), and revoke. Links are minted
// from a selection of frames in the library or on a look's contact sheet.
func (c *Console) shares(w http.ResponseWriter, r *http.Request) error {
	var ss httpapi.SharesBody
	me, err := c.visitor(w, r, read{path: "/api/share", out: &ss})
	if err != nil {
		return err
	}
	return c.render(w, http.StatusOK, "shares", view{Title: "Shares", Section: "shares", Me: me, Data: ss.Shares, Script: "shares.js"})
}
