package local

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"math"
	"strings"
	"sync"

	"github.com/disintegration/imaging"
	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"

	"studio/internal/engine"
	"studio/internal/picture"
)

// A framing is how much of the dressed figure a look frame shows and where
// it stands: the window runs from top to bottom of the figure's height
// (fractions; a negative top is air above the head), fills fill of the
// frame's height, and the figure's axis stands at axis of the frame's
// width. A window that ends above the feet runs off the frame's bottom.
type framing struct {
	name          string
	top, bottom   float64
	fill, axis    float64
	swatches      bool // the other pieces in a column at the right edge
	mirror, piece bool // mirrored (back); the hero piece's own asset (detail)
	card          bool // the posture's words on a card at the right (posture keys)
}

var (
	fullLength    = framing{name: "full length", top: 0, bottom: 1, fill: 0.88, axis: 0.5, swatches: true}
	wideLength    = framing{name: "full length, wide", top: 0, bottom: 1, fill: 0.6, axis: 0.36, swatches: true}
	threeQuarters = framing{name: "three-quarter length", top: -0.04, bottom: 0.7, fill: 0.96, axis: 0.46, swatches: true}
	halfLength    = framing{name: "half length", top: -0.05, bottom: 0.5, fill: 0.96, axis: 0.5}
	headShoulders = framing{name: "head and shoulders", top: -0.05, bottom: 0.3, fill: 0.96, axis: 0.5}
	pieceDetail   = framing{name: "hero piece at full resolution", piece: true}
	// postureCard is a posture key's framing: the proof cannot pose the
	// figure, so it stands full length off-centre beside a card that
	// writes out the pose it was asked for (the posture's definition and
	// its stored controls), which a generating provider would render.
	postureCard = framing{name: "full length beside the pose card", top: 0, bottom: 1, fill: 0.8, axis: 0.3, card: true}
)

// keyFramings is the framing of each variation key: the proof moves no
// limbs, so a key names a framing of the material, never a pose; a
// posture key stands beside its pose card (postureCard), and any key not
// listed is full length.
var keyFramings = map[string]framing{
	"front":         fullLength,
	"back":          {name: "full length, mirrored", top: 0, bottom: 1, fill: 0.88, axis: 0.5, swatches: true, mirror: true},
	"side":          threeQuarters,
	"three-quarter": threeQuarters,
	"walking":       wideLength,
	"seated":        halfLength,
	"close-up":      headShoulders,
	"detail":        pieceDetail,
}

// keyOrder is the variation keys in the order a band names them.
var keyOrder = []string{"front", "back", "side", "three-quarter", "walking", "seated", "close-up", "detail"}

// alike names, for a band, what else is framed as key's framing f: the
// look base (the lock frame) when f is full length, and the other keys
// framed the same, so that a proof never passes one framing off as two
// (issue 32: side and three-quarter, front and the lock frame); "" when
// nothing is.
func alike(key string, f framing) string {
	var same []string
	if f == fullLength {
		same = append(same, "the look base")
	}
	for _, k := range keyOrder {
		if k != key && keyFramings[k] == f {
			same = append(same, k)
		}
	}
	if len(same) == 0 {
		return ""
	}
	return ", framed as " + strings.Join(same, " and ")
}

// ProofMark is the words every local look frame carries.
const ProofMark = "PROOF, local engine"

// posturePrefix starts a posture key (look.PosturePrefix).
const posturePrefix = "posture:"

// frameOf is the framing of r and the mark's words: the lock frame is full
// length; a variation (with a base input) takes its key's framing, and its
// words say when that framing is another key's or the look base's too,
// and that back is the figure mirrored, not turned.
func frameOf(r engine.Request) (framing, string) {
	if _, ok := r.Input("base"); !ok {
		return fullLength, ProofMark + " · look base, " + fullLength.name
	}
	key := r.Param("key")
	if _, ok := r.Input("item"); !ok && key == "detail" {
		return headShoulders, ProofMark + " · detail without a piece: " + headShoulders.name
	}
	if id, ok := strings.CutPrefix(key, posturePrefix); ok {
		return postureCard, ProofMark + " · posture " + id + " not rendered: " + postureCard.name
	}
	f, ok := keyFramings[key]
	if !ok {
		return fullLength, ProofMark + " · " + fullLength.name
	}
	words := ProofMark + " · " + key + ": " + f.name + alike(key, f)
	if f.mirror {
		words += " (not turned)"
	}
	return f, words
}

