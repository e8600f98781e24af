package httpapi

import (
	"net/http"

	"studio/internal/asset"
	"studio/internal/auth"
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
	fs, err := s.assets.Folders(r.Context(), auth.From(r.Context()))
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
	f, err := s.assets.CreateFolder(r.Context(), auth.From(r.Context()), in)
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
	f, err := s.assets.UpdateFolder(r.Context(), auth.From(r.Context()), r.PathValue("id"), in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, FolderBody{Folder: f})
}
