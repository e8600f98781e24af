package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"studio/internal/asset"
	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/job"
	"studio/internal/ledger"
	"studio/internal/text"
	"studio/internal/ts"
)

// tool is one MCP tool: what tools/list tells of it and what runs it.
type tool struct {
	name, title, description string
	input                    schema
	output                   schema // the success shape; tools/list adds the refusal branch
	readOnly                 bool
	run                      func(s *Server, ctx context.Context, p auth.Principal, args json.RawMessage) (any, error)
}

// Limits of the list tools (SPEC §8).
const (
	AssetsDefault   = 50
	AssetsMax       = 200
	DevelopsDefault = 20
	DevelopsMax     = 100
)

// Codes the tools raise besides their services' own.
var (
	// ErrBadArguments refuses arguments of the wrong type.
	ErrBadArguments = errs.New(errs.KindInvalid, "BAD_ARGUMENTS", "The arguments do not match the tool's inputSchema.")
	// ErrBadStatus refuses a list_develops status that is not a job status.
	ErrBadStatus = errs.Msg(errs.BadStatus, "status must be queued, running, done, failed or cancelled.")
	// ErrEnqueueFailed answers any failure of start_develop on our side:
	// nothing was written or charged.
	ErrEnqueueFailed = errs.New(errs.KindInternal, "ENQUEUE_FAILED", "The develop could not be queued; nothing was charged and it is safe to retry.")
)

const capabilitiesNote = "Prices are tokens per frame at each resolution (long edge 1k = 1,024 px, 2k = 2,048 px, " +
	"4k = 4,096 px); start_develop's quality picks the resolution. A tool with no price rows charges the default of " +
	"5 tokens. The listed price is the price that settles; a failed or cancelled develop charges nothing."

// tools lists the six tools in the order tools/list gives them.
func tools() []*tool {
	return []*tool{
		{
			name: "list_capabilities", title: "List develop tools and prices", readOnly: true,
			description: "Every develop tool this studio can run, with its token price per resolution (1k, 2k, 4k), " +
				"the engine that performs it and the options it reads. Use a tool's slug as start_develop's tool and " +
				"its options as start_develop's params.",
			input: noInput,
			output: object(schema{
				"tools": array(capabilitySchema, "The develop tools."),
				"note":  str("How prices apply."),
			}, "tools", "note"),
			run: listCapabilities,
		},
		{
			name: "check_balance", title: "Check the token balance", readOnly: true,
			description: "The house's tokens: balance (spendable), grant, topup, held, and the open holds.",
			input:       noInput, output: balanceSchema,
			run: checkBalance,
		},
		{
			name: "list_assets", title: "List library assets", readOnly: true,
			description: "The house's image library, newest first: garments, models, backgrounds and developed frames. " +
				"An asset's id is what start_develop's inputs take.",
			input: object(schema{
				"folderId": str(`Only the assets of this collection; "root" for those at the root. Absent: every asset.`),
				"limit":    bounded("At most this many assets.", 1, AssetsMax, AssetsDefault),
			}),
			output: object(schema{"assets": array(assetSchema, "Assets, newest first.")}, "assets"),
			run:    listAssets,
		},
		{
			name: "start_develop", title: "Start a develop",
			description: "Commission one frame from library assets. Holds the tool's price at the chosen quality before " +
				"queueing; the hold settles when the frame lands and is released if it fails. Needs a member key. " +
				"Poll get_develop with the returned jobId. The same idempotencyKey with the same request returns the " +
				"first develop and holds nothing more (tokensHeld 0).",
			input: object(schema{
				"tool": str("A tool slug from list_capabilities, e.g. upscale, packshot, tryon."),
				"inputs": stringMap("Asset ids by role, one id each. Single-image tools: image. tryon: model and garment " +
					"(one garment). cleanup: image and mask. harmonize: image and background. packshot on its own " +
					"ground: image and background, with params.bg = image."),
				"quality": schema{"type": "string", "enum": []string{"1k", "2k", "4k"}, "default": "1k", "description": "The resolution; decides the cost."},
				"params": stringMap("String options of the tool, as list_capabilities lists them (e.g. color-change: color " +
					"#rrggbb; packshot: bg white, image or #rrggbb); a value outside an option's legal ones is refused with " +
					"BAD_OPTION naming them; params.runId groups frames into one run."),
				"idempotencyKey": str("Makes a retry safe: the same key and request return the first develop."),
			}, "tool"),
			output: object(schema{
				"jobId":          str("The develop's id: poll it with get_develop."),
				"status":         enum("queued for a new develop; a replayed key answers the develop's current status.", statuses...),
				"tokensHeld":     integer("Tokens this call held; 0 when the idempotency key replayed an earlier develop."),
				"idempotencyKey": nullable(str("The key sent; null when none was.")),
			}, "jobId", "status", "tokensHeld", "idempotencyKey"),
			run: startDevelop,
		},
		{
			name: "get_develop", title: "Get a develop", readOnly: true,
			description: "The status of one develop and, once done, its result. Nothing is pushed: poll this until " +
				"the status is done, failed or cancelled.",
			input:  object(schema{"jobId": str("The id start_develop returned.")}, "jobId"),
			output: developSchema,
			run:    getDevelop,
		},
		{
			name: "list_develops", title: "List recent develops", readOnly: true,
			description: "The house's recent develops, newest first, optionally of one status.",
			input: object(schema{
				"limit":  bounded("At most this many develops.", 1, DevelopsMax, DevelopsDefault),
				"status": enum("Only develops in this status.", statuses...),
			}),
			output: object(schema{"develops": array(developSchema, "Develops, newest first.")}, "develops"),
			run:    listDevelops,
		},
	}
}

