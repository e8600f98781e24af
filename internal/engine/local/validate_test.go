package local_test

import (
	"context"
	"testing"

	"studio/internal/engine"
	"studio/internal/engine/local"
	"studio/internal/ledger"
)

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

// TestWebPInput: a WebP input runs through a tool.
func TestWebPInput(t *testing.T) {
	res, err := local.New().Run(context.Background(), engine.Request{Tool: "upscale", Tier: ledger.Tier1K, Inputs: []engine.Input{in("image", webpLossless1x1)}})
	if err != nil || res.Width != 1024 {
		t.Fatalf("upscale of a WebP: %v, %dx%d", err, res.Width, res.Height)
	}
}
