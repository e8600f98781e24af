package judge

import (
	"context"
	"fmt"
	"image"
	"math"
	"slices"
	"strconv"
	"strings"

	"studio/internal/engine"
	"studio/internal/ledger"
	"studio/internal/picture"
)

// Frame is what a judge looks at: a developed frame, the request that made
// it and its main input.
type Frame struct {
	Tool   string
	Tier   ledger.Tier
	Params map[string]string
	Data   []byte // the frame's bytes
	Source []byte // the main input's bytes (image, or model for tryon); nil when none
	Mime   string
	// Garment is the piece the frame should show (tryon's garment, a look
	// frame's first item), Scene a composite's background; nil when none.
	Garment, Scene []byte
	// Note is the serving engine's note on the tool: set when the engine
	// makes the tool only as a proof or a composite (DECISIONS §10).
	Note string
}

// Thresholds of the local judge, calibrated on frames the local engine
// made (see the package doc and TestCalibration).
const (
	// A frame whose finest bands are empty holds the detail of a frame
	// 2^k times smaller: soft-focus not sure at k = 1, sure from k = 2.
	softSureBands = 2
	// texture-artifact: the source held an eighth of the tier's pixels or
	// less and the frame shows it (k >= 3).
	textureEnlargement = 8
	// background-bleed: the subject's outline fades over this share of
	// the long edge (not sure from the lower, sure from the upper).
	bleedNotSure = 0.009
	bleedSure    = 0.012
	// Exposure clipping: this share of the subject clipped (not sure,
	// sure), and the source's share that puts the blame on the input.
	clipNotSure = 0.02
	clipSure    = 0.05
	// The backdrop of a packshot along its border: mean distance from the
	// requested colour, or its spread, past these (RGB units).
	borderOff    = 18.0
	borderSpread = 14.0
	// Colour distance (a*b*) of a colour change from the requested colour.
	colourNotSure = 12.0
	colourSure    = 20.0
	// A cut-out's alpha: the share of its foreground outside its largest
	// piece.
	fragmentNotSure = 0.005
	fragmentSure    = 0.02
	// A frame's long edge short of the tier's pixels by more than this share.
	tierShort = 0.03
	// The frame's aspect off the destination's by more than this share.
	aspectOff = 0.02
)

// Local is the pixel judge: it reports only what it measures.
type Local struct{}

// Look reads a frame. It never fails: a frame it cannot decode is
// unreadable, a source it cannot decode is left out of the comparisons.
func (Local) Look(ctx context.Context, f Frame) Reading {
	r := Reading{Judge: JudgePixels}
	img, err := decodeFrame(f.Data)
	if err != nil {
		r.Unreadable = true
		r.Note = "The frame could not be decoded: " + err.Error()
		return r
	}
	var src *image.NRGBA
	if len(f.Source) > 0 {
		src, _ = picture.Decode(f.Source)
	}
	m := measure(img, src, f)
	more, capAt, notes := seen(img, src, f)
	r.Findings = append(m.findings(), more...)
	r.Cap = capAt
	r.Note = joinNotes(m.note(), notes)
	return r
}

// decodeFrame decodes a frame or an input as the engines do.
func decodeFrame(data []byte) (*image.NRGBA, error) { return picture.Decode(data) }

// measures are the numbers the local judge reads from a frame.
type measures struct {
	f              Frame
	w, h, long     int
	tierPx         int
	srcLong        int // 0 without a source
	bands          []float64
	k              int     // empty leading bands
	s              float64 // the finest band's share of the strongest
	outline        float64 // the subject's top outline width, share of the long edge (-1: not measured)
	clip, srcClip  float64 // clipped share of the subject, of the source
	border         *borderReading
	colourDist     float64 // a*b* distance of a colour change (-1: not measured)
	colourApplied  bool
	fragments      float64 // share of a cut-out's foreground outside its largest piece (-1: not measured)
	destW, destH   int
	touching       string // the side a packshot's subject touches, or ""
	backdropColour [3]float64
}

