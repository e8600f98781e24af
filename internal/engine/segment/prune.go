package segment

import (
	"math"
	"slices"
)

// pruneGround gives back to the ground the colours the subject's model
// learned from fragments of the ground: a component of a mixture fitted to
// the subject whose pixels are mostly explained by the border seeds (the
// one part of the picture known to be ground) as well as a typical border
// pixel is, and that is not the subject's main colour, is removed from the
// subject's model, and the working-size picture is cut again with it.
func (s *solver) pruneGround(fg []bool, open bool) []bool {
	pix := s.work.pix
	seed := s.seeds(open)
	border := fitGMM(pix, func(i int) bool { return seed[i] })
	nll := make([]float64, len(pix))
	var ref []float64
	for i, c := range pix {
		nll[i] = -border.logLik(c)
		if seed[i] {
			ref = append(ref, nll[i])
		}
	}
	slices.Sort(ref)
	t := ref[len(ref)*3/4]
	isFG := func(i int) bool { return fg[i] }
	isBG := func(i int) bool { return !fg[i] }
	fgM := fitGMM(pix, isFG)
	fgM = fgM.refit(pix, isFG)
	bgM := fitGMM(pix, isBG)
	bgM = bgM.refit(pix, isBG)
	n := make([]int, len(fgM.comps))
	like := make([]int, len(fgM.comps))
	area := 0
	for i, v := range fg {
		if !v {
			continue
		}
		area++
		k := fgM.nearest(pix[i])
		n[k]++
		if nll[i] <= t {
			like[k]++
		}
	}
	var keep gmm
	removed := 0.0
	for k, c := range fgM.comps {
		if like[k]*2 > n[k] && n[k]*4 < area {
			removed += c.weight
			continue
		}
		keep.comps = append(keep.comps, c)
	}
	if removed == 0 || len(keep.comps) == 0 {
		return fg
	}
	for k := range keep.comps {
		keep.comps[k].logNorm -= math.Log(1 - removed)
	}
	out := make([]bool, len(fg))
	s.cut(keep, bgM, seed, nil, out, false)
	return out
}
