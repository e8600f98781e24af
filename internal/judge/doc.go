// Package judge scores every developed frame (SPEC §2 Verdict, DECISIONS
// §7): a verdict is written once per job, after the frame settled, with a
// score from 1 to 100 (null exactly when the frame is unreadable), findings
// over the twelve defect codes with their weights and the server's labels,
// flagged against the threshold when written, showScore and retryFutile.
//
// # Scoring
//
// score = max(1, 100 - the weights of the sure findings); a not-sure
// finding weighs 0. flagged = score < threshold (70 by default). showScore
// is false for a clean frame and for one whose findings all weigh 0. A
// verdict keeps one finding per code (the sure one when both were seen),
// heaviest first; a place ("where") is cut to 60 characters. retryFutile is
// true when a sure finding comes from the input (a source too small for
// the tier), so no paid retry is offered.
//
// # The local judge
//
// The local judge reports only what it measures from pixels:
//
//   - decodability: a frame that cannot be decoded is unreadable;
//   - resolution against the tier: a frame whose long edge falls more than
//     3% short of the tier's pixels is soft-focus (sure; the engine's fault);
//   - sharpness: the luma's Laplacian pyramid down to about 32 px; band i's
//     energy divided by 2^i (a step edge's energy doubles per coarser band,
//     a natural texture's stays level, so a frame sharp at its own pixels
//     peaks at band 0). The leading bands under a quarter of the peak are
//     empty: k empty bands mean the frame holds the detail of a frame 2^k
//     times smaller. k = 1 is soft-focus not sure, k >= 2 sure; from the
//     input when the source's long edge is at most half the tier's pixels;
//   - the source against the tier: a source of an eighth of the tier's
//     pixels or less, with k >= 3, is texture-artifact (sure, from the
//     input: past 8x the fabric's texture is interpolation); a quarter with
//     k >= 2 is not sure;
//   - a packshot's outline (its top edge, where no shadow falls): the
//     median distance, over columns, from the last pixel 10% of the way
//     from the rendered backdrop to the subject to the first 90% one, as a
//     share of the long edge; from 0.9% background-bleed not sure, from
//     1.2% sure (from the input when the source is a quarter of the tier or
//     less). A cut-out's alpha is read the same way;
//   - a packshot's border (a band 1% of the long edge wide on each side):
//     its mean distance from the colour asked for (params.bg, white by
//     default) over 18, or its spread over 14, is background-bleed; a
//     subject clearly off the backdrop on more than 1% of the outermost
//     line is crop-cut;
//   - a frame whose aspect is more than 2% off its destination's
//     (params.outputWidth x outputHeight) is crop-cut;
//   - a cut-out whose foreground (alpha at least half) has more than 2% (not
//     sure from 0.5%) outside its largest piece is background-bleed;
//   - exposure clipping (all three channels at 254 or more, or 1 or less)
//     of the subject beyond the source's own: 5% more is color-drift (sure),
//     2% not sure; clipping the source already had is the source's, not a
//     drift; without a source never sure;
//   - a colour change: the pixels it moved (ΔE over 10 against the source)
//     are the garment; their mean a*b* 20 or more from params.color's is
//     color-drift (sure), 12 not sure; nothing moved is color-drift.
//
// The thresholds were calibrated on frames the local engine made of a navy
// linen T-shirt (segtest) shrunk to 1,200, 800, 500, 300, 150 and 64 px,
// developed as packshot, upscale and remove-background at 1k, 2k and 4k,
// and on upscales of photographs (astronaut, coffee, chelsea, Grace Hopper,
// cameraman): a packshot of 1,200 or 800 px at 1k is clean; 64 px at any
// tier is flagged (65) with retryFutile; 4k from 800 px is soft (90).
package judge
