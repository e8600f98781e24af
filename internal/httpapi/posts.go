package httpapi

import (
	"net/http"

	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/post"
)

func (s *Server) listPosts(w http.ResponseWriter, r *http.Request) error {
	ps, err := s.svc.Posts.List(r.Context(), auth.From(r.Context()))
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
	p, err := s.svc.Posts.Create(r.Context(), auth.From(r.Context()), in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusCreated, p)
}

func (s *Server) getPost(w http.ResponseWriter, r *http.Request) error {
	p, err := s.svc.Posts.Get(r.Context(), auth.From(r.Context()), r.PathValue("id"))
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
	p, err := s.svc.Posts.Update(r.Context(), auth.From(r.Context()), r.PathValue("id"), in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, p)
}

func (s *Server) deletePost(w http.ResponseWriter, r *http.Request) error {
	if err := s.svc.Posts.Delete(r.Context(), auth.From(r.Context()), r.PathValue("id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// postsRoutes are the routes of Posts (SPEC §4.16).
func (s *Server) postsRoutes() []Route {
	return []Route{
		{Method: "GET", Path: "/posts", Class: KeyOrSession, Tag: "posts", Summary: "List the house's posts",
			Out: []Out{{Status: 200, Body: []post.Post{}}}, Handler: s.listPosts},
		{Method: "POST", Path: "/posts", Class: KeyOrSession, Tag: "posts", Summary: "Write a post",
			In: post.CreateRequest{}, Out: []Out{{Status: 201, Body: post.Post{}}}, Errors: []*errs.Error{errs.Forbidden}, Handler: s.createPost},
		{Method: "GET", Path: "/posts/{id}", Class: KeyOrSession, Tag: "posts", Summary: "One post",
			Out: []Out{{Status: 200, Body: post.Post{}}}, Errors: []*errs.Error{errs.NotFound}, Handler: s.getPost},
		{Method: "PATCH", Path: "/posts/{id}", Class: KeyOrSession, Tag: "posts", Summary: "Change a post (author only)",
			In: post.UpdateRequest{}, Out: []Out{{Status: 200, Body: post.Post{}}}, Errors: []*errs.Error{errs.Forbidden, errs.NotFound}, Handler: s.updatePost},
		{Method: "DELETE", Path: "/posts/{id}", Class: KeyOrSession, Tag: "posts", Summary: "Delete a post (author only)",
			Out: []Out{{Status: 204}}, Errors: []*errs.Error{errs.Forbidden, errs.NotFound}, Handler: s.deletePost},
	}
}