// decodeArgs reads a tool's arguments into T: absent arguments are the
// zero T, unknown members are ignored, a member of the wrong type is
// BAD_ARGUMENTS naming it.
func decodeArgs[T any](raw json.RawMessage) (T, error) {
	var v T
	if raw == nil {
		return v, nil
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) && typeErr.Field != "" {
			return v, errs.Msg(ErrBadArguments, "The argument "+typeErr.Field+" has the wrong type; see the tool's inputSchema.")
		}
		return v, ErrBadArguments
	}
	if !text.CleanJSON(raw) {
		return v, errs.Msg(ErrBadArguments, "Arguments must be text without control characters.")
	}
	return v, nil
}

// limitArg reads a limit: absent or null is def; else a whole number from 1 to hi.
func limitArg(raw json.RawMessage, def, hi int) (int, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || isNull(raw) {
		return def, nil
	}
	n, err := strconv.Atoi(string(raw))
	if err != nil || n < 1 || n > hi {
		return 0, errs.Msg(job.ErrBadLimit, fmt.Sprintf("limit must be a whole number from 1 to %d.", hi))
	}
	return n, nil
}

type capabilitiesResult struct {
	Tools []job.Capability `json:"tools"`
	Note  string           `json:"note"`
}

func listCapabilities(s *Server, _ context.Context, _ auth.Principal, _ json.RawMessage) (any, error) {
	return capabilitiesResult{Tools: s.opts.Jobs.Capabilities(), Note: capabilitiesNote}, nil
}

func checkBalance(s *Server, ctx context.Context, p auth.Principal, _ json.RawMessage) (any, error) {
	b, err := s.opts.Ledger.Balance(ctx, p)
	if err != nil {
		return nil, err
	}
	if b.Holds == nil {
		b.Holds = []ledger.HeldTokens{}
	}
	return b, nil
}

type listAssetsArgs struct {
	FolderID string          `json:"folderId"`
	Limit    json.RawMessage `json:"limit"`
}

type assetsResult struct {
	Assets []asset.Asset `json:"assets"`
}

func listAssets(s *Server, ctx context.Context, p auth.Principal, raw json.RawMessage) (any, error) {
	in, err := decodeArgs[listAssetsArgs](raw)
	if err != nil {
		return nil, err
	}
	limit, err := limitArg(in.Limit, AssetsDefault, AssetsMax)
	if err != nil {
		return nil, err
	}
	as, _, err := s.opts.Assets.List(ctx, p, asset.ListQuery{Folder: strings.TrimSpace(in.FolderID), Limit: limit})
	if err != nil {
		return nil, err
	}
	return assetsResult{Assets: as}, nil
}

