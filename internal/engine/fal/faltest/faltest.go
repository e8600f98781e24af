// Package faltest is a local server speaking fal.ai's queue protocol for
// the models the look frames use, for tests outside package fal (the API's
// end-to-end look stories) as well as inside it.
//
// It answers as fal documents: POST {model} with "Authorization: Key ..."
// answers {request_id, status_url, response_url, cancel_url}; GET
// .../requests/{id}/status answers IN_QUEUE then COMPLETED; GET
// .../requests/{id} answers the model's output {images: [{url, width,
// height, content_type}]} (with has_nsfw_concepts when asked), or 422
// {detail: [{loc, msg, type: "content_policy_violation"}]} for a refusal.
// Result files are PNGs served by the same server under /cdn/.
//
// By default every model answers honestly: the look model
// (nano-banana-pro/edit) at its resolution (1K, 2K, 4K on the long edge)
// and aspect_ratio; the upscale model at its input's size (a submission's
// result URL, or a data URI) times scale;
// kling's image-to-video a 1280x720 MP4 ({video: {url, content_type}});
// a model given an image_size (flux/dev) that size; FLUX.1 Kontext (the
// edits, a character from a photo, harmonize) about one megapixel at its
// picture's aspect; the other edit models (fill, eraser, expand, product
// shot, background removal, try-on) at their picture's size; any other
// 512x512. Each answer is painted one flat colour of
// Palette, in submission order, so a test can tell whose answer a frame is.
//
// A submission may be scripted to take a fixed time (Takes: its status
// stays IN_PROGRESS that long) or not to finish: Stuck keeps its status
// IN_PROGRESS for ever, Hang leaves its status requests unanswered (a
// connection that never answers) until the client gives up, Lost answers
// them 503 (fal took the request and its status cannot be read). PUT
// .../requests/{id}/cancel answers 202 CANCELLATION_REQUESTED, as fal
// documents, and is recorded (Cancelled).
package faltest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image/color"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"time"

	"studio/internal/engine/hosted/hostedtest"
	"studio/internal/picture"
)

// Answer is how the server answers one submission.
type Answer struct {
	Width, Height int  // the image's size; 0 for the honest size
	NSFW          bool // the output flags the image (has_nsfw_concepts: [true])
	Refuse        bool // the response is 422 content_policy_violation
	Stuck         bool // the status stays IN_PROGRESS for ever
	Hang          bool // status requests are never answered
	Lost          bool // status requests are answered 503, every one
	// Takes keeps the status IN_PROGRESS until this long after the
	// submission: a render of a fixed time that costs no CPU.
	Takes time.Duration
}

// Submit is one recorded submission.
type Submit struct {
	Model string
	ID    string
	Input map[string]any
	Color color.NRGBA // the colour its answer is painted
	W, H  int         // the answer's size
	At    time.Time   // when it was submitted
}

// Server is the stand-in. Its methods are safe for concurrent use.
type Server struct {
	URL string
	Key string

	srv       *httptest.Server
	quit      chan struct{} // closed when the test ends: hung requests return
	mu        sync.Mutex
	subs      []Submit
	cancelled []string
	answer    func(model string, input map[string]any) Answer
}

// Palette are the colours answers are painted, in submission order.
var Palette = hostedtest.Palette

// New starts a server requiring key, closed when the test ends.
func New(t testing.TB, key string) *Server {
	s := &Server{Key: key, quit: make(chan struct{}), answer: func(string, map[string]any) Answer { return Answer{} }}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	t.Cleanup(s.srv.Close)
	t.Cleanup(func() { close(s.quit) }) // first: hung handlers return, then Close
	return s
}

// Cancelled are the request ids whose cancel was asked, in order.
func (s *Server) Cancelled() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.cancelled...)
}

// Answer sets how each submission is answered.
func (s *Server) Answer(f func(model string, input map[string]any) Answer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.answer = f
}

// Submits are the recorded submissions, in order.
func (s *Server) Submits() []Submit {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Submit(nil), s.subs...)
}

