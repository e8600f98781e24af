package httpapi

import (
	"net/http"

	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/job"
	"studio/internal/ledger"
	"studio/internal/look"
	"studio/internal/pipeline"
)

// PipelinePresetsBody lists the house's saved plans.
type PipelinePresetsBody struct {
	Presets []pipeline.Preset `json:"presets"`
}

// PipelinePresetBody carries one saved plan.
type PipelinePresetBody struct {
	Preset pipeline.Preset `json:"preset"`
}

// PipelineRunBody carries one pipeline run.
type PipelineRunBody struct {
	Run pipeline.Run `json:"run"`
}

// PipelineRunsBody pages pipeline runs, newest first.
type PipelineRunsBody struct {
	Runs       []pipeline.Run `json:"runs"`
	NextCursor *string        `json:"nextCursor" description:"Pass as before for the next page; null on the last page."`
}

// PipelineRunsQuery is the query of GET /api/toolkit/pipelines/runs.
type PipelineRunsQuery struct {
	Limit  int    `query:"limit" minimum:"1" maximum:"100" default:"20"`
	Before string `query:"before" refuse:"BAD_CURSOR" description:"A nextCursor of an earlier answer: the runs below it, newest first."`
}

// planErrors are the refusals of a plan and its assets, shared by preview and run.
var planErrors = []*errs.Error{pipeline.ErrStepsRequired, pipeline.ErrTooManySteps, pipeline.ErrBadStep, job.ErrUnknownTool,
	job.ErrBadQuality, job.ErrBadOption, look.ErrAssetsRequired, pipeline.ErrTooManyAssets, errs.NotFound, errs.AssetNotFound, job.ErrFalNotConfigure}

func (s *Server) listPipelinePresets(w http.ResponseWriter, r *http.Request) error {
	ps, err := s.svc.Pipelines.Presets(r.Context(), auth.From(r.Context()))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, PipelinePresetsBody{Presets: ps})
}

func (s *Server) createPipelinePreset(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[pipeline.PresetRequest](w, r)
	if err != nil {
		return err
	}
	p, err := s.svc.Pipelines.CreatePreset(r.Context(), auth.From(r.Context()), in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusCreated, PipelinePresetBody{Preset: p})
}

func (s *Server) replacePipelinePreset(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[pipeline.PresetRequest](w, r)
	if err != nil {
		return err
	}
	p, err := s.svc.Pipelines.ReplacePreset(r.Context(), auth.From(r.Context()), r.PathValue("id"), in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, PipelinePresetBody{Preset: p})
}

func (s *Server) deletePipelinePreset(w http.ResponseWriter, r *http.Request) error {
	if err := s.svc.Pipelines.DeletePreset(r.Context(), auth.From(r.Context()), r.PathValue("id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) previewPipeline(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[pipeline.PlanRequest](w, r)
	if err != nil {
		return err
	}
	p, err := s.svc.Pipelines.Preview(r.Context(), auth.From(r.Context()), in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, p)
}

func (s *Server) startPipeline(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[pipeline.PlanRequest](w, r)
	if err != nil {
		return err
	}
	rec, err := s.svc.Pipelines.Start(r.Context(), auth.From(r.Context()), in)
	if err != nil {
		return err
	}
	s.wakeWorkers()
	return encode(w, http.StatusAccepted, rec)
}

func (s *Server) listPipelineRuns(w http.ResponseWriter, r *http.Request) error {
	q := queryOf[PipelineRunsQuery](r)
	runs, next, err := s.svc.Pipelines.List(r.Context(), auth.From(r.Context()), q.Before, q.Limit)
	if err != nil {
		return err
	}
	body := PipelineRunsBody{Runs: runs}
	if next != "" {
		body.NextCursor = &next
	}
	return encode(w, http.StatusOK, body)
}

func (s *Server) getPipelineRun(w http.ResponseWriter, r *http.Request) error {
	run, err := s.svc.Pipelines.Get(r.Context(), auth.From(r.Context()), r.PathValue("id"))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, PipelineRunBody{Run: run})
}

func (s *Server) cancelPipelineRun(w http.ResponseWriter, r *http.Request) error {
	res, err := s.svc.Pipelines.Cancel(r.Context(), auth.From(r.Context()), r.PathValue("id"))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, res)
}

