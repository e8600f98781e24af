package asset

import (
	"encoding/json"
	"strings"

	"studio/internal/errs"
	"studio/internal/ts"
)

// Folder is a collection of assets. The wire is flat; clients build the
// tree from parentId.
type Folder struct {
	ID        string  `json:"id"`
	Name      string  `json:"name"`
	ParentID  *string `json:"parentId" description:"The enclosing collection; null at the root."`
	CreatedAt ts.Time `json:"createdAt"`
}

// CreateFolderRequest is the body of POST /api/toolkit/folders.
type CreateFolderRequest struct {
	Name     string  `json:"name" required:"true" minLength:"1" maxLength:"200"`
	ParentID *string `json:"parentId,omitempty" nullable:"true" description:"A collection of this house; absent or null is the root."`
}

// Validate checks the name.
func (r *CreateFolderRequest) Validate() error {
	name, err := CleanName(r.Name)
	if err != nil {
		return errs.Msg(errs.BadBody, "name is required: 1 to 200 characters.")
	}
	r.Name = name
	if r.ParentID != nil && *r.ParentID == "" {
		r.ParentID = nil
	}
	return nil
}

// UpdateFolderRequest is the body of PATCH /api/toolkit/folders/{id}:
// rename, move (parentId null moves to the root), or both.
type UpdateFolderRequest struct {
	Name     *string `json:"name,omitempty" minLength:"1" maxLength:"200"`
	ParentID *string `json:"parentId,omitempty" nullable:"true" description:"The new enclosing collection; null moves to the root."`

	present fields
}

// UnmarshalJSON records which fields were sent, so that null (move to the
// root) differs from absent (stay).
func (r *UpdateFolderRequest) UnmarshalJSON(b []byte) error {
	type plain UpdateFolderRequest
	var v plain
	p, err := unmarshalTracking(b, &v)
	if err != nil {
		return err
	}
	*r = UpdateFolderRequest(v)
	r.present = p
	return nil
}

// Validate checks whatever fields are present.
func (r *UpdateFolderRequest) Validate() error {
	if r.present.has("name") {
		if r.Name == nil {
			return errs.Msg(errs.BadBody, "name cannot be null.")
		}
		name, err := CleanName(*r.Name)
		if err != nil {
			return err
		}
		r.Name = &name
	}
	return nil
}

// MovesParent reports whether the request sets parentId (to a folder or null).
func (r *UpdateFolderRequest) MovesParent() bool { return r.present.has("parentId") }

// FolderPatch is a validated folder change the store applies.
type FolderPatch struct {
	Name       *string
	MoveParent bool
	ParentID   *string // nil is the root
}

// fields is the set of JSON keys a body carried.
type fields map[string]bool

func (f fields) has(name string) bool { return f[strings.ToLower(name)] }

// unmarshalTracking decodes b into v and returns the keys b carried.
func unmarshalTracking(b []byte, v any) (fields, error) {
	if err := json.Unmarshal(b, v); err != nil {
		return nil, err
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, err
	}
	f := make(fields, len(raw))
	for k := range raw {
		f[strings.ToLower(k)] = true // encoding/json matches keys without regard to case
	}
	return f, nil
}
