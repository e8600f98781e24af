package brand

// The palette of a DNA read is measured, not asked for: each photograph is
// shrunk to at most SampleEdge pixels on its long edge (an area average,
// so noise and grain fold into the colours around them), its opaque pixels
// are taken to CIELAB (D65), and the pixels of the whole set (pooled in
// bins of one unit of L, a and b) are clustered
// by a weighted k-means in Lab, each photograph weighing the same however
// large it is. Clusters under MinShare of the set are dropped, clusters
// closer than MergeDeltaE are merged into the heavier one, and the rest are
// listed most present first, at most MaxPalette. The same photographs
// always give the same palette: the seeding is k-means++ from a fixed seed.

import (
	"fmt"
	"image"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/disintegration/imaging"

	"studio/internal/picture"
)

// Tuning of the palette measure.
const (
	SampleEdge  = 64   // pixels on the long edge of a photograph's sample
	clusters    = 10   // k of the k-means, before small clusters go
	MinShare    = 0.03 // a colour must cover this share of the set
	MergeDeltaE = 12.0 // colours closer than this (CIE76) are one colour
	iterations  = 30
)

// Lab is a colour in CIELAB.
type Lab struct{ L, A, B float64 }

// Sample is one photograph's pixels as the palette reads them.
type Sample []Lab

// SampleOf shrinks img and returns its opaque pixels in Lab.
func SampleOf(img image.Image) Sample {
	small := imaging.Fit(img, SampleEdge, SampleEdge, imaging.Box)
	b := small.Bounds()
	out := make(Sample, 0, b.Dx()*b.Dy())
	for y := b.Min.Y; y < b.Max.Y; y++ {
		row := small.Pix[(y-b.Min.Y)*small.Stride:]
		for x := 0; x < b.Dx(); x++ {
			p := row[x*4 : x*4+4]
			if p[3] < 128 {
				continue
			}
			out = append(out, labOf(p[0], p[1], p[2]))
		}
	}
	return out
}

// MeasurePalette returns the dominant colours of the photographs' samples
// as #rrggbb, most present first.
func MeasurePalette(set []Sample) []string {
	pts, ws := binned(set)
	out := []string{}
	if len(pts) == 0 {
		return out
	}
	centers, mass := kmeans(pts, ws, clusters)
	var total float64
	for _, m := range mass {
		total += m
	}
	type colour struct {
		c Lab
		m float64
	}
	var cs []colour
	for i := range centers {
		if mass[i] > 0 {
			cs = append(cs, colour{centers[i], mass[i]})
		}
	}
	slices.SortStableFunc(cs, func(a, b colour) int { return cmpDesc(a.m, b.m) })
	// Merge near colours into the heavier one, heaviest first.
	var merged []colour
	for _, c := range cs {
		joined := false
		for i := range merged {
			if deltaE(merged[i].c, c.c) < MergeDeltaE {
				m := merged[i].m + c.m
				merged[i].c = Lab{(merged[i].c.L*merged[i].m + c.c.L*c.m) / m, (merged[i].c.A*merged[i].m + c.c.A*c.m) / m,
					(merged[i].c.B*merged[i].m + c.c.B*c.m) / m}
				merged[i].m = m
				joined = true
				break
			}
		}
		if !joined {
			merged = append(merged, c)
		}
	}
	slices.SortStableFunc(merged, func(a, b colour) int { return cmpDesc(a.m, b.m) })
	for _, c := range merged {
		if c.m < MinShare*total || len(out) == MaxPalette {
			continue
		}
		if h := hexOf(c.c); !slices.Contains(out, h) {
			out = append(out, h)
		}
	}
	return out
}