type startArgs struct {
	Tool           string                     `json:"tool"`
	Inputs         map[string]string          `json:"inputs"`
	Quality        string                     `json:"quality"`
	Params         map[string]json.RawMessage `json:"params"`
	IdempotencyKey string                     `json:"idempotencyKey"`
}

type startResult struct {
	JobID          string     `json:"jobId"`
	Status         job.Status `json:"status"`
	TokensHeld     int64      `json:"tokensHeld"`
	IdempotencyKey *string    `json:"idempotencyKey"`
}

var errViewerSpend = errs.Msg(errs.Forbidden, "A viewer may not spend tokens; start_develop needs a member key or seat.")

func startDevelop(s *Server, ctx context.Context, p auth.Principal, raw json.RawMessage) (any, error) {
	// The job service refuses a viewer too; asking first answers FORBIDDEN
	// whatever the arguments, as the HTTP submit does before reading its body.
	if !p.CanSpend() {
		return nil, errViewerSpend
	}
	in, err := decodeArgs[startArgs](raw)
	if err != nil {
		return nil, err
	}
	params, err := stringParams(in.Params)
	if err != nil {
		return nil, err
	}
	req := job.SubmitRequest{
		Tool:           strings.TrimSpace(in.Tool),
		Tier:           ledger.Tier(strings.TrimSpace(in.Quality)),
		Params:         params,
		IdempotencyKey: strings.TrimSpace(in.IdempotencyKey),
	}
	for role, id := range in.Inputs {
		req.Inputs = append(req.Inputs, job.Input{Role: strings.TrimSpace(role), AssetID: strings.TrimSpace(id)})
	}
	slices.SortFunc(req.Inputs, func(a, b job.Input) int { return strings.Compare(a.Role, b.Role) })
	rec, err := s.opts.Jobs.Submit(ctx, p, req)
	if err != nil {
		return nil, err
	}
	if !rec.Replayed && s.opts.Wake != nil {
		s.opts.Wake()
	}
	out := startResult{JobID: rec.Job.ID, Status: rec.Job.Status, TokensHeld: rec.TokensHeld}
	if req.IdempotencyKey != "" {
		out.IdempotencyKey = &req.IdempotencyKey
	}
	return out, nil
}

// stringParams turns params into strings: a string as it is, a number or
// a boolean as its JSON text; null drops the name; objects and arrays are
// refused.
func stringParams(in map[string]json.RawMessage) (map[string]string, error) {
	out := make(map[string]string, len(in))
	for k, raw := range in {
		raw = bytes.TrimSpace(raw)
		switch {
		case isNull(raw):
		case raw[0] == '"':
			var v string
			if err := json.Unmarshal(raw, &v); err != nil {
				return nil, errs.Msg(ErrBadArguments, "params."+k+" must be a string.")
			}
			out[k] = v
		case raw[0] == '{' || raw[0] == '[':
			return nil, errs.Msg(ErrBadArguments, "params."+k+" must be a string.")
		default:
			out[k] = string(raw)
		}
	}
	return out, nil
}

type getArgs struct {
	JobID string `json:"jobId"`
}

// develop is a job as get_develop and list_develops answer it.
type develop struct {
	JobID           string     `json:"jobId"`
	Tool            string     `json:"tool"`
	Status          job.Status `json:"status"`
	ResultURL       *string    `json:"resultUrl"`
	ResultAssetID   *string    `json:"resultAssetId"`
	Error           *string    `json:"error"`
	TokensEstimated int64      `json:"tokensEstimated"`
	TokensSettled   *int64     `json:"tokensSettled"`
	CreatedAt       ts.Time    `json:"createdAt"`
	FinishedAt      *ts.Time   `json:"finishedAt"`
}

