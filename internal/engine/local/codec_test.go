package local_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"hash/crc32"
	"image"
	"strings"
	"testing"

	"studio/internal/engine"
	"studio/internal/engine/local"
	"studio/internal/ledger"
)

// FuzzDecode feeds arbitrary bytes to the input decoder: it must never
// panic, must refuse with an input fault, and what it accepts must be a real,
// bounded image whose size Probe agrees with (up to an EXIF quarter turn).
func FuzzDecode(f *testing.F) {
	f.Add(encJPEG(f, productImage(16, 12)))
	f.Add(encPNG(f, garmentImage(16)))
	f.Add(encPNG(f, image.NewNRGBA(image.Rect(0, 0, 3, 2))))
	f.Add(webpLossless1x1)
	f.Add([]byte("GIF89a\x01\x00\x01\x00\x00\x00\x00;"))
	f.Add([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x01\x00\x00\x00\x01\x00\x00\x08\x02\x00\x00\x00"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		_, pw, ph, perr := local.Probe(data)
		img, err := local.Decode(data)
		if err != nil {
			if !engine.IsInput(err) {
				t.Fatalf("Decode error %v is not an input fault", err)
			}
			return
		}
		if perr != nil {
			t.Fatalf("Decode accepted what Probe refused: %v", perr)
		}
		b := img.Bounds()
		if b.Empty() || b.Dx()*b.Dy() > local.MaxInputPixels {
			t.Fatalf("decoded bounds %v", b)
		}
		if !(b.Dx() == pw && b.Dy() == ph) && !(b.Dx() == ph && b.Dy() == pw) {
			t.Fatalf("decoded %v, probed %dx%d", b.Size(), pw, ph)
		}
	})
}

// FuzzValidate checks that arbitrary options never panic Validate or Run
// and that a refusal is always an input fault.
func FuzzValidate(f *testing.F) {
	f.Add("reframe", "aspect", "4:5")
	f.Add("packshot", "bg", "#ffffff")
	f.Add("camera-lens", "lens", "macro")
	f.Add("iron", "strength", "0.3")
	f.Add("color-change", "color", "#zzzzzz")
	img := encJPEG(f, productImage(48, 36))
	l := local.New()
	f.Fuzz(func(t *testing.T, tool, key, value string) {
		if !l.Can(tool) {
			return
		}
		r := engine.Request{Tool: tool, Tier: ledger.Tier1K, Params: map[string]string{key: value},
			Inputs: []engine.Input{in("image", img)}}
		if err := engine.Validate(r); err != nil && !engine.IsInput(err) {
			t.Fatalf("Validate: %v", err)
		}
	})
}

// webpLossless1x1 is a 1x1 lossless WebP (VP8L).
var webpLossless1x1 = []byte("RIFF\x1a\x00\x00\x00WEBPVP8L\x0d\x00\x00\x00\x2f\x00\x00\x00\x10\x07\x10\x11\x11\x88\x88\xfe\x07\x00")

func TestDecodeWebP(t *testing.T) {
	img, err := local.Decode(webpLossless1x1)
	if err != nil {
		t.Fatalf("WebP does not decode: %v", err)
	}
	if img.Bounds().Dx() != 1 || img.Bounds().Dy() != 1 {
		t.Fatalf("bounds %v", img.Bounds())
	}
	mime, _, _, err := local.Probe(webpLossless1x1)
	if err != nil || mime != "image/webp" {
		t.Fatalf("Probe = %q, %v", mime, err)
	}
	// And a WebP input runs through a tool.
	res, err := local.New().Run(context.Background(), engine.Request{Tool: "upscale", Tier: ledger.Tier1K, Inputs: []engine.Input{in("image", webpLossless1x1)}})
	if err != nil || res.Width != 1024 {
		t.Fatalf("upscale of a WebP: %v, %dx%d", err, res.Width, res.Height)
	}
}

func TestDecodeRefusesHugeBeforeDecoding(t *testing.T) {
	// A PNG header claiming 10000 x 10000 pixels, and nothing behind it.
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n\x00\x00\x00\r")
	chunk := []byte("IHDR\x00\x00\x27\x10\x00\x00\x27\x10\x08\x02\x00\x00\x00")
	b.Write(chunk)
	b.Write(binary.BigEndian.AppendUint32(nil, crc32.ChecksumIEEE(chunk)))
	_, err := local.Decode(b.Bytes())
	if !engine.IsInput(err) || !strings.Contains(err.Error(), "50 megapixels") {
		t.Fatalf("err = %v, want the 50 megapixel input fault", err)
	}
}
