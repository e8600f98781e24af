package casting

import (
	"bytes"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"math"

	"github.com/disintegration/imaging"
)

// The collage's tiles are portrait (4:5), as a model's photographs mostly
// are; a photograph of another shape is cropped about its centre.
const (
	tileW = CollageTile * 4 / 5
	tileH = CollageTile
	gap   = 8
)

// Tile shapes one upright photograph into a collage tile.
func Tile(img image.Image) image.Image {
	return imaging.Fill(img, tileW, tileH, imaging.Center, imaging.Lanczos)
}

// grid is the collage's columns and rows for n tiles: one row up to three,
// then the smallest square-ish grid.
func grid(n int) (cols, rows int) {
	if n <= 3 {
		return n, 1
	}
	cols = int(math.Ceil(math.Sqrt(float64(n))))
	return cols, (n + cols - 1) / cols
}

// Collage lays tiles out on a white ground, in order, left to right and
// top to bottom, a short last row centred, and encodes it as a JPEG.
func Collage(tiles []image.Image) (data []byte, width, height int, err error) {
	cols, rows := grid(len(tiles))
	width, height = cols*tileW+(cols+1)*gap, rows*tileH+(rows+1)*gap
	canvas := image.NewRGBA(image.Rect(0, 0, width, height))
	draw.Draw(canvas, canvas.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
	for i, t := range tiles {
		row, col := i/cols, i%cols
		inRow := cols
		if row == rows-1 && len(tiles)%cols != 0 {
			inRow = len(tiles) % cols
		}
		offset := (cols - inRow) * (tileW + gap) / 2
		x, y := gap+offset+col*(tileW+gap), gap+row*(tileH+gap)
		draw.Draw(canvas, image.Rect(x, y, x+tileW, y+tileH), t, t.Bounds().Min, draw.Src)
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, canvas, &jpeg.Options{Quality: 90}); err != nil {
		return nil, 0, 0, err
	}
	return buf.Bytes(), width, height, nil
}
