package worker

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"studio/internal/engine"
	"studio/internal/job"
	"studio/internal/picture"
	"studio/internal/tool"
)

// Expect is what a develop's result must be, as its tool declares it
// (issue 27): a video or a still, and the aspect the result must have
// within aspectTolerance when the develop asked for one.
type Expect struct {
	Video bool // a video (an MP4 or WebM), else a still (JPEG, PNG or WebP)
	// Aspect is the aspect asked ("4:5"; "" when the develop asked none
	// its engine honours). A destination's size (outputWidth and
	// outputHeight) asks its aspect too.
	Aspect string
}

// expect is what j's result must be, as its tool declares it
// (tool.Tool.Video and Aspect): the aspect asked is the destination's
// (outputWidth, outputHeight), else the declared option's value or
// default where the engine serving j reads that option and no input in
// the option's Unless role lifts it.
func (p *Pool) expect(j job.Job) Expect {
	t, _ := tool.Get(j.Tool)
	e := Expect{Video: t.Video}
	if w, h := shape(j.Tool, j.Params); w > 0 && h > 0 {
		e.Aspect = strconv.Itoa(w) + ":" + strconv.Itoa(h)
		return e
	}
	if o, ok := t.Option(t.Aspect); ok && !hasRole(j, o.Unless) {
		if served, _ := engine.Provider(p.engine, j.Tool); o.ReadBy(served) {
			e.Aspect = cmp.Or(strings.TrimSpace(j.Params[o.Name]), o.Default)
		}
	}
	return e
}

// hasRole reports whether j has an input in role ("" has none).
func hasRole(j job.Job, role string) bool {
	return role != "" && slices.ContainsFunc(j.Inputs, func(in job.Input) bool { return in.Role == role })
}

// aspectTolerance is how far a result's aspect may be from the one asked,
// as a ratio: 3%, as the look model's answers are held to (lookbrief.Fits).
const aspectTolerance = 1.03

// misfit says what is wrong with res for a develop expecting e: ""
// when nothing is. It reads the bytes, not what the engine says of them:
// a PNG labelled video/mp4 is still a picture.
func misfit(e Expect, res engine.Result) string {
	if len(res.Data) == 0 {
		return "it is empty"
	}
	video := isVideo(res.Data)
	switch {
	case e.Video && !video:
		if kind := picture.Sniff(res.Data); kind != "" {
			return "a picture (" + kind + "), not a video"
		}
		return "not a video we can read"
	case e.Video:
		return ""
	case video:
		return "a video, not a picture"
	}
	mime, w, h, err := picture.Probe(res.Data)
	if err != nil || mime == "" || w < 1 || h < 1 {
		return "not a picture we can read"
	}
	if e.Aspect == "" {
		return ""
	}
	a, err := engine.ParseAspect(e.Aspect)
	if err != nil {
		return ""
	}
	if math.Abs(math.Log(float64(w)/float64(h)/a.Ratio())) > math.Log(aspectTolerance) {
		return fmt.Sprintf("a %dx%d picture (%s), not %s", w, h, shapeWord(w, h), e.Aspect)
	}
	return ""
}

// shapeWord names a picture's shape: square, or its aspect in small whole
// numbers where it has one (4:5), else its ratio.
func shapeWord(w, h int) string {
	if w == h {
		return "square"
	}
	for d := 1; d <= 21; d++ {
		n := float64(w) * float64(d) / float64(h)
		if r := math.Round(n); r >= 1 && math.Abs(n-r) < 0.02*float64(d) {
			return fmt.Sprintf("%d:%d", int(r), d)
		}
	}
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.2f", float64(w)/float64(h)), "0"), ".") + ":1"
}

// isVideo reports whether data begins as an ISO base media file (MP4,
// MOV: an ftyp box) or a Matroska/WebM file (its EBML magic).
func isVideo(data []byte) bool {
	return len(data) >= 12 && string(data[4:8]) == "ftyp" || bytes.HasPrefix(data, []byte{0x1A, 0x45, 0xDF, 0xA3})
}
