package engine

import (
	"bytes"
	"errors"
	"image"
	"image/png"
	"strings"
	"testing"

	"studio/internal/ledger"
	"studio/internal/picture"
)

// TestFrameSize checks the one size rule of frames: the tier's canvas at
// the shape's aspect (the image's own without one), the image fitted inside,
// snapped to the whole canvas when it is within 2 px of it.
func TestFrameSize(t *testing.T) {
	tests := []struct {
		name         string
		tier         ledger.Tier
		shape        *Shape
		iw, ih       int
		w, h, fw, fh int
	}{
		{"own aspect", ledger.Tier1K, nil, 800, 600, 1024, 768, 1024, 768},
		{"portrait, own aspect", ledger.Tier2K, nil, 600, 800, 1536, 2048, 1536, 2048},
		{"shape wider than the image", ledger.Tier1K, &Shape{Width: 1920, Height: 1080}, 800, 800, 1024, 576, 576, 576},
		{"shape taller than the image", ledger.Tier1K, &Shape{Width: 1080, Height: 1350}, 1600, 900, 819, 1024, 819, 461},
		{"within 2 px snaps to the canvas", ledger.Tier1K, &Shape{Width: 1080, Height: 1350}, 800, 1001, 819, 1024, 819, 1024},
		{"3 px off does not snap", ledger.Tier1K, &Shape{Width: 1000, Height: 1000}, 1000, 994, 1024, 1024, 1024, 1018},
	}
	for _, tt := range tests {
		w, h, fw, fh := FrameSize(tt.tier, tt.shape, tt.iw, tt.ih)
		if w != tt.w || h != tt.h || fw != tt.fw || fh != tt.fh {
			t.Errorf("%s: FrameSize = %dx%d fitting %dx%d; want %dx%d fitting %dx%d", tt.name, w, h, fw, fh, tt.w, tt.h, tt.fw, tt.fh)
		}
	}
}

func TestInRole(t *testing.T) {
	cause := errors.New("unexpected EOF")
	provider := ProviderError("", "The result could not be encoded.", nil)
	plain := errors.New("disk full")
	tests := []struct {
		name       string
		err        error
		wantReason string // "" when err comes back as it is
	}{
		{"a picture fault", &picture.Error{Reason: "The image could not be decoded.", Err: cause}, "The garment 2 input: the image could not be decoded."},
		{"an engine's input fault", InputError("", "The subject could not be separated.", nil), "The garment 2 input: the subject could not be separated."},
		{"a provider fault is not the input's", provider, ""},
		{"another error", plain, ""},
	}
	for _, tt := range tests {
		got := InRole(tt.err, "tryon", "garment 2")
		if tt.wantReason == "" {
			if got != tt.err {
				t.Errorf("%s: InRole = %v; want the error as it was", tt.name, got)
			}
			continue
		}
		e, ok := errors.AsType[*Error](got)
		if !ok || e.Fault != FaultInput || e.Tool != "tryon" || e.Reason != tt.wantReason {
			t.Errorf("%s: InRole = %#v; want an input fault of tryon saying %q", tt.name, got, tt.wantReason)
		}
	}
	if e, _ := errors.AsType[*Error](InRole(&picture.Error{Reason: "x", Err: cause}, "t", "r")); !errors.Is(e, cause) {
		t.Error("InRole lost the decoder's cause")
	}
}

func TestDecodeAndProbeInput(t *testing.T) {
	good := encodePNG(t, image.NewNRGBA(image.Rect(0, 0, 6, 4)))
	if img, err := DecodeInput("upscale", "image", good); err != nil || img.Rect.Dx() != 6 {
		t.Fatalf("DecodeInput = %v, %v", img, err)
	}
	if mime, w, h, err := ProbeInput("upscale", "image", good); err != nil || mime != "image/png" || w != 6 || h != 4 {
		t.Fatalf("ProbeInput = %q %dx%d %v", mime, w, h, err)
	}
	for name, f := range map[string]func() error{
		"DecodeInput": func() error { _, err := DecodeInput("harmonize", "background", []byte("nope")); return err },
		"ProbeInput":  func() error { _, _, _, err := ProbeInput("harmonize", "background", nil); return err },
	} {
		err := f()
		e, ok := errors.AsType[*Error](err)
		if !ok || !IsInput(err) || e.Tool != "harmonize" || !strings.HasPrefix(e.Reason, "The background input: the image ") {
			t.Errorf("%s: err = %v; want an input fault naming harmonize's background input", name, err)
		}
	}
}

func TestFinish(t *testing.T) {
	opaque := image.NewNRGBA(image.Rect(0, 0, 400, 300))
	for i := range opaque.Pix {
		opaque.Pix[i] = 200
	}
	cut := image.NewNRGBA(image.Rect(0, 0, 300, 300)) // wholly transparent
	tests := []struct {
		name     string
		img      image.Image
		tier     ledger.Tier
		shape    *Shape
		alpha    bool
		mime     string
		w, h     int
		wantFail bool
	}{
		{"own aspect at 1K", opaque, ledger.Tier1K, nil, false, "image/jpeg", 1024, 768, false},
		{"a shape's aspect at 2K", opaque, ledger.Tier2K, &Shape{Width: 1080, Height: 1920}, false, "image/jpeg", 1152, 2048, false},
		{"a cut-out keeps its alpha", cut, ledger.Tier1K, nil, true, "image/png", 1024, 1024, false},
		{"a cut-out without alpha is a JPEG", cut, ledger.Tier1K, nil, false, "image/jpeg", 1024, 1024, false},
		{"an unknown tier", opaque, ledger.Tier("8k"), nil, false, "", 0, 0, true},
	}
	for _, tt := range tests {
		res, err := Finish(tt.img, tt.tier, tt.shape, tt.alpha)
		if tt.wantFail {
			if !IsInput(err) {
				t.Errorf("%s: err = %v; want an input fault", tt.name, err)
			}
			continue
		}
		if err != nil || res.Mime != tt.mime || res.Width != tt.w || res.Height != tt.h {
			t.Errorf("%s: Finish = %s %dx%d %v; want %s %dx%d", tt.name, res.Mime, res.Width, res.Height, err, tt.mime, tt.w, tt.h)
			continue
		}
		back, _, err := image.DecodeConfig(bytes.NewReader(res.Data))
		if err != nil || back.Width != tt.w || back.Height != tt.h {
			t.Errorf("%s: the bytes read back as %dx%d (%v)", tt.name, back.Width, back.Height, err)
		}
	}
	if res, err := FinishSized(opaque, 819, 1024); err != nil || res.Width != 819 || res.Height != 1024 || res.Mime != "image/jpeg" {
		t.Errorf("FinishSized = %s %dx%d %v; want jpeg 819x1024", res.Mime, res.Width, res.Height, err)
	}
	if _, err := FinishSized(opaque, 0, 10); err == nil {
		t.Error("FinishSized at 0x10 did not fail")
	}
}

func encodePNG(t *testing.T, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
