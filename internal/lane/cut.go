package lane

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/draw"
	"image/jpeg"
	"image/png"
	"math"
	"path"
	"strings"

	"github.com/disintegration/imaging"

	"studio/internal/asset"
	"studio/internal/auth"
	"studio/internal/engine"
	"studio/internal/engine/segment"
	"studio/internal/errs"
	"studio/internal/ledger"
	"studio/internal/picture"
)

// Picture is what depth answers: the depth map as a data: URL.
type Picture struct {
	URL   string `json:"url" description:"The picture as a data: URL (PNG); nothing is stored."`
	Spent int64  `json:"spent" description:"Tokens charged."`
}

// Depth makes a depth map of a picture with fal (503 FAL_NOT_CONFIGURED
// without it: the local engine has no depth model).
func (s *Service) Depth(ctx context.Context, p auth.Principal, im Image) (Picture, error) {
	if err := p.MaySpend(); err != nil {
		return Picture{}, err
	}
	if s.opts.Fal == nil {
		return Picture{}, errs.Msg(errs.FalNotConfigured, "A depth map needs the fal engine, which is not configured.")
	}
	var out Picture
	spent, err := s.charge(ctx, p, "depth", s.price("depth"), func(ctx context.Context, _ string) (bool, error) {
		data, err := s.opts.Fal.Model(ctx, "depth", s.opts.Models["depth"], map[string]any{"image_url": dataURL(im.Data)})
		if err != nil {
			return false, falError(ErrDepthFailed, err)
		}
		if asset.Sniff(data) == "" {
			return false, errs.Wrap(ErrDepthFailed, errors.New("lane: fal's depth map is not a JPEG, PNG or WebP image"))
		}
		out.URL = dataURL(data)
		return false, nil
	})
	out.Spent = spent
	return out, err
}

// falError keeps a stopped context's error and makes anything else code.
func falError(code *errs.Error, err error) error {
	if errors.Is(err, context.Canceled) {
		return err
	}
	return errs.Wrap(code, err)
}

// SegmentRequest is the body of segment.
type SegmentRequest struct {
	ImageURL string    `json:"imageUrl" required:"true" description:"One of the house's assets (its url or id) or a data: URL."`
	Label    string    `json:"label" description:"What to cut out, in words (fal only)."`
	Box      []float64 `json:"box" description:"[x0, y0, x1, y1] in pixels of the picture as displayed (EXIF orientation applied)."`
	Point    []float64 `json:"point" description:"[x, y] on the subject, in pixels of the picture as displayed."`
}

// Cutout is what segment answers.
type Cutout struct {
	URL   string `json:"url" description:"The cut-out, RGBA PNG cropped to bbox, as a data: URL; nothing is stored."`
	BBox  [4]int `json:"bbox" description:"[x0, y0, x1, y1] of the cut-out in pixels of the picture as displayed."`
	Spent int64  `json:"spent" description:"Tokens charged."`
}

// target is a checked segment target, in pixels of the upright picture.
type target struct {
	label string
	box   *image.Rectangle
	point *image.Point
}

// checkTarget reads the target against the upright size w x h.
func (r SegmentRequest) checkTarget(w, h int) (target, error) {
	t := target{label: cutRunes(fold(r.Label), 200)}
	if r.Box != nil {
		if len(r.Box) != 4 || !finite(r.Box...) || r.Box[0] >= r.Box[2] || r.Box[1] >= r.Box[3] {
			return t, errs.Msg(ErrTargetRequired, "box must be [x0, y0, x1, y1] with x0 < x1 and y0 < y1.")
		}
		b := image.Rect(int(math.Floor(r.Box[0])), int(math.Floor(r.Box[1])), int(math.Ceil(r.Box[2])), int(math.Ceil(r.Box[3]))).
			Intersect(image.Rect(0, 0, w, h))
		if b.Dx() < segment.MinEdge || b.Dy() < segment.MinEdge {
			return t, errs.Msg(ErrTargetRequired, fmt.Sprintf("box must cover at least %d x %d pixels of the %d x %d picture.", segment.MinEdge, segment.MinEdge, w, h))
		}
		t.box = &b
	}
	if r.Point != nil {
		if len(r.Point) != 2 || !finite(r.Point...) || r.Point[0] < 0 || r.Point[1] < 0 || r.Point[0] >= float64(w) || r.Point[1] >= float64(h) {
			return t, errs.Msg(ErrTargetRequired, fmt.Sprintf("point must be [x, y] inside the %d x %d picture.", w, h))
		}
		t.point = &image.Point{X: int(r.Point[0]), Y: int(r.Point[1])}
	}
	if t.label == "" && t.box == nil && t.point == nil {
		return t, ErrTargetRequired
	}
	return t, nil
}

