package httpapi

import (
	"net/http"

	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/memory"
)

// MemoriesBody lists memories.
type MemoriesBody struct {
	Memories []memory.Memory `json:"memories"`
}

// MemoryBody is one memory.
type MemoryBody struct {
	Memory memory.Memory `json:"memory"`
}

func (s *Server) listMemories(w http.ResponseWriter, r *http.Request) error {
	ms, err := s.svc.Memory.List(r.Context(), auth.From(r.Context()))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, MemoriesBody{Memories: ms})
}

func (s *Server) writeMemory(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[memory.WriteRequest](w, r)
	if err != nil {
		return err
	}
	m, created, err := s.svc.Memory.Write(r.Context(), auth.From(r.Context()), in)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	return encode(w, status, MemoryBody{Memory: m})
}

func (s *Server) retireMemory(w http.ResponseWriter, r *http.Request) error {
	m, err := s.svc.Memory.Retire(r.Context(), auth.From(r.Context()), r.PathValue("id"))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, MemoryBody{Memory: m})
}

func (s *Server) memorySettings(w http.ResponseWriter, r *http.Request) error {
	set, err := s.svc.Memory.Settings(r.Context(), auth.From(r.Context()))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, set)
}

func (s *Server) setMemorySettings(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[memory.SettingsRequest](w, r)
	if err != nil {
		return err
	}
	set, err := s.svc.Memory.SetSettings(r.Context(), auth.From(r.Context()), in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, set)
}

// memoryRoutes are the routes of the studio's memory (SPEC §4.13, DECISIONS §1b).
func (s *Server) memoryRoutes() []Route {
	return []Route{
		{Method: "GET", Path: "/api/account/memory", Class: KeyOrSession, Tag: "memory", Summary: "The house's memories and the caller's own, every status, newest first",
			Out: []Out{{Status: 200, Body: MemoriesBody{}}}, Handler: s.listMemories},
		{Method: "POST", Path: "/api/account/memory", Class: KeyOrSession, Tag: "memory", Summary: "Remember a statement (201), or correct an active memory in scope (200: its successor)",
			In: memory.WriteRequest{}, Out: []Out{{Status: 201, Body: MemoryBody{}}, {Status: 200, Body: MemoryBody{}}},
			Errors:  []*errs.Error{memory.ErrBadStatement, memory.ErrBadScope, memory.ErrBadClass, errs.Forbidden, errs.NotFound},
			Handler: s.writeMemory},
		{Method: "GET", Path: "/api/account/memory/settings", Class: KeyOrSession, Tag: "memory", Extension: true,
			Summary: "Whether the house's memory reaches develop prompts", Out: []Out{{Status: 200, Body: memory.Settings{}}}, Handler: s.memorySettings},
		{Method: "PATCH", Path: "/api/account/memory/settings", Class: KeyOrSession, Tag: "memory", Extension: true,
			Summary: "Let the house's memory reach develop prompts, or stop it (owner or admin)",
			In:      memory.SettingsRequest{}, Out: []Out{{Status: 200, Body: memory.Settings{}}},
			Errors: []*errs.Error{errs.Forbidden}, Handler: s.setMemorySettings},
		{Method: "DELETE", Path: "/api/account/memory/{id}", Class: KeyOrSession, Tag: "memory", Summary: "Retire an active memory: no longer retrieved, kept in history",
			Out: []Out{{Status: 200, Body: MemoryBody{}}}, Errors: []*errs.Error{errs.Forbidden, errs.NotFound}, Handler: s.retireMemory},
	}
}
