// Package segment separates a photograph's subject from its ground when the
// ground is not plain (a table, a wall, grass, a street), in pure Go, and
// says how much the separation can be trusted. It knows nothing of the
// engine: it takes an image and returns a mask, a confidence, an alpha
// matte at any size of the same picture, and an estimate of the ground
// behind the subject (for decontaminating edge colours).
//
// # Method
//
// An iterated colour-model graph cut (GrabCut, Rother, Kolmogorov and
// Blake 2004) seeded without a user's rectangle:
//
//   - The picture is averaged down to WorkEdge (512 px long edge) and again
//     to CoarseEdge (256 px), where the rounds run.
//   - Seeds: a band along the border (2.5% of the short side) is hard ground.
//     A Gaussian mixture (5 components, full covariance, RGB) fitted to it
//     scores every pixel; the pixels the border's model does not explain
//     (beyond its own 95th percentile) inside a central ellipse are the
//     subject's first sample: a saliency and centre prior.
//   - Rounds (at most 5, until under 0.2% of the labels move): a mixture is
//     fitted to each side (each pixel given to its likeliest component,
//     components initialised by splitting along the principal axis, so
//     everything is deterministic), each pixel's terminal capacity is the
//     difference of the two log-likelihoods (likeliest component, clamped
//     to 40 nats), each pair of 8-neighbours is joined with
//     gamma*exp(-beta*|dz|^2)/distance (gamma 50, beta from the image's mean
//     contrast), and the minimum cut is found with the Boykov-Kolmogorov
//     max-flow (integer capacities; after the first round only the change
//     of each terminal capacity is added to the residual graph, so later
//     rounds are cheap).
//   - The working-size cut: the coarse labels, upsampled, are kept where a
//     pixel's 3x3 coarse neighbourhood agrees, and the band between is cut
//     again at WorkEdge with the models refitted to those pixels.
//   - Cast shadows: subject pixels connected to the outline (up to 8% of the
//     long edge deep) that look like the ground behind them in shadow (the
//     same chromaticity within 0.03, 35% to 105% of its lightness, and the
//     ground's texture still showing) go back to the ground, unless they
//     would be over a quarter of the subject or the picture has no colour.
//   - Ground colours: a component of a mixture fitted to the subject
//     whose pixels are mostly (over half) explained by the border seeds'
//     model as well as its typical (75th percentile) seed is, and that
//     holds under a quarter of the subject, is taken out of the subject's
//     model and the working-size picture is cut again (brick kept above a
//     bag and inside its handle, gravel along a sneaker go back).
//   - Clean-up: parts under 1% of the largest are dropped, pinholes under
//     0.2% of the subject filled.
//   - Open bottom: when the subject presses against the bottom band, the
//     bottom band holds colours the other sides do not (over 15% of it), or
//     the cut is not confident, it is cut again with the bottom band and the
//     sides below 60% of the height unseeded, as for a figure cut at the
//     knees or a portrait. A confident closed answer is kept; otherwise the
//     more confident one.
//
// # Confidence
//
// Measured on the working-size mask, each with a margin from 0 (a failed
// separation) to 1 (a clean one) between two bounds; Score is the weakest
// margin and a separation is delivered from 0.5:
//
//	coverage      subject share of the frame: fails under 0.4% and over 93%
//	largest       share of the subject in its largest part (0.55 .. 0.85)
//	parts         parts of at least a fifth of the largest (6 .. 3)
//	debris        share of the subject in smaller parts (0.12 .. 0.03)
//	compactness   outline length over a disc's of the same area (7 .. 3.5)
//	edges         share of the outline on an image edge, a gradient above
//	              the frame's upper quartile and 12 levels (0.25 .. 0.55)
//	misfit        pixels labelled against their colour (mixtures fitted to
//	              each side of the final mask) over the subject's area
//	              (0.35 .. 0.15)
//	press         share of a seeded side the subject touches: it runs off
//	              the frame (0.4 .. 0.15)
//	cut off       (a closed frame) a run of one flat colour along a seeded side (8% to 60% of
//	              it, rare elsewhere on the seeded sides) that, walked inward
//	              through ground of its colour, leads to the subject, half
//	              of the time over a tenth of the frame: the share of the
//	              run that does (0.9 .. 0.6). The subject runs on to the
//	              edge in a colour the seeds gave the ground (trousers below
//	              a top). When that is a closed cut's only fault, the open
//	              answer is kept only if it is the closed subject completed
//	              by the walked ground (90% of one, 80% of the other, at most
//	              15% more); otherwise the closed cut is refused.
//
// The bounds were set by looking at the cut-outs of a set of 21 pictures
// (composites with known masks on real textures, and real photographs from
// Debian's python3-skimage and python3-matplotlib): see the engine's
// photo test. Assess applies the same measures to a mask made elsewhere.
//
// # Matte
//
// Matte upsamples the working mask to the size asked for with a fast guided
// filter (He and Sun 2015; colour guide, radius 2 working pixels, eps
// 0.002): per window alpha is fitted as a linear function of colour at the
// working size, and the coefficients, interpolated, are applied to the
// full-size pixels, so the edge follows the full-size picture. Memory
// beyond the result is a few working-size planes. Ground fills the ground
// in behind the subject by push-pull over a pyramid.
//
// # Costs
//
// Bounded by WorkEdge: the graph has one node a working pixel and four
// edges (eight arcs, 12 bytes each) a node, some 30 MB at 512 x 384.
package segment