func finite(v ...float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// Segment cuts out what the target names: with fal (SAM 2 for a box or a
// point, EVF-SAM for a label alone) when it is configured, else with the
// local engine's subject separation seeded by the box (the picture is cut
// to the box and a margin, whose border is the ground) or the point (the
// separated part under it), delivered only when it is confident.
func (s *Service) Segment(ctx context.Context, p auth.Principal, in SegmentRequest) (Cutout, error) {
	if err := p.MaySpend(); err != nil {
		return Cutout{}, err
	}
	im, err := s.ImageAt(ctx, p, in.ImageURL)
	if err != nil {
		return Cutout{}, err
	}
	t, err := in.checkTarget(im.Info.Width, im.Info.Height)
	if err != nil {
		return Cutout{}, err
	}
	if s.opts.Fal == nil && t.box == nil && t.point == nil {
		return Cutout{}, errs.Msg(errs.FalNotConfigured, "Cutting out by label needs the fal engine, which is not configured; give a box or a point.")
	}
	img, done, err := s.upright(ctx, im)
	if err != nil {
		return Cutout{}, err
	}
	defer done()
	var out Cutout
	spent, err := s.charge(ctx, p, "segment", s.price("segment"), func(ctx context.Context, _ string) (bool, error) {
		var alpha []float32
		var err error
		if s.opts.Fal != nil {
			alpha, err = s.falMask(ctx, img, t)
		} else {
			alpha, err = localMask(ctx, img, t)
		}
		if err != nil {
			return false, err
		}
		cut, bbox, ok := cutOut(img, alpha)
		if !ok {
			return false, errs.Wrap(ErrSegmentFailed, errors.New("lane: the mask is empty"))
		}
		var buf bytes.Buffer
		if err := png.Encode(&buf, cut); err != nil {
			return false, errs.Wrap(ErrSegmentFailed, err)
		}
		out.URL, out.BBox = dataURL(buf.Bytes()), [4]int{bbox.Min.X, bbox.Min.Y, bbox.Max.X, bbox.Max.Y}
		return false, nil
	})
	out.Spent = spent
	return out, err
}

// upright decodes im with its EXIF orientation applied, as NRGBA.
func (s *Service) upright(ctx context.Context, im Image) (*image.NRGBA, func(), error) {
	img, done, err := s.decode(ctx, im)
	if err != nil {
		return nil, nil, err
	}
	up := picture.Upright(img, im.Info.Orientation)
	if n, ok := up.(*image.NRGBA); ok && n.Rect.Min == (image.Point{}) {
		return n, done, nil
	}
	b := up.Bounds()
	n := image.NewNRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(n, n.Rect, up, b.Min, draw.Src)
	return n, done, nil
}

// localMask separates the target's subject with engine/segment and
// answers its alpha over the whole picture. A separation that is not
// confident, or a point off the subject found, is 503 FAL_NOT_CONFIGURED:
// only a provider could do better.
func localMask(ctx context.Context, img *image.NRGBA, t target) ([]float32, error) {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	region := img.Rect
	if t.box != nil {
		mx, my := max(8, t.box.Dx()/10), max(8, t.box.Dy()/10)
		region = image.Rect(t.box.Min.X-mx, t.box.Min.Y-my, t.box.Max.X+mx, t.box.Max.Y+my).Intersect(img.Rect)
	}
	crop := imaging.Crop(img, region)
	cut, err := segment.Separate(ctx, crop, segment.Options{})
	if errors.Is(err, segment.ErrTooSmall) {
		return nil, errs.Msg(errs.FalNotConfigured, "The region is too small for the local engine to separate; fal is not configured.")
	}
	if err != nil {
		return nil, err
	}
	if !cut.Confidence.Confident() {
		return nil, errs.Msg(errs.FalNotConfigured, fmt.Sprintf(
			"The local engine could not separate the subject cleanly (confidence %.2f, %s); a cleaner target needs the fal engine, which is not configured.",
			cut.Confidence.Score, cut.Confidence.Problem))
	}
	matte := cut.Matte(crop)
	cw, ch := crop.Rect.Dx(), crop.Rect.Dy()
	if t.point != nil {
		keep, ok := componentAt(cut, cw, ch, t.point.X-region.Min.X, t.point.Y-region.Min.Y)
		if !ok {
			return nil, errs.Msg(errs.FalNotConfigured, "The point is not on the subject the local engine found; fal is not configured.")
		}
		ww, wh := cut.Size()
		for y := range ch {
			wy := min(wh-1, y*wh/ch)
			for x := range cw {
				if !keep[wy*ww+min(ww-1, x*ww/cw)] {
					matte[y*cw+x] = 0
				}
			}
		}
	}
	alpha := make([]float32, w*h)
	for y := range ch {
		copy(alpha[(y+region.Min.Y)*w+region.Min.X:], matte[y*cw:(y+1)*cw])
	}
	return alpha, nil
}

// componentAt is the connected part of the cut's working mask under the
// point (x, y) of a cw x ch picture, 8-connected; false when the point is
// on the ground.
func componentAt(cut *segment.Cut, cw, ch, x, y int) ([]bool, bool) {
	ww, wh := cut.Size()
	mask := cut.Mask()
	start := min(wh-1, y*wh/ch)*ww + min(ww-1, x*ww/cw)
	if !mask[start] {
		return nil, false
	}
	keep := make([]bool, len(mask))
	keep[start] = true
	stack := []int{start}
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		ix, iy := i%ww, i/ww
		for dy := -1; dy <= 1; dy++ {
			for dx := -1; dx <= 1; dx++ {
				nx, ny := ix+dx, iy+dy
				if nx < 0 || ny < 0 || nx >= ww || ny >= wh {
					continue
				}
				if j := ny*ww + nx; mask[j] && !keep[j] {
					keep[j] = true
					stack = append(stack, j)
				}
			}
		}
	}
	return keep, true
}