// maxDressEdge caps the long edge the model is matted and dressed at: the
// close-up's pixels come from it.
const maxDressEdge = 2400

// dressed is the model cut out of its photo at its own resolution (long
// edge at most maxDressEdge), fig measured on it, and every piece cut
// out, hero first; heroAt is where the hero lies on the body in img's pixels, as
// tryon lays a top (empty when it lies nowhere: it is then a swatch).
type dressed struct {
	img    *image.NRGBA
	fig    figure
	cuts   []*image.NRGBA
	heroAt image.Rectangle
}

// dressModel mattes the model and the pieces and places the hero.
func dressModel(ctx context.Context, r engine.Request) (dressed, error) {
	model, err := decodeRole(r, "model")
	if err != nil {
		return dressed{}, err
	}
	// A look stands a figure: a photo the engine cannot separate into one
	// (a portrait, a figure on a real ground, a product) is refused, as
	// try-on refuses it, never staged whole on a card.
	if err := lookFigure(ctx, model); err != nil {
		return dressed{}, err
	}
	model = picture.FitLong(model, maxDressEdge)
	m, err := findMatteOn(model, r.Tool, need{plainOnly: true, kind: cutFigure})
	if err != nil {
		return dressed{}, noFigure(err)
	}
	d := dressed{img: cutout(model, m, model.Rect), fig: measureFigure(m)}
	if err := alive(ctx); err != nil {
		return dressed{}, err
	}
	for i, data := range r.All("item") {
		piece, err := engine.DecodeInput(r.Tool, fmt.Sprintf("item %d", i+1), data)
		if err != nil {
			return dressed{}, err
		}
		piece = picture.FitLong(piece, maxDressEdge)
		cut := piece
		if m, err := findMatte(piece, r.Tool); err == nil {
			cut = cutout(piece, m, m.box)
		}
		d.cuts = append(d.cuts, cut)
	}
	if len(d.cuts) > 0 {
		f, cut := d.fig, d.cuts[0]
		pw := 1.15 * f.shoulderW
		ph := float64(cut.Rect.Dy()) * pw / float64(cut.Rect.Dx())
		px, py := f.axis-pw/2, f.shoulderY-0.035*f.height
		d.heroAt = image.Rect(int(math.Round(px)), int(math.Round(py)), int(math.Round(px+pw)), int(math.Round(py+ph)))
	}
	return d, nil
}

