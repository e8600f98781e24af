package fal_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"studio/internal/engine"
	"studio/internal/engine/fal"
	"studio/internal/engine/hosted"
	"studio/internal/ledger"
)

const testKey = "test-key-123"

// fakeQueue speaks fal's queue protocol on a local server: submit, status
// transitions over several polls, response, cancel, and failures on demand.
// Result files are served by a second server standing in for fal's CDN.
type fakeQueue struct {
	t   *testing.T
	srv *httptest.Server
	cdn *httptest.Server

	mu        sync.Mutex
	seq       int
	submits   []submit
	polls     map[string]int
	cancels   []string
	tries     int             // submits answered, refused ones included
	timeouts  []string        // each submit's X-Fal-Request-Timeout
	waits     []time.Duration // the backoff's waits between submits
	cdnAuth   []string
	foreign   bool // answer the submit with URLs on another origin
	behaviour func(model string, input map[string]any) behaviour
	polled    func(polls int) // told, with q.mu held, after each status poll is answered
}

type submit struct {
	model string
	id    string
	input map[string]any
}

// behaviour is how the fake answers one request.
type behaviour struct {
	submitStatus int      // non-zero: answer the submit with this status
	submitFails  int      // with submitStatus: only the first this many submits (0: all)
	retryAfter   string   // the refused submit's Retry-After
	submitDetail string   // the refused submit's detail (default "submit refused")
	statuses     []string // the status answered on each poll; the last repeats
	statusErrs   int      // answer this many polls with 500 first
	errorText    string   // COMPLETED carries this error
	// takeAndHang takes the submit (it is queued at fal) and never answers
	// it; takeAndDrop takes it and closes the connection unanswered.
	takeAndHang, takeAndDrop bool
	output                   func(q *fakeQueue, id string) any
}

func newFakeQueue(t *testing.T) *fakeQueue {
	q := &fakeQueue{t: t, polls: map[string]int{}}
	q.cdn = httptest.NewServer(http.HandlerFunc(q.serveCDN))
	q.srv = httptest.NewServer(http.HandlerFunc(q.serve))
	t.Cleanup(func() { q.srv.Close(); q.cdn.Close() })
	q.behaviour = func(string, map[string]any) behaviour { return behaviour{} }
	return q
}

