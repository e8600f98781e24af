package httpapi

import (
	"net/http"

	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/search"
)

// SearchQuery is the query of the one field over the house.
type SearchQuery struct {
	Q     string `query:"q" required:"true" maxLength:"200" refuse:"BAD_QUERY" description:"Words; each matches the start of a word of a title, a SKU, a collection's name or a look's pieces. Other characters only separate words."`
	Limit int    `query:"limit" minimum:"1" maximum:"50" default:"20"`
}

// SearchBody is the answer of a search.
type SearchBody struct {
	Results []search.Result `json:"results" description:"Best first: title matches above the rest."`
}

var errBadQuery = errs.New(errs.KindInvalid, "BAD_QUERY", "q is required: up to 200 characters of plain text.")

func (s *Server) search(w http.ResponseWriter, r *http.Request) error {
	q := queryOf[SearchQuery](r)
	res, err := s.svc.Search.Search(r.Context(), auth.From(r.Context()), q.Q, q.Limit)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, SearchBody{Results: res})
}

// searchRoutes are the routes of search (SPEC §4.19).
func (s *Server) searchRoutes() []Route {
	return []Route{
		{Method: "GET", Path: "/api/toolkit/search", Class: KeyOrSession, Tag: "search", Summary: "One field over the house: pieces, collections, looks and workflows, ranked, by word prefixes",
			Query: SearchQuery{}, Out: []Out{{Status: 200, Body: SearchBody{}}}, Errors: []*errs.Error{errBadQuery, errs.BadLimit}, Handler: s.search},
	}
}
