package ops

import (
	"context"
	"slices"
	"strings"

	"studio/internal/auth"
	"studio/internal/ledger"
	"studio/internal/tool"
)

// Toolkits are the toolkits an operator may grant a user: the service's
// areas of work. Tools are the submit tools (tool.SubmitTools).
var Toolkits = []string{"brand", "casting", "lookbook", "share", "studio"}

// Tools lists the tools an operator may grant a user, sorted.
func Tools() []string { return tool.SubmitTools() }

// Grant is one access grant: a user and a toolkit or a tool.
type Grant struct {
	UserID    string
	Kind      string // toolkit or tool
	Item      string
	GrantedBy string
	At        int64 // unix milliseconds
}

// AccessRequest is the body of POST /api/toolkit/admin/access.
type AccessRequest struct {
	Action    string  `json:"action" enum:"grant_toolkit,revoke_toolkit,grant_tool,revoke_tool" required:"true"`
	UserID    *string `json:"userId" description:"The user; or name them by email."`
	Email     *string `json:"email" description:"The user's address, when userId is not given."`
	ToolkitID *string `json:"toolkitId" description:"For grant_toolkit and revoke_toolkit: brand, casting, lookbook, share or studio."`
	ToolID    *string `json:"toolId" description:"For grant_tool and revoke_tool: a develop tool's slug."`
}

// Validate checks the body's shape in the order the refusals are listed.
func (in *AccessRequest) Validate() error {
	kind, _, ok := in.split()
	if !ok {
		return withLegal(ErrBadAction, []string{"grant_toolkit", "revoke_toolkit", "grant_tool", "revoke_tool"})
	}
	item := trimmed(in.ToolkitID)
	legal := Toolkits
	if kind == "tool" {
		item, legal = trimmed(in.ToolID), Tools()
	}
	if item == "" {
		return ErrItemRequired
	}
	if !slices.Contains(legal, item) {
		return withLegal(ErrUnknownItem, legal)
	}
	if trimmed(in.UserID) == "" && trimmed(in.Email) == "" {
		return ErrTargetRequired
	}
	return nil
}

// split reads the action: the kind of item and whether it grants.
func (in *AccessRequest) split() (kind string, grant, ok bool) {
	verb, kind, found := strings.Cut(in.Action, "_")
	if !found || (verb != "grant" && verb != "revoke") || (kind != "toolkit" && kind != "tool") {
		return "", false, false
	}
	return kind, verb == "grant", true
}

func trimmed(s *string) string {
	if s == nil {
		return ""
	}
	return strings.TrimSpace(*s)
}

// Access is the answer to an access change.
type Access struct {
	OK    bool `json:"ok"`
	Count int  `json:"count" description:"Grants written (0 when the user already had it) or removed (0 when they had none)."`
}

// ChangeAccess grants or revokes a toolkit or a tool to a user named by id
// or e-mail. A grant already held and a revoke of nothing are no-ops
// (count 0). What my-access answers follows the grants.
func (s *Service) ChangeAccess(ctx context.Context, p auth.Principal, in AccessRequest) (Access, error) {
	if err := ensure(ctx, p); err != nil {
		return Access{}, err
	}
	if err := in.Validate(); err != nil {
		return Access{}, err
	}
	kind, grant, _ := in.split()
	g := Grant{Kind: kind, Item: trimmed(in.ToolkitID), GrantedBy: p.UserID, At: s.now().UnixMilli()}
	if kind == "tool" {
		g.Item = trimmed(in.ToolID)
	}
	if id := trimmed(in.UserID); id != "" {
		ok, err := s.store.UserExists(ctx, id)
		if err != nil {
			return Access{}, err
		}
		if !ok {
			return Access{}, ledger.ErrUserNotFound
		}
		g.UserID = id
	} else {
		id, err := s.store.UserIDByEmail(ctx, strings.ToLower(trimmed(in.Email)))
		if err != nil {
			return Access{}, ledger.ErrUserNotFound
		}
		g.UserID = id
	}
	var n int
	var err error
	if grant {
		n, err = s.store.GrantAccess(ctx, g)
	} else {
		n, err = s.store.RevokeAccess(ctx, g)
	}
	if err != nil {
		return Access{}, err
	}
	return Access{OK: true, Count: n}, nil
}
