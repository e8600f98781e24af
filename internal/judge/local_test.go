package judge

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"math"
	"testing"
	"time"

	"github.com/disintegration/imaging"

	"studio/internal/engine"
	"studio/internal/engine/local"
	"studio/internal/engine/segment/segtest"
	"studio/internal/ledger"
)

// garment is a navy linen T-shirt on a plain studio backdrop, w x w: the
// source of the packshots the thresholds were calibrated on.
func garment(w int) *image.NRGBA {
	cov := segtest.Coverage(segtest.TShirt, w, w)
	fill := segtest.Fill(color.NRGBA{R: 38, G: 52, B: 96, A: 255}, segtest.Linen(w, w), 0.4, w, w)
	return segtest.Composite(segtest.Plain(w, w), fill, cov, w, w, 0.2, 7)
}

func pngBytes(t testing.TB, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	// The fastest compression: the fixtures' pixels are the same, and
	// deflate at the default level was a tenth of the package's time.
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func develop(t testing.TB, tool string, tier ledger.Tier, src []byte, params map[string]string) []byte {
	t.Helper()
	res, err := local.New().Run(context.Background(), engine.Request{Tool: tool, Tier: tier, Params: params,
		Inputs: []engine.Input{{Role: "image", Data: src}}})
	if err != nil {
		t.Fatal(err)
	}
	return res.Data
}

// canvas is a w x h frame of bg with the rectangles painted in c.
func canvas(w, h int, bg, c color.NRGBA, rects ...image.Rectangle) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = bg.R, bg.G, bg.B, bg.A
	}
	// A weave, so the subject has detail at its own pixels: five shades.
	var shades [5][4]uint8
	for i := range shades {
		k := 1 + 0.15*float64(i-2)/2
		shades[i] = [4]uint8{c8(float64(c.R) * k), c8(float64(c.G) * k), c8(float64(c.B) * k), c.A}
	}
	for _, r := range rects {
		for y := r.Min.Y; y < r.Max.Y; y++ {
			row := img.Pix[y*img.Stride:]
			for x := r.Min.X; x < r.Max.X; x++ {
				copy(row[4*x:4*x+4], shades[(x*7+y*13)%5][:])
			}
		}
	}
	return img
}

func c8(v float64) uint8 { return uint8(math.Max(0, math.Min(255, math.Round(v)))) }

var (
	white = color.NRGBA{255, 255, 255, 255}
	navy  = color.NRGBA{38, 52, 96, 255}
)

func look(t *testing.T, f Frame) Verdict {
	t.Helper()
	r := Local{}.Look(context.Background(), f)
	v := Write("h", "j", r, DefaultThreshold, time.Now())
	t.Logf("%s: score %v flagged %v futile %v findings %+v; %s", f.Tool, v.Score, v.Flagged, v.RetryFutile, v.Findings, r.Note)
	return v
}

func has(v Verdict, c Code, conf Confidence) bool {
	for _, f := range v.Findings {
		if f.Code == c && f.Confidence == conf {
			return true
		}
	}
	return false
}

// TestLocalOnEngineFrames: the calibration's two ends, on frames the local
// engine makes. A packshot of a sharp 1,000 px garment at 1k is clean; one
// of the same garment shrunk to 64 px is soft, its fabric interpolated and
// its outline smeared, all from the input: flagged, retry futile.
func TestLocalOnEngineFrames(t *testing.T) {
	tiny := pngBytes(t, imaging.Resize(garment(256), 64, 64, imaging.Lanczos))
	v := look(t, Frame{Tool: "packshot", Tier: ledger.Tier1K, Data: develop(t, "packshot", ledger.Tier1K, tiny, nil), Source: tiny})
	if !v.Flagged || !v.RetryFutile || !v.ShowScore || !has(v, SoftFocus, Sure) || !has(v, TextureArtifact, Sure) || !has(v, BackgroundBleed, Sure) {
		t.Errorf("the tiny source's packshot: %+v; want flagged, futile, soft, interpolated and bleeding", v)
	}
	if raceEnabled {
		return // the rest makes a 1,000 px source and renders four frames: slow under the race detector (the story in httpapi covers the sharp packshot)
	}
	sharp := pngBytes(t, garment(1000))
	v = look(t, Frame{Tool: "packshot", Tier: ledger.Tier1K, Data: develop(t, "packshot", ledger.Tier1K, sharp, nil), Source: sharp})
	if *v.Score != 100 || v.ShowScore || v.Flagged || v.RetryFutile || len(v.Findings) != 0 {
		t.Errorf("the sharp packshot: %+v; want clean", v)
	}
	v = look(t, Frame{Tool: "upscale", Tier: ledger.Tier1K, Data: develop(t, "upscale", ledger.Tier1K, tiny, nil), Source: tiny})
	if v.Flagged || !v.RetryFutile || !has(v, SoftFocus, Sure) {
		t.Errorf("the tiny source upscaled: %+v; want soft and futile, not flagged", v)
	}
	data := develop(t, "color-change", ledger.Tier1K, sharp, map[string]string{"color": "#c02030"})
	if v = look(t, Frame{Tool: "color-change", Tier: ledger.Tier1K, Data: data, Source: sharp, Params: map[string]string{"color": "#c02030"}}); len(v.Findings) != 0 {
		t.Errorf("a colour change to the colour asked: %+v; want clean", v)
	}
	if v = look(t, Frame{Tool: "color-change", Tier: ledger.Tier1K, Data: data, Source: sharp, Params: map[string]string{"color": "#20c040"}}); !has(v, ColorDrift, Sure) || v.RetryFutile {
		t.Errorf("a colour change to another colour than asked: %+v; want color-drift", v)
	}
}

