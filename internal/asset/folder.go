package asset

import (
	"studio/internal/errs"
	"studio/internal/patch"
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
	Name     patch.Field[string] `json:"name,omitempty" minLength:"1" maxLength:"200"`
	ParentID patch.Field[string] `json:"parentId,omitempty" nullable:"true" description:"The new enclosing collection; null moves to the root."`
}

// Validate checks whatever fields are present.
func (r *UpdateFolderRequest) Validate() error {
	if r.Name.Set {
		if r.Name.Null {
			return errs.Msg(errs.BadBody, "name cannot be null.")
		}
		name, err := CleanName(r.Name.Value)
		if err != nil {
			return err
		}
		r.Name.Value = name
	}
	return nil
}

// Patch is the validated change the store applies.
func (r *UpdateFolderRequest) Patch() FolderPatch {
	return FolderPatch{Name: r.Name.Ptr(), MoveParent: r.ParentID.Set, ParentID: r.ParentID.Ptr()}
}

// FolderPatch is a validated folder change the store applies.
type FolderPatch struct {
	Name       *string
	MoveParent bool
	ParentID   *string // nil is the root
}
