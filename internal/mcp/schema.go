package mcp

// The tools' JSON Schemas, written by hand so that they stay within what
// every client's validator reads: draft-07 keywords, no formats, no $ref.
// A tool's outputSchema is an object that is anyOf its success shape or a
// refusal ({error}), so the TypeScript client, which checks every
// structuredContent against outputSchema, accepts refusals too.

type schema = map[string]any

// object is an object schema with the properties and the required names.
func object(props schema, required ...string) schema {
	s := schema{"type": "object", "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

func str(desc string) schema { return schema{"type": "string", "description": desc} }

func integer(desc string) schema { return schema{"type": "integer", "description": desc} }

func boolean(desc string) schema { return schema{"type": "boolean", "description": desc} }

// bounded is an integer from min to max with a default.
func bounded(desc string, lo, hi, def int) schema {
	return schema{"type": "integer", "description": desc, "minimum": lo, "maximum": hi, "default": def}
}

// nullable lets s also be null.
func nullable(s schema) schema {
	c := make(schema, len(s))
	for k, v := range s {
		c[k] = v
	}
	c["type"] = []any{s["type"], "null"}
	return c
}

func enum(desc string, values ...string) schema {
	return schema{"type": "string", "description": desc, "enum": values}
}

func array(items schema, desc string) schema {
	return schema{"type": "array", "items": items, "description": desc}
}

// stringMap is an object whose every value is a string.
func stringMap(desc string) schema {
	return schema{"type": "object", "description": desc, "additionalProperties": schema{"type": "string"}}
}

// refusal is the shape of every refusal's structuredContent.
var refusal = object(schema{
	"error": str(`"<CODE>: <message>"; switch on the code before the colon.`),
}, "error")

// output is a tool's outputSchema: its success shape or a refusal.
func output(success schema) schema {
	return schema{"type": "object", "anyOf": []any{success, refusal}}
}

// noInput is the inputSchema of a tool that takes no arguments.
var noInput = schema{"type": "object", "properties": schema{}}

var statuses = []string{"queued", "running", "done", "failed", "cancelled"}

var (
	capabilitySchema = object(schema{
		"tool": str("The tool's slug, as start_develop takes it."),
		"prices": array(object(schema{
			"resolution": enum("The quality tier: long edge 1,024, 2,048 or 4,096 px.", "1k", "2k", "4k"),
			"tokens":     integer("Tokens one frame costs at this resolution; the listed price is the price that settles."),
		}, "resolution", "tokens"), "The price per resolution; empty when the tool has no price rows (it charges the default)."),
		"engine": schema{"type": []any{"string", "null"}, "enum": []any{"local", "fal", "image-api", "fashn", nil},
			"description": "The configured engine that performs the tool; null when none here can (start_develop then answers 503)."},
		"options": array(optionSchema, "The options the tool reads, passed in start_develop's params; a value outside legal is refused (BAD_OPTION)."),
		"note": str("Present when the engine performs the tool only as a proof or a composite: what it makes of it; " +
			"for a tool no engine here performs, the settings that would serve it."),
	}, "tool", "prices", "engine", "options")

	optionSchema = object(schema{
		"name":        str("The option's name: the key in params."),
		"type":        enum("How the value is read.", "enum", "int", "number", "color", "string"),
		"legal":       array(schema{"type": "string"}, "The values an enum takes; for other types the words and forms a value may take (empty: any text)."),
		"minimum":     schema{"type": "number", "description": "The least value of an int or number."},
		"maximum":     schema{"type": "number", "description": "The greatest value of an int or number."},
		"default":     nullable(str("What leaving the option out means; null when nothing is assumed.")),
		"required":    boolean("start_develop is refused (BAD_OPTION) without it; the description says when an input lifts this."),
		"description": str("What the option does."),
	}, "name", "type", "legal", "default", "required", "description")

	balanceSchema = object(schema{
		"balance": integer("Spendable tokens: grant + topup - held."),
		"grant":   integer("Tokens from unexpired grants, including those open holds reserved."),
		"topup":   integer("Tokens from top-ups, including those open holds reserved."),
		"held":    integer("Tokens reserved by open holds."),
		"holds": array(object(schema{
			"jobId":     nullable(str("The develop the hold pays for; null for a hold of no develop.")),
			"tokens":    integer("Tokens held."),
			"createdAt": str("When the hold was taken (RFC 3339, UTC)."),
		}, "jobId", "tokens", "createdAt"), "Open holds, newest first."),
	}, "balance", "grant", "topup", "held", "holds")

	assetSchema = object(schema{
		"id":            str("The asset id: pass it in start_develop inputs."),
		"name":          str("The asset's name."),
		"sku":           nullable(str("The house's own code.")),
		"kind":          nullable(str("clothes, accessory, jewelry, model, background or mark; null is unfiled.")),
		"url":           str("The file route of the asset's bytes."),
		"folderId":      nullable(str("The collection; null is the root.")),
		"groupId":       nullable(str("The group; null when ungrouped.")),
		"fit":           nullable(str("auto, fitted, regular, loose or oversized; null is unread.")),
		"wearer":        nullable(str("women, men or unisex; null is unread.")),
		"fitGuessed":    boolean("The fit was inferred."),
		"wearerGuessed": boolean("The wearer was inferred."),
		"markGuessed":   boolean("carriesMark was inferred."),
		"carriesMark":   boolean("The garment carries the house mark."),
		"mime":          str("image/jpeg, image/png or image/webp."),
		"tool":          nullable(str("The tool that made the asset; null for uploads.")),
		"width":         integer("Pixels, as displayed."),
		"height":        integer("Pixels, as displayed."),
		"size":          integer("Bytes of the stored file."),
		"createdAt":     str("When the asset was stored (RFC 3339, UTC)."),
		"approved":      boolean("The director approved it."),
		"approvedBy":    nullable(str("Who approved it.")),
		"approvedAt":    nullable(str("When it was approved (RFC 3339, UTC).")),
	}, "id", "name", "url", "mime", "width", "height", "size", "createdAt")

	developSchema = object(schema{
		"jobId":           str("The develop's id."),
		"tool":            str("The tool."),
		"status":          enum("Where the develop stands.", statuses...),
		"resultUrl":       nullable(str("The URL of the developed frame's bytes (fetch it with the same key); null until done.")),
		"resultAssetId":   nullable(str("The developed frame as an asset of the library; null until done.")),
		"error":           nullable(str("Why the develop failed; null unless failed.")),
		"tokensEstimated": integer("Tokens held for the develop when it was queued."),
		"tokensSettled":   nullable(integer("Tokens the develop finally cost: the estimate when done, 0 when failed or cancelled; null while queued or running.")),
		"createdAt":       str("When it was queued (RFC 3339, UTC)."),
		"finishedAt":      nullable(str("When it finished (RFC 3339, UTC); null while queued or running.")),
	}, "jobId", "tool", "status", "resultUrl", "resultAssetId", "error", "tokensEstimated", "tokensSettled", "createdAt", "finishedAt")
)
