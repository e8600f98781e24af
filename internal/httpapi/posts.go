package httpapi

import (
	"net/http"

	"studio/internal/auth"
	"studio/internal/post"
)

func (s *Server) listPosts(w http.ResponseWriter, r *http.Request) error {
	ps, err := s.posts.List(r.Context(), auth.From(r.Context()))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, ps)
}

func (s *Server) createPost(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[post.CreateRequest](w, r)
	if err != nil {
		return err
	}
	p, err := s.posts.Create(r.Context(), auth.From(r.Context()), in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusCreated, p)
}

func (s *Server) getPost(w http.ResponseWriter, r *http.Request) error {
	p, err := s.posts.Get(r.Context(), auth.From(r.Context()), r.PathValue("id"))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, p)
}

func (s *Server) updatePost(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[post.UpdateRequest](w, r)
	if err != nil {
		return err
	}
	p, err := s.posts.Update(r.Context(), auth.From(r.Context()), r.PathValue("id"), in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, p)
}

func (s *Server) deletePost(w http.ResponseWriter, r *http.Request) error {
	if err := s.posts.Delete(r.Context(), auth.From(r.Context()), r.PathValue("id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