func (s *Server) develop(j job.Job) develop {
	d := develop{
		JobID: j.ID, Tool: j.Tool, Status: j.Status, Error: j.Error,
		TokensEstimated: j.Cost, CreatedAt: j.CreatedAt, FinishedAt: j.FinishedAt,
	}
	if j.ResultAssetID != "" {
		id, u := j.ResultAssetID, j.ResultURL
		d.ResultAssetID, d.ResultURL = &id, &u
	}
	if j.Status.Terminal() {
		settled := j.Settled
		d.TokensSettled = &settled
	}
	return d
}

func getDevelop(s *Server, ctx context.Context, p auth.Principal, raw json.RawMessage) (any, error) {
	in, err := decodeArgs[getArgs](raw)
	if err != nil {
		return nil, err
	}
	id := strings.TrimSpace(in.JobID)
	if id == "" {
		return nil, errs.Msg(ErrBadArguments, "jobId is required: the id start_develop returned.")
	}
	j, err := s.opts.Jobs.Get(ctx, p, id)
	if err != nil {
		return nil, err
	}
	return s.develop(j), nil
}

type listDevelopsArgs struct {
	Limit  json.RawMessage `json:"limit"`
	Status string          `json:"status"`
}

type developsResult struct {
	Develops []develop `json:"develops"`
}

func listDevelops(s *Server, ctx context.Context, p auth.Principal, raw json.RawMessage) (any, error) {
	in, err := decodeArgs[listDevelopsArgs](raw)
	if err != nil {
		return nil, err
	}
	limit, err := limitArg(in.Limit, DevelopsDefault, DevelopsMax)
	if err != nil {
		return nil, err
	}
	status := job.Status(strings.TrimSpace(in.Status))
	if status != "" && !slices.Contains(statuses, string(status)) {
		return nil, ErrBadStatus
	}
	jobs, err := s.opts.Jobs.Recent(ctx, p, status, limit)
	if err != nil {
		return nil, err
	}
	out := developsResult{Develops: make([]develop, len(jobs))}
	for i, j := range jobs {
		out.Develops[i] = s.develop(j)
	}
	return out, nil
}

// refusalBody is the structuredContent of a refusal.
type refusalBody struct {
	Error string `json:"error"`
}

// refuse turns a tool's error into its refusal: "<CODE>: <message>" from
// the *errs.Error, with the codes SPEC §4.2 names for MCP. An error of ours
// is logged here, once, and answered without its text: ENQUEUE_FAILED on
// start_develop (nothing was charged), INTERNAL elsewhere.
func (s *Server) refuse(ctx context.Context, toolName string, err error) CallResult {
	e, ok := errs.As(err)
	if !ok || e.Kind == errs.KindInternal {
		if !errors.Is(err, context.Canceled) {
			s.opts.Log(ctx).ErrorContext(ctx, "mcp tool failed", "tool", toolName, "err", err)
		}
		e = errs.Internal
		if toolName == "start_develop" {
			e = ErrEnqueueFailed
		}
	} else if e.Err != nil {
		s.opts.Log(ctx).WarnContext(ctx, "mcp tool refused", "tool", toolName, "code", e.Code, "err", e.Err)
	}
	code, msg := e.Code, e.Message
	switch {
	case e.Kind == errs.KindNotFound && toolName == "start_develop":
		code, msg = job.ErrAssetNotFound.Code, job.ErrAssetNotFound.Message
	case e.Kind == errs.KindNotFound && toolName == "get_develop":
		code, msg = errs.NotFound.Code, "No develop has this id in this house."
	case errors.Is(e, job.ErrNoImage) || errors.Is(e, job.ErrEmptyImage):
		code = job.ErrNoInputs.Code
	case errors.Is(e, ledger.ErrInsufficientTokens) && e.Fields["need"] != nil && e.Fields["spendable"] != nil && e.Fields["held"] != nil:
		msg = fmt.Sprintf("The develop needs %v tokens; the house can spend %v and already holds %v for develops in flight.",
			e.Fields["need"], e.Fields["spendable"], e.Fields["held"])
	case errors.Is(e, job.ErrUnknownTool):
		msg = strings.TrimSuffix(msg, ".") + "; list_capabilities names the tools."
	}
	return result(refusalBody{Error: code + ": " + msg}, true)
}
