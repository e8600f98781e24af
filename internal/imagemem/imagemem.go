// Package imagemem bounds the memory of decoded images in flight. A
// compressed image says little about its decoded size: a 389 KB 16-bit PNG
// of 50 megapixels decodes to 400 MB. So decoders do not take a slot each;
// they take the bytes their pixels will need from one Budget shared by the
// process (uploads, develops, packs), and wait while others hold it. A
// single image that needs more than the whole budget is refused rather
// than waited for (it never could be decoded).
package imagemem

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	_ "image/jpeg" // DecodeConfig for the accepted types
	_ "image/png"
	"math"
	"runtime"
	"runtime/debug"
	"sync"

	_ "golang.org/x/image/webp"
	"golang.org/x/sync/semaphore"
)

// ErrOverBudget refuses an image that needs more memory than the whole
// budget. Callers answer it as 413 IMAGE_TOO_LARGE.
var ErrOverBudget = errors.New("imagemem: the decoded image needs more memory than the whole budget")

// DefaultBudget is the budget when none is configured: 1 GiB, which holds
// the largest accepted input (50 MP at 16 bits a channel with alpha, plus
// the develop's working copies) with room for smaller ones beside it.
const DefaultBudget = 1 << 30

// Budget is a weighted semaphore of bytes: waiters are served in order, so
// a large image is not starved by a stream of small ones.
type Budget struct {
	total int64
	sem   *semaphore.Weighted
}

// New returns a budget of total bytes (DefaultBudget when total <= 0).
func New(total int64) *Budget {
	if total <= 0 {
		total = DefaultBudget
	}
	return &Budget{total: total, sem: semaphore.NewWeighted(total)}
}

// Total is the budget's size in bytes.
func (b *Budget) Total() int64 { return b.total }

// Acquire waits until n bytes are free and takes them; release gives them
// back (call it once). ErrOverBudget when n exceeds the whole budget, the
// context's error when ctx ends first.
func (b *Budget) Acquire(ctx context.Context, n int64) (release func(), err error) {
	n = max(n, 1)
	if n > b.total {
		return nil, ErrOverBudget
	}
	if err := b.sem.Acquire(ctx, n); err != nil {
		return nil, err
	}
	governor.add(n)
	return func() {
		governor.add(-n)
		b.sem.Release(n)
	}, nil
}

// governor makes the Go runtime's soft memory limit follow the budgets
// once Govern is called: the process's base plus what every budget has
// handed out. A develop drops intermediates as it goes; without a limit
// the collector lets that garbage pile up to twice the live heap before it
// runs, so a 4k develop holding 250 MB peaked at 730 MB (issue 32). With
// nothing handed out there is no limit.
var governor memoryGovernor

type memoryGovernor struct {
	sync.Mutex
	on         bool
	base, held int64
}

// add counts n more bytes handed out (less when n < 0) and sets the limit.
func (g *memoryGovernor) add(n int64) {
	g.Lock()
	defer g.Unlock()
	g.held += n
	if !g.on {
		return
	}
	if g.held <= 0 {
		debug.SetMemoryLimit(math.MaxInt64)
		return
	}
	debug.SetMemoryLimit(g.base + g.held)
}

// Govern ties the runtime's soft memory limit (debug.SetMemoryLimit) to
// the process's budgets from now on: while pictures are in flight, the
// limit is what the process held when Govern was called, plus margin,
// plus the bytes the budgets handed out. The server calls it once at
// start, unless GOMEMLIMIT is set (the operator's limit wins); tests, which
// run many apps in one process, do not. stop ends it and lifts the limit
// (a server run inside a test process returns).
func Govern(margin int64) (stop func()) {
	var stats runtime.MemStats
	runtime.ReadMemStats(&stats)
	governor.Lock()
	defer governor.Unlock()
	governor.on, governor.base = true, int64(stats.Sys-stats.HeapReleased)+margin
	return func() {
		governor.Lock()
		defer governor.Unlock()
		governor.on = false
		debug.SetMemoryLimit(math.MaxInt64)
	}
}

