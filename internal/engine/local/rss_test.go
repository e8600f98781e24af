package local_test

import (
	"context"
	"fmt"
	"image"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"studio/internal/engine"
	"studio/internal/engine/local"
	"studio/internal/imagemem"
	"studio/internal/ledger"
)

// rssMargin is the governor's margin over the process, as studio serve
// sets it (cmd/studio governMemory).
const rssMargin = 32 << 20

// rssInputs writes the inputs of one 4k develop of each local tool, the
// size of a camera's photograph (about 2500 x 3000 px), into dir, and
// returns each tool's request with its inputs named by file.
func rssInputs(t testing.TB, dir string) map[string]engine.Request {
	files := map[string][]byte{
		"product": encJPEG(t, productImage(3000, 2500)),
		"model":   encJPEG(t, modelImage(3000)),
		"garment": encJPEG(t, garmentImage(2500)),
		"scene":   encJPEG(t, sceneImage(3000, 2500)),
		"mask":    encPNG(t, maskImage(3000, 2500, image.Rect(600, 600, 1000, 900))),
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return rssRequests(func(name string) []byte { return []byte(name) })
}

// rssRequests are one 4k develop of each local tool, the inputs' bytes
// given by file.
func rssRequests(file func(string) []byte) map[string]engine.Request {
	product, model, garment, scene, mask := file("product"), file("model"), file("garment"), file("scene"), file("mask")
	p := func(kv ...string) map[string]string {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	return map[string]engine.Request{
		"upscale":           {Tool: "upscale", Inputs: []engine.Input{in("image", product)}},
		"reframe":           {Tool: "reframe", Params: p("aspect", "4:5"), Inputs: []engine.Input{in("image", product)}},
		"packshot":          {Tool: "packshot", Inputs: []engine.Input{in("image", product)}},
		"remove-background": {Tool: "remove-background", Inputs: []engine.Input{in("image", product)}},
		"camera-lens":       {Tool: "camera-lens", Params: p("lens", "85mm"), Inputs: []engine.Input{in("image", model)}},
		"harmonize":         {Tool: "harmonize", Inputs: []engine.Input{in("image", product), in("background", scene)}},
		"iron":              {Tool: "iron", Inputs: []engine.Input{in("image", garment)}},
		"cleanup":           {Tool: "cleanup", Inputs: []engine.Input{in("image", product), in("mask", mask)}},
		"color-change":      {Tool: "color-change", Params: p("color", "#2a7f3c"), Inputs: []engine.Input{in("image", garment)}},
		"fit-adjust":        {Tool: "fit-adjust", Params: p("fit", "loose", "part", "top"), Inputs: []engine.Input{in("image", model)}},
		"tryon":             {Tool: "tryon", Inputs: []engine.Input{in("model", model), in("garment", garment)}},
	}
}

// rssFour names the row of four 4k develops at once in one process.
const rssFour = "four-at-once"

// rssAtOnce develops four 4k frames at once in this process (harmonize,
// cleanup, tryon and iron, the largest working sets), as studio serve
// runs a worker's develops: each takes its engine.MemoryCost from one
// budget of the default size (STUDIO_DECODE_BUDGET_MB), and waits for it
// when the others hold it. Its declared cost is the budget.
func rssAtOnce(t *testing.T, reqs map[string]engine.Request) {
	var before syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	fmt.Printf("RSS-BASE %d\n", before.Maxrss)
	imagemem.Govern(rssMargin)
	budget := imagemem.New(0)
	fmt.Printf("RSS-COST %d\n", budget.Total())
	var wg sync.WaitGroup
	for _, tool := range []string{"harmonize", "cleanup", "tryon", "iron"} {
		r := reqs[tool]
		r.Tier = ledger.Tier4K
		wg.Go(func() {
			release, err := budget.Acquire(context.Background(), engine.MemoryCost(r))
			if err != nil {
				t.Error(err)
				return
			}
			defer release()
			if _, err := local.New().Run(context.Background(), r); err != nil {
				t.Errorf("%s: %v", tool, err)
			}
		})
	}
	wg.Wait()
}

// TestPeakRSS4K develops one 4k frame per local tool, each in a fresh
// process (this test binary run again) set up as studio serve develops
// (imagemem.Govern, the develop's engine.MemoryCost taken from the
// budget), and reads each process's peak resident set: it stays within
// the process's base, the governor's margin and the develop's declared
// cost. A last process develops four at once from one budget
// (rssAtOnce): it stays within its base, the margin and the budget. The
// figures are in docs/local-engine.md. Opt-in (a few CPU seconds a tool):
//
//	STUDIO_RSS=1 go test -count=1 -v -run 'TestPeakRSS4K$' ./internal/engine/local/
//
// (STUDIO_RSS=iron,tryon measures those tools only; four-at-once the four.)
func TestPeakRSS4K(t *testing.T) {
	if dir := os.Getenv("STUDIO_RSS_WRITE"); dir != "" {
		rssInputs(t, dir)
		return
	}
	if tool := os.Getenv("STUDIO_RSS_TOOL"); tool != "" {
		dir := os.Getenv("STUDIO_RSS_DIR")
		reqs := rssRequests(func(name string) []byte {
			b, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			return b
		})
		if tool == rssFour {
			rssAtOnce(t, reqs)
			return
		}
		r, ok := reqs[tool]
		if !ok {
			t.Fatalf("no request for %s", tool)
		}
		r.Tier = ledger.Tier4K
		var before syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &before)
		fmt.Printf("RSS-BASE %d\n", before.Maxrss)
		// As studio serve develops: the memory governed by the budgets, the
		// develop's cost taken from the process's budget (the worker's way).
		imagemem.Govern(rssMargin)
		fmt.Printf("RSS-COST %d\n", engine.MemoryCost(r))
		release, err := imagemem.New(0).Acquire(context.Background(), engine.MemoryCost(r))
		if err != nil {
			t.Fatal(err)
		}
		defer release()
		if _, err := local.New().Run(context.Background(), r); err != nil {
			t.Fatal(err)
		}
		return
	}
	if os.Getenv("STUDIO_RSS") == "" {
		t.Skip("opt-in: STUDIO_RSS=1 (one 4k develop per tool, each in its own process)")
	}
	// Linux keeps a process's peak across exec, and a child starts from
	// its parent's: the inputs are drawn by a child of their own, so this
	// process stays as small as a fresh one.
	dir := t.TempDir()
	write := exec.Command(os.Args[0], "-test.run", "^TestPeakRSS4K$", "-test.count=1")
	write.Env = append(os.Environ(), "STUDIO_RSS_WRITE="+dir)
	if out, err := write.CombinedOutput(); err != nil {
		t.Fatalf("drawing the inputs: %v\n%s", err, out)
	}
	tools := append(slices.Sorted(maps.Keys(rssRequests(func(string) []byte { return nil }))), rssFour)
	if only := os.Getenv("STUDIO_RSS"); only != "1" {
		tools = strings.Split(only, ",")
	}
	for _, tool := range tools {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestPeakRSS4K$", "-test.count=1")
		cmd.Env = append(os.Environ(), "STUDIO_RSS_TOOL="+tool, "STUDIO_RSS_DIR="+dir)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("%s: %v\n%s", tool, err, out)
			continue
		}
		var base, cost int64
		for _, line := range strings.Split(string(out), "\n") {
			fmt.Sscanf(line, "RSS-BASE %d", &base)
			fmt.Sscanf(line, "RSS-COST %d", &cost)
		}
		ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		peak := ru.Maxrss / 1024
		// The governor's promise: the process stays within its base, the
		// margin and the develop's declared cost (10% for the runtime's own
		// memory and the collector's overshoot).
		bound := (base<<10 + rssMargin + cost) >> 20
		t.Logf("%-18s peak %4d MB; declared cost %3d MB, bound %3d MB; cpu %.1f s",
			tool, peak, cost>>20, bound, float64(ru.Utime.Nano()+ru.Stime.Nano())/1e9)
		if float64(peak) > 1.1*float64(bound) {
			t.Errorf("%s: a 4k develop peaks at %d MB, over the %d MB its cost declares", tool, peak, bound)
		}
	}
}
