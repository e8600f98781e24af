package engine

import "image"

// Build is a full-length figure's build as its separated silhouette shows
// it (extract-build, DECISIONS §11): proportions of the silhouette's
// height, no centimetres (a picture has no scale).
type Build struct {
	// ShoulderToHip is the width across the shoulders (arms that touch
	// the body included) over the width across the hips, where the legs
	// join.
	ShoulderToHip float64
	// LegToHeight is the inside leg (the legs' parting to the soles) over
	// the figure's height.
	LegToHeight float64
	// HeadToHeight is the head (crown to the neck's narrowest row) over
	// the figure's height.
	HeadToHeight float64
	// Silhouette is the outline's shape: hourglass, inverted-triangle,
	// triangle or rectangle.
	Silhouette string
	// Posture is how the figure stands: standing, or standing with the arms
	// held away from the body.
	Posture string
	// Confidence is the separation's confidence, lowered when the legs'
	// parting could not be seen (a long skirt): 0 to 1.
	Confidence float64
}

// BuildReader reads the build of the full-length figure in an upright
// picture (the local engine does, from the figure's silhouette). A
// picture without one is an input fault with a plain reason.
type BuildReader interface {
	ReadBuild(img *image.NRGBA) (Build, error)
}
