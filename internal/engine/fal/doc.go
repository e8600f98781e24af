// Package fal is the engine that develops frames on fal.ai through its queue
// API, used when FAL_KEY is set.
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
// poll that fails by network, 429 or 5xx is retried (three in a row at most);
// the submit is never retried, since a second one would be billed.
//
// Inputs are validated as the local engine does (engine.Validate, plus a
// header probe of each image, local.Probe) before anything is spent, and sent as base64
// data URIs in the models' image fields. Model ids per tool are the
// configuration table DefaultModels. A non-2xx answer, a status other than
// the three, a COMPLETED with an error, an output without a file, or a file
// that is not an image is a provider fault. Still results are resampled to
// the tier's long edge and composed for the request's shape, exactly like
// local results (local.Finish); remove-background stays a PNG with alpha.
// A lookbook-video result is passed through at the provider's resolution
// (the tier rule applies to stills), with its size read from the output or
// the MP4 header.
package fal
