package local

import (
	"fmt"
	"image"
	"math"
	"slices"

	"studio/internal/engine"
	"studio/internal/engine/segment"
	"studio/internal/picture"
)

// The bounds of finding a garment within a subject (color-change without
// a mask, fit-adjust), set on the calibration set.
const (
	// greyChroma: a subject whose mean a*b* is under this has no colour
	// to tell a garment from skin, hair or another piece.
	greyChroma = 6.0
	// A candidate garment holds at least this share of the subject's
	// non-skin pixels.
	candidateShare = 0.2
	// Two candidates at least this far apart (a*b* and half the lightness)
	// are two pieces, not one.
	candidateApart = 18.0
	// The garment's region: at most this share of it has a skin tone, and
	// its largest connected piece holds at least this share of it.
	regionSkin  = 0.03
	regionWhole = 0.7
	// The garment's region covers at least this share of the subject.
	regionLeast = 0.08
)

// candidate is one colour cluster of a subject's non-skin pixels: its Lab
// centre, spread and share, and where its pixels lie in the subject's
// box (0 top, 1 bottom).
type candidate struct {
	centre      [3]float64
	spread      float64
	share       float64
	top, bottom float64 // the 10th and 90th percentile of its rows, in the box
	middle      float64 // its median row, in the box
	pixels      int
}

// findGarment finds the garment within the subject m of img and returns
// its region (0..1 at img's size), or an input fault saying plainly why it
// cannot: a greyscale photo, several candidate pieces (unless part names
// one: top, bottom or dress), a region that takes in skin, or one in
// pieces. remedy, a sentence, ends each reason.
func findGarment(img *image.NRGBA, m *matte, part, tool, remedy string) (*plane, error) {
	if c := chroma(img, m); c < greyChroma {
		return nil, engine.InputError(tool, "The photo has no colour to tell the garment from the rest. "+remedy, fmt.Errorf("garment: chroma %.1f", c))
	}
	cands := candidates(img, m)
	if len(cands) == 0 {
		return nil, engine.InputError(tool, "No garment could be told apart in this photo. "+remedy, nil)
	}
	pick, why := pickCandidate(cands, part)
	if why != "" {
		return nil, engine.InputError(tool, why+" "+remedy, fmt.Errorf("garment: %+v", cands))
	}
	region := regionOf(img, m, pick)
	if why := checkRegion(img, m, region); why != "" {
		return nil, engine.InputError(tool, why+" "+remedy, nil)
	}
	return region, nil
}

// candidates clusters the subject's non-skin pixels (k-means, k = 3, as
// dominantCluster) and returns the clusters that hold at least
// candidateShare of them, largest first.
func candidates(img *image.NRGBA, m *matte) []candidate {
	small := picture.FitLong(img, 256)
	sw, sh := small.Rect.Dx(), small.Rect.Dy()
	sa := m.alpha.resized(sw, sh)
	var pts [][3]float64
	var rows []int
	skinTotal := 0
	top, bot := sh, 0
	for y := range sh {
		for x := range sw {
			if sa.p[y*sw+x] < 0.6 {
				continue
			}
			top, bot = min(top, y), max(bot, y)
			i := y*small.Stride + x*4
			if isSkin(small.Pix[i], small.Pix[i+1], small.Pix[i+2]) {
				skinTotal++
				continue
			}
			l, a, b := picture.ToLab(float64(small.Pix[i]), float64(small.Pix[i+1]), float64(small.Pix[i+2]))
			pts = append(pts, [3]float64{l, a, b})
			rows = append(rows, y)
		}
	}
	if len(pts) < 16 {
		return nil
	}
	cent, assign := kmeans3(pts)
	height := float64(max(1, bot-top))
	var out []candidate
	for k, c := range cent {
		var ys []float64
		var ss float64
		for i, a := range assign {
			if a == k {
				ys = append(ys, (float64(rows[i])-float64(top))/height)
				ss += labDist(pts[i], c)
			}
		}
		share := float64(len(ys)) / float64(len(pts))
		if share < candidateShare {
			continue
		}
		slices.Sort(ys)
		out = append(out, candidate{centre: c, spread: math.Sqrt(ss / float64(len(ys))), share: share,
			top: ys[len(ys)/10], bottom: ys[len(ys)*9/10], middle: ys[len(ys)/2], pixels: len(ys)})
	}
	slices.SortFunc(out, func(a, b candidate) int { return b.pixels - a.pixels })
	return out
}