func measure(img, src *image.NRGBA, f Frame) *measures {
	m := &measures{f: f, w: img.Rect.Dx(), h: img.Rect.Dy(), tierPx: f.Tier.Pixels(), outline: -1, colourDist: -1, fragments: -1}
	m.long = max(m.w, m.h)
	if src != nil {
		m.srcLong = max(src.Rect.Dx(), src.Rect.Dy())
	}
	m.bands = bands(lumaOf(img))
	m.k, m.s = detail(m.bands)
	m.destW, _ = strconv.Atoi(f.Params["outputWidth"])
	m.destH, _ = strconv.Atoi(f.Params["outputHeight"])

	bg, hasBackdrop := backdrop(f)
	m.backdropColour = bg
	alpha := hasAlpha(img)
	switch {
	case alpha:
		m.outline = alphaOutline(img)
		m.fragments = fragments(img)
	case hasBackdrop:
		// The outline is read against the backdrop as rendered, the
		// border against the colour asked for.
		seen := borderMedian(img)
		m.outline = backdropOutline(img, seen)
		m.border = readBorder(img, bg)
		m.touching = touches(img, seen)
	}
	subject := func(x, y int) bool { return true }
	if hasBackdrop && !alpha {
		subject = func(x, y int) bool { return dist(img, x, y, bg) > subjectDist }
	}
	if alpha {
		subject = func(x, y int) bool { return img.Pix[y*img.Stride+4*x+3] >= 128 }
	}
	m.clip = clipped(img, subject)
	if src != nil {
		all := func(int, int) bool { return true }
		if hasBackdrop {
			// The source's own backdrop (its border's median colour) is
			// not part of the piece.
			sb := borderMedian(src)
			all = func(x, y int) bool { return dist(src, x, y, sb) > subjectDist }
		}
		m.srcClip = clipped(src, all)
	}
	if f.Tool == "color-change" && src != nil {
		if target, err := engine.ParseColor(f.Params["color"]); err == nil {
			m.colourDist, m.colourApplied = colourDistance(img, src, [3]float64{float64(target.R), float64(target.G), float64(target.B)})
		}
	}
	return m
}

// sourceShort reports whether the source is too small for the tier by the
// factor: the tier asks for more pixels than the source holds.
func (m *measures) sourceShort(factor int) bool {
	return m.srcLong > 0 && m.srcLong*factor <= m.tierPx
}

func (m *measures) findings() []Finding {
	var out []Finding
	add := func(c Code, sure bool, fromInput bool, where string) {
		conf := NotSure
		if sure {
			conf = Sure
		}
		out = append(out, Finding{Code: c, Where: where, Confidence: conf, FromInput: fromInput})
	}
	// Resolution against the tier: the frame itself is smaller than promised.
	if float64(m.long) < float64(m.tierPx)*(1-tierShort) {
		add(SoftFocus, true, false, fmt.Sprintf("frame is %d px; the %s tier is %d px", m.long, m.f.Tier, m.tierPx))
	}
	// Sharpness.
	if m.k >= 1 {
		add(SoftFocus, m.k >= softSureBands, m.sourceShort(2), fmt.Sprintf("whole frame: detail of a %d px frame", m.long>>m.k))
	}
	// The source against the tier: past 8x its texture is interpolation.
	if m.sourceShort(textureEnlargement) && m.k >= 3 {
		add(TextureArtifact, true, true, fmt.Sprintf("texture: %d px of source stretched to %d", m.srcLong, m.tierPx))
	} else if m.sourceShort(textureEnlargement/2) && m.k >= 2 {
		add(TextureArtifact, false, true, fmt.Sprintf("texture: %d px of source stretched to %d", m.srcLong, m.tierPx))
	}
	// The subject's outline.
	if m.outline >= bleedNotSure {
		add(BackgroundBleed, m.outline >= bleedSure, m.sourceShort(4), fmt.Sprintf("subject outline fades over %.1f%% of the frame", 100*m.outline))
	}
	if m.fragments >= fragmentNotSure {
		add(BackgroundBleed, m.fragments >= fragmentSure, false, fmt.Sprintf("loose pieces around the cut-out (%.1f%%)", 100*m.fragments))
	}
	if b := m.border; m.touching != "" {
		// The border is the piece there, not the backdrop.
	} else if b != nil && b.spread > borderSpread {
		add(BackgroundBleed, true, false, "backdrop uneven along the "+b.side+" edge")
	} else if b != nil && b.off > borderOff {
		add(BackgroundBleed, true, false, "backdrop off the requested colour ("+b.side+" edge)")
	}
	// Crop: against the destination, and a packshot's subject at the edge.
	if m.destW > 0 && m.destH > 0 {
		want := float64(m.destW) / float64(m.destH)
		got := float64(m.w) / float64(m.h)
		if math.Abs(got-want)/want > aspectOff {
			add(CropCut, true, false, fmt.Sprintf("frame is %dx%d; the destination is %dx%d", m.w, m.h, m.destW, m.destH))
		}
	}
	if m.touching != "" {
		add(CropCut, true, false, "the piece touches the "+m.touching+" edge")
	}
	// Exposure clipping the source did not have: a drift from it. Without
	// a source to compare, never sure; clipping the source already had is
	// the source's, not a drift.
	if excess := m.clip - m.srcClip; m.srcLong > 0 && excess >= clipNotSure {
		add(ColorDrift, excess >= clipSure, false, fmt.Sprintf("clipped highlights or shadows, %.0f%% of the subject", 100*m.clip))
	} else if m.srcLong == 0 && m.clip >= clipNotSure {
		add(ColorDrift, false, false, fmt.Sprintf("clipped highlights or shadows, %.0f%% of the subject", 100*m.clip))
	}
	// A requested colour.
	if m.f.Tool == "color-change" && m.colourDist >= 0 {
		switch {
		case !m.colourApplied:
			add(ColorDrift, true, false, "the requested colour was not applied")
		case m.colourDist >= colourNotSure:
			add(ColorDrift, m.colourDist >= colourSure, false, fmt.Sprintf("garment is %.0f away from %s", m.colourDist, m.f.Params["color"]))
		}
	}
	return out
}