// binned pools the samples of the set, each photograph weighing the same,
// into bins of one unit of L, a and b (well under a visible difference):
// each bin is one point at the weighted mean of its pixels, weighing their
// sum. Flat areas fold into a few points, which keeps the clustering fast.
func binned(set []Sample) ([]Lab, []float64) {
	type bin struct {
		sum Lab
		w   float64
	}
	index := map[[3]int32]int{}
	var bins []bin
	for _, s := range set {
		if len(s) == 0 {
			continue
		}
		w := 1 / float64(len(s))
		for _, c := range s {
			k := [3]int32{int32(math.Round(c.L)), int32(math.Round(c.A)), int32(math.Round(c.B))}
			i, ok := index[k]
			if !ok {
				i = len(bins)
				index[k] = i
				bins = append(bins, bin{})
			}
			b := &bins[i]
			b.sum.L, b.sum.A, b.sum.B, b.w = b.sum.L+c.L*w, b.sum.A+c.A*w, b.sum.B+c.B*w, b.w+w
		}
	}
	pts, ws := make([]Lab, len(bins)), make([]float64, len(bins))
	for i, b := range bins {
		pts[i], ws[i] = Lab{b.sum.L / b.w, b.sum.A / b.w, b.sum.B / b.w}, b.w
	}
	return pts, ws
}

func cmpDesc(a, b float64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}

// kmeans clusters weighted points into k centers (k-means++ seeding from a
// fixed seed, then Lloyd's iterations) and returns each center's mass.
func kmeans(pts []Lab, ws []float64, k int) ([]Lab, []float64) {
	rng := rand.New(rand.NewPCG(1, 2))
	k = min(k, len(pts))
	centers := make([]Lab, 0, k)
	dist := make([]float64, len(pts))
	for i := range dist {
		dist[i] = math.Inf(1)
	}
	centers = append(centers, pts[pickWeighted(rng, ws)])
	for len(centers) < k {
		last := centers[len(centers)-1]
		var sum float64
		score := make([]float64, len(pts))
		for i, p := range pts {
			dist[i] = min(dist[i], dist2(p, last))
			score[i] = ws[i] * dist[i]
			sum += score[i]
		}
		if sum == 0 {
			break // fewer distinct colours than k
		}
		centers = append(centers, pts[pickWeighted(rng, score)])
	}
	assign := make([]int, len(pts))
	mass := make([]float64, len(centers))
	for it := 0; it < iterations; it++ {
		changed := it == 0
		for i, p := range pts {
			best, bd := 0, math.Inf(1)
			for j, c := range centers {
				if d := dist2(p, c); d < bd {
					best, bd = j, d
				}
			}
			if assign[i] != best {
				assign[i], changed = best, true
			}
		}
		sums := make([]Lab, len(centers))
		clear(mass)
		for i, p := range pts {
			j, w := assign[i], ws[i]
			sums[j].L += p.L * w
			sums[j].A += p.A * w
			sums[j].B += p.B * w
			mass[j] += w
		}
		for j := range centers {
			if mass[j] > 0 {
				centers[j] = Lab{sums[j].L / mass[j], sums[j].A / mass[j], sums[j].B / mass[j]}
			}
		}
		if !changed {
			break
		}
	}
	return centers, mass
}

// pickWeighted draws an index with probability proportional to its weight.
func pickWeighted(rng *rand.Rand, ws []float64) int {
	var sum float64
	for _, w := range ws {
		sum += w
	}
	r := rng.Float64() * sum
	for i, w := range ws {
		if r < w {
			return i
		}
		r -= w
	}
	return len(ws) - 1
}

func dist2(a, b Lab) float64 {
	dl, da, db := a.L-b.L, a.A-b.A, a.B-b.B
	return dl*dl + da*da + db*db
}

func deltaE(a, b Lab) float64 { return math.Sqrt(dist2(a, b)) }

// labOf is an 8-bit sRGB colour in CIELAB (D65).
func labOf(r, g, b uint8) Lab {
	l, a, bb := picture.ToLab(float64(r), float64(g), float64(b))
	return Lab{l, a, bb}
}

// hexOf writes a Lab colour as sRGB #rrggbb, clipped to the gamut.
func hexOf(c Lab) string {
	r, g, b := picture.FromLab(c.L, c.A, c.B)
	return fmt.Sprintf("#%02x%02x%02x", uint8(math.Round(r)), uint8(math.Round(g)), uint8(math.Round(b)))
}
