package judge

import (
	"fmt"
	"image"
	"math"
	"slices"
	"strings"

	"github.com/disintegration/imaging"
)

// What the pixel judge sees of the local tools' frames beyond sharpness,
// exposure and outline (issue 32): a face the tool should not have touched,
// the piece the frame was meant to show, a subject standing over the
// scene's own, a proof that is not marked as one. A proof or a composite
// never scores 100.
const (
	// The most a frame the engine made as a proof or a composite may score.
	composedCap = 90
	// The most a proof without its PROOF band, or a composite whose
	// subject covers the scene's own, may score: flagged.
	brokenCap = 60
	// A face (the source's skin) changed by more than this mean colour
	// distance, or left with less than this share of its detail, was
	// touched.
	faceColour = 12.0
	faceDetail = 0.75
	// The piece's colour covers less than this share of the frame: it is
	// not there.
	pieceLeast = 0.02
	// The subject covers more than this share of the scene's salient mass.
	sceneCovered = 0.3
)

// seen reads what the frame shows of its request, and returns the
// findings, the cap and the notes.
func seen(img *image.NRGBA, src *image.NRGBA, f Frame) ([]Finding, int, []string) {
	var out []Finding
	var notes []string
	capAt := 0
	lower := func(c int) {
		if capAt == 0 || c < capAt {
			capAt = c
		}
	}
	if f.Note != "" {
		lower(composedCap)
		notes = append(notes, "the engine made this frame as a proof or a composite: "+f.Note)
		if f.Tool == "lookbook" && !proofBand(img) {
			lower(brokenCap)
			notes = append(notes, "the frame is not marked as a proof (no PROOF band at its foot)")
		}
	}
	if (f.Tool == "iron" || f.Tool == "color-change") && src != nil {
		if dc, dd, ok := faceChange(img, src); ok && (dc > faceColour || dd < faceDetail) {
			out = append(out, Finding{Code: FaceDrift, Confidence: Sure, Where: fmt.Sprintf("face and skin: colour moved %.0f, detail %.0f%%", dc, 100*dd)})
		}
	}
	if len(f.Garment) > 0 && (f.Tool == "tryon" || f.Tool == "lookbook") {
		if g, err := decodeFrame(f.Garment); err == nil {
			if share, c, ok := pieceShare(img, g); ok && share < pieceLeast {
				out = append(out, Finding{Code: GarmentDrift, Confidence: Sure, Where: fmt.Sprintf("the piece's colour (%s) covers %.1f%% of the frame", c, 100*share)})
			}
		}
	}
	if f.Tool == "harmonize" && len(f.Scene) > 0 {
		if sc, err := decodeFrame(f.Scene); err == nil {
			if c, ok := sceneCover(img, sc); ok && c > sceneCovered {
				lower(brokenCap)
				notes = append(notes, fmt.Sprintf("the subject stands over the scene's own subject (%.0f%% of what stands out in the scene is covered)", 100*c))
			}
		}
	}
	return out, capAt, notes
}

// proofBand reports whether the frame carries the local proofs' mark: a
// dark band across its bottom (3% of the height) with light lettering,
// dark over at least 80% of it and at both ends.
func proofBand(img *image.NRGBA) bool {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	band := max(8, h*3/100)
	light, dark, n := 0, 0, 0
	ends := true
	for y := h - band; y < h; y++ {
		for x := 0; x < w; x += max(1, w/400) {
			p := img.Pix[y*img.Stride+4*x:]
			l := 0.299*float64(p[0]) + 0.587*float64(p[1]) + 0.114*float64(p[2])
			switch {
			case l > 180:
				light++
			case l < 60:
				dark++
			}
			if (x < w/50 || x >= w-w/50) && l >= 60 {
				ends = false
			}
			n++
		}
	}
	return n > 0 && ends && dark*10 >= n*8 && light > n/200
}

// skinTone is the classic YCbCr skin test (Cb 77..127, Cr 133..173).
func skinTone(r, g, b uint8) bool {
	fr, fg, fb := float64(r), float64(g), float64(b)
	cb := 128 - 0.168736*fr - 0.331264*fg + 0.5*fb
	cr := 128 + 0.5*fr - 0.418688*fg - 0.081312*fb
	return cb >= 77 && cb <= 127 && cr >= 133 && cr <= 173
}