// engine is the fal engine on the fake queue, polling fast; its submit
// backoff waits nothing and records the waits it was asked (q.waits).
func (q *fakeQueue) engine(t *testing.T, opts ...hosted.Option) *fal.Engine {
	fast := engine.Backoff{Tries: 4, First: time.Second, Most: 8 * time.Second, Sleep: func(_ context.Context, d time.Duration) error {
		q.mu.Lock()
		defer q.mu.Unlock()
		q.waits = append(q.waits, d)
		return nil
	}}
	e, err := fal.New(testKey, q.srv.URL, append([]hosted.Option{hosted.WithPolling(2*time.Millisecond, 10*time.Millisecond), hosted.WithBackoff(fast)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func (q *fakeQueue) serve(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Authorization") != "Key "+testKey {
		writeJSON(w, http.StatusUnauthorized, map[string]any{"detail": "No user found for Key ID and Secret"})
		return
	}
	path := strings.Trim(r.URL.Path, "/")
	parts := strings.Split(path, "/")
	q.mu.Lock()
	defer q.mu.Unlock()
	switch {
	case r.Method == http.MethodPost:
		var input map[string]any
		body, _ := io.ReadAll(r.Body)
		if r.Header.Get("Content-Type") != "application/json" || json.Unmarshal(body, &input) != nil {
			writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"detail": []map[string]any{{"msg": "Input should be a valid dictionary"}}})
			return
		}
		b := q.behaviour(path, input)
		q.tries++
		if b.submitStatus != 0 && (b.submitFails == 0 || q.tries <= b.submitFails) {
			if b.retryAfter != "" {
				w.Header().Set("Retry-After", b.retryAfter)
			}
			writeJSON(w, b.submitStatus, map[string]any{"detail": cmp.Or(b.submitDetail, "submit refused")})
			return
		}
		q.timeouts = append(q.timeouts, r.Header.Get("X-Fal-Request-Timeout"))
		q.seq++
		id := fmt.Sprintf("req-%04d", q.seq)
		q.submits = append(q.submits, submit{model: path, id: id, input: input})
		switch {
		case b.takeAndHang:
			q.mu.Unlock()
			<-r.Context().Done()
			q.mu.Lock()
			return
		case b.takeAndDrop:
			if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
				conn.Close()
			}
			return
		}
		app := strings.Join(parts[:min(2, len(parts))], "/") // status and results drop a subpath
		base := q.srv.URL + "/" + app + "/requests/" + id
		if q.foreign {
			base = "http://elsewhere.invalid/" + app + "/requests/" + id
		}
		writeJSON(w, http.StatusOK, map[string]any{
			"request_id": id, "status_url": base + "/status", "response_url": base,
			"cancel_url": base + "/cancel", "queue_position": 2,
		})
	case len(parts) >= 4 && parts[len(parts)-1] == "status" && r.Method == http.MethodGet:
		id := parts[len(parts)-2]
		s, ok := q.find(id)
		if !ok {
			writeJSON(w, http.StatusNotFound, map[string]any{"detail": "Request not found"})
			return
		}
		b := q.behaviour(s.model, s.input)
		n := q.polls[id]
		q.polls[id]++
		if n < b.statusErrs {
			writeJSON(w, http.StatusInternalServerError, map[string]any{"detail": "temporary"})
			return
		}
		seq := b.statuses
		if seq == nil {
			seq = []string{"IN_QUEUE", "IN_QUEUE", "IN_PROGRESS", "COMPLETED"}
		}
		st := seq[min(n-b.statusErrs, len(seq)-1)]
		body := map[string]any{"status": st, "request_id": id, "response_url": q.srv.URL + "/" + strings.Join(parts[:len(parts)-1], "/")}
		if q.polled != nil {
			defer q.polled(n + 1)
		}
		switch st {
		case "IN_QUEUE":
			body["queue_position"] = max(0, 1-n)
		case "IN_PROGRESS":
			body["logs"] = []any{}
		case "COMPLETED":
			body["metrics"] = map[string]any{"inference_time": 0.4}
			if b.errorText != "" {
				body["error"] = b.errorText
				body["error_type"] = "internal_server_error"
			}
		}
		writeJSON(w, http.StatusOK, body)
	case len(parts) >= 4 && parts[len(parts)-1] == "cancel" && r.Method == http.MethodPut:
		id := parts[len(parts)-2]
		q.cancels = append(q.cancels, id)
		writeJSON(w, http.StatusAccepted, map[string]any{"status": "CANCELLATION_REQUESTED"})
	case len(parts) >= 4 && parts[len(parts)-2] == "requests" && r.Method == http.MethodGet:
		id := parts[len(parts)-1]
		s, ok := q.find(id)
		if !ok {
			writeJSON(w, http.StatusNotFound, map[string]any{"detail": "Request not found"})
			return
		}
		b := q.behaviour(s.model, s.input)
		if b.errorText != "" {
			writeJSON(w, http.StatusInternalServerError, map[string]any{"detail": b.errorText})
			return
		}
		out := b.output
		if out == nil {
			out = imagesOutput
		}
		writeJSON(w, http.StatusOK, out(q, id))
	default:
		writeJSON(w, http.StatusMethodNotAllowed, map[string]any{"detail": "Method not allowed"})
	}
}

func (q *fakeQueue) find(id string) (submit, bool) {
	for _, s := range q.submits {
		if s.id == id {
			return s, true
		}
	}
	return submit{}, false
}

// serveCDN serves generated result files: /<id>.png, /<id>.txt, /<id>.mp4.
func (q *fakeQueue) serveCDN(w http.ResponseWriter, r *http.Request) {
	q.mu.Lock()
	q.cdnAuth = append(q.cdnAuth, r.Header.Get("Authorization"))
	q.mu.Unlock()
	switch {
	case strings.HasSuffix(r.URL.Path, ".png"):
		w.Header().Set("Content-Type", "image/png")
		w.Write(resultPNG)
	case strings.HasSuffix(r.URL.Path, ".mp4"):
		w.Header().Set("Content-Type", "video/mp4")
		w.Write(fakeMP4(1280, 720))
	default:
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "not an image")
	}
}

func imagesOutput(q *fakeQueue, id string) any {
	return map[string]any{
		"images": []map[string]any{{"url": q.cdn.URL + "/" + id + ".png", "width": 1024, "height": 731, "content_type": "image/png"}},
		"seed":   42,
	}
}

