package job_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"studio/internal/auth"
	"studio/internal/engine"
	"studio/internal/job"
	"studio/internal/ledger"
	"studio/internal/tool"
)

// The preflight's hook into the engine (engine.Preflighter): asked only
// once every submit check passed, with the inputs' bytes read, its
// problems become the preflight's. The submit checks themselves are walked
// on the real service in httpapi's TestPreflight.

type fakeStore struct {
	job.Store
	spendable, held int64
}

func (f fakeStore) Spendable(context.Context, string) (int64, error) { return f.spendable, nil }
func (f fakeStore) Held(context.Context, string) (int64, error)      { return f.held, nil }

type fakeAssets struct {
	job.Assets
	data map[string][]byte
}

func (f fakeAssets) LiveSizes(_ context.Context, _ string, ids []string) (map[string]int64, error) {
	out := map[string]int64{}
	for _, id := range ids {
		if d, ok := f.data[id]; ok {
			out[id] = int64(len(d))
		}
	}
	return out, nil
}

func (f fakeAssets) InputBytes(_ context.Context, _, id string) ([]byte, error) {
	return f.data[id], nil
}

// measuring performs upscale and foresees trouble with an image of fewer
// than 4 bytes; it records what it was asked, and fails with err when set.
type measuring struct {
	asked []engine.Request
	err   error
}

func (*measuring) Name() string         { return "local" }
func (*measuring) Tools() []string      { return []string{"upscale"} }
func (*measuring) Can(tool string) bool { return tool == "upscale" }
func (*measuring) Run(context.Context, engine.Request) (engine.Result, error) {
	return engine.Result{}, engine.ErrUnsupported
}

func (m *measuring) Preflight(_ context.Context, r engine.Request) ([]engine.Problem, error) {
	m.asked = append(m.asked, r)
	if m.err != nil {
		return nil, m.err
	}
	if len(r.Inputs) == 1 && len(r.Inputs[0].Data) < 4 {
		return []engine.Problem{{Code: "LOW_CONFIDENCE", Message: "The image is too small to read.", Role: "image"}}, nil
	}
	return nil, nil
}

func TestPreflightAsksTheEngine(t *testing.T) {
	eng := &measuring{}
	assets := fakeAssets{data: map[string][]byte{"small": []byte("ab"), "fine": []byte("plenty of bytes")}}
	s := job.NewService(fakeStore{spendable: 60}, assets, eng, tool.DefaultPrices(), time.Now)
	member := auth.Principal{HouseID: "h", UserID: "u", Role: auth.Member}
	ask := func(in job.SubmitRequest) job.Preflight {
		t.Helper()
		out, err := s.Preflight(context.Background(), member, in)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}

	out := ask(job.SubmitRequest{Tool: "upscale", Inputs: []job.Input{{Role: "image", AssetID: "small"}}})
	if out.OK || len(out.Problems) != 1 || out.Problems[0] != (job.Problem{Code: "LOW_CONFIDENCE", Message: "The image is too small to read.", Role: "image"}) {
		t.Errorf("a small image: %+v; want the engine's LOW_CONFIDENCE problem", out)
	}
	if len(eng.asked) != 1 || string(eng.asked[0].Inputs[0].Data) != "ab" || eng.asked[0].Tier != ledger.Tier1K {
		t.Errorf("the engine was asked %+v; want the image's bytes at 1k", eng.asked)
	}
	if out := ask(job.SubmitRequest{Tool: "upscale", Inputs: []job.Input{{Role: "image", AssetID: "fine"}}}); !out.OK || len(out.Problems) != 0 {
		t.Errorf("a fine image: %+v; want ok", out)
	}
	// A submit check that fails is the answer: the engine is not asked.
	eng.asked = nil
	out = ask(job.SubmitRequest{Tool: "upscale", Inputs: []job.Input{{Role: "image", AssetID: "gone"}}})
	codes := []string{}
	for _, p := range out.Problems {
		codes = append(codes, p.Code)
	}
	if out.OK || !slices.Equal(codes, []string{"ASSET_NOT_FOUND"}) || len(eng.asked) != 0 {
		t.Errorf("an unknown asset: %+v (engine asked %d times); want ASSET_NOT_FOUND alone, the engine not asked", out, len(eng.asked))
	}
}

// TestPreflightKeepsTheEngineAnswer: the engine's answer to a request is
// kept (the console asks again on every change of its form); a request
// that differs in its tier, options, an input's bytes or asset asks the
// engine again; an error is never kept; at most 64 answers are kept, the
// oldest dropped first.
func TestPreflightKeepsTheEngineAnswer(t *testing.T) {
	eng := &measuring{}
	data := map[string][]byte{"small": []byte("ab"), "fine": []byte("plenty of bytes"), "same": []byte("plenty of bytes")}
	for i := range 65 {
		data[fmt.Sprint("piece-", i)] = []byte(fmt.Sprint("the bytes of piece ", i))
	}
	s := job.NewService(fakeStore{spendable: 60}, fakeAssets{data: data}, eng, tool.DefaultPrices(), time.Now)
	member := auth.Principal{HouseID: "h", UserID: "u", Role: auth.Member}
	ask := func(id string, tier ledger.Tier) (job.Preflight, error) {
		return s.Preflight(context.Background(), member, job.SubmitRequest{Tool: "upscale", Tier: tier, Inputs: []job.Input{{Role: "image", AssetID: id}}})
	}
	asks := func(id string, tier ledger.Tier, want int) job.Preflight {
		t.Helper()
		before := len(eng.asked)
		out, err := ask(id, tier)
		if err != nil {
			t.Fatal(err)
		}
		if got := len(eng.asked) - before; got != want {
			t.Errorf("a preflight of %s at %s asked the engine %d times; want %d", id, tier, got, want)
		}
		return out
	}

	first := asks("small", ledger.Tier1K, 1)
	again := asks("small", ledger.Tier1K, 0)
	if again.OK || !slices.Equal(again.Problems, first.Problems) || len(again.Problems) != 1 {
		t.Errorf("asked again: %+v; want the engine's answer of the first time, %+v", again, first)
	}
	asks("small", ledger.Tier2K, 1)  // another tier
	asks("same", ledger.Tier1K, 1)   // the bytes of "fine", another asset
	asks("fine", ledger.Tier1K, 1)   // ...and the asset itself
	data["small"] = []byte("abcdef") // other bytes under the same id
	if out := asks("small", ledger.Tier1K, 1); !out.OK {
		t.Errorf("new bytes: %+v; want the engine's new answer (ok)", out)
	}

	eng.err = errors.New("the engine could not look")
	if _, err := ask("piece-0", ledger.Tier1K); err == nil {
		t.Fatal("the engine's error was not answered")
	}
	eng.err = nil
	asks("piece-0", ledger.Tier1K, 1) // the error was not kept

	for i := 1; i < 65; i++ {
		asks(fmt.Sprint("piece-", i), ledger.Tier1K, 1)
	}
	asks("piece-64", ledger.Tier1K, 0)
	asks("small", ledger.Tier2K, 1) // over 64 answers kept since: it went
}
