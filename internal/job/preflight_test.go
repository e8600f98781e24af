package job_test

import (
	"context"
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
// than 4 bytes; it records what it was asked.
type measuring struct{ asked []engine.Request }

func (*measuring) Name() string         { return "local" }
func (*measuring) Tools() []string      { return []string{"upscale"} }
func (*measuring) Can(tool string) bool { return tool == "upscale" }
func (*measuring) Run(context.Context, engine.Request) (engine.Result, error) {
	return engine.Result{}, engine.ErrUnsupported
}

func (m *measuring) Preflight(_ context.Context, r engine.Request) ([]engine.Problem, error) {
	m.asked = append(m.asked, r)
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
