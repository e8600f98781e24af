package segment

import "math"

// gmmK is the number of components of each colour model, as in GrabCut.
const gmmK = 5

// covFloor is added to each covariance's diagonal (in squared 0..255
// levels) so a flat studio ground, or a generated image without noise, does
// not make a component singular.
const covFloor = 2.0

// gauss is one component of a Gaussian mixture over RGB colours.
type gauss struct {
	weight  float64
	mean    [3]float64
	inv     [3][3]float64 // inverse covariance
	logNorm float64       // log(weight) - log((2 pi)^(3/2) sqrt(det))
}

// gmm is a Gaussian mixture colour model. A model with no components (no
// samples) explains nothing: its log-likelihood is very low everywhere.
type gmm struct {
	comps []gauss
}

// moments accumulates the sums a Gaussian is estimated from.
type moments struct {
	n    float64
	sum  [3]float64
	prod [3][3]float64
}

func (m *moments) add(c [3]float32) {
	x := [3]float64{float64(c[0]), float64(c[1]), float64(c[2])}
	m.n++
	for i := range 3 {
		m.sum[i] += x[i]
		for j := i; j < 3; j++ {
			m.prod[i][j] += x[i] * x[j]
		}
	}
}

func (m *moments) mean() [3]float64 {
	return [3]float64{m.sum[0] / m.n, m.sum[1] / m.n, m.sum[2] / m.n}
}

func (m *moments) cov() [3][3]float64 {
	mu := m.mean()
	var c [3][3]float64
	for i := range 3 {
		for j := i; j < 3; j++ {
			c[i][j] = m.prod[i][j]/m.n - mu[i]*mu[j]
			c[j][i] = c[i][j]
		}
		c[i][i] += covFloor
	}
	return c
}

// fitComponents turns per-component moments into a mixture.
func fitComponents(ms []moments) gmm {
	total := 0.0
	for i := range ms {
		total += ms[i].n
	}
	var g gmm
	for i := range ms {
		if ms[i].n < 1 {
			continue
		}
		c := ms[i].cov()
		inv, det := invert3(c)
		if det <= 0 {
			continue
		}
		w := ms[i].n / total
		g.comps = append(g.comps, gauss{
			weight:  w,
			mean:    ms[i].mean(),
			inv:     inv,
			logNorm: math.Log(w) - 1.5*math.Log(2*math.Pi) - 0.5*math.Log(det),
		})
	}
	return g
}

// logComp is the log of component k's weighted density at c.
func (g *gmm) logComp(k int, c [3]float32) float64 {
	p := &g.comps[k]
	d0, d1, d2 := float64(c[0])-p.mean[0], float64(c[1])-p.mean[1], float64(c[2])-p.mean[2]
	m := p.inv[0][0]*d0*d0 + p.inv[1][1]*d1*d1 + p.inv[2][2]*d2*d2 +
		2*(p.inv[0][1]*d0*d1+p.inv[0][2]*d0*d2+p.inv[1][2]*d1*d2)
	return p.logNorm - 0.5*m
}

// logLik is the log-likelihood of colour c under the mixture, taken as its
// likeliest component's (the sum's largest term: within a fraction of a nat
// of the sum where components do not overlap, and no exp or log per pixel).
func (g *gmm) logLik(c [3]float32) float64 {
	best := -200.0
	for k := range g.comps {
		best = max(best, g.logComp(k, c))
	}
	return best
}

// nearest is the component most likely to have produced c.
func (g *gmm) nearest(c [3]float32) int {
	best, arg := math.Inf(-1), 0
	for k := range g.comps {
		if l := g.logComp(k, c); l > best {
			best, arg = l, k
		}
	}
	return arg
}