// falMask asks fal for the target's mask and reads it as alpha over the
// whole picture (its luminance, or its own alpha when it has one).
func (s *Service) falMask(ctx context.Context, img *image.NRGBA, t target) ([]float32, error) {
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 92}); err != nil {
		return nil, errs.Wrap(ErrSegmentFailed, err)
	}
	in := map[string]any{"image_url": dataURL(buf.Bytes())}
	model := s.opts.Models["segment"]
	if t.box == nil && t.point == nil {
		model = s.opts.Models["segment+label"]
		if model == "" {
			model = "fal-ai/evf-sam"
		}
		in["prompt"], in["mask_only"] = t.label, true
	} else {
		if t.point != nil {
			in["prompts"] = []map[string]any{{"x": t.point.X, "y": t.point.Y, "label": 1}}
		}
		if t.box != nil {
			in["box_prompts"] = []map[string]any{{"x_min": t.box.Min.X, "y_min": t.box.Min.Y, "x_max": t.box.Max.X, "y_max": t.box.Max.Y}}
		}
	}
	data, err := s.opts.Fal.Model(ctx, "segment", model, in)
	if err != nil {
		return nil, falError(ErrSegmentFailed, err)
	}
	mask, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, errs.Wrap(ErrSegmentFailed, fmt.Errorf("lane: fal's mask: %w", err))
	}
	w, h := img.Rect.Dx(), img.Rect.Dy()
	m := imaging.Resize(mask, w, h, imaging.Linear)
	transparent := false
	for i := 3; i < len(m.Pix); i += 4 {
		if m.Pix[i] < 250 {
			transparent = true
			break
		}
	}
	alpha := make([]float32, w*h)
	for i := range alpha {
		px := m.Pix[i*4 : i*4+4]
		if transparent {
			alpha[i] = float32(px[3]) / 255
		} else {
			alpha[i] = (0.299*float32(px[0]) + 0.587*float32(px[1]) + 0.114*float32(px[2])) / 255
		}
	}
	return alpha, nil
}

