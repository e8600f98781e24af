package local

import (
	"fmt"
	"image"
	"math"

	"studio/internal/engine"
	"studio/internal/picture"
)

// buildEdge is the long edge a build is measured at: proportions do not
// depend on the scale.
const buildEdge = 512

// The bounds of a full-length figure: its head at most this share of its
// height (a half-length figure's head is a quarter or more), and a
// silhouette at least this much taller than wide.
const (
	fullHeadMax   = 0.2
	fullAspectMin = 1.8
)

// reasonNoFullFigure is NO_FIGURE's plain reason.
const reasonNoFullFigure = "No full-length figure could be found on a plain background: the whole person, head to feet, standing, is needed to read a build."

// ReadBuild is MeasureBuild: the local engine is extract-build's
// engine.BuildReader.
func (l *Engine) ReadBuild(img *image.NRGBA) (engine.Build, error) { return MeasureBuild(img) }

// MeasureBuild reads the build of the full-length figure in img: the
// figure is separated as try-on separates its model (a standing person on
// a plain ground), and must stand whole inside the frame, head to feet.
// A picture without one is an input fault with a plain reason.
func MeasureBuild(img *image.NRGBA) (engine.Build, error) {
	const tool = "extract-build"
	small := picture.FitLong(img, buildEdge)
	m, err := findMatteOn(small, tool, need{plainOnly: true, kind: cutFigure})
	if err != nil {
		return engine.Build{}, engine.InputError(tool, reasonNoFullFigure, err)
	}
	w, h := small.Rect.Dx(), small.Rect.Dy()
	b := m.box
	if b.Min.Y <= 0 || b.Max.Y >= h || float64(b.Dy()) < fullAspectMin*float64(b.Dx()) {
		return engine.Build{}, engine.InputError(tool, reasonNoFullFigure, fmt.Errorf("the figure %v of a %dx%d frame is cut by the frame or not standing whole", b, w, h))
	}
	s := silhouetteOf(m.alpha, b)
	out, err := s.measure()
	if err != nil {
		return engine.Build{}, engine.InputError(tool, reasonNoFullFigure, err)
	}
	conf := 1.0
	if m.conf.Score > 0 {
		conf = m.conf.Score
	}
	if !s.parted {
		conf *= 0.6
	}
	out.Confidence = math.Round(min(1, conf)*100) / 100
	return out, nil
}

// silhouette is a figure's mask within its box, read row by row.
type silhouette struct {
	fg     [][]bool // rows of the box, true on the figure
	top, n int      // the box's first row and its height
	cx     int      // the head's centre column, within the box
	parted bool     // the legs' parting was seen
}

func silhouetteOf(a *plane, b image.Rectangle) *silhouette {
	s := &silhouette{top: b.Min.Y, n: b.Dy()}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		row := make([]bool, b.Dx())
		for x := b.Min.X; x < b.Max.X; x++ {
			row[x-b.Min.X] = a.p[y*a.w+x] >= 0.5
		}
		s.fg = append(s.fg, row)
	}
	// The head's centre: the mean column of the figure in its top tenth.
	var sum, cnt int
	for _, row := range s.fg[:max(1, s.n/10)] {
		for x, on := range row {
			if on {
				sum += x
				cnt++
			}
		}
	}
	if cnt > 0 {
		s.cx = sum / cnt
	}
	return s
}

// run is the width of the figure's run through column x of row y (0 when
// x is off the figure there), and how many runs the row has.
func (s *silhouette) run(y, x int) (width, runs int) {
	row := s.fg[y]
	for i := 0; i < len(row); {
		if !row[i] {
			i++
			continue
		}
		j := i
		for j < len(row) && row[j] {
			j++
		}
		runs++
		if x >= i && x < j {
			width = j - i
		}
		i = j
	}
	return width, runs
}

// at is the row a share f of the height down from the crown.
func (s *silhouette) at(f float64) int { return min(s.n-1, max(0, int(f*float64(s.n)))) }

// measure reads the proportions: the neck is the narrowest row below the
// head's widest, the legs part where the centre column leaves the figure
// with figure on both sides (three rows running), the shoulders are the
// widest row just under the neck, the hips the row just above the
// parting, the waist the narrowest row between them.
func (s *silhouette) measure() (engine.Build, error) {
	widest, wrow := 0, 0
	for y := 0; y <= s.at(0.12); y++ {
		if w, _ := s.run(y, s.cx); w > widest {
			widest, wrow = w, y
		}
	}
	neck, narrow := -1, math.MaxInt
	for y := wrow; y <= s.at(0.25); y++ {
		if w, _ := s.run(y, s.cx); w > 0 && w < narrow {
			neck, narrow = y, w
		}
	}
	if neck < 0 || widest == 0 {
		return engine.Build{}, fmt.Errorf("no head over the shoulders")
	}
	head := float64(neck) / float64(s.n)
	if head > fullHeadMax {
		return engine.Build{}, fmt.Errorf("the head is %.2f of the figure: not full length", head)
	}
	crotch, streak := -1, 0
	for y := s.at(0.35); y < s.at(0.9); y++ {
		if w, runs := s.run(y, s.cx); w == 0 && runs >= 2 {
			if streak++; streak == 3 {
				crotch = y - 2
				break
			}
		} else {
			streak = 0
		}
	}
	s.parted = crotch >= 0
	hipRow := s.at(0.5)
	if s.parted {
		hipRow = max(neck+1, crotch-s.n*3/100)
	}
	shoulders := 0
	for y := neck; y <= min(s.n-1, neck+s.n*6/100); y++ {
		w, _ := s.run(y, s.cx)
		shoulders = max(shoulders, w)
	}
	hips, _ := s.run(hipRow, s.cx)
	if hips == 0 || shoulders <= narrow {
		return engine.Build{}, fmt.Errorf("no torso under the head (shoulders %d, hips %d)", shoulders, hips)
	}
	waist := hips
	armsAway := false
	for y := neck + (hipRow-neck)/3; y < hipRow; y++ {
		w, runs := s.run(y, s.cx)
		if w > 0 {
			waist = min(waist, w)
		}
		armsAway = armsAway || runs >= 3
	}
	leg := 0.0
	if s.parted {
		leg = float64(s.n-crotch) / float64(s.n)
	} else {
		leg = float64(s.n-hipRow) / float64(s.n)
	}
	out := engine.Build{
		ShoulderToHip: round2(float64(shoulders) / float64(hips)),
		LegToHeight:   round2(leg),
		HeadToHeight:  round2(head),
		Silhouette:    shape(float64(shoulders), float64(waist), float64(hips)),
		Posture:       "standing",
	}
	if armsAway {
		out.Posture = "standing, arms away from the body"
	}
	return out, nil
}

// shape names an outline by its shoulders, waist and hips: a waist well
// under both over similar shoulders and hips is an hourglass; otherwise
// the wider of shoulders and hips, when clearly wider, names it.
func shape(shoulders, waist, hips float64) string {
	r := shoulders / hips
	switch {
	case waist < 0.75*min(shoulders, hips) && r > 0.9 && r < 1.1:
		return "hourglass"
	case r >= 1.15:
		return "inverted-triangle"
	case r <= 0.9:
		return "triangle"
	}
	return "rectangle"
}

func round2(v float64) float64 { return math.Round(v*100) / 100 }
