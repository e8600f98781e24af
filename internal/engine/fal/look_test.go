package fal_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"image/color"
	"slices"
	"strings"
	"testing"
	"time"

	"studio/internal/engine"
	"studio/internal/engine/fal"
	"studio/internal/engine/fal/faltest"
	"studio/internal/engine/hosted"
	"studio/internal/ledger"
	"studio/internal/picture"
	"studio/internal/tool"
)

const lookModel = "fal-ai/nano-banana-pro/edit"

// TestLookFrames develops look frames on the fal stand-in: what each call
// to the look model carries (references in order, prompt, aspect_ratio,
// resolution), the restoration pass when the answer is smaller than the
// frame, and the refusals (wrong size, nsfw flag, content policy) that fail
// the frame with a plain reason.
func TestLookFrames(t *testing.T) {
	model, top, trousers, bg, base := jpegOf(t, 300, 500), jpegOf(t, 200, 200), jpegOf(t, 200, 260), jpegOf(t, 400, 300), jpegOf(t, 410, 512)
	lockParams := map[string]string{"stage": "lock", "key": "lock", "aesthetic": "editorial", "roles": "top,bottom",
		"labels": `["Linen shirt","Wide trousers"]`, "scene": "Concrete, a raw concrete wall and floor"}
	variation := func(key string, extra map[string]string) map[string]string {
		p := map[string]string{"stage": "variation", "key": key, "aesthetic": "noir", "roles": "top,bottom", "labels": `["Linen shirt","Wide trousers"]`}
		for k, v := range extra {
			p[k] = v
		}
		return p
	}
	portrait := &engine.Shape{Width: 1080, Height: 1350}
	cases := []struct {
		name     string
		inputs   []engine.Input
		params   map[string]string
		tier     ledger.Tier
		shape    *engine.Shape
		answer   faltest.Answer
		prompt   string // the house's direction
		refs     []string
		aspect   string
		res      string
		words    []string // in the look model's prompt
		upscale  float64  // the restoration pass's scale; 0: none
		w, h     int      // the frame
		fail     string   // in the failure's reason
		input    bool     // the failure is an input fault
		colourOf int      // the submission whose answer the frame is
	}{
		{name: "lock with a preset ground", inputs: []engine.Input{in("model", model), in("item", top), in("item", trousers)},
			params: lockParams, tier: ledger.Tier1K, shape: portrait, prompt: "Brand: quiet luxury.",
			refs: []string{"model", "top", "trousers"}, aspect: "4:5", res: "1K", w: 819, h: 1024,
			words: []string{"Image 1 is the model", "image 2 is the hero piece, a top: Linen shirt", "image 3 is a bottom: Wide trousers",
				"The setting: Concrete, a raw concrete wall and floor", "editorial fashion-magazine", "portrait frame of aspect 4:5", "Brand: quiet luxury."}},
		{name: "lock with a background asset", inputs: []engine.Input{in("model", model), in("item", top), in("background", bg)},
			params: map[string]string{"stage": "lock", "key": "lock", "aesthetic": "street", "roles": "top", "labels": `["Linen shirt"]`},
			tier:   ledger.Tier1K, shape: &engine.Shape{Width: 1920, Height: 1080},
			refs: []string{"model", "top", "background"}, aspect: "16:9", res: "1K", w: 1024, h: 576,
			words: []string{"the place shown in image 3", "street-style"}},
		{name: "variation with a posture and controls", inputs: []engine.Input{in("model", model), in("item", top), in("item", trousers), in("base", base)},
			params: variation("posture:lean-wall", map[string]string{"posture": "Shoulder against a wall, crossed ankles; leaning a shoulder against a wall, ankles crossed",
				"control.gaze": "away", "control.arms": "pockets"}),
			tier: ledger.Tier1K, shape: portrait, refs: []string{"base", "top", "trousers"}, aspect: "4:5", res: "1K", w: 819, h: 1024,
			words: []string{"Image 1 is the locked look", "posed: Shoulder against a wall, crossed ankles", "looking away from the camera, hands in the pockets", "black-and-white"}},
		{name: "variation detail names the hero", inputs: []engine.Input{in("model", model), in("item", top), in("item", trousers), in("base", base)},
			params: variation("detail", nil), tier: ledger.Tier1K, shape: portrait, refs: []string{"base", "top", "trousers"}, aspect: "4:5", res: "1K", w: 819, h: 1024,
			words: []string{"tight detail shot of the hero piece", "(the hero piece, a top: Linen shirt)"}},
		{name: "a frame the model answers at half size is restored", inputs: []engine.Input{in("model", model), in("item", top)},
			params: map[string]string{"key": "lock", "roles": "top"}, tier: ledger.Tier1K, shape: portrait,
			answer: faltest.Answer{Width: 410, Height: 512}, refs: []string{"model", "top"}, aspect: "4:5", res: "1K", upscale: 2, w: 819, h: 1024, colourOf: 1},
		{name: "a quarter size answer is restored by 4", inputs: []engine.Input{in("model", model), in("item", top)},
			params: map[string]string{"key": "lock", "roles": "top"}, tier: ledger.Tier1K, shape: portrait,
			answer: faltest.Answer{Width: 256, Height: 320}, refs: []string{"model", "top"}, aspect: "4:5", res: "1K", upscale: 4, w: 819, h: 1024, colourOf: 1},
		{name: "a restored destination asks for twice the tier", inputs: []engine.Input{in("model", model), in("item", top)},
			params: map[string]string{"key": "lock", "roles": "top", "restore": "1"}, tier: ledger.Tier1K, shape: &engine.Shape{Width: 2000, Height: 2000},
			refs: []string{"model", "top"}, aspect: "1:1", res: "2K", w: 2048, h: 2048},
		{name: "an answer of the wrong size fails", inputs: []engine.Input{in("model", model), in("item", top)},
			params: map[string]string{"key": "lock", "roles": "top"}, tier: ledger.Tier1K, shape: portrait, answer: faltest.Answer{Width: 1024, Height: 1024},
			refs: []string{"model", "top"}, aspect: "4:5", res: "1K", fail: "answered a 1024x1024 picture, not the 4:5 frame it was asked for. Nothing was charged."},
		{name: "an nsfw flag fails", inputs: []engine.Input{in("model", model), in("item", top)},
			params: map[string]string{"key": "lock", "roles": "top"}, tier: ledger.Tier1K, shape: portrait, answer: faltest.Answer{NSFW: true},
			refs: []string{"model", "top"}, aspect: "4:5", res: "1K", fail: "safety check refused this picture", input: true},
		{name: "a content policy refusal fails", inputs: []engine.Input{in("model", model), in("item", top)},
			params: map[string]string{"key": "lock", "roles": "top"}, tier: ledger.Tier1K, shape: portrait, answer: faltest.Answer{Refuse: true},
			refs: []string{"model", "top"}, aspect: "4:5", res: "1K", fail: "safety check refused this picture", input: true},
	}
	data := map[string][]byte{"model": model, "top": top, "trousers": trousers, "background": bg, "base": base}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := faltest.New(t, testKey)
			srv.Answer(func(m string, _ map[string]any) faltest.Answer {
				if m == lookModel {
					return c.answer
				}
				return faltest.Answer{}
			})
			e, err := fal.New(testKey, srv.URL, hosted.WithPolling(time.Millisecond, time.Millisecond))
			if err != nil {
				t.Fatal(err)
			}
			res, err := e.Run(context.Background(), engine.Request{Tool: "lookbook", Inputs: c.inputs, Params: c.params, Tier: c.tier, Shape: c.shape, Prompt: c.prompt})
			looks := srv.Of(lookModel)
			if len(looks) != 1 {
				t.Fatalf("the look model was called %d times", len(looks))
			}
			got := looks[0].Input
			urls, _ := got["image_urls"].([]any)
			if len(urls) != len(c.refs) {
				t.Fatalf("image_urls has %d images, want %v", len(urls), c.refs)
			}
			for i, name := range c.refs {
				u, _ := urls[i].(string)
				if u != "data:image/jpeg;base64,"+base64.StdEncoding.EncodeToString(data[name]) {
					t.Errorf("image_urls[%d] is not the %s", i, name)
				}
			}
			if got["aspect_ratio"] != c.aspect || got["resolution"] != c.res || got["num_images"] != 1.0 {
				t.Errorf("aspect_ratio %v resolution %v num_images %v; want %s %s 1", got["aspect_ratio"], got["resolution"], got["num_images"], c.aspect, c.res)
			}
			prompt, _ := got["prompt"].(string)
			for _, w := range c.words {
				if !strings.Contains(prompt, w) {
					t.Errorf("the prompt lacks %q:\n%s", w, prompt)
				}
			}
			ups := srv.Of(fal.DefaultModels["upscale"])
			if c.upscale == 0 && len(ups) != 0 || c.upscale != 0 && (len(ups) != 1 || ups[0].Input["scale"] != c.upscale) {
				t.Errorf("restoration passes %v, want scale %v", ups, c.upscale)
			}
			if c.fail != "" {
				fe, ok := err.(*engine.Error)
				if !ok || !strings.Contains(fe.Reason, c.fail) || engine.IsInput(err) != c.input {
					t.Fatalf("err = %v, want a failure saying %q (input fault %v)", err, c.fail, c.input)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Width != c.w || res.Height != c.h || res.Mime != "image/jpeg" {
				t.Fatalf("frame %dx%d %s, want %dx%d jpeg", res.Width, res.Height, res.Mime, c.w, c.h)
			}
			img, err := picture.Decode(res.Data)
			if err != nil {
				t.Fatal(err)
			}
			if px := img.NRGBAAt(c.w/2, c.h/2); !near(px, faltest.Palette[c.colourOf]) {
				t.Errorf("the frame's centre is %v, not the model's answer %v", px, faltest.Palette[c.colourOf])
			}
		})
	}
}

