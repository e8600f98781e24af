package httpapi

import (
	"net/http"

	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/job"
	"studio/internal/ledger"
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
	looks, err := s.svc.Looks.List(r.Context(), auth.From(r.Context()))
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
	l, err := s.svc.Looks.Create(r.Context(), auth.From(r.Context()), in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusCreated, LookBody{Look: l})
}

func (s *Server) getLook(w http.ResponseWriter, r *http.Request) error {
	d, err := s.svc.Looks.Get(r.Context(), auth.From(r.Context()), r.PathValue("id"))
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
	rec, err := s.svc.Looks.DevelopLock(r.Context(), auth.From(r.Context()), r.PathValue("id"), in)
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
	l, err := s.svc.Looks.Lock(r.Context(), auth.From(r.Context()), r.PathValue("id"), in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, LookBody{Look: l})
}

func (s *Server) unlockLook(w http.ResponseWriter, r *http.Request) error {
	l, err := s.svc.Looks.Unlock(r.Context(), auth.From(r.Context()), r.PathValue("id"))
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
	jobs, err := s.svc.Looks.Variations(r.Context(), auth.From(r.Context()), r.PathValue("id"), in)
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
	plan, err := s.svc.Looks.Plan(r.Context(), auth.From(r.Context()), in)
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
	res, err := s.svc.Looks.Run(r.Context(), auth.From(r.Context()), in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusCreated, res)
}

func (s *Server) getPreset(w http.ResponseWriter, r *http.Request) error {
	p, err := s.svc.Looks.Preset(r.Context(), auth.From(r.Context()))
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
	p, err := s.svc.Looks.SavePreset(r.Context(), auth.From(r.Context()), in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, PresetBody{Preset: p})
}

func (s *Server) listBackgrounds(w http.ResponseWriter, r *http.Request) error {
	v, err := s.svc.Looks.Backgrounds(r.Context(), auth.From(r.Context()))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, v)
}

func (s *Server) listTemplates(w http.ResponseWriter, r *http.Request) error {
	return encode(w, http.StatusOK, TemplatesBody{Templates: look.Templates})
}

func (s *Server) getTemplate(w http.ResponseWriter, r *http.Request) error {
	t, err := s.svc.Looks.Template(r.PathValue("id"))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, TemplateBody{Template: t})
}