// pipelinesRoutes are the routes of pipelines (SPEC §4.19): saved plans of
// tool steps, their price, and runs over the house's assets.
func (s *Server) pipelinesRoutes() []Route {
	presetErrors := []*errs.Error{errs.Forbidden, pipeline.ErrNameRequired, pipeline.ErrStepsRequired, pipeline.ErrTooManySteps,
		pipeline.ErrBadStep, job.ErrUnknownTool, job.ErrBadQuality, job.ErrBadOption, pipeline.ErrNameTaken}
	return []Route{
		{Method: "GET", Path: "/api/toolkit/pipelines/presets", Class: KeyOrSession, Tag: "pipelines", Summary: "The house's saved plans, newest first",
			Out: []Out{{Status: 200, Body: PipelinePresetsBody{}}}, Handler: s.listPipelinePresets},
		{Method: "POST", Path: "/api/toolkit/pipelines/presets", Class: KeyOrSession, Tag: "pipelines", Summary: "Save a plan: a name unique in the house and 1 to 6 steps",
			In: pipeline.PresetRequest{}, Out: []Out{{Status: 201, Body: PipelinePresetBody{}}}, Errors: presetErrors, Handler: s.createPipelinePreset},
		{Method: "PATCH", Path: "/api/toolkit/pipelines/presets/{id}", Class: KeyOrSession, Tag: "pipelines", Summary: "Replace a saved plan whole (name and steps)",
			In: pipeline.PresetRequest{}, Out: []Out{{Status: 200, Body: PipelinePresetBody{}}}, Errors: append([]*errs.Error{errs.NotFound}, presetErrors...), Handler: s.replacePipelinePreset},
		{Method: "DELETE", Path: "/api/toolkit/pipelines/presets/{id}", Class: KeyOrSession, Tag: "pipelines", Summary: "Delete a saved plan; runs made from it keep their steps",
			Out: []Out{{Status: 204}}, Errors: []*errs.Error{errs.Forbidden, errs.NotFound}, Handler: s.deletePipelinePreset},
		{Method: "POST", Path: "/api/toolkit/pipelines/preview", Class: KeyOrSession, Tag: "pipelines", Summary: "Price a plan over assets; nothing is held",
			In: pipeline.PlanRequest{}, Out: []Out{{Status: 200, Body: pipeline.Preview{}}}, Errors: append([]*errs.Error{errs.BadBody}, planErrors...), Handler: s.previewPipeline},
		{Method: "GET", Path: "/api/toolkit/pipelines/runs", Class: KeyOrSession, Tag: "pipelines", Summary: "Pipeline runs, newest first, each asset's progress through the steps", Heavy: true,
			Query: PipelineRunsQuery{}, Out: []Out{{Status: 200, Body: PipelineRunsBody{}}}, Errors: []*errs.Error{errs.BadLimit, errs.BadCursor}, Handler: s.listPipelineRuns},
		{Method: "POST", Path: "/api/toolkit/pipelines/runs", Class: KeyOrSession, Tag: "pipelines", Summary: "Run a plan over assets: every planned frame held up front, all or none; the first step queued",
			In: pipeline.PlanRequest{}, Out: []Out{{Status: 202, Body: pipeline.Receipt{}}},
			Errors: append([]*errs.Error{errs.Forbidden, errs.BadBody, ledger.ErrInsufficientTokens, job.ErrKeyReused, job.ErrKeyTooLong}, planErrors...), Handler: s.startPipeline},
		{Method: "GET", Path: "/api/toolkit/pipelines/runs/{id}", Class: KeyOrSession, Tag: "pipelines", Summary: "One pipeline run: each asset's progress through the steps",
			Out: []Out{{Status: 200, Body: PipelineRunBody{}}}, Errors: []*errs.Error{errs.NotFound}, Handler: s.getPipelineRun},
		{Method: "POST", Path: "/api/toolkit/pipelines/runs/{id}/cancel", Class: KeyOrSession, Tag: "pipelines", Summary: "Stop a run: queued and waiting steps released; rendering ones finish and cost",
			Out: []Out{{Status: 200, Body: pipeline.Cancelled{}}}, Errors: []*errs.Error{errs.Forbidden, errs.NotFound}, Handler: s.cancelPipelineRun},
	}
}
