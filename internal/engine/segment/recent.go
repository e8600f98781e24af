package segment

import (
	"crypto/sha256"
	"encoding/binary"
	"math"
	"sync"
)

// recent keeps the last few cuts, keyed by the working picture and the
// options: a cut depends on nothing else, and is never changed once made,
// so the same picture asked for again (a preflight and then its develop,
// one photograph developed by several tools) is cut once. Each entry holds
// a working-size picture and its mask, about 3 MB at 512 x 384.
var recent = &cutCache{max: 8}

type cutKey [sha256.Size]byte

type cutCache struct {
	mu    sync.Mutex
	max   int
	order []cutKey
	cuts  map[cutKey]*Cut
}

func (c *cutCache) get(k cutKey) (*Cut, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cut, ok := c.cuts[k]
	return cut, ok
}

func (c *cutCache) put(k cutKey, cut *Cut) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cuts == nil {
		c.cuts = map[cutKey]*Cut{}
	}
	if _, ok := c.cuts[k]; ok {
		return
	}
	if len(c.order) >= c.max {
		delete(c.cuts, c.order[0])
		c.order = c.order[1:]
	}
	c.order = append(c.order, k)
	c.cuts[k] = cut
}

// key is the hash of the working picture's pixels and the options that
// shape a cut.
func (r *raster) key(opt Options) cutKey {
	h := sha256.New()
	var b [4]byte
	for _, v := range []int{r.w, r.h, opt.workEdge(), opt.coarseEdge(), opt.iterations()} {
		binary.LittleEndian.PutUint32(b[:], uint32(v))
		h.Write(b[:])
	}
	buf := make([]byte, 0, 12*1024)
	for _, p := range r.pix {
		for _, v := range p {
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(v))
		}
		if len(buf) >= 12*1024-12 {
			h.Write(buf)
			buf = buf[:0]
		}
	}
	h.Write(buf)
	var k cutKey
	h.Sum(k[:0])
	return k
}