// Of are the recorded submissions to model.
func (s *Server) Of(model string) []Submit {
	var out []Submit
	for _, sub := range s.Submits() {
		if sub.Model == model {
			out = append(out, sub)
		}
	}
	return out
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	path := strings.Trim(r.URL.Path, "/")
	if rest, ok := strings.CutPrefix(path, "cdn/"); ok {
		s.serveFile(w, strings.TrimSuffix(strings.TrimSuffix(rest, ".png"), ".mp4"))
		return
	}
	if r.Header.Get("Authorization") != "Key "+s.Key {
		hostedtest.WriteJSON(w, http.StatusUnauthorized, map[string]any{"detail": "No user found for Key ID and Secret"})
		return
	}
	parts := strings.Split(path, "/")
	switch {
	case r.Method == http.MethodPost:
		var input map[string]any
		body, _ := io.ReadAll(r.Body)
		if r.Header.Get("Content-Type") != "application/json" || json.Unmarshal(body, &input) != nil {
			hostedtest.WriteJSON(w, http.StatusUnprocessableEntity, map[string]any{"detail": []map[string]any{{"loc": []string{"body"}, "msg": "Input should be a valid dictionary", "type": "dict_type"}}})
			return
		}
		s.mu.Lock()
		id := fmt.Sprintf("req-%04d", len(s.subs)+1)
		sub := Submit{Model: path, ID: id, Input: input, Color: Palette[len(s.subs)%len(Palette)], At: time.Now()}
		sub.W, sub.H = s.size(path, input)
		s.subs = append(s.subs, sub)
		s.mu.Unlock()
		base := s.URL + "/" + strings.Join(parts[:min(2, len(parts))], "/") + "/requests/" + id
		hostedtest.WriteJSON(w, http.StatusOK, map[string]any{"request_id": id, "status_url": base + "/status",
			"response_url": base, "cancel_url": base + "/cancel", "queue_position": 0})
	case len(parts) >= 4 && parts[len(parts)-1] == "status":
		sub, ok := s.find(parts[len(parts)-2])
		if !ok {
			hostedtest.WriteJSON(w, http.StatusNotFound, map[string]any{"detail": "Request not found"})
			return
		}
		switch a := s.answerOf(sub); {
		case a.Lost:
			hostedtest.WriteJSON(w, http.StatusServiceUnavailable, map[string]any{"detail": "Service Unavailable"})
			return
		case a.Hang:
			select { // the connection never answers
			case <-r.Context().Done():
			case <-s.quit:
			}
			return
		case a.Stuck, time.Since(sub.At) < a.Takes:
			hostedtest.WriteJSON(w, http.StatusOK, map[string]any{"status": "IN_PROGRESS", "request_id": sub.ID, "logs": []any{}})
			return
		}
		hostedtest.WriteJSON(w, http.StatusOK, map[string]any{"status": "COMPLETED", "request_id": parts[len(parts)-2],
			"metrics": map[string]any{"inference_time": 0.4}})
	case len(parts) >= 4 && parts[len(parts)-1] == "cancel" && r.Method == http.MethodPut:
		id := parts[len(parts)-2]
		if _, ok := s.find(id); !ok {
			hostedtest.WriteJSON(w, http.StatusNotFound, map[string]any{"detail": "Request not found"})
			return
		}
		s.mu.Lock()
		s.cancelled = append(s.cancelled, id)
		s.mu.Unlock()
		hostedtest.WriteJSON(w, http.StatusAccepted, map[string]any{"status": "CANCELLATION_REQUESTED"})
	case len(parts) >= 4 && parts[len(parts)-2] == "requests":
		sub, ok := s.find(parts[len(parts)-1])
		if !ok {
			hostedtest.WriteJSON(w, http.StatusNotFound, map[string]any{"detail": "Request not found"})
			return
		}
		a := s.answerOf(sub)
		if a.Refuse {
			hostedtest.WriteJSON(w, http.StatusUnprocessableEntity, map[string]any{"detail": []map[string]any{{
				"loc": []string{"body", "prompt"}, "msg": "The content could not be processed because it contained material flagged by a content checker.",
				"type": "content_policy_violation", "url": "https://docs.fal.ai/errors#content_policy_violation"}}})
			return
		}
		out := map[string]any{"images": []map[string]any{{"url": s.URL + "/cdn/" + sub.ID + ".png",
			"width": sub.W, "height": sub.H, "content_type": "image/png", "file_name": sub.ID + ".png"}}, "description": ""}
		if video(sub.Model) {
			out = map[string]any{"video": map[string]any{"url": s.URL + "/cdn/" + sub.ID + ".mp4", "content_type": "video/mp4", "file_name": sub.ID + ".mp4"}}
		}
		if a.NSFW {
			out["has_nsfw_concepts"] = []bool{true}
		}
		hostedtest.WriteJSON(w, http.StatusOK, out)
	default:
		hostedtest.WriteJSON(w, http.StatusMethodNotAllowed, map[string]any{"detail": "Method not allowed"})
	}
}