// BytesPerPixel is the size of one pixel of an image the standard decoders
// return for colour model m: 1 for grey and paletted, 2 for 16-bit grey, 3
// for JPEG's YCbCr (4:4:4, the largest sampling), 4 for 8-bit RGBA, CMYK or
// YCbCr with alpha, 8 for 16-bit RGBA (a 16-bit RGB PNG decodes to RGBA64).
// An unknown model counts as 8.
func BytesPerPixel(m color.Model) int64 {
	switch m {
	case color.GrayModel, color.AlphaModel:
		return 1
	case color.Gray16Model, color.Alpha16Model:
		return 2
	case color.YCbCrModel:
		return 3
	case color.RGBAModel, color.NRGBAModel, color.CMYKModel, color.NYCbCrAModel:
		return 4
	case color.RGBA64Model, color.NRGBA64Model:
		return 8
	}
	if _, ok := m.(color.Palette); ok {
		return 1
	}
	return 8
}

// Decoded reads an image's header and returns its size and the bytes its
// pixels take once decoded (before any conversion). A JPEG's are what
// image/jpeg allocates for it (jpegDecoded): its planes at their sampling,
// padded to whole blocks, and a progressive JPEG's coefficients besides.
func Decoded(data []byte) (width, height int, size int64, err error) {
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return 0, 0, 0, err
	}
	if format == "jpeg" {
		if n, ok := jpegDecoded(data, cfg.Width, cfg.Height); ok {
			return cfg.Width, cfg.Height, n, nil
		}
	}
	return cfg.Width, cfg.Height, int64(cfg.Width) * int64(cfg.Height) * BytesPerPixel(cfg.ColorModel), nil
}

// jpegDecoded is the memory image/jpeg takes to decode a grey or YCbCr
// JPEG of w x h, read from its frame header: the planes of its picture,
// each padded to whole 8 x 8 blocks of its sampling (4:2:0 is 1.5 bytes a
// pixel, not 3), and for a progressive JPEG its coefficients, kept until
// the last scan (64 int32 a block). ok is false for any other layout (CMYK,
// unusual chroma sampling) or a header it cannot read.
func jpegDecoded(data []byte, w, h int) (int64, bool) {
	for i := 2; i+9 < len(data); {
		if data[i] != 0xff {
			return 0, false
		}
		marker := data[i+1]
		if marker == 0xff || (marker >= 0xd0 && marker <= 0xd7) || marker == 0x01 {
			i++
			continue
		}
		n := int(data[i+2])<<8 | int(data[i+3])
		if marker != 0xc0 && marker != 0xc1 && marker != 0xc2 {
			if marker == 0xda || n < 2 {
				return 0, false
			}
			i += 2 + n
			continue
		}
		seg := data[i+4 : min(len(data), i+2+n)]
		if len(seg) < 6 {
			return 0, false
		}
		comps := int(seg[5])
		if len(seg) < 6+3*comps {
			return 0, false
		}
		hv := func(c int) (int, int) { b := seg[6+3*c+1]; return int(b >> 4), int(b & 15) }
		h0, v0 := 1, 1
		switch comps {
		case 1:
		case 3:
			h0, v0 = hv(0)
			h1, v1 := hv(1)
			h2, v2 := hv(2)
			if h0 < 1 || v0 < 1 || h0 > 4 || v0 > 2 || h1 != 1 || v1 != 1 || h2 != 1 || v2 != 1 {
				return 0, false
			}
		default:
			return 0, false
		}
		// Blocks of the luma plane across and down (whole MCUs); each
		// chroma plane has one block per MCU.
		mx, my := int64((w+8*h0-1)/(8*h0)), int64((h+8*v0-1)/(8*v0))
		samples := 64 * mx * my * int64(h0*v0)
		if comps == 3 {
			samples += 2 * 64 * mx * my
		}
		if marker == 0xc2 {
			return samples * 5, true // one byte a sample and four of coefficient
		}
		return samples, true
	}
	return 0, false
}
