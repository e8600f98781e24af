package mcp

import (
	"context"
	"encoding/json"
	"strings"

	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/look"
)

// The lookbook's tools call the look service's methods the lookbook routes
// call: create_look POST /lookbook/looks, get_look GET /lookbook/looks/{id},
// develop_look POST .../develop-lock, lock_look POST .../lock,
// develop_variations POST .../variations; develop_lookbook its Lookbook.

// errNoLook is the one refusal of a look id that is not the house's.
var errNoLook = errs.Msg(errs.NotFound, "No look of this house has this id.")

// lookTools are the lookbook's tools.
func lookTools() []*tool {
	lookID := str("The look's id (create_look's or develop_lookbook's lookId).")
	quality := schema{"type": "string", "enum": []string{"1k", "2k", "4k"}, "description": "The resolution (long edge 1,024, 2,048 or 4,096 px); decides the cost. Default 1k."}
	key := str("Makes a retry safe: the same key and request answer the first call's jobs and hold nothing more.")
	return []*tool{
		{
			name: "create_look", title: "Compose a look",
			description: "Compose a draft look: a model (a model photo of the house, or a casting board model's id), one " +
				"to six pieces with their roles (the first, or the one marked hero, leads), a background and an " +
				"aesthetic. Free: nothing is developed until develop_look. Needs a member key.",
			input: object(schema{
				"name":         str("The look's name (1-120 characters)."),
				"modelAssetId": str("The model: an asset of kind model, or a casting board model's id."),
				"itemAssetIds": schema{"type": "array", "minItems": 1, "maxItems": look.MaxItems, "items": itemSchema, "description": "The pieces, one to six."},
				"background":   backgroundSchema,
				"aesthetic":    enum("The grade of the frames.", look.Aesthetics...),
				"brandId":      str("A brand profile of the house, injected into the frames."),
			}, "name", "modelAssetId", "itemAssetIds", "background", "aesthetic"),
			output: object(schema{"look": lookSchema}, "look"),
			run:    createLook,
		},
		{
			name: "get_look", title: "Get a look", readOnly: true,
			description: "A look with its newest base-frame develop (lockDevelop: its status and, once done, the frame's " +
				"assetId to lock on) and its variation frames. Free.",
			input:    object(schema{"lookId": lookID}, "lookId"),
			output:   detailSchema,
			run:      getLook,
			notFound: errNoLook,
		},
		{
			name: "develop_look", title: "Develop a look's base frame",
			description: "Develop a draft look's base frame: holds the lookbook price at the quality (plus a restoration " +
				"pass when the output is larger than the quality) before queueing, settled when the frame lands, released " +
				"if it fails. Refused while a develop of the look is " +
				"queued or running (DEVELOP_IN_FLIGHT) and on a locked look (LOOK_LOCKED). Watch the jobId with " +
				"get_develop, then lock_look on its resultAssetId. Needs a member key.",
			input: object(schema{
				"lookId":         lookID,
				"quality":        quality,
				"output":         outputSchema,
				"idempotencyKey": key,
			}, "lookId"),
			output: object(schema{
				"jobId":          str("The base frame's develop: watch it with get_develop."),
				"status":         enum("Where the develop stands.", statuses...),
				"tokens":         integer("Tokens held for the frame, restoration included; 0 when the key replayed an earlier call."),
				"idempotencyKey": str("The key used (one is made when none is sent)."),
			}, "jobId", "status", "tokens", "idempotencyKey"),
			run:      developLook,
			notFound: errNoLook, spends: "The frame", priced: look.Tool,
		},
		{
			name: "lock_look", title: "Lock a look on a frame",
			description: "Lock a look on a frame one of its develops made (a done develop's resultAssetId): the look's " +
				"base, which develop_variations re-frames. Locking a locked look moves its base. Free. Needs a member key.",
			input: object(schema{
				"lookId":  lookID,
				"assetId": str("The frame to lock on: the resultAssetId of a done develop of this look."),
			}, "lookId", "assetId"),
			output:   object(schema{"look": lookSchema}, "look"),
			run:      lockLook,
			notFound: errNoLook,
		},
		{
			name: "develop_variations", title: "Develop a look's variations",
			description: "Develop one frame per variation key from a locked look's base (front, back, side, " +
				"three-quarter, walking, seated, detail, close-up, or posture:<id>; at most 12). Holds every frame's " +
				"price at once, all or none (INSUFFICIENT_TOKENS with need, spendable and held otherwise). Lock the look " +
				"first (LOCK_REQUIRED). Watch each jobId with get_develop. Needs a member key.",
			input: object(schema{
				"lookId":         lookID,
				"keys":           schema{"type": "array", "minItems": 1, "maxItems": look.MaxKeys, "items": schema{"type": "string"}, "description": "Variation keys: " + strings.Join(look.VariationKeys, ", ") + ", or posture:<posture_id>."},
				"quality":        quality,
				"output":         outputSchema,
				"controls":       stringMap("Posture axis id to stop id, applied to posture keys (gaze, weight, arms, energy)."),
				"idempotencyKey": key,
			}, "lookId", "keys"),
			output: object(schema{"jobs": array(object(schema{
				"key":   str("The variation key."),
				"jobId": str("Its develop: watch it with get_develop."),
			}, "key", "jobId"), "One develop per key, in order.")}, "jobs"),
			run:      developVariations,
			notFound: errNoLook, spends: "The variations", priced: look.Tool,
		},
		{
			name: "develop_lookbook", title: "Develop a lookbook",
			description: "A lookbook in one call: from a model and up to 12 garments (accessories and jewelry too), plan " +
				"the looks as the factory does (each garment leads a look; looks fewer than garments deal the rest in), " +
				"create them and develop every look's base frame, holding the whole cost at once: all or none " +
				"(INSUFFICIENT_TOKENS with need, spendable and held otherwise): one frame per look. A brief naming an aesthetic (" + strings.Join(look.Aesthetics, ", ") +
				") or a background (beach, garden, concrete, city street...) sets it; the standing preset otherwise. " +
				"Watch each jobId with get_develop, then lock_look and develop_variations; get_verdict reads the judge. " +
				"The same idempotencyKey answers the same looks and holds nothing more. Needs a member key.",
			input: object(schema{
				"modelAssetId":    str("The model: an asset of kind model, or a casting board model's id."),
				"garmentAssetIds": schema{"type": "array", "minItems": 1, "maxItems": look.MaxLookbookGarments, "items": schema{"type": "string"}, "description": "The pieces' asset ids, one to 12; each garment (kind clothes) leads a look."},
				"brief":           str("A few words on the story (at most 600 characters); an aesthetic or background it names is used."),
				"looks":           schema{"type": "integer", "minimum": 1, "maximum": look.MaxLookbookGarments, "description": "How many looks; default one per garment."},
				"quality":         quality,
				"idempotencyKey":  key,
			}, "modelAssetId", "garmentAssetIds"),
			output:   lookbookSchema,
			run:      developLookbook,
			notFound: errs.Msg(errs.AssetNotFound, "A model or garment id is not one of this house's assets."),
			spends:   "The lookbook", priced: look.Tool,
		},
	}
}

