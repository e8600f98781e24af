package httpapi

import (
	"net/http"

	"studio/internal/asset"
	"studio/internal/auth"
	"studio/internal/errs"
)

// FolderBody wraps one collection.
type FolderBody struct {
	Folder asset.Folder `json:"folder"`
}

// FoldersBody lists collections, flat.
type FoldersBody struct {
	Folders []asset.Folder `json:"folders"`
}

func (s *Server) listFolders(w http.ResponseWriter, r *http.Request) error {
	fs, err := s.svc.Assets.Folders(r.Context(), auth.From(r.Context()))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, FoldersBody{Folders: fs})
}

func (s *Server) createFolder(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[asset.CreateFolderRequest](w, r)
	if err != nil {
		return err
	}
	f, err := s.svc.Assets.CreateFolder(r.Context(), auth.From(r.Context()), in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusCreated, FolderBody{Folder: f})
}

func (s *Server) updateFolder(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[asset.UpdateFolderRequest](w, r)
	if err != nil {
		return err
	}
	f, err := s.svc.Assets.UpdateFolder(r.Context(), auth.From(r.Context()), r.PathValue("id"), in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, FolderBody{Folder: f})
}

// foldersRoutes are the routes of Collections (SPEC §4.19, DECISIONS §1b).
func (s *Server) foldersRoutes() []Route {
	return []Route{
		{Method: "GET", Path: "/api/toolkit/folders", Class: KeyOrSession, Tag: "collections", Summary: "List the house's collections, flat",
			Out: []Out{{Status: 200, Body: FoldersBody{}}}, Handler: s.listFolders},
		{Method: "POST", Path: "/api/toolkit/folders", Class: KeyOrSession, Tag: "collections", Summary: "Make a collection",
			In: asset.CreateFolderRequest{}, Out: []Out{{Status: 201, Body: FolderBody{}}},
			Errors: []*errs.Error{errs.Forbidden, errs.NotFound}, Handler: s.createFolder},
		{Method: "PATCH", Path: "/api/toolkit/folders/{id}", Class: KeyOrSession, Tag: "collections", Summary: "Rename or move a collection",
			In: asset.UpdateFolderRequest{}, Out: []Out{{Status: 200, Body: FolderBody{}}},
			Errors: []*errs.Error{errs.Forbidden, asset.ErrFolderCycle, errs.NotFound}, Handler: s.updateFolder},
	}
}
