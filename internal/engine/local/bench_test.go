package local_test

import (
	"context"
	"fmt"
	"image"
	"syscall"
	"testing"
	"time"

	"studio/internal/engine"
	"studio/internal/engine/local"
	"studio/internal/engine/segment/segtest"
	"studio/internal/ledger"
)

// BenchmarkTools2K runs each local tool at 2k from a 1600 px input:
//
//	go test -run '^$' -bench . -benchtime 5x ./internal/engine/
//
// cpu-ms/op is the process CPU time per run (both cores together), which a
// busy machine does not inflate the way it does ns/op.
func BenchmarkTools2K(b *testing.B) {
	product := encJPEG(b, productImage(1600, 1200))
	model := encJPEG(b, modelImage(1600))
	garment := encPNG(b, garmentImage(800))
	scene := encJPEG(b, sceneImage(1600, 1200))
	mask := encPNG(b, maskImage(1600, 1200, image.Rect(300, 300, 500, 450)))
	reqs := []engine.Request{
		{Tool: "upscale", Inputs: []engine.Input{in("image", product)}},
		{Tool: "reframe", Params: map[string]string{"aspect": "4:5"}, Inputs: []engine.Input{in("image", product)}},
		{Tool: "packshot", Inputs: []engine.Input{in("image", product)}},
		{Tool: "remove-background", Inputs: []engine.Input{in("image", product)}},
		{Tool: "camera-lens", Params: map[string]string{"lens": "85mm"}, Inputs: []engine.Input{in("image", model)}},
		{Tool: "harmonize", Inputs: []engine.Input{in("image", model), in("background", scene)}},
		{Tool: "iron", Inputs: []engine.Input{in("image", model)}},
		{Tool: "cleanup", Inputs: []engine.Input{in("image", product), in("mask", mask)}},
		{Tool: "color-change", Params: map[string]string{"color": "#2a7f3c"}, Inputs: []engine.Input{in("image", product)}},
		{Tool: "fit-adjust", Params: map[string]string{"fit": "loose"}, Inputs: []engine.Input{in("image", model)}},
		{Tool: "tryon", Inputs: []engine.Input{in("model", model), in("garment", garment)}},
	}
	l := local.New()
	for _, r := range reqs {
		r.Tier = ledger.Tier2K
		b.Run(r.Tool, func(b *testing.B) {
			cpu := cpuClock()
			for b.Loop() {
				if _, err := l.Run(context.Background(), r); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, cpu)
		})
	}
}

// BenchmarkTools4K runs the heaviest tools at 4k, the largest frame the
// engine makes, from a 2000 px input.
func BenchmarkTools4K(b *testing.B) {
	product := encJPEG(b, productImage(2000, 1500))
	model := encJPEG(b, modelImage(2000))
	mask := encPNG(b, maskImage(2000, 1500, image.Rect(300, 300, 500, 450)))
	reqs := []engine.Request{
		{Tool: "upscale", Inputs: []engine.Input{in("image", product)}},
		{Tool: "packshot", Inputs: []engine.Input{in("image", product)}},
		{Tool: "camera-lens", Params: map[string]string{"lens": "85mm"}, Inputs: []engine.Input{in("image", model)}},
		{Tool: "iron", Inputs: []engine.Input{in("image", model)}},
		{Tool: "cleanup", Inputs: []engine.Input{in("image", product), in("mask", mask)}},
	}
	l := local.New()
	for _, r := range reqs {
		r.Tier = ledger.Tier4K
		b.Run(r.Tool, func(b *testing.B) {
			cpu := cpuClock()
			for b.Loop() {
				if _, err := l.Run(context.Background(), r); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, cpu)
		})
	}
}

// cpuClock is the process's user+system CPU time. On a shared machine the
// wall-clock ns/op depends on the load; cpu-ms/op does not.
func cpuClock() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuClock()-start)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
}

// BenchmarkRealGround runs the tools that need a subject on a garment laid
// on a wooden table (the graph cut of package segment), from a 1024 px and
// a 4096 px input, each developed at the tier of its size:
//
//	go test -run '^$' -bench RealGround -benchtime 5x ./internal/engine/local/
func BenchmarkRealGround(b *testing.B) {
	l := local.New()
	for _, size := range []struct {
		w, h int
		tier ledger.Tier
	}{{1024, 768, ledger.Tier1K}, {4096, 3072, ledger.Tier4K}} {
		cov := segtest.Coverage(segtest.TShirt, size.w, size.h)
		fill := segtest.Fill(shirtBlue, segtest.Linen(size.w, size.h), 0.3, size.w, size.h)
		src := encJPEG(b, segtest.Composite(segtest.Wood(size.w, size.h), fill, cov, size.w, size.h, 0.3, 1))
		for _, tool := range []string{"packshot", "remove-background"} {
			r := engine.Request{Tool: tool, Tier: size.tier, Inputs: []engine.Input{in("image", src)}}
			b.Run(fmt.Sprintf("%s/%dx%d", tool, size.w, size.h), func(b *testing.B) {
				cpu := cpuClock()
				for b.Loop() {
					if _, err := l.Run(context.Background(), r); err != nil {
						b.Fatal(err)
					}
				}
				reportCPU(b, cpu)
			})
		}
	}
}