func createLook(s *Server, ctx context.Context, p auth.Principal, raw json.RawMessage) (any, error) {
	in, err := decodeArgs[look.CreateRequest](raw)
	if err != nil {
		return nil, err
	}
	l, err := s.opts.Looks.Create(ctx, p, in)
	if err != nil {
		return nil, err
	}
	return lookResult{Look: l}, nil
}

type lookResult struct {
	Look look.Look `json:"look"`
}

type lookArgs struct {
	LookID string `json:"lookId"`
}

// lookIDOf reads the required lookId of a tool's arguments.
func lookIDOf(raw json.RawMessage) (string, error) {
	in, err := decodeArgs[lookArgs](raw)
	if err != nil {
		return "", err
	}
	id := strings.TrimSpace(in.LookID)
	if id == "" {
		return "", errs.Msg(ErrBadArguments, "lookId is required.")
	}
	return id, nil
}

func getLook(s *Server, ctx context.Context, p auth.Principal, raw json.RawMessage) (any, error) {
	id, err := lookIDOf(raw)
	if err != nil {
		return nil, err
	}
	return s.opts.Looks.Get(ctx, p, id)
}

func developLook(s *Server, ctx context.Context, p auth.Principal, raw json.RawMessage) (any, error) {
	id, err := lookIDOf(raw)
	if err != nil {
		return nil, err
	}
	in, err := decodeArgs[look.DevelopRequest](raw)
	if err != nil {
		return nil, err
	}
	rec, err := s.opts.Looks.DevelopLock(ctx, p, id, in)
	if err != nil {
		return nil, err
	}
	s.wake()
	return rec, nil
}

func lockLook(s *Server, ctx context.Context, p auth.Principal, raw json.RawMessage) (any, error) {
	id, err := lookIDOf(raw)
	if err != nil {
		return nil, err
	}
	in, err := decodeArgs[look.LockRequest](raw)
	if err != nil {
		return nil, err
	}
	l, err := s.opts.Looks.Lock(ctx, p, id, in)
	if err != nil {
		return nil, err
	}
	return lookResult{Look: l}, nil
}

type variationsResult struct {
	Jobs []look.KeyJob `json:"jobs"`
}

func developVariations(s *Server, ctx context.Context, p auth.Principal, raw json.RawMessage) (any, error) {
	id, err := lookIDOf(raw)
	if err != nil {
		return nil, err
	}
	in, err := decodeArgs[look.VariationsRequest](raw)
	if err != nil {
		return nil, err
	}
	jobs, err := s.opts.Looks.Variations(ctx, p, id, in)
	if err != nil {
		return nil, err
	}
	s.wake()
	return variationsResult{Jobs: jobs}, nil
}

func developLookbook(s *Server, ctx context.Context, p auth.Principal, raw json.RawMessage) (any, error) {
	in, err := decodeArgs[look.LookbookRequest](raw)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(in.ModelAssetID) == "" || len(in.GarmentAssetIDs) == 0 {
		return nil, errs.Msg(ErrBadArguments, "modelAssetId and garmentAssetIds are required.")
	}
	book, err := s.opts.Looks.Lookbook(ctx, p, in)
	if err != nil {
		return nil, err
	}
	s.wake()
	return book, nil
}
