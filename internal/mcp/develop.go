package mcp

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"studio/internal/asset"
	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/job"
	"studio/internal/ledger"
	"studio/internal/ts"
)

// developTools are the tools of develops: SPEC §4.2's six, cancel_develop
// and preflight_develop.
func developTools() []*tool {
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
				"Poll get_develop with the returned jobId. The same idempotencyKey with the same request answers exactly what " +
				"the first call answered and holds nothing more.",
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
				"status":         enum("Always queued: a replayed key answers what its first call answered (get_develop tells where the develop stands now).", "queued"),
				"tokensHeld":     integer("Tokens the develop's hold took; a replayed key answers the first call's figure and holds nothing more."),
				"idempotencyKey": nullable(str("The key sent; null when none was.")),
			}, "jobId", "status", "tokensHeld", "idempotencyKey"),
			run:      startDevelop,
			notFound: job.ErrAssetNotFound, internal: ErrEnqueueFailed, spends: "The develop",
		},
		{
			name: "get_develop", title: "Get a develop", readOnly: true,
			description: "The status of one develop and, once done, its result. Nothing is pushed: poll this until " +
				"the status is done, failed or cancelled.",
			input:    object(schema{"jobId": str("The id start_develop returned.")}, "jobId"),
			output:   developSchema,
			run:      getDevelop,
			notFound: errNoDevelop,
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
		{
			name: "cancel_develop", title: "Cancel a develop", destructive: true, idempotent: true,
			description: "Cancel a queued develop and release its hold: the tokens are spendable again at once. A develop " +
				"already rendering finishes and still costs (cancelled false, reason ALREADY_RENDERING); a finished one " +
				"is unchanged (ALREADY_SETTLED). Free. Needs a member key.",
			input: object(schema{"jobId": str("The develop's id (start_develop's, develop_look's or a lookbook's jobId).")}, "jobId"),
			output: object(schema{
				"id":             str("The develop's id."),
				"cancelled":      boolean("True when this call cancelled it."),
				"state":          enum("Where the develop stands now.", statuses...),
				"tokensReleased": integer("Tokens this call released; 0 unless cancelled."),
				"reason":         enum("Why it was not cancelled; absent when it was.", "ALREADY_RENDERING", "ALREADY_SETTLED"),
			}, "id", "cancelled", "state", "tokensReleased"),
			run:      cancelDevelop,
			notFound: errNoDevelop,
		},
		{
			name: "preflight_develop", title: "Preflight a develop", readOnly: true,
			description: "Ask, free, whether start_develop would accept a develop and the engine expects to deliver it, " +
				"before spending: the same arguments as start_develop. It answers ok, the engine, the price, the spendable " +
				"balance and every problem start_develop would refuse with (UNKNOWN_TOOL, BAD_OPTION, NO_INPUTS, " +
				"ASSET_NOT_FOUND, IMAGE_TOO_LARGE, INSUFFICIENT_TOKENS, FORBIDDEN...) or the engine foresees, each with the " +
				"role or option it is about. Holds, queues and stores nothing; any key; at most 60 a minute per house.",
			input: object(schema{
				"tool":    str("A tool slug from list_capabilities."),
				"inputs":  stringMap("Asset ids by role, as start_develop takes them."),
				"quality": schema{"type": "string", "enum": []string{"1k", "2k", "4k"}, "default": "1k", "description": "The resolution; decides the price."},
				"params":  stringMap("String options of the tool, as start_develop takes them."),
			}, "tool"),
			output: object(schema{
				"ok":        boolean("True when start_develop would accept the develop and the engine expects to deliver."),
				"tool":      str("The tool asked about."),
				"engine":    nullable(str("The engine that would perform it (local, fal, image-api, fashn); null when none here can.")),
				"price":     nullable(integer("Tokens the develop would hold and settle; null for an unknown tool or quality.")),
				"spendable": integer("The house's spendable tokens now."),
				"quality":   str("The resolution asked about (1k when none was); another value than 1k, 2k or 4k is a BAD_QUALITY problem."),
				"problems": array(object(schema{
					"code":    str("The refusal's code (start_develop's) or the engine's."),
					"message": str("What is wrong, in a sentence."),
					"role":    str("The input role it is about; absent when none."),
					"option":  str("The option it is about; absent when none."),
				}, "code", "message"), "Why it would be refused or not delivered; empty when ok."),
				"note": str("What the engine makes of the tool, and how to read the answer."),
			}, "ok", "tool", "engine", "price", "spendable", "problems", "note"),
			run: preflightDevelop,
		},
	}
}

