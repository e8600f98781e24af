// Package fashn is the engine that develops frames on FASHN's prediction
// API, used when FASHN_API_KEY is set (DECISIONS §11).
//
// Its transport (the authorised JSON client, the submit's retries, the
// status poll, the cancel and the result download) is package hosted's,
// shared with the other hosted provider's engine; this package says how
// its provider reads: its paths, its statuses, its error bodies.
//
// The protocol, from FASHN's published documentation (docs.fashn.ai, "API
// Fundamentals" and "Error Handling") and its official SDK's OpenAPI types
// (github.com/fashn-AI/fashn-typescript-sdk, src/resources/predictions.ts):
//
//   - POST {FASHN_URL}/v1/run with "Authorization: Bearer <key>" and
//     {model_name, inputs} answers {id, error}: the prediction's id.
//   - GET {FASHN_URL}/v1/status/{id} answers {id, status, output, error}:
//     status is starting, in_queue or processing while it runs, then
//     completed (output: a list of result URLs on FASHN's CDN, or base64
//     data URIs when return_base64 is set), failed (error: {name,
//     message}), canceled or time_out.
//   - A request refused before it got an id answers an HTTP status with
//     {error, message}: 400 BadRequest, 401 UnauthorizedAccess, 404
//     NotFound, 429 RateLimitExceeded, ConcurrencyLimitExceeded or
//     OutOfCredits, 500 InternalServerError. No id was issued, so sending
//     it again is no second charge: a 429 that is not OutOfCredits, and a
//     5xx, are retried with engine.Backoff (Retry-After honoured) within
//     the context's deadline; OutOfCredits is the account out of credit.
//   - A failed prediction's error names are ImageLoadError,
//     ContentModerationError, PoseError, InputValidationError,
//     PipelineError, ThirdPartyError, 3rdPartyProviderError and
//     InternalServerError. Moderation is FASHN's safety check (an input
//     fault, PROVIDER_REFUSED); a picture it could not load, a body whose
//     pose it could not find, or settings it refused are input faults too
//     (the same request fails again); the rest are its own failures.
//   - FASHN documents no cancel: its SDK stops polling at its own timeout
//     and says so ("Cancel prediction on server when cancellation API is
//     available"). A develop past its render deadline stops polling and
//     fails; nothing can be sent to FASHN. FASHN does not bill a failed
//     prediction ("no charge for failures").
//
// The models per tool (DefaultModels, configuration): tryon is tryon-max
// (model_image, product_image), or tryon-v1.6 (model_image,
// garment_image, mode performance) with the option speed=fast; further
// garments go one after another onto the last result, as on fal. A look's
// lock frame is tryon-max with the cast model and the hero piece (further
// pieces chained), at the accepted aspect_ratio nearest the frame's and the
// resolution reaching its long edge; a variation is product-to-model in
// its try-on mode (the cast model as model_image, the hero piece as
// product_image, the locked frame as image_prompt, the key's framing and
// pose as prompt). generate-character is model-create (prompt, the nearest
// aspect_ratio; a photo rides as face_reference), remove-background is
// background-remove, reframe is reframe (the nearest aspect_ratio), and
// the edit tools iron, color-change, fit-adjust and camera-lens are edit
// (the picture, the tool's own instruction, engine.Instruction, then the
// house's words; a mask, white where the edit goes, as mask).
// lookbook-video is image-to-video (the frame as image, VideoInstruction
// then the house's words as prompt, duration 5, resolution 1080p, its
// best: 1920 px on the long edge); its MP4 is kept as FASHN sent it.
//
// Inputs are validated and probed as the other engines do before anything
// is spent, and travel as base64 data URIs. Results are fetched (the key
// is sent only to FASHN_URL's origin, never to its CDN), decoded and
// finished by engine.Finish (look frames by engine.FinishSized at the
// frame's size), so they obey the same tier and shape rules as every
// engine's. Failures read as every provider's (engine.Upstream: "FASHN
// refused our key (check FASHN_API_KEY).").
package fashn
