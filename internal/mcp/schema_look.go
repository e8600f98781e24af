package mcp

import (
	"strings"

	"studio/internal/look"
)

// The lookbook's schemas: a look, its detail, a lookbook, and the pieces
// of their inputs. Hand-written like the rest (schema.go): the fields are
// those the lookbook routes answer.

func destinationNames() []string {
	out := make([]string, 0, len(look.Destinations)+1)
	for _, d := range look.Destinations {
		out = append(out, d.Name)
	}
	return append(out, look.Custom)
}

var (
	itemSchema = object(schema{
		"assetId": str("The piece's asset id."),
		"role":    enum("What the piece is in the look.", look.ItemRoles...),
		"label":   str("The piece's own name; absent when unusable (default: the asset's name)."),
		"hero":    boolean("True on the single piece the look sells (default: the first)."),
	}, "assetId", "role")

	backgroundSchema = object(schema{
		"kind":    enum("preset: one of the grounds; asset: a background asset of the house.", "preset", "asset"),
		"value":   enum("The preset, when kind is preset.", look.BackgroundPresets...),
		"assetId": str("The background asset, when kind is asset."),
	}, "kind")

	outputSchema = schema{
		"description": "Where the frame goes, which sets its aspect: a destination name (" + strings.Join(destinationNames(), ", ") +
			"; default web-tile), or {destination: custom, width, height}. A destination larger than the quality adds a restoration pass to the price.",
		"anyOf": []any{
			enum("A destination name.", destinationNames()...),
			object(schema{
				"destination": enum("A destination name, or custom.", destinationNames()...),
				"width":       schema{"type": "integer", "minimum": look.MinEdge, "maximum": look.MaxEdge},
				"height":      schema{"type": "integer", "minimum": look.MinEdge, "maximum": look.MaxEdge},
			}, "destination"),
		},
	}

	lookSchema = object(schema{
		"id":                    str("The look's id."),
		"organizationId":        str("The house."),
		"createdByUserId":       nullable(str("Who composed it; null once unknown.")),
		"brandId":               nullable(str("The brand profile injected into its frames.")),
		"name":                  str("The look's name."),
		"modelAssetId":          str("The model asset the look casts."),
		"backgroundAssetId":     nullable(str("The background asset; null on a preset.")),
		"itemAssetIds":          array(itemSchema, "The pieces, the hero first."),
		"preset":                object(schema{"aesthetic": enum("The grade.", look.Aesthetics...), "background": backgroundSchema}, "aesthetic", "background"),
		"status":                enum("draft: develop_look may develop its base; locked: develop_variations may vary it.", "draft", "locked"),
		"lookBaseAssetId":       nullable(str("The frame the look is locked on; null before the first lock.")),
		"lookBaseJobId":         nullable(str("The develop that made that frame.")),
		"lookBaseParentAssetId": nullable(str("The collage of the house's own model the look casts; null otherwise.")),
		"variations":            array(schema{"type": "string"}, "The variation keys the look was planned with."),
		"createdAt":             str("When it was composed (RFC 3339, UTC)."),
		"updatedAt":             str("When it last changed (RFC 3339, UTC)."),
	}, "id", "name", "modelAssetId", "itemAssetIds", "preset", "status", "lookBaseAssetId", "variations", "createdAt")

	detailSchema = object(schema{
		"look": lookSchema,
		"variations": array(object(schema{
			"key":     str("The variation key."),
			"framing": str("How the key frames the look base, in a few words."),
			"jobId":   str("Its develop."),
			"assetId": nullable(str("The frame; null until done.")),
			"locked":  boolean("Developed from the look's current base."),
			"status":  enum("Where its develop stands.", statuses...),
			"error":   nullable(str("Why it failed; null unless failed.")),
		}, "key", "framing", "jobId", "assetId", "locked", "status", "error"), "The variation frames, oldest first."),
		"lockDevelop": object(schema{
			"id":            str("The newest base-frame develop (a jobId)."),
			"status":        enum("Where it stands.", statuses...),
			"resultAssetId": nullable(str("The frame to lock on; null until done.")),
			"error":         nullable(str("Why it failed; null unless failed.")),
		}, "id", "status", "resultAssetId", "error"),
	}, "look", "variations")

	lookbookSchema = object(schema{
		"batchId":    str("The lookbook's batch: its looks share it."),
		"quality":    enum("The resolution of the base frames.", "1k", "2k", "4k"),
		"aesthetic":  enum("The grade of every look.", look.Aesthetics...),
		"background": backgroundSchema,
		"looks": array(object(schema{
			"lookId":        str("The look: get_look, lock_look, develop_variations take it."),
			"name":          str("The look's name: its hero piece's."),
			"jobId":         str("Its base frame's develop: watch it with get_develop."),
			"itemAssetIds":  array(itemSchema, "The pieces, the hero first."),
			"variationKeys": array(schema{"type": "string"}, "The variation keys planned for it (the standing preset's)."),
		}, "lookId", "name", "jobId", "itemAssetIds", "variationKeys"), "The looks, in the order of their heroes."),
		"tokensHeld":     integer("What the base frames hold together; a replayed key answers the first call's figure and holds nothing more."),
		"idempotencyKey": str("The key used (one is made when none is sent)."),
	}, "batchId", "quality", "aesthetic", "background", "looks", "tokensHeld", "idempotencyKey")
)