// fitGMM fits a mixture to the colours of the pixels where sel is true.
// The first fit splits clusters along their principal axis (Orchard and
// Bouman, as GrabCut initialises), deterministic and without seeds.
func fitGMM(pix [][3]float32, sel func(i int) bool) gmm {
	idx := make([]int32, 0, len(pix)/2)
	for i := range pix {
		if sel(i) {
			idx = append(idx, int32(i))
		}
	}
	if len(idx) == 0 {
		return gmm{}
	}
	clusters := [][]int32{idx}
	for len(clusters) < gmmK {
		// Split the cluster with the largest total spread along its main
		// axis; a cluster already tighter than a few levels stays whole.
		best, bestScore := -1, 0.0
		var bestAxis, bestMean [3]float64
		for ci, cl := range clusters {
			if len(cl) < 2 {
				continue
			}
			var m moments
			for _, i := range cl {
				m.add(pix[i])
			}
			axis, v := principal(m.cov())
			if v > covFloor+4 && v*m.n > bestScore {
				best, bestScore, bestAxis, bestMean = ci, v*m.n, axis, m.mean()
			}
		}
		if best < 0 {
			break
		}
		var lo, hi []int32
		for _, i := range clusters[best] {
			c := pix[i]
			d := (float64(c[0])-bestMean[0])*bestAxis[0] + (float64(c[1])-bestMean[1])*bestAxis[1] + (float64(c[2])-bestMean[2])*bestAxis[2]
			if d <= 0 {
				lo = append(lo, i)
			} else {
				hi = append(hi, i)
			}
		}
		if len(lo) == 0 || len(hi) == 0 {
			break
		}
		clusters[best] = lo
		clusters = append(clusters, hi)
	}
	ms := make([]moments, len(clusters))
	for ci, cl := range clusters {
		for _, i := range cl {
			ms[ci].add(pix[i])
		}
	}
	return fitComponents(ms)
}

// refit re-estimates the mixture from the pixels where sel is true, each
// given to its most likely component of the current mixture (GrabCut's
// "assign components" and "learn parameters" steps).
func (g *gmm) refit(pix [][3]float32, sel func(i int) bool) gmm {
	if len(g.comps) == 0 {
		return fitGMM(pix, sel)
	}
	ms := make([]moments, len(g.comps))
	for i := range pix {
		if sel(i) {
			ms[g.nearest(pix[i])].add(pix[i])
		}
	}
	out := fitComponents(ms)
	if len(out.comps) == 0 {
		return fitGMM(pix, sel)
	}
	return out
}

// invert3 inverts a symmetric 3x3 matrix and returns its determinant.
func invert3(m [3][3]float64) ([3][3]float64, float64) {
	det := m[0][0]*(m[1][1]*m[2][2]-m[1][2]*m[2][1]) -
		m[0][1]*(m[1][0]*m[2][2]-m[1][2]*m[2][0]) +
		m[0][2]*(m[1][0]*m[2][1]-m[1][1]*m[2][0])
	var inv [3][3]float64
	if det <= 1e-12 {
		return inv, 0
	}
	inv[0][0] = (m[1][1]*m[2][2] - m[1][2]*m[2][1]) / det
	inv[0][1] = (m[0][2]*m[2][1] - m[0][1]*m[2][2]) / det
	inv[0][2] = (m[0][1]*m[1][2] - m[0][2]*m[1][1]) / det
	inv[1][0] = inv[0][1]
	inv[1][1] = (m[0][0]*m[2][2] - m[0][2]*m[2][0]) / det
	inv[1][2] = (m[0][2]*m[1][0] - m[0][0]*m[1][2]) / det
	inv[2][0] = inv[0][2]
	inv[2][1] = inv[1][2]
	inv[2][2] = (m[0][0]*m[1][1] - m[0][1]*m[1][0]) / det
	return inv, det
}

// principal returns the main axis (unit length) of a covariance matrix and
// the variance along it, by power iteration.
func principal(c [3][3]float64) ([3]float64, float64) {
	v := [3]float64{0.577, 0.577, 0.577}
	lambda := 0.0
	for range 24 {
		var w [3]float64
		for i := range 3 {
			w[i] = c[i][0]*v[0] + c[i][1]*v[1] + c[i][2]*v[2]
		}
		n := math.Sqrt(w[0]*w[0] + w[1]*w[1] + w[2]*w[2])
		if n < 1e-12 {
			return v, 0
		}
		for i := range 3 {
			v[i] = w[i] / n
		}
		lambda = n
	}
	return v, lambda
}
