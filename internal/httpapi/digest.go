package httpapi

import (
	"net/http"

	"studio/internal/auth"
	"studio/internal/digest"
	"studio/internal/errs"
)

// The analyst digest of the operators' console (SPEC §4.17): read the
// latest (each read logged), set its cadence, run it.

// DigestQuery is the query of the digest read.
type DigestQuery struct {
	History int `query:"history" minimum:"0" maximum:"20" default:"5" description:"How many previous digests' headlines to include, 0 to 20."`
}

func (s *Server) adminDigest(w http.ResponseWriter, r *http.Request) error {
	q := queryOf[DigestQuery](r)
	v, err := s.svc.Digest.Read(r.Context(), auth.From(r.Context()), q.History)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, v)
}

func (s *Server) adminDigestCadence(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[digest.CadenceRequest](w, r)
	if err != nil {
		return err
	}
	c, err := s.svc.Digest.SetCadence(r.Context(), auth.From(r.Context()), in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, c)
}

func (s *Server) adminDigestRun(w http.ResponseWriter, r *http.Request) error {
	out, err := s.svc.Digest.Run(r.Context(), auth.From(r.Context()))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, out)
}

// digestRoutes are the analyst digest's routes of the operators' console.
func (s *Server) digestRoutes() []Route {
	return []Route{
		{Method: "GET", Path: "/api/toolkit/admin/analyst", Class: PlatformAdmin, Tag: "admin",
			Summary: "The latest analyst digest (movements, proposed actions, caveats) with previous digests' headlines; computes nothing, logs the read",
			Query:   DigestQuery{}, Out: []Out{{Status: 200, Body: digest.View{}}}, Errors: []*errs.Error{digest.ErrBadHistory}, Handler: s.adminDigest},
		{Method: "PATCH", Path: "/api/toolkit/admin/analyst/cadence", Class: PlatformAdmin, Tag: "admin",
			Summary: "Set the digest's window (1 to 168 hours) and whether the workers run it on their own",
			In:      digest.CadenceRequest{}, Out: []Out{{Status: 200, Body: digest.Cadence{}}}, Errors: []*errs.Error{digest.ErrBadHours}, Handler: s.adminDigestCadence},
		{Method: "POST", Path: "/api/toolkit/admin/analyst/run", Class: PlatformAdmin, Tag: "admin",
			Summary: "Compute the digest from stored facts; inside the cadence's window the latest is answered at no cost; below the readable-verdict floor it is thin and no model is asked",
			Out:     []Out{{Status: 200, Body: digest.RunResult{}}}, Handler: s.adminDigestRun},
	}
}