// stage draws the dressed figure on ground in framing f: only the part of
// the figure inside the frame is resampled, from the model photo's own
// pixels, and the hero piece is laid on the body at the frame's scale from
// its own asset.
func stage(ground *image.NRGBA, d dressed, f framing) {
	w, h := ground.Rect.Dx(), ground.Rect.Dy()
	top, height, axis := d.fig.top, d.fig.height, d.fig.axis
	y0, y1 := top+f.top*height, top+f.bottom*height
	s := f.fill * float64(h) / (y1 - y0)
	// Where the figure's pixel (0, 0) lands in the frame: a full figure
	// stands 4% above the bottom; a window that ends above the feet, or a
	// figure the photo itself cuts at the bottom, runs off the bottom.
	oy := float64(h) - 0.04*float64(h) - y1*s
	if f.bottom < 1 || y1 >= float64(d.img.Rect.Dy()-2) {
		oy = float64(h) - y1*s
	}
	ox := f.axis*float64(w) - axis*s
	at := func(r image.Rectangle) image.Rectangle { // figure pixels to frame pixels
		return image.Rect(int(math.Round(ox+float64(r.Min.X)*s)), int(math.Round(oy+float64(r.Min.Y)*s)),
			int(math.Round(ox+float64(r.Max.X)*s)), int(math.Round(oy+float64(r.Max.Y)*s)))
	}
	// The source rectangle the frame sees.
	src := image.Rect(int(math.Floor(-ox/s)), int(math.Floor(-oy/s)), int(math.Ceil((float64(w)-ox)/s)), int(math.Ceil((float64(h)-oy)/s))).
		Intersect(d.img.Rect)
	if !src.Empty() {
		dst := at(src)
		over(ground, imaging.Resize(imaging.Crop(d.img, src), max(1, dst.Dx()), max(1, dst.Dy()), imaging.Lanczos), dst.Min.X, dst.Min.Y)
	}
	if d.heroAt.Empty() {
		return
	}
	dst := at(d.heroAt)
	if !dst.Overlaps(ground.Rect) {
		return
	}
	placed := imaging.Resize(d.cuts[0], max(1, dst.Dx()), max(1, dst.Dy()), imaging.Lanczos)
	bodyShadow(ground, placed, dst.Min.X, dst.Min.Y)
	over(ground, placed, dst.Min.X, dst.Min.Y)
}

// swatches lays the pieces not on the body in a column down the right
// edge, each 16% of the frame's height.
func swatches(ground *image.NRGBA, d dressed) {
	w, h := ground.Rect.Dx(), ground.Rect.Dy()
	laid := 0
	if !d.heroAt.Empty() {
		laid = 1
	}
	for slot, cut := range d.cuts[laid:] {
		sh := int(0.16 * float64(h))
		sw := max(1, int(math.Round(float64(cut.Rect.Dx())*float64(sh)/float64(cut.Rect.Dy()))))
		if sw > w/5 {
			sw = w / 5
			sh = max(1, int(math.Round(float64(cut.Rect.Dy())*float64(sw)/float64(cut.Rect.Dx()))))
		}
		over(ground, imaging.Resize(cut, sw, sh, imaging.Lanczos), w-sw-w/40, h/40+slot*(sh+h/60))
	}
}

// pieceFrame is the detail: a window of the hero piece's own asset, at its
// full resolution, around the upper middle of the piece (a collar, a
// clasp, the weave), half the piece's height, filling the frame.
func pieceFrame(ctx context.Context, r engine.Request, w, h int) (*image.NRGBA, error) {
	data, _ := r.Input("item")
	piece, err := engine.DecodeInput(r.Tool, "item 1", data)
	if err != nil {
		return nil, err
	}
	box := piece.Rect
	small := picture.FitLong(piece, 1024)
	if m, err := findMatte(small, r.Tool); err == nil {
		k := float64(piece.Rect.Dx()) / float64(small.Rect.Dx())
		box = image.Rect(int(float64(m.box.Min.X)*k), int(float64(m.box.Min.Y)*k), int(math.Ceil(float64(m.box.Max.X)*k)), int(math.Ceil(float64(m.box.Max.Y)*k))).
			Intersect(piece.Rect)
	}
	if err := alive(ctx); err != nil {
		return nil, err
	}
	aspect := float64(w) / float64(h)
	wh := 0.5 * float64(box.Dy())
	ww := wh * aspect
	if lim := 0.7 * float64(box.Dx()); ww > lim {
		ww, wh = lim, lim/aspect
	}
	cx, cy := float64(box.Min.X+box.Max.X)/2, float64(box.Min.Y)+0.3*float64(box.Dy())
	x0 := math.Max(0, math.Min(cx-ww/2, float64(piece.Rect.Dx())-ww))
	y0 := math.Max(0, math.Min(cy-wh/2, float64(piece.Rect.Dy())-wh))
	win := image.Rect(int(x0), int(y0), int(math.Round(x0+ww)), int(math.Round(y0+wh))).Intersect(piece.Rect)
	return imaging.Fill(picture.Flatten(imaging.Crop(piece, win)), w, h, imaging.Center, imaging.Lanczos), nil
}