func TestLocalMeasures(t *testing.T) {
	subject := image.Rect(300, 250, 724, 800)
	clean := pngBytes(t, canvas(1024, 1024, white, navy, subject))
	specks := canvas(1024, 1024, color.NRGBA{}, navy, subject)
	for i := range 40 {
		x, y := 40+i*24, 60+(i%3)*12
		specks.SetNRGBA(x, y, navy)
		specks.SetNRGBA(x+1, y, navy)
		specks.SetNRGBA(x, y+1, navy)
		specks.SetNRGBA(x+1, y+1, navy)
	}
	for i := range 120 { // a loose piece the matte left behind
		for j := range 60 {
			specks.SetNRGBA(60+i, 900+j, navy)
		}
	}
	uneven := canvas(1024, 1024, white, navy, subject)
	for y := range 30 {
		for x := range 1024 {
			g := uint8(255 - (x%97)/2)
			uneven.SetNRGBA(x, y, color.NRGBA{g, g, g, 255})
		}
	}
	blown := canvas(1024, 1024, white, navy, subject)
	for y := 300; y < 600; y++ {
		for x := 350; x < 650; x++ {
			blown.SetNRGBA(x, y, color.NRGBA{0, 0, 0, 255})
		}
	}
	tests := []struct {
		name string
		f    Frame
		code Code
		conf Confidence
	}{
		{"a clean frame", Frame{Tool: "packshot", Tier: ledger.Tier1K, Data: clean}, "", ""},
		{"bytes that are no image", Frame{Tool: "packshot", Tier: ledger.Tier1K, Data: []byte("not an image")}, "unreadable", ""},
		{"a frame short of its tier", Frame{Tool: "upscale", Tier: ledger.Tier2K, Data: clean}, SoftFocus, Sure},
		{"a frame of another shape than its destination", Frame{Tool: "packshot", Tier: ledger.Tier1K, Data: clean,
			Params: map[string]string{"outputWidth": "1920", "outputHeight": "1080"}}, CropCut, Sure},
		{"a piece touching the frame's edge", Frame{Tool: "packshot", Tier: ledger.Tier1K,
			Data: pngBytes(t, canvas(1024, 1024, white, navy, image.Rect(0, 300, 500, 700)))}, CropCut, Sure},
		{"an uneven backdrop", Frame{Tool: "packshot", Tier: ledger.Tier1K, Data: pngBytes(t, uneven)}, BackgroundBleed, Sure},
		{"a backdrop of another colour than asked", Frame{Tool: "packshot", Tier: ledger.Tier1K, Data: clean,
			Params: map[string]string{"bg": "#d0e0ff"}}, BackgroundBleed, Sure},
		{"a cut-out in pieces", Frame{Tool: "remove-background", Tier: ledger.Tier1K, Data: pngBytes(t, specks)}, BackgroundBleed, Sure},
		{"clipping the source did not have", Frame{Tool: "packshot", Tier: ledger.Tier1K, Data: pngBytes(t, blown), Source: clean}, ColorDrift, Sure},
		{"clipping the source had already", Frame{Tool: "packshot", Tier: ledger.Tier1K, Data: pngBytes(t, blown), Source: pngBytes(t, blown)}, "", ""},
		{"a colour change that changed nothing", Frame{Tool: "color-change", Tier: ledger.Tier1K, Data: clean, Source: clean,
			Params: map[string]string{"color": "#c02030"}}, ColorDrift, Sure},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := look(t, tt.f)
			switch tt.code {
			case "":
				if len(v.Findings) != 0 || v.Unreadable {
					t.Errorf("findings %+v; want none", v.Findings)
				}
			case "unreadable":
				if !v.Unreadable || v.Score != nil {
					t.Errorf("verdict %+v; want unreadable", v)
				}
			default:
				if !has(v, tt.code, tt.conf) {
					t.Errorf("findings %+v; want %s %s", v.Findings, tt.code, tt.conf)
				}
			}
			for _, f := range v.Findings {
				if len([]rune(f.Where)) > MaxWhere || f.Where == "" {
					t.Errorf("where %q", f.Where)
				}
			}
		})
	}
}
