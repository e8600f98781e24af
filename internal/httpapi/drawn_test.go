package httpapi_test

import (
	"bytes"
	"fmt"
	"sync"
)

// drawnImages keeps the fixture pictures drawn in code once per test
// binary: drawing and encoding them pixel by pixel under the race detector
// cost seconds where a test uploads the same picture per credential or per
// case (the role matrix draws a model figure for every look it makes). The
// drawings are deterministic, so a kept one is the bytes a new drawing
// would give.
var drawnImages sync.Map // key -> []byte

// drawn returns the kept bytes of key, drawing them with draw the first
// time. Each caller gets its own copy to change as it likes.
func drawn(key string, w, h int, draw func() []byte) []byte {
	k := fmt.Sprintf("%s %dx%d", key, w, h)
	if b, ok := drawnImages.Load(k); ok {
		return bytes.Clone(b.([]byte))
	}
	b := draw()
	drawnImages.Store(k, bytes.Clone(b))
	return b
}