// poseCard writes what a posture key asked for on a light card in the
// right part of the frame: "POSE, not rendered", the posture's definition
// (params.posture) and its stored controls (params.control.*), wrapped to
// the card's width.
func poseCard(img *image.NRGBA, r engine.Request) error {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	card := image.Rect(int(0.58*float64(w)), int(0.06*float64(h)), int(0.95*float64(w)), int(0.06*float64(h)))
	size := max(8, 0.03*float64(h))
	pad := int(0.6 * size)
	f, err := markFace()
	if err != nil {
		return err
	}
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingFull})
	if err != nil {
		return err
	}
	defer face.Close()
	lines := []string{"POSE, not rendered"}
	text := oneLineText(r.Param("posture"))
	if text == "" {
		text = "a natural fashion pose"
	}
	lines = append(lines, wrapWords(face, text, card.Dx()-2*pad)...)
	for _, c := range []struct{ axis, value string }{ // the posture axes, in their order
		{"gaze", r.Param("control.gaze")}, {"weight", r.Param("control.weight")},
		{"arms", r.Param("control.arms")}, {"energy", r.Param("control.energy")},
	} {
		if v := oneLineText(c.value); v != "" {
			lines = append(lines, wrapWords(face, c.axis+": "+v, card.Dx()-2*pad)...)
		}
	}
	if len(lines) > 14 {
		lines = append(lines[:13], "...")
	}
	step := int(1.35 * size)
	card.Max.Y = card.Min.Y + 2*pad + step*len(lines)
	draw.Draw(img, card, image.NewUniform(color.NRGBA{R: 250, G: 248, B: 242, A: 230}), image.Point{}, draw.Over)
	ink := image.NewUniform(color.NRGBA{R: 24, G: 24, B: 24, A: 255})
	for i, line := range lines {
		dr := font.Drawer{Dst: img, Src: ink, Face: face,
			Dot: fixed.P(card.Min.X+pad, card.Min.Y+pad+step*i+int(size))}
		dr.DrawString(line)
	}
	return nil
}

// oneLineText folds runs of white space (new lines included) to one space.
func oneLineText(s string) string { return strings.Join(strings.Fields(s), " ") }

// wrapWords breaks text into lines no wider than width in face; a word
// wider than the line stands alone.
func wrapWords(face font.Face, text string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		next := word
		if line != "" {
			next = line + " " + word
		}
		if line != "" && font.MeasureString(face, next).Ceil() > width {
			lines = append(lines, line)
			next = word
		}
		line = next
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// markFace is the mark's typeface, Go Bold, parsed once.
var markFace = sync.OnceValues(func() (*opentype.Font, error) { return opentype.Parse(gobold.TTF) })

// markProof writes the proof's mark on img: a dark band across the bottom,
// 4% of the frame's height, with the words in white.
func markProof(img *image.NRGBA, words string) error {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	band := max(16, int(0.04*float64(h)))
	dark := image.NewUniform(color.NRGBA{R: 12, G: 12, B: 12, A: 200})
	draw.Draw(img, image.Rect(0, h-band, w, h), dark, image.Point{}, draw.Over)
	f, err := markFace()
	if err != nil {
		return err
	}
	size := 0.55 * float64(band)
	margin := 0.5 * float64(band)
	var face font.Face
	for {
		face, err = opentype.NewFace(f, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingFull})
		if err != nil {
			return err
		}
		if font.MeasureString(face, words).Ceil() <= w-int(2*margin) || size < 6 {
			break
		}
		face.Close()
		size *= 0.9
	}
	defer face.Close()
	dr := font.Drawer{Dst: img, Src: image.White, Face: face,
		Dot: fixed.P(int(margin), h-band+int(0.5*float64(band)+0.36*size))}
	dr.DrawString(words)
	return nil
}