// errNoDevelop is the refusal of a job id that is none of the house's.
var errNoDevelop = errs.Msg(errs.NotFound, "No develop has this id in this house.")

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

// submitRequest reads start_develop's (and preflight_develop's) arguments
// as the job service takes a submit.
func submitRequest(raw json.RawMessage) (job.SubmitRequest, error) {
	in, err := decodeArgs[startArgs](raw)
	if err != nil {
		return job.SubmitRequest{}, err
	}
	params, err := stringParams(in.Params)
	if err != nil {
		return job.SubmitRequest{}, err
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
	return req, nil
}

func preflightDevelop(s *Server, ctx context.Context, p auth.Principal, raw json.RawMessage) (any, error) {
	req, err := submitRequest(raw)
	if err != nil {
		return nil, err
	}
	return s.opts.Jobs.Preflight(ctx, p, req)
}

func startDevelop(s *Server, ctx context.Context, p auth.Principal, raw json.RawMessage) (any, error) {
	req, err := submitRequest(raw) // the job service refuses a viewer first

	if err != nil {
		return nil, err
	}
	rec, err := s.opts.Jobs.Submit(ctx, p, req)
	if err != nil {
		return nil, err
	}
	if !rec.Replayed {
		s.wake()
	}
	// A replay answers what the first call answered: the develop queued,
	// with the tokens its hold took then (no second hold is taken).
	out := startResult{JobID: rec.Job.ID, Status: job.Queued, TokensHeld: rec.Job.Cost}
	if req.IdempotencyKey != "" {
		out.IdempotencyKey = &req.IdempotencyKey
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

// jobIDArg reads the required jobId of a tool's arguments.
func jobIDArg(raw json.RawMessage) (string, error) {
	in, err := decodeArgs[getArgs](raw)
	if err != nil {
		return "", err
	}
	id := strings.TrimSpace(in.JobID)
	if id == "" {
		return "", errs.Msg(ErrBadArguments, "jobId is required: the id start_develop returned.")
	}
	return id, nil
}

func getDevelop(s *Server, ctx context.Context, p auth.Principal, raw json.RawMessage) (any, error) {
	id, err := jobIDArg(raw)
	if err != nil {
		return nil, err
	}
	j, err := s.opts.Jobs.Get(ctx, p, id)
	if err != nil {
		return nil, err
	}
	return linked(s.develop(j)), nil
}

// linkedDevelop is get_develop's answer: a develop whose frame, once done,
// is linked as a resource_link besides the JSON text.
type linkedDevelop struct{ develop }

func linked(d develop) linkedDevelop { return linkedDevelop{d} }

// content links the developed frame (resource_link came with 2025-06-18).
func (d linkedDevelop) content(r Rules) []Content {
	if d.ResultURL == nil || r.Version < Version20250618 {
		return nil
	}
	return []Content{{Type: "resource_link", URI: *d.ResultURL, Name: "frame-" + *d.ResultAssetID,
		Description: "The frame develop " + d.JobID + " made (" + d.Tool + "); fetch it with the same key, or call get_asset with preview true."}}
}

func cancelDevelop(s *Server, ctx context.Context, p auth.Principal, raw json.RawMessage) (any, error) {
	id, err := jobIDArg(raw)
	if err != nil {
		return nil, err
	}
	return s.opts.Jobs.Cancel(ctx, p, id)
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
