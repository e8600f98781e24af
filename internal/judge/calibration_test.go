package judge

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/disintegration/imaging"

	"studio/internal/engine"
	"studio/internal/engine/local"
	"studio/internal/engine/segment/segtest"
	"studio/internal/ledger"
)

// TestCalibration prints the local judge's readings of the frames its
// thresholds were calibrated on: the navy linen T-shirt shrunk to 1,200,
// 800, 500, 300, 150 and 64 px, developed by the local engine as packshot,
// upscale and remove-background at 1k, 2k and 4k, and upscales of the
// photographs Debian's python3-skimage ships. It renders 54 frames, so it
// runs only when asked:
//
//	JUDGE_CALIBRATE=1 go test -run TestCalibration -v ./internal/judge/
//
// With JUDGE_CALIBRATE set to a folder, the frames are written there too,
// to be looked at.
func TestCalibration(t *testing.T) {
	dir := os.Getenv("JUDGE_CALIBRATE")
	if dir == "" {
		t.Skip("set JUDGE_CALIBRATE=1 (or to a folder for the frames) to print the calibration table")
	}
	save := dir != "1"
	show := func(name string, f Frame) {
		r := Local{}.Look(context.Background(), f)
		v := Write("h", "j", r, DefaultThreshold, time.Now())
		var fs []string
		for _, x := range v.Findings {
			fs = append(fs, fmt.Sprintf("%s %s (%s)", x.Code, x.Confidence, x.Where))
		}
		t.Logf("%-32s score %3d flagged %-5v futile %-5v %s\n\t%s", name, *v.Score, v.Flagged, v.RetryFutile, strings.Join(fs, "; "), r.Note)
		if save {
			_ = os.WriteFile(filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".img"), f.Data, 0o644)
		}
	}
	eng := local.New()
	run := func(tool string, tier ledger.Tier, src []byte) []byte {
		res, err := eng.Run(context.Background(), engine.Request{Tool: tool, Tier: tier, Inputs: []engine.Input{{Role: "image", Data: src}}})
		if err != nil {
			t.Fatal(err)
		}
		return res.Data
	}
	big := garment(1200)
	for _, size := range []int{1200, 800, 500, 300, 150, 64} {
		src := pngBytes(t, imaging.Resize(big, size, size, imaging.Lanczos))
		for _, tier := range ledger.Tiers {
			for _, tool := range []string{"packshot", "upscale", "remove-background"} {
				show(fmt.Sprintf("%s %d %s", tool, size, tier), Frame{Tool: tool, Tier: tier, Data: run(tool, tier, src), Source: src})
			}
		}
	}
	for _, name := range []string{"astronaut.png", "coffee.png", "chelsea.png", "grace_hopper.jpg", "camera.png"} {
		img := segtest.Load(name, segtest.Dirs(os.Getenv("GOMODCACHE")))
		if img == nil {
			t.Logf("%s: not on this machine (python3-skimage)", name)
			continue
		}
		src := pngBytes(t, img)
		for _, tier := range []ledger.Tier{ledger.Tier1K, ledger.Tier4K} {
			show("upscale "+name+" "+string(tier), Frame{Tool: "upscale", Tier: tier, Data: run("upscale", tier, src), Source: src})
		}
	}
}
