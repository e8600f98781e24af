// Package fashntest is a local server speaking FASHN's prediction API, for
// tests of the FASHN engine and of everything that develops on it.
//
// It answers as FASHN documents (see package fashn): POST /v1/run with
// "Authorization: Bearer <key>" and {model_name, inputs} answers {id,
// error: null}; GET /v1/status/{id} answers starting, then in_queue,
// then processing, then completed with output [url] (or failed with
// error {name, message} when scripted). A request refused before an id is
// issued answers its HTTP status with {error, message}: 401
// UnauthorizedAccess for another key, 400 BadRequest for a body without
// model_name or inputs or for a model FASHN does not have, and whatever a
// test queues (Refuse). Result files are PNGs served by the same server
// under /cdn/, painted one flat colour per prediction (Palette, in
// submission order).
//
// Sizes are honest by default: model-create and reframe answer the ~1 MP
// size FASHN documents for the aspect_ratio asked; tryon-max and
// product-to-model the aspect_ratio asked (else the model image's) with
// the resolution's long edge; tryon-v1.6 and background-remove the size of
// the picture given; image-to-video an MP4 of the picture's aspect at its
// resolution (1080p: 1920 on the long edge). A prediction may be scripted
// to fail with a documented error name, to stay processing for ever
// (Stuck), to leave its status requests unanswered (Hang), or to complete
// at its first poll (Ready).
package fashntest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"studio/internal/engine/hosted/hostedtest"

	_ "image/jpeg" // model images sent as JPEG data URIs
)

// Answer is how the server answers one prediction.
type Answer struct {
	Width, Height int    // the image's size; 0 for the honest size
	Fail          string // the prediction fails with this error name (ImageLoadError, ...)
	Status        string // a final status other than completed (canceled, time_out)
	Stuck         bool   // the status stays processing for ever
	Hang          bool   // status requests are never answered
	Ready         bool   // completed at the first status poll (an end-to-end test that need not wait)
}

// Refusal is an answer to one submission before an id is issued.
type Refusal struct {
	Status     int
	Error      string // RateLimitExceeded, OutOfCredits, BadRequest...
	RetryAfter string // the Retry-After header, when set
}

// Run is one recorded prediction.
type Run struct {
	Model  string
	ID     string
	Inputs map[string]any
	Color  color.NRGBA // the colour its answer is painted
	W, H   int         // the answer's size
}

// Server is the stand-in. Its methods are safe for concurrent use.
type Server struct {
	URL string
	Key string

	srv      *httptest.Server
	quit     chan struct{} // closed when the test ends: hung requests return
	mu       sync.Mutex
	runs     []Run
	polls    map[string]int
	refusals []Refusal
	tries    int // submissions received, refused ones included
	answer   func(model string, inputs map[string]any) Answer
}

// Palette are the colours answers are painted, in submission order.
var Palette = hostedtest.Palette

// Models are the model names FASHN's API reference lists.
var Models = []string{"tryon-max", "tryon-v1.6", "product-to-model", "face-to-model", "model-create",
	"model-swap", "reframe", "background-change", "background-remove", "image-to-video", "edit"}

// New starts a server requiring key, closed when the test ends.
func New(t testing.TB, key string) *Server {
	s := &Server{Key: key, quit: make(chan struct{}), polls: map[string]int{},
		answer: func(string, map[string]any) Answer { return Answer{} }}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	t.Cleanup(s.srv.Close)
	t.Cleanup(func() { close(s.quit) }) // first: hung handlers return, then Close
	return s
}

// Answer sets how each prediction is answered.
func (s *Server) Answer(f func(model string, inputs map[string]any) Answer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.answer = f
}

// Refuse queues answers to the next submissions, one each, before any is
// accepted.
func (s *Server) Refuse(r ...Refusal) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refusals = append(s.refusals, r...)
}

// Runs are the accepted predictions, in order.
func (s *Server) Runs() []Run {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Run(nil), s.runs...)
}