// cutOut is img with alpha as its alpha, cropped to where alpha is at
// least one half; false when it is nowhere.
func cutOut(img *image.NRGBA, alpha []float32) (*image.NRGBA, image.Rectangle, bool) {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	bbox := image.Rectangle{}
	for y := range h {
		for x := range w {
			if alpha[y*w+x] >= 0.5 {
				bbox = bbox.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	if bbox.Empty() {
		return nil, bbox, false
	}
	out := image.NewNRGBA(image.Rect(0, 0, bbox.Dx(), bbox.Dy()))
	for y := range bbox.Dy() {
		for x := range bbox.Dx() {
			sx, sy := x+bbox.Min.X, y+bbox.Min.Y
			si, di := img.PixOffset(sx, sy), out.PixOffset(x, y)
			a := float32(img.Pix[si+3]) / 255 * max(0, min(1, alpha[sy*w+sx]))
			copy(out.Pix[di:di+3], img.Pix[si:si+3])
			out.Pix[di+3] = uint8(a*255 + 0.5)
		}
	}
	return out, bbox, true
}

// Removed is what remove-background answers.
type Removed struct {
	URL     string `json:"url" description:"The cut-out's file route."`
	Spent   int64  `json:"spent" description:"Tokens charged."`
	AssetID string `json:"assetId" description:"The cut-out, stored as an asset of the house (tool remove-background)."`
}

// tierOf is the tier whose long edge is nearest above the picture's, so a
// cut-out keeps the picture's detail without being blown up far past it.
func tierOf(w, h int) ledger.Tier {
	switch long := max(w, h); {
	case long <= 1024:
		return ledger.Tier1K
	case long <= 2048:
		return ledger.Tier2K
	}
	return ledger.Tier4K
}

// RemoveBackground cuts the subject out of a picture with the develop
// engines (fal when configured, else the local engine, which delivers a
// matte only when it is confident) and stores it as an asset of the house,
// the hold posted with the row. The price is the remove-background tool's
// at the tier of the picture's size.
func (s *Service) RemoveBackground(ctx context.Context, p auth.Principal, im Image, filename string) (Removed, error) {
	if err := p.MaySpend(); err != nil {
		return Removed{}, err
	}
	const tool = "remove-background"
	if s.opts.Engine == nil || !s.opts.Engine.Can(tool) {
		return Removed{}, errs.FalNotConfigured
	}
	tier := tierOf(im.Info.Width, im.Info.Height)
	req := engine.Request{Tool: tool, Inputs: []engine.Input{{Role: "image", Data: im.Data}}, Tier: tier}
	var out Removed
	spent, err := s.charge(ctx, p, tool, s.opts.Prices.Tool(tool, tier), func(ctx context.Context, hold string) (bool, error) {
		release, err := s.opts.Decoding.Acquire(ctx, engine.MemoryCost(req))
		if err != nil {
			return false, errs.Msg(asset.ErrTooLarge, "The image needs more memory to work on than this server allows.")
		}
		res, err := s.opts.Engine.Run(ctx, req)
		release()
		switch {
		case errors.Is(err, engine.ErrUnsupported):
			return false, errs.FalNotConfigured
		case engine.IsInput(err) && s.opts.Fal == nil:
			e, _ := errors.AsType[*engine.Error](err)
			return false, errs.Msg(errs.FalNotConfigured, e.Reason+" A cleaner cut needs the fal engine, which is not configured.")
		case err != nil:
			return false, falError(ErrRemoveBgFailed, err)
		}
		a, err := s.opts.Assets.StoreResult(ctx, p, asset.Result{Tool: tool, Name: cutoutName(filename), Data: res.Data, Hold: hold})
		if err != nil {
			return false, err
		}
		out.URL, out.AssetID = a.URL, a.ID
		return true, nil
	})
	out.Spent = spent
	return out, err
}

// cutoutName names a cut-out after its picture.
func cutoutName(filename string) string {
	base := strings.TrimSpace(strings.TrimSuffix(path.Base(strings.ReplaceAll(filename, `\`, "/")), path.Ext(filename)))
	if base == "" || base == "." || base == "/" {
		return "Cut-out"
	}
	return base + " cut-out"
}
