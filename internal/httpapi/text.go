package httpapi

import (
	"net/http"

	"studio/internal/errs"
	"studio/internal/text"
)

// Text a client sends is refused when it holds a control character
// (internal/text has the rule): a JSON body with BAD_BODY (decode), a
// multipart text field with BAD_FORM (readForm), a query value with the
// parameter's code (queryPlan), a path value with the one 404 (prepare).

// errControl refuses a JSON body with a control character in a string.
var errControl = errs.Msg(errs.BadBody, "Text fields must not contain control characters.")

func cleanText(s string) bool { return text.Clean(s) }

// pathValuesWellFormed reports whether every wildcard of the route's path
// is a well-formed id: 1 to 200 letters, digits and . _ - ~ :. Anything
// else (a NUL, a space, a slash, a quote) is the one 404, answered before
// a store sees it.
func pathValuesWellFormed(r *http.Request, names []string) bool {
	for _, name := range names {
		v := r.PathValue(name)
		if len(v) == 0 || len(v) > 200 {
			return false
		}
		for i := 0; i < len(v); i++ {
			c := v[i]
			ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
				c == '.' || c == '_' || c == '-' || c == '~' || c == ':'
			if !ok {
				return false
			}
		}
	}
	return true
}
