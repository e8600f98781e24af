package local

import (
	"testing"

	"studio/internal/engine"
	"studio/internal/ledger"
)

// TestFrameSize checks the one size rule of frames: the tier's canvas at
// the shape's aspect (the image's own without one), the image fitted inside,
// snapped to the whole canvas when it is within 2 px of it.
func TestFrameSize(t *testing.T) {
	tests := []struct {
		name         string
		tier         ledger.Tier
		shape        *engine.Shape
		iw, ih       int
		w, h, fw, fh int
	}{
		{"own aspect", ledger.Tier1K, nil, 800, 600, 1024, 768, 1024, 768},
		{"portrait, own aspect", ledger.Tier2K, nil, 600, 800, 1536, 2048, 1536, 2048},
		{"shape wider than the image", ledger.Tier1K, &engine.Shape{Width: 1920, Height: 1080}, 800, 800, 1024, 576, 576, 576},
		{"shape taller than the image", ledger.Tier1K, &engine.Shape{Width: 1080, Height: 1350}, 1600, 900, 819, 1024, 819, 461},
		{"within 2 px snaps to the canvas", ledger.Tier1K, &engine.Shape{Width: 1080, Height: 1350}, 800, 1001, 819, 1024, 819, 1024},
		{"3 px off does not snap", ledger.Tier1K, &engine.Shape{Width: 1000, Height: 1000}, 1000, 994, 1024, 1024, 1024, 1018},
	}
	for _, tt := range tests {
		w, h, fw, fh := frameSize(tt.tier, tt.shape, tt.iw, tt.ih)
		if w != tt.w || h != tt.h || fw != tt.fw || fh != tt.fh {
			t.Errorf("%s: frameSize = %dx%d fitting %dx%d; want %dx%d fitting %dx%d", tt.name, w, h, fw, fh, tt.w, tt.h, tt.fw, tt.fh)
		}
	}
}
