package httpapi

import (
	"net/http"

	"studio/internal/auth"
	"studio/internal/look"
)

// LooksBody lists looks.
type LooksBody struct {
	Looks []look.Look `json:"looks"`
}

// LookBody carries one look.
type LookBody struct {
	Look look.Look `json:"look"`
}

// VariationsBody answers a variations request: one job per key.
type VariationsBody struct {
	Jobs []look.KeyJob `json:"jobs"`
}

// PresetBody carries the standing preset.
type PresetBody struct {
	Preset look.StandingPreset `json:"preset"`
}

// TemplatesBody lists the shot templates.
type TemplatesBody struct {
	Templates []look.Template `json:"templates"`
}

// TemplateBody carries one shot template.
type TemplateBody struct {
	Template look.Template `json:"template"`
}

func (s *Server) listLooks(w http.ResponseWriter, r *http.Request) error {
	looks, err := s.looks.List(r.Context(), auth.From(r.Context()))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, LooksBody{Looks: looks})
}

func (s *Server) createLook(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[look.CreateRequest](w, r)
	if err != nil {
		return err
	}
	l, err := s.looks.Create(r.Context(), auth.From(r.Context()), in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusCreated, LookBody{Look: l})
}

func (s *Server) getLook(w http.ResponseWriter, r *http.Request) error {
	d, err := s.looks.Get(r.Context(), auth.From(r.Context()), r.PathValue("id"))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, d)
}

func (s *Server) developLock(w http.ResponseWriter, r *http.Request) error {
	var in look.DevelopRequest
	if r.ContentLength != 0 {
		var err error
		if in, err = decode[look.DevelopRequest](w, r); err != nil {
			return err
		}
	}
	rec, err := s.looks.DevelopLock(r.Context(), auth.From(r.Context()), r.PathValue("id"), in)
	if err != nil {
		return err
	}
	s.wakeWorkers()
	return encode(w, http.StatusAccepted, rec)
}

func (s *Server) lockLook(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[look.LockRequest](w, r)
	if err != nil {
		return err
	}
	l, err := s.looks.Lock(r.Context(), auth.From(r.Context()), r.PathValue("id"), in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, LookBody{Look: l})
}

func (s *Server) unlockLook(w http.ResponseWriter, r *http.Request) error {
	l, err := s.looks.Unlock(r.Context(), auth.From(r.Context()), r.PathValue("id"))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, LookBody{Look: l})
}

func (s *Server) lookVariations(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[look.VariationsRequest](w, r)
	if err != nil {
		return err
	}
	jobs, err := s.looks.Variations(r.Context(), auth.From(r.Context()), r.PathValue("id"), in)
	if err != nil {
		return err
	}
	s.wakeWorkers()
	return encode(w, http.StatusAccepted, VariationsBody{Jobs: jobs})
}

func (s *Server) factoryPlan(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[look.PlanRequest](w, r)
	if err != nil {
		return err
	}
	plan, err := s.looks.Plan(r.Context(), auth.From(r.Context()), in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, plan)
}

func (s *Server) factoryRun(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[look.RunRequest](w, r)
	if err != nil {
		return err
	}
	res, err := s.looks.Run(r.Context(), auth.From(r.Context()), in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusCreated, res)
}

func (s *Server) getPreset(w http.ResponseWriter, r *http.Request) error {
	p, err := s.looks.Preset(r.Context(), auth.From(r.Context()))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, PresetBody{Preset: p})
}

func (s *Server) savePreset(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[look.PresetRequest](w, r)
	if err != nil {
		return err
	}
	p, err := s.looks.SavePreset(r.Context(), auth.From(r.Context()), in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, PresetBody{Preset: p})
}

func (s *Server) listBackgrounds(w http.ResponseWriter, r *http.Request) error {
	v, err := s.looks.Backgrounds(r.Context(), auth.From(r.Context()))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, v)
}

func (s *Server) listTemplates(w http.ResponseWriter, r *http.Request) error {
	return encode(w, http.StatusOK, TemplatesBody{Templates: look.Templates})
}

func (s *Server) getTemplate(w http.ResponseWriter, r *http.Request) error {
	t, err := s.looks.Template(r.PathValue("id"))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, TemplateBody{Template: t})
}
