package fashn_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"studio/internal/engine"
	"studio/internal/engine/fashn"
	"studio/internal/engine/fashn/fashntest"
	"studio/internal/engine/hosted"
	"studio/internal/ledger"
	"studio/internal/picture"
	"studio/internal/tool"
)

// jpegOf is a w x h JPEG of a flat colour.
func jpegOf(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = 120, 90, 60, 255
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func in(role string, data []byte) engine.Input {
	return engine.Input{Role: role, Data: data, AssetID: role + "-asset"}
}

// noWait is a backoff whose waits are recorded, never slept.
func noWait(waits *[]time.Duration) engine.Backoff {
	return engine.Backoff{Tries: 4, First: time.Second, Most: 30 * time.Second,
		Sleep: func(_ context.Context, d time.Duration) error { *waits = append(*waits, d); return nil }}
}

func newEngine(t *testing.T, srv *fashntest.Server, opts ...hosted.Option) *fashn.Engine {
	t.Helper()
	e, err := fashn.New(srv.Key, srv.URL, append([]hosted.Option{hosted.WithPolling(time.Millisecond, 2*time.Millisecond)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// colourOf is the colour at the result's centre.
func colourOf(t *testing.T, res engine.Result) color.NRGBA {
	t.Helper()
	img, err := picture.Decode(res.Data)
	if err != nil {
		t.Fatal(err)
	}
	return img.NRGBAAt(img.Rect.Dx()/2, img.Rect.Dy()/2)
}

func near(a, b color.NRGBA) bool {
	d := func(x, y uint8) int { return max(int(x), int(y)) - min(int(x), int(y)) }
	return d(a.R, b.R) < 12 && d(a.G, b.G) < 12 && d(a.B, b.B) < 12
}

func TestNew(t *testing.T) {
	if _, err := fashn.New("", ""); err == nil {
		t.Error("an empty key is accepted")
	}
	if _, err := fashn.New("k", "ftp://api.fashn.test"); err == nil {
		t.Error("a non-http URL is accepted")
	}
	e, err := fashn.New("k", "")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"camera-lens", "color-change", "fit-adjust", "generate-character", "iron", "lookbook", "lookbook-video", "reframe", "remove-background", "tryon"}
	if got := e.Tools(); !slices.Equal(got, want) || !slices.Equal(got, tool.ServedBy(tool.Fashn)) {
		t.Errorf("Tools() = %v; want %v, as the registry says", got, want)
	}
}

// TestModels: each tool reaches the FASHN model DECISIONS and the issue
// name, with its inputs under FASHN's names and the house's words where
// the model takes a prompt (never for a mark no model is shown). The
// stand-in fails each prediction (PipelineError) once it has recorded it,
// so that no result is finished: finishing is TestResults' part.
func TestModels(t *testing.T) {
	model, garment, photo := jpegOf(t, 60, 80), jpegOf(t, 40, 40), jpegOf(t, 50, 50)
	mark := engine.Reference{Role: "mark", Label: "Wordmark", Text: "gold foil", Data: jpegOf(t, 20, 10), AssetID: "mark-1"}
	tests := []struct {
		name   string
		r      engine.Request
		model  string
		inputs map[string]any // the prediction's inputs, pictures as their role
		prompt string         // what the record says was said
	}{
		{name: "tryon", r: engine.Request{Tool: "tryon", Tier: ledger.Tier2K, Prompt: "House voice.", Inputs: []engine.Input{in("model", model), in("garment", garment)}},
			model: "tryon-max", inputs: map[string]any{"model_image": "model", "product_image": "garment", "resolution": "2k", "output_format": "png"}},
		{name: "tryon, fast", r: engine.Request{Tool: "tryon", Tier: ledger.Tier1K, Params: map[string]string{"speed": "fast"},
			Inputs: []engine.Input{in("model", model), in("garment", garment)}},
			model: "tryon-v1.6", inputs: map[string]any{"model_image": "model", "garment_image": "garment", "category": "auto", "mode": "performance", "output_format": "png"}},
		{name: "generate-character from words", r: engine.Request{Tool: "generate-character", Tier: ledger.Tier4K, Prompt: "A tall model in linen.",
			Params: map[string]string{"prompt": "ignored", "aspect": "4:5"}, References: []engine.Reference{mark}},
			model: "model-create", inputs: map[string]any{"prompt": "A tall model in linen.", "aspect_ratio": "4:5", "resolution": "4k", "num_images": 1.0, "output_format": "png"},
			prompt: "A tall model in linen."},
		{name: "generate-character from a photo", r: engine.Request{Tool: "generate-character", Tier: ledger.Tier1K, Prompt: "Brand: quiet luxury.",
			Inputs: []engine.Input{in("image", photo)}},
			model: "model-create", inputs: map[string]any{"prompt": fashn.CharacterFromPhoto + " Brand: quiet luxury.", "face_reference": "image",
				"face_reference_mode": "match_reference", "aspect_ratio": "1:1", "resolution": "1k", "num_images": 1.0, "output_format": "png"},
			prompt: fashn.CharacterFromPhoto + " Brand: quiet luxury."},
		{name: "remove-background", r: engine.Request{Tool: "remove-background", Tier: ledger.Tier1K, Prompt: "never said",
			Inputs: []engine.Input{in("image", photo)}},
			model: "background-remove", inputs: map[string]any{"image": "image"}},
		{name: "reframe", r: engine.Request{Tool: "reframe", Tier: ledger.Tier1K, Params: map[string]string{"aspect": "4:5"},
			Inputs: []engine.Input{in("image", photo)}},
			model: "reframe", inputs: map[string]any{"image": "image", "aspect_ratio": "4:5", "output_format": "png"}},
		{name: "iron", r: engine.Request{Tool: "iron", Tier: ledger.Tier1K, Prompt: "Keep the collar crisp.", References: []engine.Reference{mark},
			Inputs: []engine.Input{in("image", photo)}},
			model: "edit", inputs: map[string]any{"image": "image", "output_format": "png",
				"prompt": engine.Instruction(engine.Request{Tool: "iron"}) + " Keep the collar crisp."},
			prompt: engine.Instruction(engine.Request{Tool: "iron"}) + " Keep the collar crisp."},
		{name: "color-change with a mask", r: engine.Request{Tool: "color-change", Tier: ledger.Tier1K, Params: map[string]string{"color": "#1f3a5f"},
			Inputs: []engine.Input{in("image", photo), in("mask", garment)}},
			model: "edit", inputs: map[string]any{"image": "image", "mask": "mask", "output_format": "png",
				"prompt": "Change the colour of the garment to #1f3a5f. Keep its shading, texture, folds, shape and everything else in the image unchanged."},
			prompt: "Change the colour of the garment to #1f3a5f. Keep its shading, texture, folds, shape and everything else in the image unchanged."},
		{name: "camera-lens", r: engine.Request{Tool: "camera-lens", Tier: ledger.Tier1K, Params: map[string]string{"lens": "85mm"},
			Inputs: []engine.Input{in("image", photo)}},
			model: "edit", inputs: map[string]any{"image": "image", "output_format": "png",
				"prompt": engine.Instruction(engine.Request{Tool: "camera-lens", Params: map[string]string{"lens": "85mm"}})},
			prompt: engine.Instruction(engine.Request{Tool: "camera-lens", Params: map[string]string{"lens": "85mm"}})},
		{name: "fit-adjust", r: engine.Request{Tool: "fit-adjust", Tier: ledger.Tier1K, Params: map[string]string{"fit": "oversized"},
			Inputs: []engine.Input{in("image", photo)}},
			model: "edit", inputs: map[string]any{"image": "image", "output_format": "png",
				"prompt": "Make the garment a oversized fit. Keep the person, pose, fabric, colour and background unchanged."},
			prompt: "Make the garment a oversized fit. Keep the person, pose, fabric, colour and background unchanged."},
		{name: "lookbook-video", r: engine.Request{Tool: "lookbook-video", Tier: ledger.Tier2K, Prompt: "She turns slowly.", References: []engine.Reference{mark},
			Inputs: []engine.Input{in("image", photo)}},
			model: "image-to-video", inputs: map[string]any{"image": "image", "prompt": fashn.VideoInstruction + " She turns slowly.", "duration": 5.0, "resolution": "1080p"},
			prompt: fashn.VideoInstruction + " She turns slowly."},
		{name: "reframe for a destination", r: engine.Request{Tool: "reframe", Tier: ledger.Tier1K, Shape: &engine.Shape{Width: 1920, Height: 1080},
			Inputs: []engine.Input{in("image", photo)}},
			model: "reframe", inputs: map[string]any{"image": "image", "aspect_ratio": "16:9", "output_format": "png"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fashntest.New(t, "k-1")
			srv.Answer(func(string, map[string]any) fashntest.Answer { return fashntest.Answer{Fail: "PipelineError"} })
			var sent []engine.Sent
			tt.r.Record = func(s engine.Sent) { sent = append(sent, s) }
			if _, err := newEngine(t, srv).Run(t.Context(), tt.r); !engine.IsProvider(err) {
				t.Fatalf("err %v; want the scripted PipelineError", err)
			}
			runs := srv.Runs()
			if len(runs) != 1 || runs[0].Model != tt.model {
				t.Fatalf("runs %+v; want one of %s", runs, tt.model)
			}
			got := maps.Clone(runs[0].Inputs)
			for k, v := range got {
				for _, x := range tt.r.Inputs {
					if v == dataURI(x.Data) {
						got[k] = x.Role
					}
				}
			}
			if !maps.Equal(got, tt.inputs) {
				t.Errorf("inputs %v; want %v", got, tt.inputs)
			}
			if len(sent) != 1 || sent[0].Prompt != tt.prompt || len(sent[0].Refs) != len(tt.r.Inputs) {
				t.Errorf("recorded %+v; want one record of the inputs saying %q", sent, tt.prompt)
			}
		})
	}
}

func dataURI(b []byte) string {
	return "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(b)
}

// TestResults: a try-on of two garments puts the second onto the first
// result and the frame is the last answer at the tier; a background
// removal keeps its alpha (PNG); a look video is FASHN's MP4 as sent. The stand-in answers at the tier's size,
// so nothing is resampled.
func TestResults(t *testing.T) {
	srv := fashntest.New(t, "k-1")
	e := newEngine(t, srv)
	res, err := e.Run(t.Context(), engine.Request{Tool: "tryon", Tier: ledger.Tier1K,
		Inputs: []engine.Input{in("model", jpegOf(t, 60, 80)), in("garment", jpegOf(t, 40, 40)), in("garment", jpegOf(t, 40, 40))}})
	if err != nil {
		t.Fatal(err)
	}
	runs := srv.Runs()
	if len(runs) != 2 || runs[1].Inputs["model_image"] != srv.URL+"/cdn/"+runs[0].ID+".png" {
		t.Fatalf("runs %+v; want the second garment onto the first result", runs)
	}
	if res.Width != 768 || res.Height != 1024 || res.Mime != "image/jpeg" || !near(colourOf(t, res), fashntest.Palette[1]) {
		t.Errorf("result %dx%d %s; want the second answer, 768x1024 JPEG", res.Width, res.Height, res.Mime)
	}
	srv.Answer(func(string, map[string]any) fashntest.Answer { return fashntest.Answer{Width: 1024, Height: 1024} })
	res, err = e.Run(t.Context(), engine.Request{Tool: "remove-background", Tier: ledger.Tier1K, Inputs: []engine.Input{in("image", jpegOf(t, 48, 48))}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Width != 1024 || res.Height != 1024 || res.Mime != "image/png" {
		t.Errorf("result %dx%d %s; want 1024x1024 PNG", res.Width, res.Height, res.Mime)
	}
	srv.Answer(func(string, map[string]any) fashntest.Answer { return fashntest.Answer{} })
	res, err = e.Run(t.Context(), engine.Request{Tool: "lookbook-video", Tier: ledger.Tier1K, Inputs: []engine.Input{in("image", jpegOf(t, 48, 64))}})
	if err != nil {
		t.Fatal(err)
	}
	if w, h := hosted.MP4Size(res.Data); res.Mime != "video/mp4" || res.Width != 1440 || res.Height != 1920 || w != 1440 || h != 1920 {
		t.Errorf("video %dx%d %s (its track %dx%d); want FASHN's 1080p MP4 of the picture's aspect, as sent", res.Width, res.Height, res.Mime, w, h)
	}
}

// TestLookFrames: a lock frame dresses the cast model on tryon-max at the
// frame's aspect and resolution, every piece in turn, with the aesthetic
// and the house's words; a variation is product-to-model with the cast
// model, the hero piece, the locked frame and the key's directive. Both
// is finished at the look's size (the variation is failed by the stand-in
// once recorded: one finished frame is enough). No mark is sent or spoken
// of.
func TestLookFrames(t *testing.T) {
	model, item, base := jpegOf(t, 60, 80), jpegOf(t, 40, 40), jpegOf(t, 64, 80)
	mark := engine.Reference{Role: "mark", Label: "Wordmark", Text: "gold foil", Data: jpegOf(t, 20, 10), AssetID: "mark-1"}
	srv := fashntest.New(t, "k-1")
	e := newEngine(t, srv)
	lock := engine.Request{Tool: "lookbook", Tier: ledger.Tier1K, Prompt: "House voice.",
		Params:     map[string]string{"aesthetic": "minimal", "outputWidth": "1080", "outputHeight": "1350", "labels": `["Linen shirt","Wide trousers"]`},
		Inputs:     []engine.Input{in("model", model), in("item", item), in("item", item)},
		References: []engine.Reference{mark}}
	var sent engine.Sent
	lock.Record = func(s engine.Sent) { sent = s }
	res, err := e.Run(t.Context(), lock)
	if err != nil {
		t.Fatal(err)
	}
	runs := srv.Runs()
	if len(runs) != 2 || runs[0].Model != "tryon-max" || runs[1].Model != "tryon-max" {
		t.Fatalf("runs %+v; want two tryon-max", runs)
	}
	if runs[0].Inputs["aspect_ratio"] != "4:5" || runs[0].Inputs["resolution"] != "1k" {
		t.Errorf("lock asked %v at %v; want 4:5 at 1k", runs[0].Inputs["aspect_ratio"], runs[0].Inputs["resolution"])
	}
	wantWords := lookbriefMinimal + " House voice."
	if runs[0].Inputs["prompt"] != wantWords || sent.Prompt != wantWords {
		t.Errorf("lock prompt %q (recorded %q); want %q", runs[0].Inputs["prompt"], sent.Prompt, wantWords)
	}
	if len(sent.Refs) != 3 || sent.Refs[1].Label != "Linen shirt" || slices.ContainsFunc(sent.Refs, func(r engine.SentRef) bool { return r.Role == "mark" }) {
		t.Errorf("lock record %+v; want the model and two labelled pieces, no mark", sent.Refs)
	}
	if res.Width != 819 || res.Height != 1024 {
		t.Errorf("lock frame %dx%d; want 819x1024", res.Width, res.Height)
	}

	variation := lock
	variation.Params = map[string]string{"key": "back", "outputWidth": "1080", "outputHeight": "1350"}
	variation.Inputs = []engine.Input{in("model", model), in("item", item), in("base", base)}
	srv.Answer(func(string, map[string]any) fashntest.Answer { return fashntest.Answer{Fail: "PipelineError"} })
	if _, err = e.Run(t.Context(), variation); !engine.IsProvider(err) {
		t.Fatalf("err %v; want the scripted PipelineError", err)
	}
	v := srv.Runs()[2]
	p, _ := v.Inputs["prompt"].(string)
	if v.Model != "product-to-model" || v.Inputs["image_prompt"] == nil || v.Inputs["model_image"] == nil || !strings.HasPrefix(p, "full length, seen from directly behind") {
		t.Errorf("variation %s %q; want product-to-model with the base as image_prompt and the key's directive", v.Model, p)
	}
	if strings.Contains(p, "logo") || strings.Contains(p, "Wordmark") {
		t.Errorf("variation prompt %q speaks of a mark no model is shown", p)
	}
}

// lookbriefMinimal is the minimal aesthetic in words (lookbrief.Aesthetics).
const lookbriefMinimal = "minimal and quiet: soft even light, muted colour, clean lines, nothing extra in the frame"

// TestSubmitRetries: a 429 RateLimitExceeded, ConcurrencyLimitExceeded or
// a 5xx got no id and is sent again (Retry-After honoured) and lands once;
// OutOfCredits and other 4xx are never sent again. (An accepted
// prediction is failed by the stand-in, so that nothing is finished.)
func TestSubmitRetries(t *testing.T) {
	tests := []struct {
		name      string
		refusals  []fashntest.Refusal
		wantCode  string
		wantTries int
		wantWaits []time.Duration
		wantWhy   string
	}{
		{"one 429 then success", []fashntest.Refusal{{Status: 429, Error: "RateLimitExceeded", RetryAfter: "3"}}, "", 2, []time.Duration{3 * time.Second}, ""},
		{"concurrency then a 500 then success", []fashntest.Refusal{{Status: 429, Error: "ConcurrencyLimitExceeded"}, {Status: 500, Error: "InternalServerError"}},
			"", 3, []time.Duration{time.Second, 2 * time.Second}, ""},
		{"busy through every try", slices.Repeat([]fashntest.Refusal{{Status: 503}}, 4), engine.CodeBusy, 4,
			[]time.Duration{time.Second, 2 * time.Second, 4 * time.Second}, "FASHN was busy: it answered 503 to each of 4 tries. Nothing was charged."},
		{"out of credits", []fashntest.Refusal{{Status: 429, Error: "OutOfCredits"}}, engine.CodeOutOfCredit, 1, nil,
			"FASHN says our account there is out of credit. Nothing was charged."},
		{"a 400 is not sent again", []fashntest.Refusal{{Status: 400, Error: "BadRequest"}}, engine.CodeRejected, 1, nil,
			"FASHN refused the request as invalid (it answered 400). Nothing was charged."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fashntest.New(t, "k-1")
			srv.Refuse(tt.refusals...)
			srv.Answer(func(string, map[string]any) fashntest.Answer { return fashntest.Answer{Fail: "PipelineError"} })
			var waits []time.Duration
			_, err := newEngine(t, srv, hosted.WithBackoff(noWait(&waits))).Run(t.Context(), engine.Request{Tool: "remove-background",
				Tier: ledger.Tier1K, Inputs: []engine.Input{in("image", jpegOf(t, 40, 40))}})
			if srv.Tries() != tt.wantTries || !slices.Equal(waits, tt.wantWaits) {
				t.Errorf("%d submits after waits %v; want %d after %v", srv.Tries(), waits, tt.wantTries, tt.wantWaits)
			}
			if tt.wantCode == "" {
				if e, _ := errors.AsType[*engine.Error](err); e == nil || e.Code != engine.CodeFailed || len(srv.Runs()) != 1 {
					t.Fatalf("err %v, %d predictions; want one accepted (and failed as scripted)", err, len(srv.Runs()))
				}
				return
			}
			e, ok := errors.AsType[*engine.Error](err)
			if !ok || e.Code != tt.wantCode || e.Reason != tt.wantWhy || len(srv.Runs()) != 0 {
				t.Errorf("err %v; want %s %q and no prediction", err, tt.wantCode, tt.wantWhy)
			}
		})
	}
}

// TestFailures: every documented runtime error name, a refused key and the
// other end states map to one failure in every provider's words.
func TestFailures(t *testing.T) {
	tests := []struct {
		answer fashntest.Answer
		key    string
		code   string
		fault  engine.Fault
		why    string
	}{
		{answer: fashntest.Answer{Fail: "ContentModerationError"}, code: engine.CodeRefused, fault: engine.FaultInput,
			why: "FASHN's safety check refused this picture, so no frame was made. Nothing was charged."},
		{answer: fashntest.Answer{Fail: "ImageLoadError"}, code: engine.CodeFailed, fault: engine.FaultInput,
			why: "FASHN could not complete the request: it could not load one of the pictures. Nothing was charged."},
		{answer: fashntest.Answer{Fail: "PoseError"}, code: engine.CodeFailed, fault: engine.FaultInput,
			why: "FASHN could not complete the request: it could not find the body's pose in the picture. Nothing was charged."},
		{answer: fashntest.Answer{Fail: "InputValidationError"}, code: engine.CodeFailed, fault: engine.FaultInput,
			why: "FASHN could not complete the request: it refused the request's settings. Nothing was charged."},
		{answer: fashntest.Answer{Fail: "PipelineError"}, code: engine.CodeFailed, fault: engine.FaultProvider,
			why: "FASHN could not complete the request: its model failed. Nothing was charged."},
		{answer: fashntest.Answer{Fail: "ThirdPartyError"}, code: engine.CodeFailed, fault: engine.FaultProvider,
			why: "FASHN could not complete the request: a service it relies on refused or failed. Nothing was charged."},
		{answer: fashntest.Answer{Fail: "3rdPartyProviderError"}, code: engine.CodeFailed, fault: engine.FaultProvider,
			why: "FASHN could not complete the request: a service it relies on refused or failed. Nothing was charged."},
		{answer: fashntest.Answer{Fail: "InternalServerError"}, code: engine.CodeFailed, fault: engine.FaultProvider,
			why: "FASHN could not complete the request: its model failed. Nothing was charged."},
		{answer: fashntest.Answer{Status: "time_out"}, code: engine.CodeFailed, fault: engine.FaultProvider,
			why: "FASHN could not complete the request: it timed the prediction out. Nothing was charged."},
		{answer: fashntest.Answer{Status: "canceled"}, code: engine.CodeFailed, fault: engine.FaultProvider,
			why: "FASHN could not complete the request: it cancelled the prediction. Nothing was charged."},
		{key: "wrong", code: engine.CodeKeyRefused, fault: engine.FaultProvider,
			why: "FASHN refused our key (check FASHN_API_KEY). Nothing was charged."},
	}
	for _, tt := range tests {
		t.Run(tt.answer.Fail+tt.answer.Status+tt.key, func(t *testing.T) {
			srv := fashntest.New(t, "k-1")
			srv.Answer(func(string, map[string]any) fashntest.Answer { return tt.answer })
			key := srv.Key
			if tt.key != "" {
				key = tt.key
			}
			e, err := fashn.New(key, srv.URL, hosted.WithPolling(time.Millisecond, time.Millisecond))
			if err != nil {
				t.Fatal(err)
			}
			_, err = e.Run(t.Context(), engine.Request{Tool: "tryon", Tier: ledger.Tier1K,
				Inputs: []engine.Input{in("model", jpegOf(t, 60, 80)), in("garment", jpegOf(t, 40, 40))}})
			got, ok := errors.AsType[*engine.Error](err)
			if !ok || got.Code != tt.code || got.Fault != tt.fault || got.Reason != tt.why {
				t.Errorf("err %v; want a %s fault %s %q", err, tt.fault, tt.code, tt.why)
			}
		})
	}
}

// TestStopsAtItsContext: a prediction that stays processing, and one
// whose status connection never answers, end when the context does, with
// an error wrapping the context's (the worker's deadline makes it
// PROVIDER_TIMEOUT). FASHN has no cancel, so nothing further is sent.
func TestStopsAtItsContext(t *testing.T) {
	for _, a := range []fashntest.Answer{{Stuck: true}, {Hang: true}} {
		srv := fashntest.New(t, "k-1")
		srv.Answer(func(string, map[string]any) fashntest.Answer { return a })
		ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
		_, err := newEngine(t, srv).Run(ctx, engine.Request{Tool: "remove-background", Tier: ledger.Tier1K,
			Inputs: []engine.Input{in("image", jpegOf(t, 40, 40))}})
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) || srv.Tries() != 1 {
			t.Errorf("%+v: err %v after %d submits; want the context's deadline after one", a, err, srv.Tries())
		}
	}
}

// TestInputFaultsSpendNothing: an input that is not a picture fails before
// anything is sent.
func TestInputFaultsSpendNothing(t *testing.T) {
	srv := fashntest.New(t, "k-1")
	_, err := newEngine(t, srv).Run(t.Context(), engine.Request{Tool: "tryon", Tier: ledger.Tier1K,
		Inputs: []engine.Input{in("model", []byte("not a picture")), in("garment", jpegOf(t, 40, 40))}})
	if !engine.IsInput(err) || srv.Tries() != 0 {
		t.Errorf("err %v after %d submits; want an input fault before any", err, srv.Tries())
	}
}