// Tries is how many submissions arrived, refused ones included.
func (s *Server) Tries() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tries
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	path := strings.Trim(r.URL.Path, "/")
	if rest, ok := strings.CutPrefix(path, "cdn/"); ok {
		s.serveFile(w, strings.TrimSuffix(strings.TrimSuffix(rest, ".png"), ".mp4"))
		return
	}
	if r.Header.Get("Authorization") != "Bearer "+s.Key {
		hostedtest.WriteJSON(w, http.StatusUnauthorized, map[string]any{"error": "UnauthorizedAccess", "message": "Unauthorized: Invalid token"})
		return
	}
	switch id, isStatus := strings.CutPrefix(path, "v1/status/"); {
	case path == "v1/run" && r.Method == http.MethodPost:
		s.run(w, r)
	case isStatus && r.Method == http.MethodGet:
		s.status(w, r, id)
	default:
		hostedtest.WriteJSON(w, http.StatusNotFound, map[string]any{"error": "NotFound", "message": "Resource not found"})
	}
}

func (s *Server) run(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Model  string         `json:"model_name"`
		Inputs map[string]any `json:"inputs"`
	}
	data, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.tries++
	if len(s.refusals) > 0 {
		ref := s.refusals[0]
		s.refusals = s.refusals[1:]
		s.mu.Unlock()
		if ref.RetryAfter != "" {
			w.Header().Set("Retry-After", ref.RetryAfter)
		}
		hostedtest.WriteJSON(w, ref.Status, map[string]any{"error": ref.Error, "message": ref.Error})
		return
	}
	s.mu.Unlock()
	if r.Header.Get("Content-Type") != "application/json" || json.Unmarshal(data, &body) != nil || body.Inputs == nil || !isModel(body.Model) {
		hostedtest.WriteJSON(w, http.StatusBadRequest, map[string]any{"error": "BadRequest", "message": "Invalid request format"})
		return
	}
	s.mu.Lock()
	run := Run{Model: body.Model, ID: fmt.Sprintf("pred-%04d", len(s.runs)+1), Inputs: body.Inputs, Color: Palette[len(s.runs)%len(Palette)]}
	run.W, run.H = s.size(body.Model, body.Inputs)
	s.runs = append(s.runs, run)
	s.mu.Unlock()
	hostedtest.WriteJSON(w, http.StatusOK, map[string]any{"id": run.ID, "error": nil})
}

func isModel(name string) bool {
	for _, m := range Models {
		if m == name {
			return true
		}
	}
	return false
}

// status answers a prediction's status: starting, in_queue, processing,
// then its end.
func (s *Server) status(w http.ResponseWriter, r *http.Request, id string) {
	run, ok := s.find(id)
	if !ok {
		hostedtest.WriteJSON(w, http.StatusNotFound, map[string]any{"error": "NotFound", "message": "Prediction not found"})
		return
	}
	s.mu.Lock()
	a := s.answer(run.Model, run.Inputs)
	s.polls[id]++
	n := s.polls[id]
	s.mu.Unlock()
	if a.Hang {
		select { // the connection never answers
		case <-r.Context().Done():
		case <-s.quit:
		}
		return
	}
	running := []string{"starting", "in_queue", "processing"}
	switch {
	case a.Stuck:
		hostedtest.WriteJSON(w, http.StatusOK, map[string]any{"id": id, "status": "processing", "output": nil, "error": nil})
	case n <= len(running) && !a.Ready:
		hostedtest.WriteJSON(w, http.StatusOK, map[string]any{"id": id, "status": running[n-1], "output": nil, "error": nil})
	case a.Fail != "":
		hostedtest.WriteJSON(w, http.StatusOK, map[string]any{"id": id, "status": "failed", "output": nil,
			"error": map[string]any{"name": a.Fail, "message": a.Fail + " (stand-in)"}})
	case a.Status != "":
		hostedtest.WriteJSON(w, http.StatusOK, map[string]any{"id": id, "status": a.Status, "output": nil, "error": nil})
	default:
		ext := ".png"
		if run.Model == "image-to-video" {
			ext = ".mp4"
		}
		hostedtest.WriteJSON(w, http.StatusOK, map[string]any{"id": id, "status": "completed",
			"output": []string{s.URL + "/cdn/" + id + ext}, "error": nil})
	}
}