// note is the judge's own account of what it measured, for operators.
func (m *measures) note() string {
	var b strings.Builder
	fmt.Fprintf(&b, "local pixel judge: %dx%d for the %s tier (%d px)", m.w, m.h, m.f.Tier, m.tierPx)
	if m.srcLong > 0 {
		fmt.Fprintf(&b, "; source long edge %d px", m.srcLong)
	}
	fmt.Fprintf(&b, "; empty fine bands %d, finest band share %.3f", m.k, m.s)
	if m.outline >= 0 {
		fmt.Fprintf(&b, "; outline %.4f of the long edge", m.outline)
	}
	if m.fragments >= 0 {
		fmt.Fprintf(&b, "; alpha outside the largest piece %.4f", m.fragments)
	}
	if m.border != nil {
		fmt.Fprintf(&b, "; border off %.1f spread %.1f (%s)", m.border.off, m.border.spread, m.border.side)
	}
	fmt.Fprintf(&b, "; clipped %.4f (source %.4f)", m.clip, m.srcClip)
	if m.colourDist >= 0 {
		fmt.Fprintf(&b, "; colour distance %.1f applied %v", m.colourDist, m.colourApplied)
	}
	return b.String()
}

// backdrop is the plain colour a packshot was asked to stand on: params.bg
// as #rrggbb, white by default; none for an image backdrop or another tool.
func backdrop(f Frame) ([3]float64, bool) {
	if f.Tool != "packshot" {
		return [3]float64{}, false
	}
	switch bg := strings.TrimSpace(f.Params["bg"]); bg {
	case "", "white":
		return [3]float64{255, 255, 255}, true
	case "image":
		return [3]float64{}, false
	default:
		c, err := engine.ParseColor(bg)
		if err != nil {
			return [3]float64{255, 255, 255}, true
		}
		return [3]float64{float64(c.R), float64(c.G), float64(c.B)}, true
	}
}

// subjectDist is how far (RGB) from the backdrop a pixel is the subject's.
const subjectDist = 60.0

func dist(img *image.NRGBA, x, y int, c [3]float64) float64 {
	p := img.Pix[y*img.Stride+4*x:]
	dr, dg, db := float64(p[0])-c[0], float64(p[1])-c[1], float64(p[2])-c[2]
	return math.Sqrt(dr*dr + dg*dg + db*db)
}

func hasAlpha(img *image.NRGBA) bool {
	for y := 0; y < img.Rect.Dy(); y += max(1, img.Rect.Dy()/256) {
		row := img.Pix[y*img.Stride:]
		for x := range img.Rect.Dx() {
			if row[4*x+3] < 250 {
				return true
			}
		}
	}
	return false
}

// outlineWidth is the median, over the columns where a profile p(y)
// (0 = backdrop, 1 = subject) reaches the subject, of the distance from
// its last 10% point above the subject to its first 90% point, as a share
// of the long edge. Only the top of the subject is read: shadows fall
// below and to the side of a packshot's subject, never above it.
func outlineWidth(w, h int, p func(x, y int) float64) float64 {
	var widths []float64
	step := max(1, w/512)
	for x := 0; x < w; x += step {
		y90 := -1
		for y := range h {
			if p(x, y) >= 0.9 {
				y90 = y
				break
			}
		}
		if y90 <= 0 {
			continue
		}
		y10 := y90
		for y10 > 0 && p(x, y10-1) > 0.1 {
			y10--
		}
		widths = append(widths, float64(y90-y10+1))
	}
	if len(widths) < 8 {
		return -1
	}
	slices.Sort(widths)
	return widths[len(widths)/2] / float64(max(w, h))
}

func alphaOutline(img *image.NRGBA) float64 {
	return outlineWidth(img.Rect.Dx(), img.Rect.Dy(), func(x, y int) float64 {
		return float64(img.Pix[y*img.Stride+4*x+3]) / 255
	})
}

