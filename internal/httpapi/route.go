package httpapi

import (
	"net/http"
	"strings"

	"studio/internal/auth"
	"studio/internal/errs"
)

// Class is the credential a route accepts (ARCHITECTURE "Tenancy and authority").
type Class uint8

const (
	Public        Class = iota // no credential
	KeyOrSession               // K: an API key or a session cookie
	SessionOnly                // S: a session cookie; a key gets 401
	PlatformAdmin              // a session whose e-mail is on the allowlist
	SharedSecret               // a secret header checked by the handler
	Reviewer                   // a share link's token in the path is the authority; no key or session is read
	Analyst                    // the analyst token (ANALYST_TOKEN) as a bearer; no key or session is read
	AnalystAction              // the analyst action token (ANALYST_ACTION_TOKEN) as a bearer; nothing else passes
)

func (c Class) String() string {
	return [...]string{"public", "key-or-session", "session", "platform-admin", "shared-secret", "reviewer-token", "analyst-token", "analyst-action-token"}[c]
}

// Credentialed reports whether the class reads a key or a session (and so
// checks the Origin of a cookie's unsafe requests).
func (c Class) Credentialed() bool {
	return c != Public && c != SharedSecret && c != Reviewer && c != Analyst && c != AnalystAction
}

// Internal reports whether the class is one of the analyst's tokens.
func (c Class) Internal() bool { return c == Analyst || c == AnalystAction }

// Route is one line of the API's table of contents. The same value
// registers the handler, documents the operation in /openapi.json and
// drives the tests that walk every route.
type Route struct {
	Method  string
	Path    string
	Class   Class
	Tag     string
	Summary string
	// Description is the operation's longer text in the document (markdown);
	// the credential class adds its own note after it.
	Description string
	Query       any           // a struct whose `query` tags document the query string
	In          any           // the JSON request body type, or Multipart{...}
	Out         []Out         // success answers
	Errors      []*errs.Error // the error codes the route answers, besides the ones its class and shape imply
	Heavy       bool          // reads what grows with the house (its library, its jobs): a house runs few at once (guard.go)
	// Extension marks a route beyond the spec (SPEC §4 does not name it):
	// the document says so with "x-extension": true and a note.
	Extension bool
	// NotFound is the route's one 404 when the spec names its own code
	// (CHAT_SESSION_NOT_FOUND); a malformed path id answers it too. Nil:
	// the shared NOT_FOUND.
	NotFound *errs.Error
	// Lenient routes read their JSON body leniently and answer whatever it
	// holds (check-email never refuses): no body refusal is documented.
	Lenient bool
	// Before is asked of the caller before the request is read, where
	// reading it is what a refused caller must not cost: an upload's bytes,
	// money's body, another service's read. It is the rule the route's
	// service decides itself (auth.Principal.MaySpend, billing's Spend),
	// asked earlier, never a rule of its own.
	Before  func(auth.Principal) error
	Handler appHandler
}

// Out is one documented success answer.
type Out struct {
	Status      int
	Body        any    // nil for an empty body
	ContentType string // default application/json
}

// Multipart documents a multipart/form-data body: its fields.
type Multipart struct {
	Form any
	// JSON, when set, documents the JSON body the route takes as well
	// (preflight: the same fields, inputs named by asset id).
	JSON any
}

// Pattern is the ServeMux pattern of the route.
func (rt Route) Pattern() string { return rt.Method + " " + rt.Path }

// HasID reports whether the path carries a resource id.
func (rt Route) HasID() bool { return strings.Contains(rt.Path, "{") }

// DocumentedErrors returns every error the route may answer: its own and
// those implied by its credential class and its shape.
func (rt Route) DocumentedErrors() []*errs.Error {
	var out []*errs.Error
	add := func(e *errs.Error) {
		for _, have := range out {
			if have.Code == e.Code {
				return
			}
		}
		out = append(out, e)
	}
	switch rt.Class {
	case KeyOrSession, SessionOnly:
		add(errs.Unauthorized)
	case PlatformAdmin:
		add(errs.Unauthorized)
		add(errs.Forbidden)
	case Analyst, AnalystAction:
		add(errs.Unauthorized)
	}
	if rt.Class.Credentialed() && rt.Method != http.MethodGet {
		add(ErrBadOrigin)
	}
	if rt.Before != nil {
		add(errs.Forbidden)
	}
	if rt.In != nil {
		add(errs.RequestTimeout) // the body's deadline passed (httpguard): nothing was done
	}
	if rt.In != nil && !rt.Lenient {
		if _, multipart := rt.In.(Multipart); multipart {
			add(errs.BadForm)
		} else {
			add(errs.BadJSON)
			add(errs.BadBody)
			add(errs.BodyTooLarge)
		}
	}
	for _, e := range rt.Errors {
		add(e)
	}
	if rt.Heavy {
		add(errs.RateLimited)
	}
	return out
}
