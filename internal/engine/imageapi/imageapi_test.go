package imageapi_test

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"studio/internal/ai/aitest"
	"studio/internal/engine"
	"studio/internal/engine/imageapi"
	"studio/internal/ledger"
	"studio/internal/picture"
)

// solid is a w x h picture of one colour, encoded.
func solid(t testing.TB, w, h int, c color.NRGBA, encode func(*bytes.Buffer, image.Image) error) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = c.R, c.G, c.B, 255
	}
	var b bytes.Buffer
	if err := encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func pngOf(b *bytes.Buffer, img image.Image) error {
	return (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(b, img)
}
func jpegOf(b *bytes.Buffer, img image.Image) error { return jpeg.Encode(b, img, nil) }

// TestRun develops the generative tools against the local stand-in of an
// OpenAI-compatible image endpoint: what each request carries (image[]
// parts in the brief's order, prompt, model, size, n), the frame made of
// the answer, and the failures (wrong size, a safety refusal, a refused key).
func TestRun(t *testing.T) {
	grey := color.NRGBA{128, 128, 128, 255}
	model, top, trousers, base := solid(t, 300, 500, grey, jpegOf), solid(t, 200, 200, grey, jpegOf), solid(t, 200, 260, grey, jpegOf), solid(t, 400, 500, grey, jpegOf)
	red := color.NRGBA{200, 30, 40, 255}
	portrait, square, landscape := solid(t, 1024, 1536, red, pngOf), solid(t, 1024, 1024, red, pngOf), solid(t, 1536, 1024, red, pngOf)
	lookParams := map[string]string{"key": "lock", "aesthetic": "minimal", "roles": "top,bottom", "labels": `["Linen shirt"]`, "scene": "Studio white, a white cyclorama"}
	cases := []struct {
		name   string
		tool   string
		inputs []engine.Input
		params map[string]string
		tier   ledger.Tier
		shape  *engine.Shape
		answer aitest.ImageAnswer
		path   string
		images [][]byte
		size   string
		words  []string
		w, h   int
		fail   string
		input  bool
	}{
		{name: "look lock", tool: "lookbook", inputs: []engine.Input{{Role: "model", Data: model}, {Role: "item", Data: top}, {Role: "item", Data: trousers}},
			params: lookParams, tier: ledger.Tier1K, shape: &engine.Shape{Width: 1080, Height: 1350}, answer: aitest.ImageAnswer{Image: portrait},
			path: "/v1/images/edits", images: [][]byte{model, top, trousers}, size: "1024x1536", w: 819, h: 1024,
			words: []string{"Image 1 is the model", "image 2 is the hero piece, a top: Linen shirt", "image 3 is a bottom", "Studio white, a white cyclorama", "minimal and quiet"}},
		{name: "look variation with a posture", tool: "lookbook",
			inputs: []engine.Input{{Role: "model", Data: model}, {Role: "item", Data: top}, {Role: "base", Data: base}},
			params: map[string]string{"key": "posture:spin", "posture": "A turn in progress, hem flaring", "control.energy": "dynamic", "roles": "dress"},
			tier:   ledger.Tier1K, shape: &engine.Shape{Width: 1920, Height: 1080}, answer: aitest.ImageAnswer{Image: landscape},
			path: "/v1/images/edits", images: [][]byte{base, top}, size: "1536x1024", w: 1024, h: 576,
			words: []string{"Image 1 is the locked look", "posed: A turn in progress, hem flaring; dynamic, full of movement", "the hero piece, a dress"}},
		{name: "character from words", tool: "generate-character", params: map[string]string{"prompt": "A tall model with short grey hair", "aspect": "1:1"},
			tier: ledger.Tier1K, answer: aitest.ImageAnswer{Image: square}, path: "/v1/images/generations", size: "1024x1024", w: 1024, h: 1024,
			words: []string{"A tall model with short grey hair"}},
		{name: "a 4:5 character from words is composed for 4:5", tool: "generate-character", params: map[string]string{"prompt": "A tall model", "aspect": "4:5"},
			tier: ledger.Tier1K, answer: aitest.ImageAnswer{Image: portrait}, path: "/v1/images/generations", size: "1024x1536", w: 819, h: 1024,
			words: []string{"A tall model"}},
		{name: "character from a reference", tool: "generate-character", inputs: []engine.Input{{Role: "image", Data: model}},
			tier: ledger.Tier1K, answer: aitest.ImageAnswer{Image: square}, path: "/v1/images/edits", images: [][]byte{model}, size: "1024x1024", w: 1024, h: 1024,
			words: []string{"The same person as a full-length fashion model"}},
		{name: "an answer of the wrong size fails", tool: "lookbook", inputs: []engine.Input{{Role: "model", Data: model}, {Role: "item", Data: top}},
			params: map[string]string{"key": "lock"}, tier: ledger.Tier1K, shape: &engine.Shape{Width: 1080, Height: 1350}, answer: aitest.ImageAnswer{Image: square},
			path: "/v1/images/edits", images: [][]byte{model, top}, size: "1024x1536", fail: "result is not what lookbook makes: a 1024x1024 picture, not the 1024x1536 it was asked for. Nothing was charged."},
		{name: "a safety refusal fails", tool: "lookbook", inputs: []engine.Input{{Role: "model", Data: model}, {Role: "item", Data: top}},
			params: map[string]string{"key": "lock"}, tier: ledger.Tier1K,
			answer: aitest.ImageAnswer{Err: &aitest.Error{Status: http.StatusBadRequest, Type: "image_generation_user_error", Code: "moderation_blocked",
				Message: "Your request was rejected as a result of our safety system."}},
			path: "/v1/images/edits", images: [][]byte{model, top}, size: "1024x1536", fail: "safety check refused this picture", input: true},
		{name: "a server error is the provider's", tool: "generate-character", params: map[string]string{"prompt": "x"}, tier: ledger.Tier1K,
			answer: aitest.ImageAnswer{Err: &aitest.Error{Status: http.StatusInternalServerError, Type: "server_error", Message: "boom"}},
			path:   "/v1/images/generations", size: "1024x1024", fail: "The image endpoint was busy: it answered 500. Nothing was charged."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := aitest.New(t)
			srv.RequireKey("img-key")
			srv.AnswerImage(c.answer)
			e, err := imageapi.New(srv.URL, "img-key", "")
			if err != nil {
				t.Fatal(err)
			}
			e.SetBackoff(engine.Backoff{Tries: 1})
			res, err := e.Run(context.Background(), engine.Request{Tool: c.tool, Inputs: c.inputs, Params: c.params, Tier: c.tier, Shape: c.shape})
			edits := srv.Edits()
			if len(edits) != 1 {
				t.Fatalf("%d requests reached the endpoint", len(edits))
			}
			got := edits[0]
			if got.Path != c.path || got.Model != imageapi.DefaultModel || got.Size != c.size || got.N != "1" || len(got.Images) != len(c.images) {
				t.Errorf("request %s model %q size %q n %q with %d images; want %s %s %s 1 with %d", got.Path, got.Model, got.Size, got.N, len(got.Images), c.path, imageapi.DefaultModel, c.size, len(c.images))
			}
			for i := range min(len(got.Images), len(c.images)) {
				if !bytes.Equal(got.Images[i], c.images[i]) {
					t.Errorf("image %d is not the one the brief puts there", i+1)
				}
			}
			if len(c.images) > 0 && got.ImageField != "image[]" {
				t.Errorf("images sent as %q; want image[]", got.ImageField)
			}
			for _, w := range c.words {
				if !strings.Contains(got.Prompt, w) {
					t.Errorf("the prompt lacks %q:\n%s", w, got.Prompt)
				}
			}
			if c.fail != "" {
				fe, ok := err.(*engine.Error)
				if !ok || !strings.Contains(fe.Reason, c.fail) || engine.IsInput(err) != c.input {
					t.Fatalf("err = %v; want a failure saying %q (input fault %v)", err, c.fail, c.input)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			img, err := picture.Decode(res.Data)
			if err != nil {
				t.Fatal(err)
			}
			if res.Width != c.w || res.Height != c.h || img.Rect.Dx() != c.w {
				t.Fatalf("frame %dx%d; want %dx%d", res.Width, res.Height, c.w, c.h)
			}
			if px := img.NRGBAAt(c.w/2, c.h/2); max(px.R, red.R)-min(px.R, red.R) > 12 || max(px.G, red.G)-min(px.G, red.G) > 12 {
				t.Errorf("the frame's centre %v is not the endpoint's answer %v", px, red)
			}
		})
	}
}

// TestFailures: what the endpoint answers instead of a picture fails the
// frame with a plain reason and a provider fault (a safety refusal, the
// input's fault, is TestRun's).
func TestFailures(t *testing.T) {
	grey := color.NRGBA{128, 128, 128, 255}
	model := solid(t, 300, 500, grey, jpegOf)
	cases := []struct {
		name   string
		key    string
		answer aitest.ImageAnswer
		code   string
		fail   string
	}{
		{"an answer that is not a picture", "img-key", aitest.ImageAnswer{Image: []byte("not an image")}, "", "The image endpoint's answer is not an image we can read."},
		{"out of credit", "img-key", aitest.ImageAnswer{Err: aitest.OutOfCredit()}, engine.CodeOutOfCredit,
			"The image endpoint says our account there is out of credit. Nothing was charged."},
		{"a refused key", "wrong-key", aitest.ImageAnswer{Image: model}, engine.CodeKeyRefused, "The image endpoint refused our key (check AI_IMAGE_API_KEY). Nothing was charged."},
		{"a bad request", "img-key", aitest.ImageAnswer{Err: &aitest.Error{Status: http.StatusBadRequest, Type: "invalid_request_error", Message: "Invalid size."}},
			engine.CodeRejected, "The image endpoint refused the request as invalid (it answered 400). Nothing was charged."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := aitest.New(t)
			srv.RequireKey("img-key")
			srv.AnswerImage(c.answer)
			e, err := imageapi.New(srv.URL, c.key, "")
			if err != nil {
				t.Fatal(err)
			}
			_, err = e.Run(context.Background(), engine.Request{Tool: "generate-character", Tier: ledger.Tier1K,
				Inputs: []engine.Input{{Role: "image", Data: model}}})
			fe, ok := errors.AsType[*engine.Error](err)
			if !ok || fe.Reason != c.fail || fe.Code != c.code || !engine.IsProvider(err) {
				t.Fatalf("err = %v; want a provider fault %s saying %q", err, c.code, c.fail)
			}
		})
	}
}

func TestEngine(t *testing.T) {
	e, err := imageapi.New("http://example.test/v1/", "", "my-model")
	if err != nil {
		t.Fatal(err)
	}
	if e.Name() != "image-api" || !e.Can("lookbook") || !e.Can("generate-character") || e.Can("upscale") || len(e.Tools()) != 2 {
		t.Errorf("name %s tools %v", e.Name(), e.Tools())
	}
	if _, err := e.Run(context.Background(), engine.Request{Tool: "upscale", Tier: ledger.Tier1K}); !errorsIsUnsupported(err) {
		t.Errorf("upscale: %v", err)
	}
	for _, bad := range []string{"", "ftp://x", "not a url"} {
		if _, err := imageapi.New(bad, "k", ""); err == nil {
			t.Errorf("base URL %q accepted", bad)
		}
	}
	for _, c := range []struct {
		w, h float64
		size string
	}{{1, 1, "1024x1024"}, {4, 5, "1024x1536"}, {16, 9, "1536x1024"}, {1, 1.1, "1024x1024"}} {
		if got := imageapi.Nearest(engine.Aspect{W: c.w, H: c.h}); got != c.size {
			t.Errorf("Nearest(%v:%v) = %s, want %s", c.w, c.h, got, c.size)
		}
	}
}

func errorsIsUnsupported(err error) bool { return errors.Is(err, engine.ErrUnsupported) }

// TestRetries: an answer of 429 for a rate limit or 5xx is asked again
// after what retry-after-ms asks, else a doubling wait, and the picture
// lands once; a spent quota (429 insufficient_quota) is not asked again;
// busy through every try fails PROVIDER_BUSY.
func TestRetries(t *testing.T) {
	square := solid(t, 1024, 1024, color.NRGBA{200, 40, 40, 255}, pngOf)
	limited := &aitest.Error{Status: http.StatusTooManyRequests, Type: "requests", Code: "rate_limit_exceeded", Message: "Rate limit reached.", RetryAfterMs: 1500}
	down := &aitest.Error{Status: http.StatusServiceUnavailable, Type: "server_error", Message: "overloaded"}
	cases := []struct {
		name      string
		answers   []aitest.ImageAnswer
		wantAsked int
		wantWaits []time.Duration
		wantCode  string
	}{
		{"a rate limit then the picture", []aitest.ImageAnswer{{Err: limited}, {Image: square}}, 2, []time.Duration{1500 * time.Millisecond}, ""},
		{"two 503 then the picture", []aitest.ImageAnswer{{Err: down}, {Err: down}, {Image: square}}, 3, []time.Duration{time.Second, 2 * time.Second}, ""},
		{"a spent quota", []aitest.ImageAnswer{{Err: aitest.OutOfCredit()}}, 1, nil, engine.CodeOutOfCredit},
		{"busy through every try", []aitest.ImageAnswer{{Err: down}, {Err: down}, {Err: down}}, 3, []time.Duration{time.Second, 2 * time.Second}, engine.CodeBusy},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := aitest.New(t)
			srv.RequireKey("img-key")
			srv.AnswerImage(c.answers...)
			e, err := imageapi.New(srv.URL, "img-key", "")
			if err != nil {
				t.Fatal(err)
			}
			var waits []time.Duration
			e.SetBackoff(engine.Backoff{Tries: 3, First: time.Second, Most: 8 * time.Second, Sleep: func(_ context.Context, d time.Duration) error {
				waits = append(waits, d)
				return nil
			}})
			_, err = e.Run(context.Background(), engine.Request{Tool: "generate-character", Tier: ledger.Tier1K, Params: map[string]string{"prompt": "A tall model", "aspect": "1:1"}})
			if got := len(srv.Edits()); got != c.wantAsked {
				t.Errorf("asked %d times; want %d", got, c.wantAsked)
			}
			if !slices.Equal(waits, c.wantWaits) {
				t.Errorf("waits %v; want %v", waits, c.wantWaits)
			}
			if c.wantCode == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if fe, ok := errors.AsType[*engine.Error](err); !ok || fe.Code != c.wantCode {
				t.Fatalf("err = %v; want %s", err, c.wantCode)
			}
		})
	}
}