func (s *Server) find(id string) (Run, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, run := range s.runs {
		if run.ID == id {
			return run, true
		}
	}
	return Run{}, false
}

// documented are the ~1 MP sizes model-create and reframe answer per
// aspect_ratio (FASHN's API reference).
var documented = map[string][2]int{
	"21:9": {1568, 672}, "1:1": {1024, 1024}, "4:3": {1176, 880}, "3:2": {1248, 832}, "2:3": {832, 1248},
	"5:4": {1144, 912}, "4:5": {912, 1144}, "3:4": {880, 1176}, "16:9": {1360, 760}, "9:16": {760, 1360},
}

// size is the answer's size: the scripted one (s.mu held), else the honest one.
func (s *Server) size(model string, inputs map[string]any) (int, int) {
	if a := s.answer(model, inputs); a.Width > 0 && a.Height > 0 {
		return a.Width, a.Height
	}
	aspect, _ := inputs["aspect_ratio"].(string)
	long := map[string]int{"1k": 1024, "2k": 2048, "4k": 4096}[fmt.Sprint(inputs["resolution"])]
	if long == 0 {
		long = 1024
	}
	switch model {
	case "model-create", "reframe":
		if d, ok := documented[aspect]; ok {
			return d[0], d[1]
		}
		return 1024, 1024
	case "tryon-max", "product-to-model":
		if aspect != "" && model == "tryon-max" {
			return hostedtest.Sized(long, aspect)
		}
		if w, h := s.pictureSize(inputs["model_image"]); w > 0 {
			return hostedtest.Sized(long, fmt.Sprintf("%d:%d", w, h))
		}
	case "tryon-v1.6":
		if w, h := s.pictureSize(inputs["model_image"]); w > 0 {
			return w, h
		}
	case "background-remove":
		if w, h := s.pictureSize(inputs["image"]); w > 0 {
			return w, h
		}
	case "image-to-video":
		long := map[string]int{"480p": 854, "720p": 1280, "1080p": 1920}[fmt.Sprint(inputs["resolution"])]
		if w, h := s.pictureSize(inputs["image"]); w > 0 && long > 0 {
			return hostedtest.Sized(long, fmt.Sprintf("%d:%d", w, h))
		}
	}
	return 768, 1024
}

// pictureSize reads the size of an input: a data URI, or one of the
// server's own results (s.mu held).
func (s *Server) pictureSize(v any) (int, int) {
	str, _ := v.(string)
	if rest, ok := strings.CutPrefix(str, s.URL+"/cdn/"); ok {
		for _, run := range s.runs {
			if run.ID == strings.TrimSuffix(rest, ".png") {
				return run.W, run.H
			}
		}
		return 0, 0
	}
	_, payload, ok := strings.Cut(str, ";base64,")
	if !ok {
		return 0, 0
	}
	data, err := base64.StdEncoding.DecodeString(payload)
	if err != nil {
		return 0, 0
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return 0, 0
	}
	return cfg.Width, cfg.Height
}

// serveFile serves a prediction's answer: a flat PNG in its colour, or
// for image-to-video an MP4 skeleton of its size.
func (s *Server) serveFile(w http.ResponseWriter, id string) {
	run, ok := s.find(id)
	if !ok {
		http.NotFound(w, nil)
		return
	}
	if run.Model == "image-to-video" {
		w.Header().Set("Content-Type", "video/mp4")
		w.Write(hostedtest.MP4(run.W, run.H))
		return
	}
	hostedtest.ServePNG(w, run.W, run.H, run.Color)
}
