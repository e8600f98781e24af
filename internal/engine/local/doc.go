// Package local is the embedded engine: real image processing in this
// process, deterministic and without network. It implements engine.Engine.
//
// New returns the engine that performs, with the standard library,
// golang.org/x/image and github.com/disintegration/imaging only: camera-lens,
// cleanup, color-change, fit-adjust, harmonize, iron, packshot, reframe,
// remove-background, tryon and upscale. It does not
// advertise generate-character, lookbook-video or the text tools: nothing
// local can honestly produce them. Analysis (mattes, colour statistics,
// clustering) runs on a copy downscaled to at most 512 px; the results are
// applied at full size.
//
// Matting (shared by packshot, remove-background, harmonize, color-change,
// fit-adjust, iron, tryon and the focus map of camera-lens): an input with
// real transparency uses its own alpha. Otherwise two methods, chosen by the
// spread of the image's border (its noise around a smooth model of it):
//
//   - The plain matte, for a studio backdrop: the backdrop is modelled from
//     the border: median colour profiles of the four sides (smoothed by a
//     running median a third of their length, so a subject touching the
//     border drops out; a side unlike the other three, such as a figure cut
//     at the knees, is replaced by their colour), blended over the frame as a
//     Coons patch so gradients and light fall-off are followed. Each pixel's
//     distance to that model (luma plus twice the chroma difference) becomes
//     a soft alpha between thresholds set from the border's own noise. On the
//     coarse grid the mask is cleaned (enclosed holes filled, specks under 3%
//     of the largest part dropped), then upsampled, and its uncertain edge
//     band is re-matted at full size.
//   - The graph cut of package segment, for a real ground (a table, a wall,
//     grass, a street): GrabCut seeded by the border and a centre prior, with
//     cast shadows given back to the ground and a guided-filter matte.
//
// A border spread up to 8 (a studio) tries the plain matte first and the
// graph cut second; up to 14 (a quiet real ground) the graph cut first and
// the plain matte second; above, the graph cut only. Whichever method
// answers, its mask must pass segment's confidence measure (coverage, parts
// and debris, compactness, edge agreement, colour misfit, running off the
// frame, a part cut off at the frame's edge; a plain matte's through
// segment.Assess) at a score of 0.5, and 0.65 for a packshot, whose
// product is seen on a plain canvas where every flaw of the outline shows.
// Otherwise the tool fails with an input fault: "The
// subject could not be separated from this background cleanly; try a photo
// on a plainer ground." The worker fails the job and voids its hold, so a
// fragmented cut-out is never delivered or charged. Try-on takes the plain
// matte only for its figure. Edge colours are decontaminated (I = aF +
// (1-a)B solved for F, B from the backdrop model or the ground filled in
// behind a graph-cut subject) before compositing.
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
//     is matted and laid on the matted model (a figure on a plain backdrop
//     only; any other is refused), scaled to the shoulder width
//     measured 20% down the figure (tops and dresses from the shoulder line,
//     trousers from 47% down when a top is also given), with a soft shadow.
//
// Inputs are decoded by engine.DecodeInput (package picture: jpeg, png,
// webp; EXIF orientation applied; over 50 megapixels refused before
// decoding), and results conformed to engine.FrameSize (picture.Conform:
// resampled to the tier's long edge, composed for the shape) and encoded by
// engine.EncodeJPEG at quality 90 or engine.EncodePNG with alpha, as every
// engine's are.
package local