func (s *Server) find(id string) (Submit, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, sub := range s.subs {
		if sub.ID == id {
			return sub, true
		}
	}
	return Submit{}, false
}

func (s *Server) answerOf(sub Submit) Answer {
	s.mu.Lock()
	f := s.answer
	s.mu.Unlock()
	return f(sub.Model, sub.Input)
}

// size is the answer's size: the scripted one, else the honest one.
func (s *Server) size(model string, input map[string]any) (int, int) {
	if a := s.answer(model, input); a.Width > 0 && a.Height > 0 {
		return a.Width, a.Height
	}
	switch {
	case strings.Contains(model, "nano-banana"):
		long := map[string]int{"1K": 1024, "2K": 2048, "4K": 4096}[fmt.Sprint(input["resolution"])]
		if long == 0 {
			long = 1024
		}
		return hostedtest.Sized(long, fmt.Sprint(input["aspect_ratio"]))
	case video(model):
		return 1280, 720
	case input["image_size"] != nil:
		size, _ := input["image_size"].(map[string]any)
		w, _ := size["width"].(float64)
		h, _ := size["height"].(float64)
		if w > 0 && h > 0 {
			return int(w), int(h)
		}
	case strings.Contains(model, "esrgan"):
		scale, _ := input["scale"].(float64)
		if w, h, ok := s.sizeOf(input["image_url"]); ok {
			return int(float64(w) * scale), int(float64(h) * scale)
		}
	case strings.Contains(model, "kontext"):
		// FLUX.1 Kontext answers about one megapixel at its (first)
		// picture's aspect, whatever that picture's size.
		u := input["image_url"]
		if list, ok := input["image_urls"].([]any); ok && len(list) > 0 {
			u = list[0]
		}
		if w, h, ok := s.sizeOf(u); ok {
			return megapixel(w, h)
		}
		return 1024, 1024
	default:
		// The other edit models (fill, eraser, expand, product shot,
		// background removal, try-on) answer at their picture's size.
		for _, k := range []string{"image_url", "model_image"} {
			if w, h, ok := s.sizeOf(input[k]); ok {
				return w, h
			}
		}
	}
	return 512, 512
}

// sizeOf is the size of a picture a submission carries: a data URI, or the
// URL of an earlier submission's answer. Call with s.mu held.
func (s *Server) sizeOf(v any) (int, int, bool) {
	u, _ := v.(string)
	if rest, ok := strings.CutPrefix(u, "data:"); ok {
		_, payload, _ := strings.Cut(rest, ",")
		data, _ := base64.StdEncoding.DecodeString(payload)
		if _, w, h, err := picture.Probe(data); err == nil {
			return w, h, true
		}
		return 0, 0, false
	}
	if u == "" {
		return 0, 0, false
	}
	id := strings.TrimSuffix(u[strings.LastIndex(u, "/")+1:], ".png")
	for _, sub := range s.subs {
		if sub.ID == id {
			return sub.W, sub.H, true
		}
	}
	return 0, 0, false
}

// megapixel is about 1024x1024 pixels at the aspect w:h: FLUX.1
// Kontext's output size.
func megapixel(w, h int) (int, int) {
	f := math.Sqrt(1024 * 1024 / (float64(w) * float64(h)))
	return max(1, int(math.Round(float64(w)*f))), max(1, int(math.Round(float64(h)*f)))
}

// video reports whether model answers a video (kling's image-to-video).
func video(model string) bool { return strings.Contains(model, "kling-video") }

// serveFile serves a submission's answer: a flat PNG in its colour, or
// for a video model an MP4 skeleton of its size.
func (s *Server) serveFile(w http.ResponseWriter, id string) {
	sub, ok := s.find(id)
	if !ok {
		http.NotFound(w, nil)
		return
	}
	if video(sub.Model) {
		w.Header().Set("Content-Type", "video/mp4")
		w.Write(hostedtest.MP4(sub.W, sub.H))
		return
	}
	hostedtest.ServePNG(w, sub.W, sub.H, sub.Color)
}
