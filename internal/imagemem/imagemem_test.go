package imagemem

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func encodePNG(t *testing.T, img image.Image) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestDecoded(t *testing.T) {
	r := image.Rect(0, 0, 30, 20)
	var jbuf, gbuf bytes.Buffer
	jpeg.Encode(&jbuf, image.NewRGBA(r), nil)
	jpeg.Encode(&gbuf, image.NewGray(r), nil)
	pal := image.NewPaletted(r, color.Palette{color.Black, color.White})
	rgb16 := image.NewRGBA64(r) // opaque: written as 16-bit RGB, decoded as RGBA64
	for i := range rgb16.Pix {
		rgb16.Pix[i] = 0xff
	}
	for _, tt := range []struct {
		name string
		data []byte
		want int64
	}{
		// 4:2:0 in 16 x 16 blocks of luma (2 x 2 of them) with one 8 x 8
		// block of each chroma a block: 1024 + 2 x 256.
		{"jpeg (YCbCr 4:2:0)", jbuf.Bytes(), 1536},
		{"jpeg grey", gbuf.Bytes(), 32 * 24}, // whole 8 x 8 blocks

		{"png grey", encodePNG(t, image.NewGray(r)), 600},
		{"png 16-bit grey", encodePNG(t, image.NewGray16(r)), 600 * 2},
		{"png paletted", encodePNG(t, pal), 600},
		{"png 8-bit RGBA", encodePNG(t, image.NewNRGBA(r)), 600 * 4},
		{"png 16-bit RGB", encodePNG(t, rgb16), 600 * 8},
		{"png 16-bit RGBA", encodePNG(t, image.NewNRGBA64(r)), 600 * 8},
	} {
		w, h, size, err := Decoded(tt.data)
		if err != nil || w != 30 || h != 20 || size != tt.want {
			t.Errorf("%s: %dx%d %d bytes, %v; want 30x20 %d", tt.name, w, h, size, err, tt.want)
		}
	}
	// What image/jpeg allocates is what Decoded counts, at an odd size too.
	var odd bytes.Buffer
	jpeg.Encode(&odd, image.NewRGBA(image.Rect(0, 0, 101, 37)), nil)
	img, err := jpeg.Decode(bytes.NewReader(odd.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	y := img.(*image.YCbCr)
	if _, _, size, _ := Decoded(odd.Bytes()); size != int64(cap(y.Y)+cap(y.Cb)+cap(y.Cr)) {
		t.Errorf("a 101x37 JPEG: counted %d bytes; image/jpeg allocates %d", size, cap(y.Y)+cap(y.Cb)+cap(y.Cr))
	}
	if _, _, _, err := Decoded([]byte("not an image")); err == nil {
		t.Error("garbage has a size")
	}
}

// TestBudgetBoundsBytesInFlight: holders never exceed the budget together,
// whatever their mix of sizes, and all of them get through.
func TestBudgetBoundsBytesInFlight(t *testing.T) {
	b := New(100)
	var held, peak atomic.Int64
	var wg sync.WaitGroup
	for i := range 40 {
		n := int64(10 + (i%4)*30) // 10, 40, 70, 100
		wg.Go(func() {
			release, err := b.Acquire(context.Background(), n)
			if err != nil {
				t.Error(err)
				return
			}
			now := held.Add(n)
			for {
				p := peak.Load()
				if now <= p || peak.CompareAndSwap(p, now) {
					break
				}
			}
			time.Sleep(time.Millisecond)
			held.Add(-n)
			release()
		})
	}
	wg.Wait()
	if peak.Load() > 100 {
		t.Fatalf("%d bytes held at once; the budget is 100", peak.Load())
	}
}

func TestOverBudgetIsRefusedNotAwaited(t *testing.T) {
	b := New(100)
	release, err := b.Acquire(context.Background(), 60)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if _, err := b.Acquire(context.Background(), 101); !errors.Is(err, ErrOverBudget) {
		t.Fatalf("101 of 100: %v; want ErrOverBudget at once", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := b.Acquire(ctx, 50); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("50 more while 60 are held: %v; want to wait until the context ends", err)
	}
}

// TestGovern: once governed, the runtime's soft memory limit is the base
// plus what the budgets hand out, and no limit when nothing is out.
func TestGovern(t *testing.T) {
	stop := Govern(1 << 20)
	defer func() {
		stop()
		if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
			t.Errorf("limit %d after stop; want none", got)
		}
	}()
	governor.Lock()
	base := governor.base + governor.held // what other tests left out, if any
	governor.Unlock()
	a, b := New(100<<20), New(100<<20)
	releaseA, err := a.Acquire(context.Background(), 10<<20)
	if err != nil {
		t.Fatal(err)
	}
	releaseB, err := b.Acquire(context.Background(), 30<<20)
	if err != nil {
		t.Fatal(err)
	}
	if got := debug.SetMemoryLimit(-1); got != base+40<<20 {
		t.Errorf("limit %d with 40 MiB out; want base %d + 40 MiB", got, base)
	}
	releaseA()
	if got := debug.SetMemoryLimit(-1); got != base+30<<20 {
		t.Errorf("limit %d with 30 MiB out; want base %d + 30 MiB", got, base)
	}
	releaseB()
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 && got != base {
		t.Errorf("limit %d with nothing more out; want none, or base %d", got, base)
	}
}
