package worker

import (
	"bytes"
	"image"
	"image/png"
	"testing"

	"studio/internal/engine"
	"studio/internal/engine/imageapi"
	"studio/internal/engine/local"
	"studio/internal/job"
)

func pngBytes(t *testing.T, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewNRGBA(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestCheckResult: a result is what its tool makes or the develop fails:
// a video for a video tool (a PNG labelled video/mp4 is a picture), a
// picture for a still tool, and the aspect asked within 3%.
func TestCheckResult(t *testing.T) {
	mp4 := append([]byte{0, 0, 0, 24}, []byte("ftypisom\x00\x00\x02\x00isomiso2")...)
	webm := []byte{0x1A, 0x45, 0xDF, 0xA3, 0x9F, 0x42, 0x86, 0x81}
	tests := []struct {
		name string
		e    Expect
		res  engine.Result
		want string
	}{
		{"a still", Expect{}, engine.Result{Data: pngBytes(t, 40, 30), Mime: "image/png"}, ""},
		{"an MP4 for a video tool", Expect{Video: true}, engine.Result{Data: mp4, Mime: "video/mp4"}, ""},
		{"a WebM for a video tool", Expect{Video: true}, engine.Result{Data: webm, Mime: "video/webm"}, ""},
		{"a PNG for a video tool", Expect{Video: true}, engine.Result{Data: pngBytes(t, 40, 30), Mime: "video/mp4"}, "a picture (image/png), not a video"},
		{"bytes that are nothing for a video tool", Expect{Video: true}, engine.Result{Data: []byte("frame"), Mime: "video/mp4"}, "not a video we can read"},
		{"a video for a still tool", Expect{}, engine.Result{Data: mp4, Mime: "image/png"}, "a video, not a picture"},
		{"bytes that are no picture", Expect{}, engine.Result{Data: []byte("frame"), Mime: "image/jpeg"}, "not a picture we can read"},
		{"empty", Expect{}, engine.Result{}, "it is empty"},
		{"4:5 asked and made", Expect{Aspect: "4:5"}, engine.Result{Data: pngBytes(t, 80, 100)}, ""},
		{"4:5 asked, within 3%", Expect{Aspect: "4:5"}, engine.Result{Data: pngBytes(t, 81, 100)}, ""},
		{"4:5 asked, square made", Expect{Aspect: "4:5"}, engine.Result{Data: pngBytes(t, 64, 64)}, "a 64x64 picture (square), not 4:5"},
		{"16:9 asked, 3:2 made", Expect{Aspect: "16:9"}, engine.Result{Data: pngBytes(t, 96, 64)}, "a 96x64 picture (3:2), not 16:9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := misfit(tt.e, tt.res); got != tt.want {
				t.Errorf("misfit = %q; want %q", got, tt.want)
			}
		})
	}
}

// TestExpectedAspect: a develop expects the aspect its tool declares where
// the serving engine reads it: a reframe its aspect, a character made
// from words its aspect or the default (square), a character made from a
// photo none (the photo lifts it), a destination its own size.
func TestExpectedAspect(t *testing.T) {
	api, err := imageapi.New("https://images.test", "k", "")
	if err != nil {
		t.Fatal(err)
	}
	p := &Pool{engine: engine.Chain(api, local.New())}
	photo := []job.Input{{Role: "image", AssetID: "a"}}
	tests := []struct {
		tool   string
		params map[string]string
		inputs []job.Input
		want   string
	}{
		{"reframe", map[string]string{"aspect": "4:5"}, photo, "4:5"},
		{"generate-character", map[string]string{"aspect": "4:5"}, nil, "4:5"},
		{"generate-character", nil, nil, "1:1"},
		{"generate-character", map[string]string{"aspect": "4:5"}, photo, ""},
		{"upscale", nil, photo, ""},
		{"lookbook", map[string]string{"outputWidth": "1080", "outputHeight": "1350"}, nil, "1080:1350"},
	}
	for _, tt := range tests {
		if got := p.expect(job.Job{Tool: tt.tool, Params: tt.params, Inputs: tt.inputs}); got.Aspect != tt.want {
			t.Errorf("%s %v with %d inputs expects %q; want %q", tt.tool, tt.params, len(tt.inputs), got.Aspect, tt.want)
		}
	}
}
