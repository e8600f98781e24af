// Package fal is the engine that develops frames on fal.ai through its queue
// API, used when FAL_KEY is set.
//
// Its transport (the authorised JSON client, the submit's retries, the
// status poll, the cancel and the result download) is package hosted's,
// shared with the other hosted provider's engine; this package says how
// its provider reads: its paths, its statuses, its error bodies.
//
// The protocol (fal.ai docs, "Queue"): POST {base}/{model_id} with
// "Authorization: Key <FAL_KEY>" and the model's JSON input answers
// {request_id, status_url, response_url, cancel_url}. GET status_url answers
// {status: IN_QUEUE | IN_PROGRESS | COMPLETED, queue_position, ...}; a
// COMPLETED status may carry an "error". The engine polls it with a backoff
// (250 ms growing 1.5x to 3 s), then GETs response_url for the model's output
// JSON ({images: [{url, width, height, content_type}]}, {image: {...}} or
// {video: {...}}) and downloads the file. When ctx ends first, it sends PUT
// cancel_url and returns an error wrapping ctx.Err(). Status, response and
// cancel URLs are taken from the submit answer when they are on the base
// URL's origin, and built as {base}/{owner}/{alias}/requests/{id}/... (the
// model id without its subpath) otherwise, so the key never leaves the base
// URL's origin; result files on a CDN are downloaded without it. A status
// poll that fails by network, 429 or 5xx is retried (three in a row at most).
// A submit answered 429 or 5xx (fal did not take it; fal bills no 5xx) is
// sent again with engine.Backoff (waits doubling from 1 s, or what
// Retry-After asks, 4 tries at most), never past the context's deadline,
// which also rides as X-Fal-Request-Timeout; a submit that failed any other
// way is not sent again, since fal may have taken it; one whose answer
// never came cannot be cancelled either (fal returns the request id only
// in that answer), and fal drops it by X-Fal-Request-Timeout if no runner
// started it in time. A request fal took
// that then fails before fal finished it (status polls that keep failing, a
// status outside the protocol) is cancelled as when ctx ends (PUT
// cancel_url), so that fal neither runs nor bills it. Failures read as
// every provider's (engine.Upstream: a refused key names FAL_KEY, a 403
// "Exhausted balance" is out of credit) and carry their code.
//
// Inputs are validated as the local engine does (engine.Validate, plus a
// header probe of each image, engine.ProbeInput) before anything is spent, and sent as base64
// data URIs in the models' image fields. Model ids per tool are the
// configuration table DefaultModels. A non-2xx answer, a status other than
// the three, a COMPLETED with an error, an output without a file, or a file
// that is not an image is a provider fault. Still results are resampled to
// the tier's long edge and composed for the request's shape, exactly like
// local results (engine.Finish); remove-background stays a PNG with alpha.
// A lookbook-video result is passed through at the provider's resolution
// (the tier rule applies to stills), with its size read from the output or
// the MP4 header.
//
// Look frames (tool lookbook) go to the look model, fal-ai/nano-banana-pro/edit
// (fal docs: prompt, image_urls, aspect_ratio from a fixed list, resolution
// 1K | 2K | 4K, num_images, output_format; output {images: [{url, width,
// height, content_type, file_name}], description}), with the brief package
// lookbrief builds: the references as image_urls, its prompt, the accepted
// aspect_ratio nearest the destination's and the resolution reaching the
// frame's long edge. An answer more than 3% smaller than the frame goes
// once through the upscale model; one of another aspect (beyond 3%) or
// under 256 px is a provider fault. The frame is then fitted to the
// destination's exact size (engine.FinishSized).
//
// Safety: an output whose has_nsfw_concepts flags an image, or a 4xx whose
// detail (fal docs "Errors": [{loc, msg, type, url}]) has the type
// content_policy_violation, is an input fault with a plain reason: the
// same request would be refused again.
package fal
