// Package engine is the interface the job workers call to develop a frame,
// with the types every engine shares (request, result, faults, params).
// Engines are honest (ARCHITECTURE.md): each advertises only the tools it
// really performs, and Run answers ErrUnsupported for any other, which the
// API turns into 503 FAL_NOT_CONFIGURED (image tools) or AI_NOT_CONFIGURED
// (text tools). The engines live in subpackages: local (in-process image
// processing) and fal (fal.ai's queue API).
//
// # Contract
//
// A Request names a tool, its inputs by role (DECISIONS §5), string params, a
// quality tier and an optional Shape (an output destination's width x height).
// Every still result has its long edge at the tier's pixels (1024, 2048,
// 4096), resampled up or down as needed. With a shape, the frame is composed for the
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
// local.New (package local) performs the image tools in-process, with no
// network and no randomness; local.NewLookbook composes looks. See that
// package for what each tool does.
//
// # Engines side by side
//
// An engine is a folder directly under internal/engine (local, fal,
// imageapi); a new provider is one more sibling folder. No engine imports
// another engine. What they share lives below them: this package (the
// contract, and the frame rules every result obeys: DecodeInput,
// ProbeInput, FrameSize, Finish, FinishSized, EncodeJPEG, EncodePNG),
// package picture (decoding, encoding, orientation, resampling, canvas
// extension, colour spaces), and two helpers of engines, which are not
// engines and import none: segment (the graph-cut matte) and lookbrief
// (a look's brief for a provider). Outside internal/engine only the
// wiring (internal/app) names an engine. cmd/studio's
// TestEnginesSideBySide holds these rules; a new helper of engines is
// added to its list.
//
// # The fal engine
//
// fal.New (package fal) speaks fal.ai's queue API: submit, poll the status
// with backoff, read the response, download the file, and PUT cancel when
// ctx ends (see that package for the protocol). It advertises every tool
// with a model in its table, which is configuration (fal.DefaultModels,
// overridden with hosted.WithModels):
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
//	generate-character  fal-ai/flux/dev (at the 1k canvas); with an image fal-ai/flux-pro/kontext
//	lookbook-video      fal-ai/kling-video/v2.1/standard/image-to-video
//	lookbook            fal-ai/nano-banana-pro/edit (references, prompt, aspect_ratio, resolution; package lookbrief)
//
// The house's direction (Request.Prompt) joins the words of every model that
// reads some; the riding marks (Request.Marks) go as pictures only to the
// models that take several (lookbook's and harmonize's image_urls), named
// in the prompt by position and material; to every other model they ride
// as words (fal.Takes). Each engine tells Request.Record what it sent (the
// local engine: what it would send), and the worker keeps it on the job.
//
// Any still answer of fal's models smaller than the frame (a look frame, a
// character, Kontext's one-megapixel edits; fal.Restores names the tools)
// goes through the upscale model (the restoration pass) before it is
// finished, sent at the size whose whole scale lands on the frame
// (RestoreSource) and recorded on the job after the first request
// (Restoration); fal.Engine.Enlarge offers the same pass to the image
// endpoint (an Enlarger, handed over by the wiring: Restoring, Restores).
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
