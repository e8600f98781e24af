package job

import (
	"crypto/sha256"
	"encoding/binary"
	"slices"
	"sync"

	"studio/internal/engine"
)

// measuredSize is how many engine answers a service keeps for preflights.
const measuredSize = 64

// measured keeps the serving engine's recent answers to a preflight's
// measure. The console's develop form asks again on every change (a
// ground colour, the shadow, the quality), and a local engine's measure
// reads every input's pixels each time: the same request, the same work.
// An engine's Preflight holds, sends and stores nothing, and reads only
// the request it is given (its tool, tier, options and inputs' roles and
// bytes), so its answer to an equal request is the answer it gave. The
// key is a digest of all of that; at most measuredSize answers are kept,
// the oldest dropped first. An error is never kept: the next ask measures
// again.
type measured struct {
	mu    sync.Mutex
	found map[[sha256.Size]byte][]engine.Problem
	order [][sha256.Size]byte // oldest first
}

// measuredKey digests everything of r an engine's Preflight reads.
func measuredKey(r engine.Request) [sha256.Size]byte {
	h := sha256.New()
	field := func(s string) {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	field(r.Tool)
	field(string(r.Tier))
	keys := make([]string, 0, len(r.Params))
	for k := range r.Params {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		field(k)
		field(r.Params[k])
	}
	field("inputs")
	for _, in := range r.Inputs {
		sum := sha256.Sum256(in.Data)
		field(in.Role)
		field(in.AssetID)
		field(string(sum[:]))
	}
	var key [sha256.Size]byte
	h.Sum(key[:0])
	return key
}

// get returns the answer kept for key.
func (m *measured) get(key [sha256.Size]byte) ([]engine.Problem, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	found, ok := m.found[key]
	return slices.Clone(found), ok
}

// put keeps found under key, dropping the oldest answer past measuredSize.
func (m *measured) put(key [sha256.Size]byte, found []engine.Problem) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.found == nil {
		m.found = map[[sha256.Size]byte][]engine.Problem{}
	}
	if _, ok := m.found[key]; ok {
		return
	}
	m.found[key] = slices.Clone(found)
	m.order = append(m.order, key)
	if len(m.order) > measuredSize {
		delete(m.found, m.order[0])
		m.order = slices.Delete(m.order, 0, 1)
	}
}
