package apptest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"maps"
	"slices"
	"sync"

	"studio/internal/engine"
	"studio/internal/tool"
)

// The test apps' local engines are memoised (app.Options.LocalEngine): the
// local engine is deterministic (the same request gives the same bytes,
// with no network and no randomness), so a request it has rendered once in
// this test binary is answered with the bytes it rendered, and what it said
// it would send is told again, with the asset ids of the request at hand.
// The same develop on the other database, or in another test from the same
// fixture image, costs no second render under -race; with
// $STUDIO_RENDER_MEMO set (memo_shared.go), neither does a request another
// test binary of the run rendered. A render the memo does not answer runs
// in the render program when $STUDIO_RENDER_EXEC names one (render.go),
// else here. What a memoised
// answer no longer proves, the engine's own tests do (internal/engine/local
// renders every tool at every tier, and its TestDeterministic-style checks
// compare bytes); see docs/testing.md. A failed render is never kept: each
// fault is the engine's own again. A test whose check needs the render
// itself (its time, its cancellation) sets LocalEngine to nil (NewWith).
var renders = &memo{entries: map[[sha256.Size]byte]memoEntry{}}

// memoLimit bounds the bytes of results kept per test binary; past it a
// render is still answered, not kept.
const memoLimit = 256 << 20

type memo struct {
	mu      sync.Mutex
	entries map[[sha256.Size]byte]memoEntry
	size    int
}

// memoEntry is a rendered result, what the engine told it would send, and
// the asset ids of the request it rendered (inputs, then references), by
// which the told ids are mapped to a later request's.
type memoEntry struct {
	res  engine.Result
	sent []engine.Sent
	ids  []string
}

// memoised wraps a local engine; it keeps the optional interfaces the local
// engines have (a preflight, the directions they follow, the lookbook's
// check of a model photo), so that the chain sees the same engine.
func memoised(e engine.Engine) engine.Engine {
	switch in := e.(type) {
	case interface {
		engine.Engine
		engine.Preflighter
		engine.Follower
		engine.ModelChecker
	}:
		return struct {
			memoEngine
			engine.Preflighter
			engine.Follower
			engine.ModelChecker
		}{memoEngine{in}, in, in, in}
	case interface {
		engine.Engine
		engine.Preflighter
		engine.Follower
	}:
		return struct {
			memoEngine
			engine.Preflighter
			engine.Follower
		}{memoEngine{in}, in, in}
	case interface {
		engine.Engine
		engine.Follower
	}:
		return struct {
			memoEngine
			engine.Follower
		}{memoEngine{in}, in}
	}
	return memoEngine{e}
}

type memoEngine struct{ engine.Engine }

func (m memoEngine) Run(ctx context.Context, r engine.Request) (engine.Result, error) {
	key := memoKey(m.Name(), r)
	ids := assetIDs(r)
	got, ok := renders.lookup(key)
	if ok && ctx.Err() == nil {
		from := map[string]string{}
		for i, id := range got.ids {
			from[id] = ids[i]
		}
		for _, s := range got.sent {
			s.Refs = slices.Clone(s.Refs)
			for i := range s.Refs {
				if id, ok := from[s.Refs[i].AssetID]; ok {
					s.Refs[i].AssetID = id
				}
			}
			r.Tell(s)
		}
		res := got.res
		res.Data = bytes.Clone(res.Data)
		return res, nil
	}
	var sent []engine.Sent
	record := r.Record
	r.Record = func(s engine.Sent) {
		sent = append(sent, engine.Sent{Prompt: s.Prompt, Refs: slices.Clone(s.Refs)})
		if record != nil {
			record(s)
		}
	}
	res, err := procs.run(ctx, m.Engine, r)
	if err != nil {
		return res, err
	}
	kept := res
	kept.Data = bytes.Clone(res.Data)
	renders.keep(key, memoEntry{res: kept, sent: sent, ids: ids})
	shared.store(key, memoEntry{res: kept, sent: sent, ids: ids})
	return res, nil
}

// lookup is the entry for key: this binary's, else one another test binary
// of the run rendered (kept here then too).
func (m *memo) lookup(key [sha256.Size]byte) (memoEntry, bool) {
	m.mu.Lock()
	got, ok := m.entries[key]
	m.mu.Unlock()
	if ok {
		return got, true
	}
	if got, ok = shared.load(key); ok {
		m.keep(key, got)
	}
	return got, ok
}

// keep remembers e under key, within memoLimit.
func (m *memo) keep(key [sha256.Size]byte, e memoEntry) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.entries[key]; !ok && m.size+len(e.res.Data) <= memoLimit {
		m.entries[key] = e
		m.size += len(e.res.Data)
	}
}

// memoKey is a digest of everything a local render reads: the engine, the
// tool, the tier, the shape, the words, the declared options and the
// direction, and the inputs and references with their bytes (not their
// asset ids, which the engines only name in what they tell).
func memoKey(name string, r engine.Request) [sha256.Size]byte {
	h := sha256.New()
	put := func(ss ...string) {
		for _, s := range ss {
			_ = binary.Write(h, binary.LittleEndian, int64(len(s)))
			h.Write([]byte(s))
		}
	}
	put(name, r.Tool, string(r.Tier), r.Prompt)
	if r.Shape != nil {
		_ = binary.Write(h, binary.LittleEndian, [3]int64{1, int64(r.Shape.Width), int64(r.Shape.Height)})
	} else {
		_ = binary.Write(h, binary.LittleEndian, [3]int64{})
	}
	for _, k := range slices.Sorted(maps.Keys(r.Params)) {
		// An engine reads the options its tool declares (Request.Param, held
		// by TestEnginesReadOnlyDeclaredOptions) and the direction; the
		// service's bookkeeping (a run's or a look's id) changes nothing.
		if tool.Declared(r.Tool, k) || k == "direction" {
			put("param", k, r.Params[k])
		}
	}
	for _, in := range r.Inputs {
		put("input", in.Role, string(in.Data))
	}
	for _, ref := range r.References {
		put("reference", ref.Role, ref.Label, ref.Text, string(ref.Data))
	}
	var key [sha256.Size]byte
	h.Sum(key[:0])
	return key
}

// assetIDs are the asset ids of r's inputs, then of its references.
func assetIDs(r engine.Request) []string {
	ids := make([]string, 0, len(r.Inputs)+len(r.References))
	for _, in := range r.Inputs {
		ids = append(ids, in.AssetID)
	}
	for _, ref := range r.References {
		ids = append(ids, ref.AssetID)
	}
	return ids
}
