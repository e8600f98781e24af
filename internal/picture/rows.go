package picture

import (
	"runtime"
	"sync"
)

// Parallel splits the rows [0, n) into contiguous chunks, two per CPU, runs
// fn on each and waits for them; fewer than 64 rows run in the caller.
func Parallel(n int, fn func(lo, hi int)) {
	workers := runtime.GOMAXPROCS(0)
	if n < 64 || workers == 1 {
		fn(0, n)
		return
	}
	workers = min(workers*2, n)
	chunk := (n + workers - 1) / workers
	var wg sync.WaitGroup
	for lo := 0; lo < n; lo += chunk {
		hi := min(n, lo+chunk)
		wg.Go(func() { fn(lo, hi) })
	}
	wg.Wait()
}

// Clamp8 rounds v to the nearest 8-bit value, clamped to 0..255.
func Clamp8(v float64) uint8 {
	if v <= 0 {
		return 0
	}
	if v >= 255 {
		return 255
	}
	return uint8(v + 0.5)
}

// Smoothstep is 0 up to e0, 1 from e1, and the cubic Hermite ramp between.
func Smoothstep(e0, e1, x float64) float64 {
	if x <= e0 {
		return 0
	}
	if x >= e1 {
		return 1
	}
	t := (x - e0) / (e1 - e0)
	return t * t * (3 - 2*t)
}