// backdropOutline reads the outline against the backdrop colour: a pixel's
// distance from it, as a share of the distance of the subject met in that
// column (its first pixel clearly off the backdrop).
func backdropOutline(img *image.NRGBA, bg [3]float64) float64 {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	var widths []float64
	step := max(1, w/512)
	for x := 0; x < w; x += step {
		// The subject's contrast in this column: the distance a little
		// inside its first clearly-off-backdrop pixel.
		first := -1
		for y := range h {
			if dist(img, x, y, bg) > subjectDist {
				first = y
				break
			}
		}
		if first <= 0 {
			continue
		}
		c := 0.0
		for y := first; y < min(h, first+max(8, h/25)); y++ {
			c = max(c, dist(img, x, y, bg))
		}
		y90 := first
		for y90 < h-1 && dist(img, x, y90, bg) < 0.9*c {
			y90++
		}
		y10 := first
		for y10 > 0 && dist(img, x, y10-1, bg) > 0.1*c {
			y10--
		}
		widths = append(widths, float64(y90-y10+1))
	}
	if len(widths) < 8 {
		return -1
	}
	slices.Sort(widths)
	return widths[len(widths)/2] / float64(max(w, h))
}

// borderReading is a packshot's backdrop along the frame's border: the
// side that strays most from the requested colour, by how much on average
// and how unevenly.
type borderReading struct {
	side        string
	off, spread float64
}

func readBorder(img *image.NRGBA, bg [3]float64) *borderReading {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	band := max(2, max(w, h)/100)
	sides := []struct {
		name           string
		x0, y0, x1, y1 int
	}{
		{"top", 0, 0, w, band}, {"bottom", 0, h - band, w, h}, {"left", 0, 0, band, h}, {"right", w - band, 0, w, h},
	}
	var worst *borderReading
	for _, s := range sides {
		var sum, sum2 float64
		n := 0
		step := max(1, (s.x1-s.x0)*(s.y1-s.y0)/20000)
		i := 0
		for y := s.y0; y < s.y1; y++ {
			for x := s.x0; x < s.x1; x++ {
				if i++; i%step != 0 {
					continue
				}
				d := dist(img, x, y, bg)
				sum += d
				sum2 += d * d
				n++
			}
		}
		mean := sum / float64(n)
		r := &borderReading{side: s.name, off: mean, spread: math.Sqrt(max(0, sum2/float64(n)-mean*mean))}
		if worst == nil || r.off+r.spread > worst.off+worst.spread {
			worst = r
		}
	}
	return worst
}

// borderMedian is the median colour of an image's outermost line.
func borderMedian(img *image.NRGBA) [3]float64 {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	var ch [3][]float64
	addPx := func(x, y int) {
		p := img.Pix[y*img.Stride+4*x:]
		for c := range 3 {
			ch[c] = append(ch[c], float64(p[c]))
		}
	}
	for x := range w {
		addPx(x, 0)
		addPx(x, h-1)
	}
	for y := range h {
		addPx(0, y)
		addPx(w-1, y)
	}
	var out [3]float64
	for c := range 3 {
		slices.Sort(ch[c])
		out[c] = ch[c][len(ch[c])/2]
	}
	return out
}

// touches names the side of the frame a packshot's subject touches: more
// than 1% of that side's outermost line is clearly off the backdrop.
func touches(img *image.NRGBA, bg [3]float64) string {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	count := func(n int, at func(i int) (int, int)) bool {
		c := 0
		for i := range n {
			if x, y := at(i); dist(img, x, y, bg) > subjectDist*2 {
				c++
			}
		}
		return float64(c) > 0.01*float64(n)
	}
	switch {
	case count(w, func(i int) (int, int) { return i, 0 }):
		return "top"
	case count(h, func(i int) (int, int) { return 0, i }):
		return "left"
	case count(h, func(i int) (int, int) { return w - 1, i }):
		return "right"
	case count(w, func(i int) (int, int) { return i, h - 1 }):
		return "bottom"
	}
	return ""
}

// clipped is the share of the subject's pixels clipped to white or black
// in all three channels.
func clipped(img *image.NRGBA, subject func(x, y int) bool) float64 {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	step := max(1, max(w, h)/1024)
	var n, c int
	for y := 0; y < h; y += step {
		row := img.Pix[y*img.Stride:]
		for x := 0; x < w; x += step {
			if !subject(x, y) {
				continue
			}
			n++
			r, g, b := row[4*x], row[4*x+1], row[4*x+2]
			if (r >= 254 && g >= 254 && b >= 254) || (r <= 1 && g <= 1 && b <= 1) {
				c++
			}
		}
	}
	if n == 0 {
		return 0
	}
	return float64(c) / float64(n)
}
