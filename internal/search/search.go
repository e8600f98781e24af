// Package search is the one field over a house (SPEC §4.19): its pieces,
// collections, looks and workflows, ranked, with prefix matching. The
// index lives in the database (SQLite FTS5, PostgreSQL tsvector) and is
// written in the same transactions that write the rows it indexes.
package search

import (
	"context"
	"strings"
	"unicode"

	"studio/internal/auth"
)

// Kinds of results.
const (
	KindPiece      = "piece"
	KindCollection = "collection"
	KindLook       = "look"
	KindWorkflow   = "workflow"
)

// Result is one hit (SPEC §2 "Search result").
type Result struct {
	ID       string  `json:"id"`
	Kind     string  `json:"kind" enum:"piece,collection,look,workflow"`
	Title    string  `json:"title"`
	Meta     *string `json:"meta" description:"A caption from the row itself (a piece's SKU or kind, a collection's parent, a look's status, a run's tool); null when there is none, never invented."`
	ThumbURL *string `json:"thumbUrl" description:"The file route of a picture of the hit; null when it has none."`
}

// MaxTerms is how many words of a query are used; MaxTermLen how many
// characters of each.
const (
	MaxTerms   = 8
	MaxTermLen = 40
)

// Terms splits a query into the lowercased words it matches: runs of
// letters and digits, at most MaxTerms of at most MaxTermLen characters.
// Anything else separates words, so no query syntax reaches the index.
func Terms(q string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(q), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if r := []rune(w); len(r) > MaxTermLen {
			w = string(r[:MaxTermLen])
		}
		out = append(out, w)
		if len(out) == MaxTerms {
			break
		}
	}
	return out
}

// Store runs a query over one house's index.
type Store interface {
	Search(ctx context.Context, house string, terms []string, limit int) ([]Result, error)
}

// Service answers searches.
type Service struct{ store Store }

// NewService returns the search service.
func NewService(store Store) *Service { return &Service{store: store} }

// Search finds the house's rows whose words start with every term of q,
// best first. A query without a word finds nothing.
func (s *Service) Search(ctx context.Context, p auth.Principal, q string, limit int) ([]Result, error) {
	if err := p.MayRead(); err != nil {
		return nil, err
	}
	terms := Terms(q)
	if len(terms) == 0 {
		return []Result{}, nil
	}
	return s.store.Search(ctx, p.HouseID, terms, limit)
}
