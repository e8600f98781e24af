package engine_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"
	"time"

	"studio/internal/ai/aitest"
	"studio/internal/engine"
	"studio/internal/engine/fal"
	"studio/internal/engine/fal/faltest"
	"studio/internal/engine/hosted"
	"studio/internal/engine/imageapi"
	"studio/internal/ledger"
	"studio/internal/picture"
)

// flat is a w x h PNG of one colour.
func flat(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = 200, 30, 40, 255
	}
	var b bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestImageEndpointRestoredThroughFal: with fal's engine as its Enlarger,
// the image endpoint's answer smaller than the frame goes through fal's
// upscale model (one submission, the answer as a data URI, the whole
// scale reaching the frame) and the frame is that restored picture at the
// tier's pixels; a 1k frame the answer covers sends fal nothing; a pass
// that fails after fal took it fails the develop and sends fal's cancel.
// (Without one, the engine resamples: imageapi's TestRun.)
func TestImageEndpointRestoredThroughFal(t *testing.T) {
	cases := []struct {
		name   string
		tier   ledger.Tier
		answer [2]int
		lost   bool
		scale  float64 // the upscale model's scale; 0: no pass
		sent   int     // the long edge of the picture the pass is sent
		w, h   int
		fail   string
	}{
		// The endpoint answers 1024 or 1536 px; small answers keep the
		// pixels few while the rule is the same (a frame larger than the
		// answer is restored).
		{name: "an answer half the frame", tier: ledger.Tier1K, answer: [2]int{512, 512}, scale: 2, sent: 512, w: 1024, h: 1024},
		// x2 of 768 px would decode to 1536 px, past the frame: the pass
		// is sent the answer at 512 px (engine.RestoreSource).
		{name: "an answer whose scale overshoots is sent smaller", tier: ledger.Tier1K, answer: [2]int{768, 768}, scale: 2, sent: 512, w: 1024, h: 1024},
		{name: "an answer that covers the frame needs no pass", tier: ledger.Tier1K, answer: [2]int{1024, 1024}, w: 1024, h: 1024},
		{name: "a pass fal loses fails and is cancelled", tier: ledger.Tier1K, answer: [2]int{512, 512}, lost: true, scale: 2, sent: 512,
			fail: "fal was busy: it answered 503. Nothing was charged."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			api := aitest.New(t)
			api.AnswerImage(aitest.ImageAnswer{Image: flat(t, c.answer[0], c.answer[1])})
			e, err := imageapi.New(api.URL, "img-key", "")
			if err != nil {
				t.Fatal(err)
			}
			e.SetBackoff(engine.Backoff{Tries: 1})
			queue := faltest.New(t, "fal-key")
			queue.Answer(func(string, map[string]any) faltest.Answer { return faltest.Answer{Lost: c.lost} })
			f, err := fal.New("fal-key", queue.URL, hosted.WithPolling(time.Millisecond, time.Millisecond))
			if err != nil {
				t.Fatal(err)
			}
			if e.Restores("generate-character") {
				t.Error("an engine with no enlarger says it restores")
			}
			e.SetEnlarger(f)
			if !e.Restores("generate-character") || !e.Restores("lookbook") {
				t.Error("an engine with an enlarger does not say it restores its tools")
			}
			var told []engine.Sent
			res, err := e.Run(context.Background(), engine.Request{Tool: "generate-character", Tier: c.tier,
				Params: map[string]string{"prompt": "A tall model"}, Record: func(s engine.Sent) { told = append(told, s) }})
			subs := queue.Submits()
			if c.scale != 0 {
				// The record ends with the pass, told before it was sent,
				// failed or not: the operator sees the second request.
				last := told[len(told)-1]
				want := engine.Restoration("fal-ai/esrgan", c.sent, c.sent, int(c.scale))
				if len(told) != 2 || len(last.Refs) == 0 || last.Refs[len(last.Refs)-1] != want || last.Prompt != told[0].Prompt {
					t.Errorf("the record was told %+v; want the endpoint's request, then it with %+v", told, want)
				}
				data, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(fmt.Sprint(subs[0].Input["image_url"]), "data:image/png;base64,"))
				if _, w, h, err := picture.Probe(data); err != nil || w != c.sent || h != c.sent {
					t.Errorf("the pass was sent a %dx%d picture (%v); want %dx%d", w, h, err, c.sent, c.sent)
				}
			}
			switch {
			case c.scale == 0 && len(subs) != 0:
				t.Fatalf("fal was sent %+v; want nothing", subs)
			case c.scale != 0 && (len(subs) != 1 || subs[0].Model != "fal-ai/esrgan" || subs[0].Input["scale"] != c.scale ||
				!strings.HasPrefix(subs[0].Input["image_url"].(string), "data:image/png;base64,")):
				t.Fatalf("fal was sent %+v; want one restoration of the endpoint's answer at scale %v", subs, c.scale)
			}
			if c.fail != "" {
				fe, ok := errors.AsType[*engine.Error](err)
				if !ok || fe.Reason != c.fail || len(queue.Cancelled()) != 1 || queue.Cancelled()[0] != subs[0].ID {
					t.Fatalf("err = %v, cancelled %v; want %q and the pass cancelled", err, queue.Cancelled(), c.fail)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			img, err := picture.Decode(res.Data)
			if err != nil || res.Width != c.w || res.Height != c.h || img.Rect.Dx() != c.w {
				t.Fatalf("frame %dx%d (%v); want %dx%d", res.Width, res.Height, err, c.w, c.h)
			}
			if c.scale != 0 {
				// The frame is fal's restored picture, painted its colour.
				want := faltest.Palette[0]
				if px := img.NRGBAAt(c.w/2, c.h/2); !near(px, want) {
					t.Errorf("the frame's centre %v is not the restored picture's %v", px, want)
				}
			}
		})
	}
}

