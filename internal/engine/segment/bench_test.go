package segment_test

import (
	"context"
	"fmt"
	"image/color"
	"runtime"
	"syscall"
	"testing"
	"time"

	"studio/internal/engine/segment"
	"studio/internal/engine/segment/segtest"
)

// BenchmarkSeparate separates a T-shirt on a wooden table from a 1k and a
// 4k picture and mattes it at that size:
//
//	go test -run '^$' -bench Separate -benchtime 5x ./internal/engine/segment/
//
// cpu-ms/op is the process CPU time per run (both cores together), which a
// busy machine does not inflate the way it does ns/op; alloc-MB/op is what
// one run allocates.
func BenchmarkSeparate(b *testing.B) {
	for _, size := range [][2]int{{1024, 768}, {4096, 3072}} {
		w, h := size[0], size[1]
		cov := segtest.Coverage(segtest.TShirt, w, h)
		fill := segtest.Fill(color.NRGBA{R: 30, G: 60, B: 140, A: 255}, segtest.Linen(w, h), 0.3, w, h)
		img := segtest.Composite(segtest.Wood(w, h), fill, cov, w, h, 0.3, 1)
		b.Run(fmt.Sprintf("%dx%d", w, h), func(b *testing.B) {
			runtime.GC()
			var before runtime.MemStats
			runtime.ReadMemStats(&before)
			cpu := cpuClock()
			for b.Loop() {
				cut, err := segment.Separate(context.Background(), img, segment.Options{})
				if err != nil || !cut.Confidence.Confident() {
					b.Fatal(err, cut.Confidence)
				}
				_ = cut.Matte(img)
				_ = cut.Ground()
			}
			b.ReportMetric(float64(cpuClock()-cpu)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
			var after runtime.MemStats
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/(1<<20), "alloc-MB/op")
		})
	}
}

func cpuClock() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