// pickCandidate chooses the garment among the candidates: the one part
// names (top: the highest, bottom: the lowest, dress: one that runs from
// the top half to the bottom half), or, without a part, the largest when
// no other candidate of another colour rivals it (at least half its size).
// It answers a plain reason instead when it cannot choose.
func pickCandidate(cands []candidate, part string) (candidate, string) {
	var distinct []candidate
	for _, c := range cands {
		if !slices.ContainsFunc(distinct, func(d candidate) bool { return math.Sqrt(labDist(c.centre, d.centre)) < candidateApart }) {
			distinct = append(distinct, c)
		}
	}
	switch part {
	case "top":
		return slices.MinFunc(distinct, func(a, b candidate) int { return cmpF(a.middle, b.middle) }), ""
	case "bottom":
		return slices.MaxFunc(distinct, func(a, b candidate) int { return cmpF(a.middle, b.middle) }), ""
	case "dress":
		for _, c := range distinct {
			if c.top < 0.45 && c.bottom > 0.6 {
				return c, ""
			}
		}
		return candidate{}, "No piece runs from the top to the bottom of the figure, as a dress would."
	}
	if len(distinct) > 1 && distinct[1].pixels*2 >= distinct[0].pixels {
		return candidate{}, fmt.Sprintf("The photo has %d pieces of different colours, and which one is meant is not clear.", len(distinct))
	}
	return distinct[0], ""
}

func cmpF(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// regionOf weighs each pixel of the subject by how much its colour belongs
// to the candidate (a Gaussian of its Lab distance, lightness weighted a
// quarter), skin tones kept out.
func regionOf(img *image.NRGBA, m *matte, c candidate) *plane {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	sigma := math.Max(12, 1.5*c.spread)
	member := buildLUT(33, func(rr, gg, bb float64) (float64, float64, float64) {
		l, a, b := picture.ToLab(rr, gg, bb)
		v := math.Exp(-labDist([3]float64{l, a, b}, c.centre) / (2 * sigma * sigma))
		return v, v, v
	})
	region := newPlane(w, h)
	picture.Parallel(h, func(y0, y1 int) {
		var out [3]float64
		for y := y0; y < y1; y++ {
			for x := range w {
				a := m.alpha.p[y*w+x]
				if a <= 0.01 {
					continue
				}
				i := y*img.Stride + x*4
				r, g, b := img.Pix[i], img.Pix[i+1], img.Pix[i+2]
				member.at(r, g, b, &out)
				v := out[0]
				if isSkin(r, g, b) {
					v *= 0.15
				}
				region.p[y*w+x] = a * float32(clamp01(v))
			}
		}
	})
	return region
}

// checkRegion measures a garment's region: a share of the subject, little
// skin inside it (it would dye a face), and one piece. It answers a plain
// reason when the region fails, else "".
func checkRegion(img *image.NRGBA, m *matte, region *plane) string {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	step := max(1, max(w, h)/256)
	gw, gh := (w+step-1)/step, (h+step-1)/step
	in := make([]bool, gw*gh)
	var subject, inside, skin int
	for y := 0; y < h; y += step {
		for x := 0; x < w; x += step {
			k := y*w + x
			if m.alpha.p[k] >= 0.5 {
				subject++
			}
			if region.p[k] < 0.5 {
				continue
			}
			inside++
			in[(y/step)*gw+x/step] = true
			i := y*img.Stride + x*4
			if isSkin(img.Pix[i], img.Pix[i+1], img.Pix[i+2]) {
				skin++
			}
		}
	}
	if subject == 0 || float64(inside) < regionLeast*float64(subject) {
		return "The garment is too small a part of the picture to find."
	}
	if float64(skin) > regionSkin*float64(inside) {
		return "The garment's colour runs into skin, so a face or hands would change too."
	}
	_, sizes := segment.Components(in, gw, gh)
	if float64(slices.Max(sizes)) < regionWhole*float64(inside) {
		return "The garment's colour is found in several separate places."
	}
	return ""
}

// labDist is the squared Lab distance with lightness weighted a quarter.
func labDist(p, c [3]float64) float64 {
	return 0.25*(p[0]-c[0])*(p[0]-c[0]) + (p[1]-c[1])*(p[1]-c[1]) + (p[2]-c[2])*(p[2]-c[2])
}

// kmeans3 clusters pts in three (deterministic start at lightness
// quantiles, lightness weighted a quarter, ten rounds) and returns the
// centres and each point's cluster.
func kmeans3(pts [][3]float64) ([3][3]float64, []int) {
	sorted := slices.Clone(pts)
	slices.SortFunc(sorted, func(p, q [3]float64) int { return cmpF(p[0], q[0]) })
	const k = 3
	var cent [k][3]float64
	for i := range k {
		cent[i] = sorted[(2*i+1)*len(sorted)/(2*k)]
	}
	assign := make([]int, len(pts))
	for range 10 {
		var sum [k][3]float64
		var count [k]int
		for i, p := range pts {
			best := 0
			for j := 1; j < k; j++ {
				if labDist(p, cent[j]) < labDist(p, cent[best]) {
					best = j
				}
			}
			assign[i] = best
			count[best]++
			for c := range 3 {
				sum[best][c] += p[c]
			}
		}
		for j := range k {
			if count[j] > 0 {
				for c := range 3 {
					cent[j][c] = sum[j][c] / float64(count[j])
				}
			}
		}
	}
	return cent, assign
}
