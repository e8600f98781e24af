package segtest

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestPolygonBoundingBox: Polygon's bounding-box shortcut answers every
// point as the even-odd loop does, on random polygons (convex or not,
// self-crossing) at random points and at the points on and a rounding
// away from every vertex's coordinates, where the box's edges are.
func TestPolygonBoundingBox(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 40 {
		n := 3 + rng.IntN(12)
		pts := make([]float64, 2*n)
		for i := range pts {
			pts[i] = 0.1 + 0.8*rng.Float64()
		}
		s := Polygon(pts...)
		check := func(x, y float64) {
			if got, want := s(x, y), evenOdd(pts, x, y); got != want {
				t.Fatalf("polygon %v at (%v, %v): %v; the even-odd loop says %v", pts, x, y, got, want)
			}
		}
		for range 2000 {
			check(rng.Float64(), rng.Float64())
		}
		var xs, ys []float64
		for i := 0; i < len(pts); i += 2 {
			for _, d := range []float64{-1, 0, 1} {
				xs = append(xs, math.Nextafter(pts[i], pts[i]+d))
				ys = append(ys, math.Nextafter(pts[i+1], pts[i+1]+d))
			}
		}
		for _, x := range xs {
			for _, y := range ys {
				check(x, y)
			}
		}
	}
}
