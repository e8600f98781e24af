// Package hostedtest is what the stand-ins of hosted providers share
// (faltest, fashntest): the colours their answers are painted, a flat PNG
// answer, the size of an answer at a long edge and an aspect, and a JSON
// reply.
package hostedtest

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// Palette are the colours answers are painted, in submission order.
var Palette = []color.NRGBA{
	{200, 40, 40, 255}, {40, 160, 60, 255}, {40, 60, 200, 255}, {220, 180, 30, 255},
	{150, 40, 170, 255}, {30, 170, 180, 255}, {230, 120, 30, 255}, {90, 90, 90, 255},
}

// ServePNG answers a w x h PNG painted c. The picture is drawn and
// encoded once per test binary for each size and colour (flatPNG): the
// stand-ins answer the same few frames in test after test, and encoding
// them again under the race detector was most of the stand-in's work.
func ServePNG(rw http.ResponseWriter, w, h int, c color.NRGBA) {
	data, err := flatPNG(w, h, c)
	if err != nil {
		http.Error(rw, err.Error(), http.StatusInternalServerError)
		return
	}
	rw.Header().Set("Content-Type", "image/png")
	rw.Write(data)
}

type flatKey struct {
	w, h int
	c    color.NRGBA
}

// flatPNGs are the PNGs flatPNG has encoded, by size and colour.
var flatPNGs sync.Map // flatKey -> []byte

// flatPNG is a w x h PNG painted c, at the fastest compression, encoded
// once and then answered from flatPNGs (the bytes are the same each time).
func flatPNG(w, h int, c color.NRGBA) ([]byte, error) {
	k := flatKey{w, h, c}
	if data, ok := flatPNGs.Load(k); ok {
		return data.([]byte), nil
	}
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = c.R, c.G, c.B, 255
	}
	var b bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&b, img); err != nil {
		return nil, err
	}
	data, _ := flatPNGs.LoadOrStore(k, b.Bytes())
	return data.([]byte), nil
}

// Sized is the size with long on its long edge and the aspect "W:H"
// (square when aspect does not read).
func Sized(long int, aspect string) (int, int) {
	a, b, ok := strings.Cut(aspect, ":")
	w, _ := strconv.ParseFloat(a, 64)
	h, _ := strconv.ParseFloat(b, 64)
	if !ok || w <= 0 || h <= 0 {
		return long, long
	}
	if w >= h {
		return long, int(math.Round(float64(long) * h / w))
	}
	return int(math.Round(float64(long) * w / h)), long
}

// WriteJSON answers status with v as JSON.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// MP4 is the box skeleton of an MP4 with one w x h track (ftyp, moov >
// mvhd, trak > tkhd, mdat): what a reader of the display size needs.
func MP4(w, h int) []byte {
	box := func(kind string, body ...[]byte) []byte {
		n := 8
		for _, b := range body {
			n += len(b)
		}
		out := binary.BigEndian.AppendUint32(make([]byte, 0, n), uint32(n))
		out = append(out, kind...)
		for _, b := range body {
			out = append(out, b...)
		}
		return out
	}
	tkhd := make([]byte, 84)
	binary.BigEndian.PutUint32(tkhd[76:], uint32(w)<<16)
	binary.BigEndian.PutUint32(tkhd[80:], uint32(h)<<16)
	return bytes.Join([][]byte{box("ftyp", []byte("isom\x00\x00\x02\x00isomiso2mp41")),
		box("moov", box("mvhd", make([]byte, 100)), box("trak", box("tkhd", tkhd))), box("mdat", make([]byte, 64))}, nil)
}