func imageOutput(q *fakeQueue, id string) any {
	return map[string]any{"image": map[string]any{"url": q.cdn.URL + "/" + id + ".png", "width": 1024, "height": 731, "content_type": "image/png"}}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// resultPNG is what the fake model "returns": 1024x731, a dark box on
// grey; large enough that a 1k result needs no restoration pass (fal's
// edit models answer about one megapixel), and a 1k frame of its own
// aspect already, so that finishing it resamples nothing (under the race
// detector a resample of every answer was most of this package's time).
var resultPNG = func() []byte {
	img := image.NewNRGBA(image.Rect(0, 0, 1024, 731))
	for y := range 731 {
		for x := range 1024 {
			c := color.NRGBA{R: 200, G: 200, B: 200, A: 255}
			if x > 292 && x < 731 && y > 219 && y < 512 {
				c = color.NRGBA{R: 30, G: 40, B: 120, A: 255}
			}
			img.SetNRGBA(x, y, c)
		}
	}
	var b bytes.Buffer
	(&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&b, img)
	return b.Bytes()
}()

// fakeMP4 is the box skeleton of an MP4 with one track of w x h.
func fakeMP4(w, h int) []byte {
	box := func(kind string, body []byte) []byte {
		b := make([]byte, 8, 8+len(body))
		binary.BigEndian.PutUint32(b, uint32(8+len(body)))
		copy(b[4:], kind)
		return append(b, body...)
	}
	tkhd := make([]byte, 84)
	binary.BigEndian.PutUint32(tkhd[76:], uint32(w)<<16)
	binary.BigEndian.PutUint32(tkhd[80:], uint32(h)<<16)
	ftyp := box("ftyp", []byte("isom\x00\x00\x02\x00isomiso2mp41"))
	moov := box("moov", slices.Concat(box("mvhd", make([]byte, 100)), box("trak", box("tkhd", tkhd))))
	return slices.Concat(ftyp, moov, box("mdat", make([]byte, 64)))
}

func jpegOf(t testing.TB, w, h int) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = 230
	}
	for y := h / 4; y < 3*h/4; y++ {
		for x := w / 4; x < 3*w/4; x++ {
			img.SetNRGBA(x, y, color.NRGBA{R: 180, G: 30, B: 40, A: 255})
		}
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func in(role string, data []byte) engine.Input {
	return engine.Input{Role: role, Data: data, AssetID: "asset-" + role}
}

// pngOf is a w x h logo-like PNG: a dark bar on white.
func pngOf(t testing.TB, w, h int) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	for y := h / 3; y < 2*h/3; y++ {
		for x := 2; x < w-2; x++ {
			img.SetNRGBA(x, y, color.NRGBA{A: 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestTools(t *testing.T) {
	e := newFakeQueue(t).engine(t)
	want := []string{"camera-lens", "cleanup", "color-change", "fit-adjust", "generate-character", "harmonize", "iron",
		"lookbook", "lookbook-video", "packshot", "reframe", "remove-background", "tryon", "upscale"}
	if got := e.Tools(); !slices.Equal(got, want) {
		t.Fatalf("Tools() = %v\nwant %v", got, want)
	}
	if e.Can("color-change+mask") || e.Can("prompt-enhancer") || !e.Can("lookbook-video") {
		t.Error("Can is wrong")
	}
	if e.Name() != "fal" {
		t.Error(e.Name())
	}
	_, err := e.Run(context.Background(), engine.Request{Tool: "prompt-enhancer", Tier: ledger.Tier1K})
	if !errors.Is(err, engine.ErrUnsupported) {
		t.Errorf("err = %v, want ErrUnsupported", err)
	}
	less, _ := fal.New(testKey, "", hosted.WithModels(map[string]string{"lookbook-video": ""}))
	if less.Can("lookbook-video") || slices.Contains(less.Tools(), "lookbook-video") {
		t.Error("a tool without a model is still advertised")
	}
}

func TestNew(t *testing.T) {
	if _, err := fal.New("", ""); err == nil {
		t.Error("an empty key is accepted")
	}
	if _, err := fal.New("k", "ftp://x"); err == nil {
		t.Error("a non-http base URL is accepted")
	}
	if _, err := fal.New("k", ""); err != nil {
		t.Errorf("the default base URL: %v", err)
	}
}

// TestQueueProtocol follows one upscale through submit, four polls, the
// response and the download, and checks every leg of the wire.
func TestQueueProtocol(t *testing.T) {
	q := newFakeQueue(t)
	src := jpegOf(t, 400, 300)
	res, err := q.engine(t).Run(context.Background(), engine.Request{Tool: "upscale", Tier: ledger.Tier2K, Inputs: []engine.Input{in("image", src)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(q.submits) != 1 {
		t.Fatalf("%d submits", len(q.submits))
	}
	s := q.submits[0]
	if s.model != "fal-ai/esrgan" {
		t.Errorf("model %q", s.model)
	}
	if u, _ := s.input["image_url"].(string); !strings.HasPrefix(u, "data:image/jpeg;base64,") {
		t.Errorf("image_url %.40q is not a JPEG data URI", u)
	}
	if s.input["scale"] != float64(4) {
		t.Errorf("scale %v, want 4 for 400 px to 2048", s.input["scale"])
	}
	if n := q.polls[s.id]; n != 4 {
		t.Errorf("%d polls, want 4 (IN_QUEUE, IN_QUEUE, IN_PROGRESS, COMPLETED)", n)
	}
	if len(q.cdnAuth) != 1 || q.cdnAuth[0] != "" {
		t.Errorf("CDN download auth headers %q: the key must not leave fal's origin", q.cdnAuth)
	}
	if len(q.cancels) != 0 {
		t.Errorf("cancels %v", q.cancels)
	}
	// The result is resampled to the tier: 1024x731 from the model -> 2048x1462.
	if res.Mime != "image/jpeg" || res.Width != 2048 || res.Height != 1462 {
		t.Errorf("result %s %dx%d, want image/jpeg 2048x1462", res.Mime, res.Width, res.Height)
	}
	img, err := jpeg.Decode(bytes.NewReader(res.Data))
	if err != nil || img.Bounds().Dx() != 2048 {
		t.Fatalf("result does not decode at 2048: %v", err)
	}
}

// TestTakesCoverEveryModel: the table of what each model takes names every
// tool the engine performs, and only the look and harmonize models take
// the marks as pictures.
func TestTakesCoverEveryModel(t *testing.T) {
	for tool := range fal.DefaultModels {
		if strings.Contains(tool, "+") {
			continue
		}
		if _, ok := fal.Takes[tool]; !ok {
			t.Errorf("Takes lacks %s", tool)
		}
	}
	for tool, tk := range fal.Takes {
		if _, ok := fal.DefaultModels[tool]; !ok {
			t.Errorf("Takes names %s, which has no model", tool)
		}
		if tk.Marks != (tool == "lookbook" || tool == "harmonize") || tk.Marks && !tk.Words {
			t.Errorf("%s: %+v", tool, tk)
		}
	}
}

func dataURI(b []byte) string {
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(b)
}

func TestToolInputs(t *testing.T) {
	img := jpegOf(t, 300, 200)
	mask := jpegOf(t, 300, 200)
	marks := []engine.Reference{{Role: "mark", Label: "Wordmark", Text: "gold foil", Data: pngOf(t, 40, 20), AssetID: "m1"},
		{Role: "mark", Label: "Monogram", Text: "blind emboss", Data: pngOf(t, 30, 30), AssetID: "m2"}}
	tests := []struct {
		name   string
		r      engine.Request
		model  string
		fields []string
		check  func(t *testing.T, in map[string]any)
	}{
		{"reframe", engine.Request{Tool: "reframe", Params: map[string]string{"aspect": "4:5"}, Inputs: []engine.Input{in("image", img)}},
			"fal-ai/bria/expand", []string{"image_url"}, func(t *testing.T, in map[string]any) {
				if in["aspect_ratio"] != "4:5" {
					t.Errorf("aspect_ratio %v", in["aspect_ratio"])
				}
			}},
		{"reframe shape 2400x800 picks 16:9", engine.Request{Tool: "reframe", Shape: &engine.Shape{Width: 2400, Height: 800}, Inputs: []engine.Input{in("image", img)}},
			"fal-ai/bria/expand", []string{"image_url"}, func(t *testing.T, in map[string]any) {
				if in["aspect_ratio"] != "16:9" {
					t.Errorf("aspect_ratio %v", in["aspect_ratio"])
				}
			}},
		{"packshot colour", engine.Request{Tool: "packshot", Params: map[string]string{"bg": "#f4f1ea"}, Inputs: []engine.Input{in("image", img)}},
			"fal-ai/bria/product-shot", []string{"image_url", "scene_description"}, nil},
		{"packshot own ground", engine.Request{Tool: "packshot", Params: map[string]string{"bg": "image"}, Inputs: []engine.Input{in("image", img), in("background", img)}},
			"fal-ai/bria/product-shot", []string{"image_url", "ref_image_url"}, nil},
		{"camera-lens", engine.Request{Tool: "camera-lens", Params: map[string]string{"lens": "85mm"}, Inputs: []engine.Input{in("image", img)}},
			"fal-ai/flux-pro/kontext", []string{"image_url", "prompt"}, func(t *testing.T, in map[string]any) {
				if !strings.Contains(in["prompt"].(string), "85mm") {
					t.Errorf("prompt %q", in["prompt"])
				}
			}},
		{"harmonize", engine.Request{Tool: "harmonize", Inputs: []engine.Input{in("image", img), in("background", img)}},
			"fal-ai/flux-pro/kontext/multi", []string{"image_urls", "prompt"}, func(t *testing.T, in map[string]any) {
				if urls, _ := in["image_urls"].([]any); len(urls) != 2 {
					t.Errorf("image_urls %v", len(urls))
				}
			}},
		{"iron", engine.Request{Tool: "iron", Inputs: []engine.Input{in("image", img)}}, "fal-ai/flux-pro/kontext", []string{"image_url", "prompt"}, nil},
		{"cleanup", engine.Request{Tool: "cleanup", Inputs: []engine.Input{in("image", img), in("mask", mask)}}, "fal-ai/bria/eraser", []string{"image_url", "mask_url"}, nil},
		{"color-change", engine.Request{Tool: "color-change", Params: map[string]string{"color": "#1f3a5f"}, Inputs: []engine.Input{in("image", img)}},
			"fal-ai/flux-pro/kontext", []string{"image_url", "prompt"}, func(t *testing.T, in map[string]any) {
				if !strings.Contains(in["prompt"].(string), "#1f3a5f") {
					t.Errorf("prompt %q", in["prompt"])
				}
			}},
		{"iron with the house's direction", engine.Request{Tool: "iron", Prompt: "Keep the collar crisp.\nNo logo on the pocket.", Inputs: []engine.Input{in("image", img)}},
			"fal-ai/flux-pro/kontext", []string{"image_url", "prompt"}, func(t *testing.T, in map[string]any) {
				if p := in["prompt"].(string); !strings.HasSuffix(p, " Keep the collar crisp. No logo on the pocket.") || !strings.HasPrefix(p, "Remove the wrinkles") {
					t.Errorf("prompt %q; want the tool's instruction, then the direction", p)
				}
			}},
		{"generate-character follows the composed direction", engine.Request{Tool: "generate-character", Prompt: "a tall model\nshort grey hair",
			Params: map[string]string{"prompt": "a tall model"}}, "fal-ai/flux/dev", []string{"prompt"}, func(t *testing.T, in map[string]any) {
			if in["prompt"] != "a tall model short grey hair" {
				t.Errorf("prompt %q", in["prompt"])
			}
		}},
		{"color-change with mask", engine.Request{Tool: "color-change", Params: map[string]string{"color": "#1f3a5f"}, Inputs: []engine.Input{in("image", img), in("mask", mask)}},
			"fal-ai/flux-pro/v1/fill", []string{"image_url", "mask_url", "prompt"}, nil},
		{"fit-adjust", engine.Request{Tool: "fit-adjust", Params: map[string]string{"fit": "oversized"}, Inputs: []engine.Input{in("image", img)}},
			"fal-ai/flux-pro/kontext", []string{"image_url", "prompt"}, nil},
		{"tryon", engine.Request{Tool: "tryon", Inputs: []engine.Input{in("model", img), in("garment", img)}},
			"fal-ai/fashn/tryon/v1.6", []string{"model_image", "garment_image"}, nil},
		{"generate-character", engine.Request{Tool: "generate-character", Params: map[string]string{"prompt": "a tall model with short grey hair"}},
			"fal-ai/flux/dev", []string{"prompt", "image_size"}, nil},
		{"generate-character from an image", engine.Request{Tool: "generate-character", Inputs: []engine.Input{in("image", img)}},
			"fal-ai/flux-pro/kontext", []string{"prompt", "image_url"}, nil},
		{"remove-background", engine.Request{Tool: "remove-background", Inputs: []engine.Input{in("image", img)}},
			"fal-ai/birefnet", []string{"image_url"}, nil},
		{"harmonize takes the riding marks after the scene and the subject", engine.Request{Tool: "harmonize", Prompt: "House style: quiet.",
			Inputs: []engine.Input{in("image", img), in("background", img)}, References: marks},
			"fal-ai/flux-pro/kontext/multi", []string{"image_urls", "prompt"}, func(t *testing.T, in map[string]any) {
				urls, _ := in["image_urls"].([]any)
				p, _ := in["prompt"].(string)
				if len(urls) != 4 || urls[2] != dataURI(marks[0].Data) || urls[3] != dataURI(marks[1].Data) {
					t.Errorf("image_urls: %d; want the scene, the subject and both marks", len(urls))
				}
				for _, w := range []string{"Image 3 is the house's logo rendition Wordmark, in gold foil; image 4 is the house's logo rendition Monogram, in blind emboss.",
					"Reproduce each logo exactly", "House style: quiet."} {
					if !strings.Contains(p, w) {
						t.Errorf("prompt lacks %q:\n%s", w, p)
					}
				}
			}},
		{"iron takes one picture: it hears nothing of the marks", engine.Request{Tool: "iron", Prompt: "House style: quiet.",
			Inputs: []engine.Input{in("image", img)}, References: marks},
			"fal-ai/flux-pro/kontext", []string{"image_url", "prompt"}, func(t *testing.T, in map[string]any) {
				p := in["prompt"].(string)
				if !strings.HasSuffix(p, " House style: quiet.") || strings.Contains(strings.ToLower(p), "logo") || strings.Contains(p, "gold foil") {
					t.Errorf("prompt %q", p)
				}
			}},
		{"packshot's scene carries the direction", engine.Request{Tool: "packshot", Prompt: "House style: quiet.\nKeep the seams straight.", Inputs: []engine.Input{in("image", img)}},
			"fal-ai/bria/product-shot", []string{"image_url", "scene_description"}, func(t *testing.T, in map[string]any) {
				if p := in["scene_description"].(string); !strings.HasSuffix(p, "soft shadow. House style: quiet. Keep the seams straight.") {
					t.Errorf("scene_description %q", p)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := newFakeQueue(t)
			tt.r.Tier = ledger.Tier1K
			var sent []engine.Sent
			tt.r.Record = func(s engine.Sent) { sent = append(sent, s) }
			res, err := q.engine(t).Run(context.Background(), tt.r)
			if err != nil {
				t.Fatal(err)
			}
			s := q.submits[0]
			// What is recorded is what the model got: its words exactly,
			// and one named picture for each image field sent.
			if len(sent) != 1 {
				t.Fatalf("the engine told the record %d times; want once", len(sent))
			}
			words, _ := s.input["prompt"].(string)
			if w, ok := s.input["scene_description"].(string); ok {
				words = w
			}
			pictures := 0
			for k, v := range s.input {
				if strings.HasSuffix(k, "_url") || k == "model_image" || k == "garment_image" {
					pictures++
				}
				if urls, ok := v.([]any); ok && k == "image_urls" {
					pictures += len(urls)
				}
			}
			if sent[0].Prompt != words || len(sent[0].Refs) != pictures {
				t.Errorf("recorded %q with %d pictures; the model got %q with %d", sent[0].Prompt, len(sent[0].Refs), words, pictures)
			}
			for i, ref := range sent[0].Refs {
				if ref.AssetID == "" || ref.Role == "" {
					t.Errorf("recorded picture %d is not named: %+v", i, ref)
				}
			}
			if s.model != tt.model {
				t.Errorf("model %q, want %q", s.model, tt.model)
			}
			for _, f := range tt.fields {
				if _, ok := s.input[f]; !ok {
					t.Errorf("input lacks %s: %v", f, keys(s.input))
				}
			}
			if tt.check != nil {
				tt.check(t, s.input)
			}
			if max(res.Width, res.Height) != 1024 {
				t.Errorf("result %dx%d, want a long edge of 1024", res.Width, res.Height)
			}
			if tt.r.Shape != nil {
				if got, want := float64(res.Width)/float64(res.Height), float64(tt.r.Shape.Width)/float64(tt.r.Shape.Height); got < want*0.99 || got > want*1.01 {
					t.Errorf("aspect %.3f, want %.3f", got, want)
				}
			}
			wantMime := "image/jpeg"
			if tt.r.Tool == "remove-background" {
				wantMime = "image/png"
			}
			if res.Mime != wantMime {
				t.Errorf("Mime %s, want %s", res.Mime, wantMime)
			}
		})
	}
}

func keys(m map[string]any) []string {
	var k []string
	for n := range m {
		k = append(k, n)
	}
	slices.Sort(k)
	return k
}

func TestTryonChainsGarments(t *testing.T) {
	q := newFakeQueue(t)
	img := jpegOf(t, 200, 300)
	_, err := q.engine(t).Run(context.Background(), engine.Request{Tool: "tryon", Tier: ledger.Tier1K,
		Inputs: []engine.Input{in("model", img), in("garment", jpegOf(t, 100, 100)), in("garment", jpegOf(t, 120, 100))}})
	if err != nil {
		t.Fatal(err)
	}
	if len(q.submits) != 2 {
		t.Fatalf("%d submits, want one per garment", len(q.submits))
	}
	if got, want := q.submits[1].input["model_image"], q.cdn.URL+"/"+q.submits[0].id+".png"; got != want {
		t.Errorf("second try-on dresses %v, want the first result %v", got, want)
	}
}

func TestVideo(t *testing.T) {
	q := newFakeQueue(t)
	q.behaviour = func(string, map[string]any) behaviour {
		return behaviour{output: func(q *fakeQueue, id string) any {
			return map[string]any{"video": map[string]any{"url": q.cdn.URL + "/" + id + ".mp4", "content_type": "video/mp4"}}
		}}
	}
	res, err := q.engine(t).Run(context.Background(), engine.Request{Tool: "lookbook-video", Tier: ledger.Tier1K, Inputs: []engine.Input{in("image", jpegOf(t, 200, 300))}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Mime != "video/mp4" || res.Width != 1280 || res.Height != 720 || len(res.Data) == 0 {
		t.Errorf("video result %s %dx%d (%d bytes)", res.Mime, res.Width, res.Height, len(res.Data))
	}
	if q.submits[0].model != "fal-ai/kling-video/v2.1/standard/image-to-video" {
		t.Errorf("model %s", q.submits[0].model)
	}
}

func TestProviderFaults(t *testing.T) {
	img := jpegOf(t, 200, 150)
	tests := []struct {
		name string
		b    behaviour
	}{
		{"submit refused", behaviour{submitStatus: http.StatusInternalServerError}},
		{"submit unprocessable", behaviour{submitStatus: http.StatusUnprocessableEntity}},
		{"completed with an error", behaviour{errorText: "CUDA out of memory"}},
		{"failed status", behaviour{statuses: []string{"IN_QUEUE", "FAILED"}}},
		{"status keeps failing", behaviour{statusErrs: 100}},
		{"output without a file", behaviour{output: func(*fakeQueue, string) any { return map[string]any{"images": []any{}} }}},
		{"output not an image", behaviour{output: func(q *fakeQueue, id string) any {
			return map[string]any{"image": map[string]any{"url": q.cdn.URL + "/" + id + ".txt"}}
		}}},
		{"output URL not http", behaviour{output: func(*fakeQueue, string) any {
			return map[string]any{"image": map[string]any{"url": "file:///etc/passwd"}}
		}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := newFakeQueue(t)
			q.behaviour = func(string, map[string]any) behaviour { return tt.b }
			_, err := q.engine(t).Run(context.Background(), engine.Request{Tool: "upscale", Tier: ledger.Tier1K, Inputs: []engine.Input{in("image", img)}})
			if !engine.IsProvider(err) {
				t.Fatalf("err = %v, want a provider fault", err)
			}
			if engine.IsInput(err) {
				t.Fatal("also an input fault")
			}
		})
	}
	t.Run("a wrong key", func(t *testing.T) {
		q := newFakeQueue(t)
		e, _ := fal.New("wrong", q.srv.URL)
		_, err := e.Run(context.Background(), engine.Request{Tool: "upscale", Tier: ledger.Tier1K, Inputs: []engine.Input{in("image", img)}})
		if !engine.IsProvider(err) || !strings.Contains(err.Error(), "401") {
			t.Fatalf("err = %v, want a provider fault naming 401", err)
		}
	})
	t.Run("unreachable", func(t *testing.T) {
		e, _ := fal.New(testKey, "http://127.0.0.1:1")
		_, err := e.Run(context.Background(), engine.Request{Tool: "upscale", Tier: ledger.Tier1K, Inputs: []engine.Input{in("image", img)}})
		if !engine.IsProvider(err) {
			t.Fatalf("err = %v, want a provider fault", err)
		}
	})
}

func TestTransientStatusErrorsAreRetried(t *testing.T) {
	q := newFakeQueue(t)
	q.behaviour = func(string, map[string]any) behaviour { return behaviour{statusErrs: 2} }
	if _, err := q.engine(t).Run(context.Background(), engine.Request{Tool: "upscale", Tier: ledger.Tier1K, Inputs: []engine.Input{in("image", jpegOf(t, 100, 100))}}); err != nil {
		t.Fatalf("two 500s on status then success: %v", err)
	}
}

func TestInputFaultsSpendNothing(t *testing.T) {
	q := newFakeQueue(t)
	e := q.engine(t)
	tests := []engine.Request{
		{Tool: "upscale"},
		{Tool: "upscale", Inputs: []engine.Input{in("image", []byte("not an image"))}},
		{Tool: "tryon", Inputs: []engine.Input{in("model", jpegOf(t, 10, 10))}},
		{Tool: "color-change", Inputs: []engine.Input{in("image", jpegOf(t, 10, 10))}, Params: map[string]string{"color": "red"}},
		{Tool: "reframe", Inputs: []engine.Input{in("image", jpegOf(t, 10, 10))}},
		{Tool: "generate-character"},
		{Tool: "upscale", Tier: "3k", Inputs: []engine.Input{in("image", jpegOf(t, 10, 10))}},
	}
	for i, r := range tests {
		if r.Tier == "" {
			r.Tier = ledger.Tier1K
		}
		if _, err := e.Run(context.Background(), r); !engine.IsInput(err) {
			t.Errorf("%d %s: err = %v, want an input fault", i, r.Tool, err)
		}
	}
	if len(q.submits) != 0 {
		t.Errorf("%d submits for bad inputs", len(q.submits))
	}
}

// TestCancel runs a request that never finishes; cancelling ctx must send
// PUT cancel_url for it and return the context's error.
func TestCancel(t *testing.T) {
	q := newFakeQueue(t)
	q.behaviour = func(string, map[string]any) behaviour {
		return behaviour{statuses: []string{"IN_QUEUE", "IN_PROGRESS"}}
	}
	ctx, cancel := context.WithCancel(context.Background())
	q.polled = func(polls int) { // it polled a few times: cancel
		if polls == 3 {
			cancel()
		}
	}
	done := make(chan error, 1)
	go func() {
		_, err := q.engine(t).Run(ctx, engine.Request{Tool: "iron", Tier: ledger.Tier1K, Inputs: []engine.Input{in("image", jpegOf(t, 100, 100))}})
		done <- err
	}()
	err := <-done
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if engine.IsProvider(err) || engine.IsInput(err) {
		t.Errorf("a cancellation is neither fault: %v", err)
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if !slices.Equal(q.cancels, []string{q.submits[0].id}) {
		t.Errorf("cancels %v, want [%s]", q.cancels, q.submits[0].id)
	}
}

func TestDeadline(t *testing.T) {
	q := newFakeQueue(t)
	q.behaviour = func(string, map[string]any) behaviour { return behaviour{statuses: []string{"IN_QUEUE"}} }
	// The deadline passes while the request waits in fal's queue (after its
	// first poll), however slowly the machine runs.
	ctx := &expiring{Context: context.Background(), done: make(chan struct{})}
	q.polled = func(int) { ctx.expire() }
	_, err := q.engine(t).Run(ctx, engine.Request{Tool: "upscale", Tier: ledger.Tier1K, Inputs: []engine.Input{in("image", jpegOf(t, 100, 100))}})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.cancels) != 1 {
		t.Errorf("cancels %v", q.cancels)
	}
}

// expiring is a context whose deadline passes when expire is called.
type expiring struct {
	context.Context
	once sync.Once
	done chan struct{}
}

func (c *expiring) Done() <-chan struct{} { return c.done }
func (c *expiring) expire()               { c.once.Do(func() { close(c.done) }) }

func (c *expiring) Err() error {
	select {
	case <-c.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

func TestSubpathModelURLs(t *testing.T) {
	// A model with a subpath is submitted to its full path, and polled and
	// read under its app id, as the submit answer's URLs say.
	q := newFakeQueue(t)
	e := q.engine(t, hosted.WithModels(map[string]string{"iron": "fal-ai/flux-pro/kontext/max"}))
	q.behaviour = func(string, map[string]any) behaviour { return behaviour{output: imageOutput} }
	if _, err := e.Run(context.Background(), engine.Request{Tool: "iron", Tier: ledger.Tier1K, Inputs: []engine.Input{in("image", jpegOf(t, 100, 100))}}); err != nil {
		t.Fatal(err)
	}
	if q.submits[0].model != "fal-ai/flux-pro/kontext/max" {
		t.Errorf("submitted to %s", q.submits[0].model)
	}
}

func TestForeignQueueURLsAreNotFollowed(t *testing.T) {
	// Status, response and cancel URLs on another origin are replaced by the
	// ones built on the base URL, so the key never travels elsewhere.
	q := newFakeQueue(t)
	q.foreign = true
	q.behaviour = func(string, map[string]any) behaviour { return behaviour{output: imageOutput} }
	e := q.engine(t, hosted.WithModels(map[string]string{"iron": "fal-ai/flux-pro/kontext/max"}))
	if _, err := e.Run(context.Background(), engine.Request{Tool: "iron", Tier: ledger.Tier1K, Inputs: []engine.Input{in("image", jpegOf(t, 100, 100))}}); err != nil {
		t.Fatal(err)
	}
	if n := q.polls[q.submits[0].id]; n != 4 {
		t.Errorf("%d polls on the built status URL, want 4", n)
	}
}

func TestCancelledBeforeSubmit(t *testing.T) {
	q := newFakeQueue(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := q.engine(t).Run(ctx, engine.Request{Tool: "upscale", Tier: ledger.Tier1K, Inputs: []engine.Input{in("image", jpegOf(t, 100, 100))}})
	if !errors.Is(err, context.Canceled) || engine.IsProvider(err) {
		t.Fatalf("err = %v, want context.Canceled and no provider fault", err)
	}
}