func near(a, b color.NRGBA) bool {
	d := func(x, y uint8) int { return max(int(x)-int(y), int(y)-int(x)) }
	return d(a.R, b.R) < 12 && d(a.G, b.G) < 12 && d(a.B, b.B) < 12
}

// TestRestoreScale: an answer goes through the restoration pass when its
// long edge is more than 3% short of the frame's, at the model's whole
// scale (2 or 4) that reaches the frame.
func TestRestoreScale(t *testing.T) {
	for _, c := range []struct {
		have, want, scale int
		under             bool
	}{
		{1536, 2048, 2, true}, {1536, 4096, 4, true}, {1024, 2048, 2, true}, {1024, 4096, 4, true},
		{1000, 1024, 2, false}, {1536, 1024, 2, false}, {994, 1024, 2, false}, {993, 1024, 2, true},
	} {
		if got := engine.Undersized(c.have, c.want); got != c.under {
			t.Errorf("Undersized(%d, %d) = %v", c.have, c.want, got)
		}
		if got := engine.RestoreScale(c.have, c.want); got != c.scale {
			t.Errorf("RestoreScale(%d, %d) = %d; want %d", c.have, c.want, got, c.scale)
		}
	}
}

// TestRestorationMemory: the restoration pass keeps within the develop's
// declared memory cost (engine.MemoryCost). The pass is sent the answer at
// the long edge whose whole scale reaches the frame (RestoreSource), and
// an answer larger than RestoredMost is refused before it is decoded, so
// the restored picture decodes to one frame at most (a 1536 px answer
// taken x4 would have decoded to 6144 px, 2.25 frames of a 4k frame). At
// its peak the pass holds the picture it sent and two restored frames
// (the decoder's RGBA and picture.Decode's NRGBA copy; then Finish's
// opaque copy and its frame): inside the WorkingFrames frames of the
// tier MemoryCost declares for a develop with no input. The answer itself
// is not referenced once the picture sent is made.
func TestRestorationMemory(t *testing.T) {
	for _, c := range []struct {
		have, want  int
		long, scale int
	}{
		{1536, 4096, 1024, 4}, {1536, 2048, 1024, 2}, {1024, 4096, 1024, 4}, {1024, 2048, 1024, 2},
		{1145, 4096, 1024, 4}, {1145, 2048, 1024, 2}, {700, 2048, 512, 4}, {512, 1024, 512, 2},
		{1000, 2048, 1000, 2}, {993, 1024, 512, 2}, {1200, 3508, 877, 4}, {1023, 2048, 1023, 2},
	} {
		long, scale := engine.RestoreSource(c.have, c.want)
		if long != c.long || scale != c.scale {
			t.Errorf("RestoreSource(%d, %d) = %d, x%d; want %d, x%d", c.have, c.want, long, scale, c.long, c.scale)
		}
		restored := long * scale
		if engine.Undersized(restored, c.want) || restored > engine.RestoredMost(c.want) {
			t.Errorf("%d px x%d = %d px for a %d px frame", long, scale, restored, c.want)
		}
		tier := ledger.Tier1K
		for _, tt := range ledger.Tiers {
			if tt.Pixels() >= c.want {
				tier = tt
				break
			}
		}
		square := func(n int) int64 { return int64(n) * int64(n) * 4 }
		most := int64(engine.RestoredMost(c.want))
		peak := square(long) + 2*most*most*4
		if cost := engine.MemoryCost(engine.Request{Tool: "generate-character", Tier: tier}); peak > cost {
			t.Errorf("a %d px answer restored for a %d px frame holds %d bytes; the develop declares %d", c.have, c.want, peak, cost)
		}
	}
}