// faceChange compares the frame with its source over the source's skin
// (read at 384 px on the long edge, where the frame has the source's
// aspect): the mean colour distance there and the share of its detail (the
// mean absolute Laplacian) the frame kept. It reports false when the
// frames cannot be compared or the source shows too little skin.
func faceChange(img, src *image.NRGBA) (float64, float64, bool) {
	sa := float64(src.Rect.Dx()) / float64(src.Rect.Dy())
	fa := float64(img.Rect.Dx()) / float64(img.Rect.Dy())
	if math.Abs(sa-fa)/sa > 0.02 {
		return 0, 0, false
	}
	w, h := 384, max(1, int(math.Round(384/sa)))
	if sa < 1 {
		w, h = max(1, int(math.Round(384*sa))), 384
	}
	a := imaging.Resize(src, w, h, imaging.Box)
	b := imaging.Resize(img, w, h, imaging.Box)
	var dist, la, lb float64
	n := 0
	lum := func(m *image.NRGBA, x, y int) float64 {
		p := m.Pix[y*m.Stride+4*x:]
		return 0.299*float64(p[0]) + 0.587*float64(p[1]) + 0.114*float64(p[2])
	}
	lap := func(m *image.NRGBA, x, y int) float64 {
		return math.Abs(4*lum(m, x, y) - lum(m, x-1, y) - lum(m, x+1, y) - lum(m, x, y-1) - lum(m, x, y+1))
	}
	for y := 1; y < h-1; y++ {
		for x := 1; x < w-1; x++ {
			p := a.Pix[y*a.Stride+4*x:]
			if !skinTone(p[0], p[1], p[2]) {
				continue
			}
			q := b.Pix[y*b.Stride+4*x:]
			dr, dg, db := float64(p[0])-float64(q[0]), float64(p[1])-float64(q[1]), float64(p[2])-float64(q[2])
			dist += math.Sqrt(dr*dr + dg*dg + db*db)
			la += lap(a, x, y)
			lb += lap(b, x, y)
			n++
		}
	}
	if n < w*h/100 || la == 0 {
		return 0, 0, false
	}
	return dist / float64(n), lb / la, true
}

// pieceShare reads a piece's own colour (the median of its pixels far
// from its border's colour, its backdrop) and answers the share of the
// frame within 40 levels of it, and the colour as #rrggbb. It reports
// false when the piece has no colour of its own to look for.
func pieceShare(img, piece *image.NRGBA) (float64, string, bool) {
	small := imaging.Fit(piece, 256, 256, imaging.Box)
	bg := borderMedian(small)
	var ch [3][]float64
	for y := range small.Rect.Dy() {
		for x := range small.Rect.Dx() {
			if dist(small, x, y, bg) > 60 {
				p := small.Pix[y*small.Stride+4*x:]
				for c := range 3 {
					ch[c] = append(ch[c], float64(p[c]))
				}
			}
		}
	}
	if len(ch[0]) < 64 {
		return 0, "", false
	}
	var col [3]float64
	for c := range 3 {
		slices.Sort(ch[c])
		col[c] = ch[c][len(ch[c])/2]
	}
	frame := imaging.Fit(img, 384, 384, imaging.Box)
	in, n := 0, 0
	for y := range frame.Rect.Dy() {
		for x := range frame.Rect.Dx() {
			n++
			if dist(frame, x, y, col) <= 40 {
				in++
			}
		}
	}
	return float64(in) / float64(n), fmt.Sprintf("#%02x%02x%02x", int(col[0]), int(col[1]), int(col[2])), true
}

// sceneCover is the share of the scene's salient mass (its cells far in
// colour from the scene's border) that the frame changed: where a
// composite stood its subject over what stood out in the scene. It reports
// false when the frame is not the scene's shape or the scene has nothing
// that stands out.
func sceneCover(img, scene *image.NRGBA) (float64, bool) {
	const gw = 64
	gh := max(1, gw*img.Rect.Dy()/img.Rect.Dx())
	a := imaging.Fill(scene, gw, gh, imaging.Center, imaging.Box)
	b := imaging.Resize(img, gw, gh, imaging.Box)
	border := borderMedian(a)
	var total, covered float64
	for y := range gh {
		for x := range gw {
			s := max(0, dist(a, x, y, border)-50)
			if s == 0 {
				continue
			}
			total += s
			p := a.Pix[y*a.Stride+4*x:]
			if dist(b, x, y, [3]float64{float64(p[0]), float64(p[1]), float64(p[2])}) > 40 {
				covered += s
			}
		}
	}
	if total == 0 {
		return 0, false
	}
	return covered / total, true
}

// joinNotes appends notes to a judge's note.
func joinNotes(note string, notes []string) string {
	if len(notes) == 0 {
		return note
	}
	return note + "; " + strings.Join(notes, "; ")
}
