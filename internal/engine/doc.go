// Package engine is the interface the job workers call to develop a frame,
// and the local engine that performs it in-process. Engines are honest
// (ARCHITECTURE.md): each advertises only the tools it really performs, and
// Run answers ErrUnsupported for any other, which the API turns into 503
// FAL_NOT_CONFIGURED (image tools) or AI_NOT_CONFIGURED (text tools). The fal.ai
// queue engine lives in the subpackage fal.
//
// # Contract
//
// A Request names a tool, its inputs by role (DECISIONS §5), string params, a
// quality tier and an optional Shape (an output destination's width x height).
// Every still result has its long edge at Tier.Pixels() (1024, 2048, 4096),
// resampled up or down as needed. With a shape, the frame is composed for the
// shape's aspect and developed at the tier's pixels, never resampled to the
// shape's width x height. Results are JPEG at quality 90, except
// remove-background (PNG with alpha). WebP inputs are decoded
// (golang.org/x/image/webp), never encoded; inputs over 50 megapixels are
// refused before decoding; EXIF orientation is applied.
//
// Errors: an *Error carries a Fault. FaultInput (an undecodable input, a
// missing role, a bad option, no subject to separate) means the job fails
// and a retry is futile; FaultProvider (the engine or its provider failed)
// means a retry may succeed. IsInput and IsProvider test for them. When ctx
// ends, Run returns an error wrapping ctx.Err(). Validate holds the checks
// both engines make before working or spending.
//
// # The local engine
//
// NewLocal performs, with the standard library, golang.org/x/image and
// github.com/disintegration/imaging only, deterministically and without
// network: camera-lens, cleanup, color-change, fit-adjust, harmonize, iron,
// packshot, reframe, remove-background, tryon and upscale. It does not
// advertise generate-character, lookbook-video or the text tools: nothing
// local can honestly produce them. Analysis (mattes, colour statistics,
// clustering) runs on a copy downscaled to at most 512 px; the results are
// applied at full size.
//
// Matting (shared by packshot, remove-background, harmonize, color-change,
// fit-adjust, iron, tryon and the focus map of camera-lens): an input with
// real transparency uses its own alpha. Otherwise the backdrop is modelled
// from the image's border: median colour profiles of the four sides (smoothed
// by a running median a third of their length, so a subject touching the
// border drops out; a side unlike the other three, such as a figure cut at
// the knees, is replaced by their colour), blended over the frame as a Coons
// patch so gradients and light fall-off are followed. Each pixel's distance
// to that model (luma plus twice the chroma difference) becomes a soft alpha
// between thresholds set from the border's own noise. On the coarse grid the
// mask is cleaned (enclosed holes filled, specks under 3% of the largest part
// dropped), then upsampled, and its uncertain edge band is re-matted at full
// size. Edge colours are decontaminated (I = aF + (1-a)B solved for F) before
// compositing. An image with no plain backdrop gives an input fault for the
// tools that need a subject.
//
// What each local tool does:
//
//   - upscale: Lanczos-3 to the tier; a mild unsharp mask (sigma up to 1.5,
//     amount 0.5) when enlarged more than 1.25x.
//   - reframe: canvas extension to the shape's aspect or params.aspect
//     ("4:5", "16:9", "1.25"); the image is kept whole and centred.
//     params.fill: extend (nearest edge pixel, fading with distance into a
//     blurred copy of that extension), blur (the image itself, covering the
//     canvas, blurred and dimmed 8%), or auto (extend on a plain border, blur
//     otherwise). The same extension composes every tool's result for a shape.
//   - packshot: matte, crop, centre on a square canvas (or the shape's aspect,
//     or params.aspect) with 8% margins, on white, params.bg=#rrggbb, or
//     params.bg=image with a background input (scaled to cover). A soft drop
//     shadow (the matte blurred and offset) and a contact ellipse ground it;
//     params.shadow=off omits them.
//   - remove-background: the matte as the alpha of a PNG, edges decontaminated.
//   - camera-lens: params.lens ("35mm", "85mm", "macro"; default 50mm) on the
//     35 mm full-frame model: barrel distortion (Brown radial,
//     k = 0.012 + 0.09*clamp((50-f)/26, 0, 1), corners fixed), depth-of-field
//     falloff (the matted subject is the focal plane, the backdrop blurs more
//     with distance from it, up to sigma = 0.25% of the long edge x (f/50)^1.2;
//     macro also softens the subject above and below a thin focal band;
//     without a plain backdrop the centre is in focus), and cos^4 vignetting
//     at the lens's field angle (tan = 21.63/f), 60% applied.
//   - harmonize: Reinhard colour transfer in CIE Lab: the matted subject's mean
//     and spread per channel move towards the background input's (the spread
//     ratio held near 1, so a flat backdrop does not wash the subject out), at
//     params.strength (0..1, default 0.6; lightness at half), applied through a
//     33^3 lookup table; then the subject is composited onto the background
//     (80% of the frame height, centred, with a contact shadow).
//   - iron: a fast self-guided filter (He et al.) per channel on the matted
//     fabric, window radius 3% of the long edge, eps = 0.0005*60^strength (default
//     strength 0.6), which flattens wrinkle shading and keeps seams and
//     edges; the 3x3 high-pass (weave, grain) is added back where it smoothed.
//   - cleanup: the mask input's white area (grown 0.3%) is filled by push-pull
//     diffusion over an image pyramid with Laplace relaxation per level, and
//     the grain measured around it is added back as deterministic noise.
//   - color-change: within the mask input, or the detected garment (the
//     subject's largest non-skin Lab k-means cluster and its colour
//     neighbourhood), pixels are moved to params.color in Lab: lightness keeps
//     its shading around the target's lightness (compressed only to stay in
//     range), a and b take the target with a quarter of their variation.
//   - fit-adjust: a horizontal warp of the garment (found as in color-change)
//     per row about its centre: fitted 0.90x, regular 1x, loose 1.10x,
//     oversized 1.22x, blended back to no motion over a band beside the
//     garment (continuous and monotonic), so heads, hands and other pieces
//     stay as they are.
//   - tryon: an honest composite, not a generative try-on: each garment input
//     is matted and laid on the matted model, scaled to the shoulder width
//     measured 20% down the figure (tops and dresses from the shoulder line,
//     trousers from 47% down when a top is also given), with a soft shadow.
//
// # The fal engine
//
// fal.New (package fal) speaks fal.ai's queue API: submit, poll the status
// with backoff, read the response, download the file, and PUT cancel when
// ctx ends (see that package for the protocol). It advertises every tool
// with a model in its table, which is configuration (fal.DefaultModels,
// overridden with fal.WithModels):
//
//	upscale             fal-ai/esrgan (scale 2 or 4, then resampled to the tier)
//	reframe             fal-ai/bria/expand (nearest supported aspect_ratio)
//	packshot            fal-ai/bria/product-shot (scene_description, or ref_image_url for bg=image)
//	remove-background   fal-ai/birefnet
//	camera-lens         fal-ai/flux-pro/kontext (a prompt describing the lens)
//	harmonize           fal-ai/flux-pro/kontext/multi (background and subject)
//	iron                fal-ai/flux-pro/kontext
//	cleanup             fal-ai/bria/eraser (image_url, mask_url)
//	color-change        fal-ai/flux-pro/kontext; with a mask fal-ai/flux-pro/v1/fill
//	fit-adjust          fal-ai/flux-pro/kontext
//	tryon               fal-ai/fashn/tryon/v1.6 (several garments: one call per garment, chained)
//	generate-character  fal-ai/flux/dev; with an image fal-ai/flux-pro/kontext
//	lookbook-video      fal-ai/kling-video/v2.1/standard/image-to-video
//
// Its still results go through Finish, so they obey the same tier and shape
// rules as the local engine's; a video is passed through at the provider's size.
//
// # Params
//
// ParseAspect, ParseColor, ParseLens and ParseFit read the string options
// (aspect "W:H", color "#rrggbb", lens, fit); params.strength is 0..1 or
// light, medium, strong.
package engine
