package tool

import (
	"time"

	"studio/internal/ledger"
)

// image is the one required input most tools take.
var image = []Role{{Name: "image", Required: true}}

// prices is a row of the default price table: tokens at 1k, 2k and 4k.
func prices(k1, k2, k4 int64) ledger.TierPrices { return ledger.TierPrices{K1: k1, K2: k2, K4: k4} }

// The engines that perform the image tools: the local engine and fal;
// FASHN (DECISIONS §11) performs those it has a model for as well.
var (
	localAndFal      = []string{Local, Fal}
	localFalAndFashn = []string{Local, Fal, Fashn}
)

// registry is every tool, in the price table's order (DECISIONS §4, §5, §10).
var registry = []Tool{
	{Name: "upscale", Title: "Upscale", Submit: true, Roles: image, Options: options(),
		Prices: prices(2, 3, 5), Engines: localAndFal},
	{Name: "reframe", Title: "Reframe", Submit: true, Roles: image, Options: options(
		Option{Name: "aspect", Type: TypeString, Legal: optAspectForm, Form: FormAspect, Required: true, Engines: []string{Local, Fal, Fashn},
			Description: "The frame's new aspect: the picture is kept whole and the new area filled."},
		Option{Name: "fill", Type: TypeEnum, Legal: []string{"auto", "extend", "blur"}, Default: "auto", Engines: []string{Local},
			Description: "How the new area is filled: extend continues the edges, blur lays a blurred copy of the picture, auto extends a plain border and blurs a busy one."},
	), Prices: prices(3, 4, 6), Engines: localFalAndFashn, Aspect: "aspect",
		Notes: map[string]string{Fashn: "FASHN reframes at about one megapixel: a 2k or 4k reframe is that answer enlarged (no restoration model), priced at 1k, the quality delivered.",
			Fal: restoredByFal("about the picture's own size, extended to the aspect (Bria's expand)")},
		Native: map[string]ledger.Tier{Fashn: ledger.Tier1K}},
	{Name: "packshot", Title: "Packshot", Submit: true, Roles: []Role{{Name: "image", Required: true}, {Name: "background"}}, Options: options(
		Option{Name: "bg", Type: TypeColor, Legal: []string{"white", "image", "#rrggbb"}, Form: FormGround, Default: "white", Engines: []string{Local, Fal},
			Needs:       map[string]string{"image": "background"},
			Description: "The ground: white, a colour #rrggbb, or image (the background input, which must then be sent)."},
		Option{Name: "aspect", Type: TypeString, Legal: optAspectForm, Form: FormAspect, Default: "1:1", Engines: []string{Local},
			Description: "The frame's aspect."},
		Option{Name: "shadow", Type: TypeEnum, Legal: []string{"on", "off"}, Default: "on", Engines: []string{Local},
			Description: "off leaves out the soft shadow under the product."},
	), Prices: prices(4, 6, 9), Engines: localAndFal, Aspect: "aspect",
		Notes: map[string]string{Fal: restoredByFal("about one megapixel (Bria's product shot)")}},
	{Name: "camera-lens", Title: "Camera lens", Submit: true, Roles: image, Options: options(
		Option{Name: "lens", Type: TypeString, Legal: []string{"macro", "10mm to 600mm, e.g. 85mm"}, Form: FormLens, Default: "50mm", Engines: []string{Local, Fal, Fashn},
			Description: "The lens to re-shoot with: a 35 mm-equivalent focal length, or macro."},
		editPrompt("Words added to the model's instruction."),
	), Prices: prices(4, 6, 9), Engines: localFalAndFashn, Notes: map[string]string{Fal: restoredByFal(kontext)}},
	{Name: "harmonize", Title: "Harmonize", Submit: true, Roles: []Role{{Name: "image", Required: true}, {Name: "background", Required: true}},
		Options: options(optStrength, prompt("Words added to the model's instruction.")), Prices: prices(3, 4, 6), Engines: localAndFal,
		Notes: map[string]string{Local: "Composite: the local engine cuts the subject out, matches its colours to the scene and stands it where the scene has room; it does not relight or re-render it. Set FAL_KEY for a generated blend.",
			Fal: restoredByFal(kontext)}},
	{Name: "iron", Title: "Iron", Submit: true, Roles: []Role{{Name: "image", Required: true}, {Name: "mask"}},
		Options: options(optStrength, editPrompt("Words added to the model's instruction.")), Prices: prices(3, 4, 6), Engines: localFalAndFashn,
		Notes: map[string]string{Fal: restoredByFal(kontext)}},
	{Name: "cleanup", Title: "Clean-up", Submit: true, Roles: []Role{{Name: "image", Required: true}, {Name: "mask", Required: true}},
		Options: options(), Prices: prices(3, 4, 6), Engines: localAndFal,
		Notes: map[string]string{Fal: restoredByFal("at the picture's own size (Bria's eraser)")}},
	{Name: "color-change", Title: "Colour change", Submit: true, Roles: []Role{{Name: "image", Required: true}, {Name: "mask"}}, Options: options(
		Option{Name: "color", Type: TypeColor, Legal: []string{"#rrggbb"}, Form: FormColor, Required: true, Engines: []string{Local, Fal, Fashn},
			Description: "The garment's new colour, as #rrggbb (e.g. #1f3a5f)."},
		editPrompt("Words added to the model's instruction."),
	), Prices: prices(3, 4, 6), Engines: localFalAndFashn,
		Notes: map[string]string{Fal: restoredByFal(kontext + "; with a mask, FLUX Fill at the picture's own size")}},
	{Name: "fit-adjust", Title: "Fit adjust", Submit: true, Roles: image, Options: options(
		Option{Name: "fit", Type: TypeEnum, Legal: []string{"fitted", "regular", "loose", "oversized"}, Required: true, Engines: []string{Local, Fal, Fashn},
			Description: "The fit to give the garment."},
		Option{Name: "part", Type: TypeEnum, Legal: []string{"top", "bottom", "dress"}, Engines: []string{Local},
			Description: "Which piece to re-fit when the figure wears several: the local engine refuses a photo of several pieces without it."},
		editPrompt("Words added to the model's instruction."),
	), Prices: prices(5, 7, 10), Engines: localFalAndFashn, Notes: map[string]string{Fal: restoredByFal(kontext)}},
	{Name: "tryon", Title: "Try-on", Submit: true, Roles: []Role{{Name: "model", Required: true}, {Name: "garment", Required: true, Most: 6}},
		Options: options(
			Option{Name: "speed", Type: TypeEnum, Legal: []string{"quality", "fast"}, Default: "quality", Engines: []string{Fashn},
				Description: "fast trades detail for speed: FASHN's tryon-v1.6 instead of tryon-max."},
		), Prices: prices(8, 12, 18), Engines: localFalAndFashn,
		Notes: map[string]string{Local: "Composite: the local engine lays each garment, cut out and scaled, over the model; it does not drape or re-fit it. Set FASHN_API_KEY or FAL_KEY for a generative try-on.",
			Fal: restoredByFal("at about the model picture's size (FASHN v1.6 on fal)")}},
	{Name: "generate-character", Title: "Generate character", Submit: true, Roles: []Role{{Name: "image"}}, Options: options(
		Option{Name: "prompt", Type: TypeString, Required: true, Unless: "image", Engines: []string{Fal, ImageAPI, Fashn},
			Description: "The character to generate; required unless an image is given."},
		Option{Name: "aspect", Type: TypeString, Legal: optAspectForm, Form: FormAspect, Default: "1:1", Unless: "image", Engines: []string{Fal, ImageAPI, Fashn},
			Description: "The frame's aspect, without an image."},
	), Prices: prices(6, 9, 13), Engines: []string{Fal, ImageAPI, Fashn}, Aspect: "aspect",
		Notes: map[string]string{
			ImageAPI: "The image endpoint answers at most 1536 px on the long edge: a 2k or 4k character is that answer enlarged (no restoration model), priced at 1k, the quality delivered. Set FAL_KEY to restore it through fal's upscale model and develop it at the quality asked.",
			Fal:      restoredByFal("about one megapixel (flux/dev from words, FLUX.1 Kontext from a photo)"),
		},
		Native:   map[string]ledger.Tier{ImageAPI: ledger.Tier1K},
		Restored: map[string]string{ImageAPI: restoredOnFal("character")}},
	{Name: "lookbook", Title: "Look frame",
		Roles: []Role{{Name: "model", Required: true}, {Name: "item", Most: 6}, {Name: "background"}, {Name: "base"}},
		Options: options(
			lookOption("aesthetic", "The look's aesthetic, graded over the frame."),
			internal("tone", "The background preset of a paper sweep."),
			lookOption("key", "The variation key a variation frame re-frames for."),
			lookOption("restore", "1 develops the frame at twice the tier (a destination larger than the tier)."),
			lookOption("outputWidth", "The destination's width: the frame is composed for its aspect."),
			lookOption("outputHeight", "The destination's height."),
			lookProvider("roles", "The pieces' roles, in the order of the item inputs, comma-separated."),
			lookProvider("labels", "The pieces' labels, in the order of the item inputs, as a JSON array of strings."),
			lookProvider("scene", "The background preset in words; absent when the background is an asset."),
			lookProvider("posture", "A posture key's directive: the posture's definition and prompt fragment."),
			lookProvider("control.gaze", "A posture key's gaze stop (camera, away, down)."),
			lookProvider("control.weight", "A posture key's weight stop (left, even, right)."),
			lookProvider("control.arms", "A posture key's arms stop (relaxed, pockets, hip, crossed)."),
			lookProvider("control.energy", "A posture key's energy stop (still, easy, dynamic)."),
		), Prices: prices(8, 12, 18), Engines: []string{Lookbook, Fal, ImageAPI, Fashn},
		ProofPrices: map[string]ledger.TierPrices{Lookbook: prices(1, 1, 1)},
		Notes: map[string]string{
			ImageAPI: "The image endpoint answers at most 1536 px on the long edge: a 2k or 4k frame is that answer enlarged (no restoration model), priced at 1k, the quality delivered. Set FAL_KEY to restore it through fal's upscale model and develop it at the quality asked.",
			Lookbook: "Layout proof: the local engine stands the model on the ground with the hero piece laid on the body and the other pieces as swatches; it does not dress or re-pose the model. Set FASHN_API_KEY, FAL_KEY or AI_IMAGE_BASE_URL for generated look frames."},
		Native:   map[string]ledger.Tier{ImageAPI: ledger.Tier1K},
		Restored: map[string]string{ImageAPI: restoredOnFal("frame")}},
	{Name: "lookbook-video", Title: "Lookbook video", Submit: true, Roles: image,
		Options: options(Option{Name: "prompt", Type: TypeString, Engines: []string{Fal, Fashn},
			Description: "How the model moves; a gentle walk towards the camera when absent."}),
		Prices: prices(40, 60, 90), Engines: []string{Fal, Fashn}, Video: true, Deadline: 30 * time.Minute,
		Notes: map[string]string{
			Fal:   "fal's Kling v2.1 standard animates at 720p (1280 px on the long edge): a 2k or 4k video is that, priced at 1k, the quality delivered.",
			Fashn: "FASHN animates at 1080p at most (1920 px on the long edge): a 2k or 4k video is that, priced at 1k, the quality delivered.",
		},
		Native: map[string]ledger.Tier{Fal: ledger.Tier1K, Fashn: ledger.Tier1K}},
	{Name: "remove-background", Title: "Remove background", Submit: true, Roles: image, Options: options(),
		Prices: prices(2, 2, 2), Engines: localFalAndFashn},
}

// restoredOnFal is the note of a tool the image endpoint answers below 2k
// when fal's upscale model restores its answers (issue 27).
func restoredOnFal(what string) string {
	return "The image endpoint answers at most 1536 px on the long edge: a 2k or 4k " + what +
		" is that answer restored to the quality asked by fal's upscale model (a second request, to fal), and priced at the quality asked."
}

// kontext is what FLUX.1 Kontext, fal's model for the edits, answers.
const kontext = "about one megapixel (FLUX.1 Kontext)"

// restoredByFal is the note of a tool fal performs with a model that
// answers at its own size (answers: what it answers), below 2k or 4k: the
// fal engine restores such an answer through its upscale model and
// charges the tier asked (fal.Restores, issue 27).
func restoredByFal(answers string) string {
	return "fal's model answers " + answers + ": a result short of the quality asked is that answer restored by fal's upscale model (fal-ai/esrgan, a second request to fal), and priced at the quality asked."
}
