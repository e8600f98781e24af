package httpapi

import (
	"net/http"

	"studio/internal/auth"
	"studio/internal/look"
)

func (s *Server) listPostures(w http.ResponseWriter, r *http.Request) error {
	v, err := s.looks.Postures(r.Context(), auth.From(r.Context()))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, v)
}

func (s *Server) savePosturePrefs(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[look.PrefsPatch](w, r)
	if err != nil {
		return err
	}
	p, err := s.looks.SavePrefs(r.Context(), auth.From(r.Context()), in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, p)
}