// looksRoutes are the routes of Lookbook, factory, presets (SPEC §4.6), backgrounds and templates (§4.19).
func (s *Server) looksRoutes() []Route {
	return []Route{
		{Method: "GET", Path: "/api/toolkit/lookbook/looks", Class: KeyOrSession, Tag: "lookbook", Summary: "The house's looks, newest first (50)",
			Out: []Out{{Status: 200, Body: LooksBody{}}}, Handler: s.listLooks},
		{Method: "POST", Path: "/api/toolkit/lookbook/looks", Class: KeyOrSession, Tag: "lookbook", Summary: "Compose a draft look; nothing is developed or charged",
			In: look.CreateRequest{}, Out: []Out{{Status: 201, Body: LookBody{}}},
			Errors: []*errs.Error{errs.Forbidden, look.ErrNameRequired, look.ErrModelRequired, look.ErrItemsRequired, look.ErrTooManyItems,
				look.ErrBadItem, look.ErrBadBackground, look.ErrBadAesthetic, look.ErrAssetNotFound}, Handler: s.createLook},
		{Method: "GET", Path: "/api/toolkit/lookbook/looks/{id}", Class: KeyOrSession, Tag: "lookbook", Summary: "A look with its variation frames and newest lock develop",
			Out: []Out{{Status: 200, Body: look.Detail{}}}, Errors: []*errs.Error{errs.NotFound}, Handler: s.getLook},
		{Method: "POST", Path: "/api/toolkit/lookbook/looks/{id}/develop-lock", Class: KeyOrSession, Tag: "lookbook", Summary: "Develop a draft look's base frame; holds the tier's price plus any restoration pass",
			In: look.DevelopRequest{}, Out: []Out{{Status: 202, Body: look.Receipt{}}},
			Errors: []*errs.Error{errs.Forbidden, look.ErrBadQuality, look.ErrUnknownDestination, look.ErrBadDimensions, look.ErrOutputTooLarge,
				look.ErrQualityTooLow, ledger.ErrInsufficientTokens, errs.NotFound, look.ErrDevelopInFlight, look.ErrLookLocked, job.ErrKeyReused, job.ErrKeyTooLong,
				look.ErrNoFigure}, Handler: s.developLock},
		{Method: "POST", Path: "/api/toolkit/lookbook/looks/{id}/lock", Class: KeyOrSession, Tag: "lookbook", Summary: "Lock a look on a frame one of its develops made",
			In: look.LockRequest{}, Out: []Out{{Status: 200, Body: LookBody{}}},
			Errors: []*errs.Error{errs.Forbidden, look.ErrAssetRequired, errs.NotFound, look.ErrDevelopInFlight, look.ErrNotALookFrame}, Handler: s.lockLook},
		{Method: "POST", Path: "/api/toolkit/lookbook/looks/{id}/unlock", Class: KeyOrSession, Tag: "lookbook", Summary: "Return a look to draft; its look-base fields are kept",
			Out: []Out{{Status: 200, Body: LookBody{}}}, Errors: []*errs.Error{errs.Forbidden, errs.NotFound, look.ErrDevelopInFlight}, Handler: s.unlockLook},
		{Method: "POST", Path: "/api/toolkit/lookbook/looks/{id}/variations", Class: KeyOrSession, Tag: "lookbook", Summary: "Develop one variation frame per key from the look base; all frames held or none",
			In: look.VariationsRequest{}, Out: []Out{{Status: 202, Body: VariationsBody{}}},
			Errors: []*errs.Error{errs.Forbidden, look.ErrBadQuality, look.ErrKeysRequired, look.ErrTooManyFrames, look.ErrUnknownVariant,
				look.ErrUnknownDestination, look.ErrBadDimensions, look.ErrOutputTooLarge, look.ErrQualityTooLow, ledger.ErrInsufficientTokens,
				errs.NotFound, look.ErrDevelopInFlight, look.ErrLockRequired, job.ErrKeyReused, job.ErrKeyTooLong}, Handler: s.lookVariations},
		{Method: "POST", Path: "/api/toolkit/factory/plan", Class: KeyOrSession, Tag: "lookbook", Summary: "Propose looks from pieces with the standing preset, priced; reads only",
			In: look.PlanRequest{}, Out: []Out{{Status: 200, Body: look.Plan{}}},
			Errors: []*errs.Error{look.ErrAssetsRequired, look.ErrBadQuality, look.ErrAssetNotFound}, Handler: s.factoryPlan},
		{Method: "POST", Path: "/api/toolkit/factory/run", Class: KeyOrSession, Tag: "lookbook", Summary: "Create a batch of draft looks; spends nothing, one bad look rejects all",
			In: look.RunRequest{}, Out: []Out{{Status: 201, Body: look.RunResult{}}},
			Errors: []*errs.Error{errs.Forbidden, look.ErrLooksRequired, look.ErrTooManyLooks, look.ErrModelRequired, look.ErrBadAesthetic,
				look.ErrNameRequired, look.ErrItemsRequired, look.ErrTooManyItems, look.ErrBadItem, look.ErrBadBackground, look.ErrKeysRequired,
				look.ErrTooManyFrames, look.ErrUnknownVariant, look.ErrBadQuality, look.ErrAssetNotFound}, Handler: s.factoryRun},
		{Method: "GET", Path: "/api/toolkit/presets", Class: KeyOrSession, Tag: "lookbook", Summary: "The standing preset; defaults when never saved",
			Out: []Out{{Status: 200, Body: PresetBody{}}}, Handler: s.getPreset},
		{Method: "POST", Path: "/api/toolkit/presets", Class: KeyOrSession, Tag: "lookbook", Summary: "Replace the standing preset",
			In: look.PresetRequest{}, Out: []Out{{Status: 200, Body: PresetBody{}}},
			Errors: []*errs.Error{errs.Forbidden, look.ErrBadAesthetic, look.ErrBadBackground, look.ErrKeysRequired, look.ErrTooManyFrames,
				look.ErrUnknownVariant, look.ErrBadQuality, look.ErrAssetNotFound}, Handler: s.savePreset},
		{Method: "GET", Path: "/api/toolkit/backgrounds", Class: KeyOrSession, Tag: "lookbook", Summary: "What a look can stand on: background presets and the house's background assets", Heavy: true,
			Out: []Out{{Status: 200, Body: look.BackgroundsView{}}}, Handler: s.listBackgrounds},
		{Method: "GET", Path: "/api/toolkit/lookbook/templates", Class: KeyOrSession, Tag: "lookbook", Summary: "The built-in shot templates",
			Out: []Out{{Status: 200, Body: TemplatesBody{}}}, Handler: s.listTemplates},
		{Method: "GET", Path: "/api/toolkit/lookbook/templates/{id}", Class: KeyOrSession, Tag: "lookbook", Summary: "One shot template",
			Out: []Out{{Status: 200, Body: TemplateBody{}}}, Errors: []*errs.Error{errs.NotFound}, Handler: s.getTemplate},
	}
}