// sentAt reports whether the restoration pass pass was sent first's
// answer by its URL (from 0), or as a data URI whose long edge is from.
func sentAt(t *testing.T, first, pass faltest.Submit, from int) bool {
	t.Helper()
	u := fmt.Sprint(pass.Input["image_url"])
	if from == 0 {
		return strings.HasSuffix(u, first.ID+".png")
	}
	_, payload, ok := strings.Cut(u, ";base64,")
	data, err := base64.StdEncoding.DecodeString(payload)
	if !ok || err != nil {
		return false
	}
	_, w, h, err := picture.Probe(data)
	return err == nil && max(w, h) == from
}

func near(a, b color.NRGBA) bool {
	d := func(x, y uint8) int { return max(int(x)-int(y), int(y)-int(x)) }
	return d(a.R, b.R) < 12 && d(a.G, b.G) < 12 && d(a.B, b.B) < 12
}

// TestGenerativeOnStandIn: generate-character (from words on flux/dev at
// its native size, the 1k canvas, a 2k one then through the upscale model;
// from a reference on kontext), a reframe to a ratio
// the expand model does not accept, and lookbook-video (kling) against the
// stand-in: each call's input as fal documents it, the result at the
// aspect asked, and a flagged answer refused plainly.
func TestGenerativeOnStandIn(t *testing.T) {
	frame := jpegOf(t, 400, 500)
	cases := []struct {
		name   string
		req    engine.Request
		answer faltest.Answer // the answer (with a restoration pass: the pass's)
		first  faltest.Answer // with a restoration pass, the first model's answer
		model  string
		input  map[string]any // fields the call must carry, as JSON decodes them
		w, h   int
		mime   string
		fail   string  // an input fault's words
		fault  string  // a provider fault's words
		pass   float64 // the restoration pass's scale; 0: none
		from   int     // the long edge of the picture the pass is sent as a data URI; 0: fal's answer by its URL
	}{
		{name: "character from words", req: engine.Request{Tool: "generate-character", Tier: ledger.Tier1K, Params: map[string]string{"prompt": "A tall model", "aspect": "4:5"}},
			model: "fal-ai/flux/dev", input: map[string]any{"prompt": "A tall model", "num_images": 1.0, "image_size": map[string]any{"width": 819.0, "height": 1024.0}},
			w: 819, h: 1024, mime: "image/jpeg"},
		{name: "a 2k character from words is asked at flux's native size and restored", req: engine.Request{Tool: "generate-character", Tier: ledger.Tier2K, Params: map[string]string{"prompt": "A tall model", "aspect": "4:5"}},
			model: "fal-ai/flux/dev", input: map[string]any{"image_size": map[string]any{"width": 819.0, "height": 1024.0}},
			w: 1638, h: 2048, mime: "image/jpeg", pass: 2},
		{name: "a character fal sized a little off is composed for the aspect asked", req: engine.Request{Tool: "generate-character", Tier: ledger.Tier1K, Params: map[string]string{"prompt": "A tall model", "aspect": "4:5"}},
			answer: faltest.Answer{Width: 816, Height: 1024}, model: "fal-ai/flux/dev", input: map[string]any{"image_size": map[string]any{"width": 819.0, "height": 1024.0}},
			w: 819, h: 1024, mime: "image/jpeg"},
		{name: "a 7:5 reframe is asked at the nearest ratio fal accepts and composed for 7:5", req: engine.Request{Tool: "reframe", Tier: ledger.Tier1K, Params: map[string]string{"aspect": "7:5"}, Inputs: []engine.Input{in("image", frame)}},
			answer: faltest.Answer{Width: 1024, Height: 768}, model: "fal-ai/bria/expand", input: map[string]any{"aspect_ratio": "4:3"},
			w: 1024, h: 731, mime: "image/jpeg"},
		{name: "character from a reference", req: engine.Request{Tool: "generate-character", Tier: ledger.Tier1K, Inputs: []engine.Input{in("image", frame)}},
			model: "fal-ai/flux-pro/kontext", input: map[string]any{"image_url": "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(frame),
				"prompt": "The same person as a full-length fashion model on a plain studio background, same face and build."},
			w: 819, h: 1024, mime: "image/jpeg"},
		{name: "a character from a photo keeps its instruction beside the brand clause", req: engine.Request{Tool: "generate-character", Tier: ledger.Tier1K,
			Inputs: []engine.Input{in("image", frame)}, Prompt: "House style: quiet coastal tailoring."},
			model: "fal-ai/flux-pro/kontext", input: map[string]any{"prompt": fal.CharacterFromPhoto + " House style: quiet coastal tailoring."},
			w: 819, h: 1024, mime: "image/jpeg"},
		// At 2k Kontext's one megapixel (916x1145 for this 4:5 photo) goes
		// through the pass; here, to keep the pixels few, a 1k frame and
		// a smaller answer: 600x750 taken x2 would make 1500 px, past the
		// frame, so the pass is sent the answer at 512 px and answers the
		// frame's size.
		{name: "an iron answered short is restored", req: engine.Request{Tool: "iron", Tier: ledger.Tier1K, Inputs: []engine.Input{in("image", frame)}},
			first: faltest.Answer{Width: 600, Height: 750}, model: "fal-ai/flux-pro/kontext", w: 820, h: 1024, mime: "image/jpeg", pass: 2, from: 512},
		// The eraser answers at the picture's size (400x500): x2 reaches
		// 1000 px, within 3% of the frame, so fal's answer goes by its URL.
		{name: "a cleanup of a small picture is the eraser's answer restored", req: engine.Request{Tool: "cleanup", Tier: ledger.Tier1K,
			Inputs: []engine.Input{in("image", frame), in("mask", jpegOf(t, 400, 500))}},
			model: "fal-ai/bria/eraser", w: 819, h: 1024, mime: "image/jpeg", pass: 2},
		{name: "a restoration pass that answers past the frame is refused", req: engine.Request{Tool: "iron", Tier: ledger.Tier1K, Inputs: []engine.Input{in("image", frame)}},
			first: faltest.Answer{Width: 600, Height: 750}, answer: faltest.Answer{Width: 880, Height: 1100}, model: "fal-ai/flux-pro/kontext", pass: 2, from: 512,
			fault: "the restoration pass answered a 880x1100 picture for a 410x512 one at x2"},
		{name: "a restoration pass fal loses fails the edit and is cancelled", req: engine.Request{Tool: "iron", Tier: ledger.Tier1K, Inputs: []engine.Input{in("image", frame)}},
			first: faltest.Answer{Width: 600, Height: 750}, answer: faltest.Answer{Lost: true}, model: "fal-ai/flux-pro/kontext", pass: 2, from: 512,
			fault: "fal was busy: it answered 503"},
		{name: "a flagged character is refused", req: engine.Request{Tool: "generate-character", Tier: ledger.Tier1K, Params: map[string]string{"prompt": "x"}},
			answer: faltest.Answer{NSFW: true}, model: "fal-ai/flux/dev", input: map[string]any{"prompt": "x"}, fail: "safety check refused this picture"},
		{name: "a look video from a frame", req: engine.Request{Tool: "lookbook-video", Tier: ledger.Tier1K, Inputs: []engine.Input{in("image", frame)}, Prompt: "She turns slowly."},
			model: "fal-ai/kling-video/v2.1/standard/image-to-video", input: map[string]any{"prompt": fal.VideoInstruction + " She turns slowly.", "duration": "5",
				"image_url": "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(frame)},
			w: 1280, h: 720, mime: "video/mp4"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := faltest.New(t, testKey)
			srv.Answer(func(model string, _ map[string]any) faltest.Answer {
				if c.pass != 0 && model != "fal-ai/esrgan" {
					return c.first
				}
				return c.answer
			})
			var told []engine.Sent
			c.req.Record = func(s engine.Sent) { told = append(told, s) }
			e, err := fal.New(testKey, srv.URL, hosted.WithPolling(time.Millisecond, time.Millisecond))
			if err != nil {
				t.Fatal(err)
			}
			res, err := e.Run(context.Background(), c.req)
			subs := srv.Submits()
			switch {
			case c.pass == 0 && (len(subs) != 1 || subs[0].Model != c.model):
				t.Fatalf("calls %+v; want one to %s", subs, c.model)
			case c.pass != 0 && (len(subs) != 2 || subs[0].Model != c.model || subs[1].Model != "fal-ai/esrgan" ||
				subs[1].Input["scale"] != c.pass || !sentAt(t, subs[0], subs[1], c.from)):
				t.Fatalf("calls %+v; want one to %s, then its answer (sent at %d px) to the upscale model at scale %v", subs, c.model, c.from, c.pass)
			}
			// The record on the job ends with the restoration pass when
			// there is one, so an operator sees the second request.
			if last := told[len(told)-1].Refs; c.pass != 0 && (len(last) == 0 || last[len(last)-1].Role != "restoration" || last[len(last)-1].Label != "fal-ai/esrgan") {
				t.Errorf("the record %+v does not end with the restoration pass", told[len(told)-1])
			} else if c.pass == 0 && len(told) != 1 {
				t.Errorf("the record was told %d times (%+v); want once", len(told), told)
			}
			for k, v := range c.input {
				if got := subs[0].Input[k]; fmt.Sprint(got) != fmt.Sprint(v) {
					t.Errorf("%s = %v; want %v", k, got, v)
				}
			}
			if c.fail != "" {
				if !engine.IsInput(err) || !strings.Contains(err.Error(), c.fail) {
					t.Fatalf("err = %v; want an input fault saying %q", err, c.fail)
				}
				return
			}
			if c.fault != "" {
				if err == nil || engine.IsInput(err) || !strings.Contains(err.Error(), c.fault) {
					t.Fatalf("err = %v; want a provider fault saying %q", err, c.fault)
				}
				if c.answer.Lost && !slices.Equal(srv.Cancelled(), []string{subs[1].ID}) {
					t.Errorf("cancelled %v; want the lost pass %s cancelled", srv.Cancelled(), subs[1].ID)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Mime != c.mime || res.Width != c.w || res.Height != c.h {
				t.Errorf("result %s %dx%d; want %s %dx%d", res.Mime, res.Width, res.Height, c.mime, c.w, c.h)
			}
		})
	}
}

// TestRestoredToolsSaySo: every tool whose fal answer short of the tier
// goes through the restoration pass (fal.Restores) says so in the
// catalog's note on fal, and no other tool fal performs does (the
// upscale tool, background removal, the video); look frames are restored
// by the look model's path and need no note (its resolution reaches the
// frame).
func TestRestoredToolsSaySo(t *testing.T) {
	e, err := fal.New(testKey, "http://fal.test")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range e.Tools() {
		d, _ := tool.Get(name)
		says := strings.Contains(d.Note(tool.Fal), "restored by fal's upscale model")
		if want := fal.Restores(name) && name != "lookbook"; says != want {
			t.Errorf("%s: restored %v, its note on fal %q", name, fal.Restores(name), d.Note(tool.Fal))
		}
	}
	for _, name := range []string{"upscale", "remove-background", "lookbook-video"} {
		if fal.Restores(name) {
			t.Errorf("%s goes through the restoration pass", name)
		}
	}
}
