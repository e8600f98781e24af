package picture

import (
	"bytes"
	"image"
	"image/color"
)

// DecodeGray decodes a mask as Decode decodes a picture (Probe's checks,
// the EXIF orientation applied) into grey: each pixel's luma (0.299 R +
// 0.587 G + 0.114 B) once composited over white, as Flatten and a luma
// read of the colour picture would give it. The decoder's own picture is
// dropped on return, so a mask held costs one byte a pixel, not the four
// of Decode's colour copy.
func DecodeGray(data []byte) (*image.Gray, error) {
	if _, _, _, err := Probe(data); err != nil {
		return nil, err
	}
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, &Error{Reason: "The image could not be decoded.", Err: err}
	}
	img = Upright(img, Orientation(data))
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	out := image.NewGray(image.Rect(0, 0, w, h))
	lum := func(r, g, bl uint32) uint8 { return uint8((299*r + 587*g + 114*bl + 500) / 1000) }
	Parallel(h, func(y0, y1 int) {
		for y := y0; y < y1; y++ {
			row := out.Pix[y*out.Stride : y*out.Stride+w]
			switch m := img.(type) {
			case *image.Gray:
				copy(row, m.Pix[m.PixOffset(b.Min.X, b.Min.Y+y):])
			case *image.YCbCr: // a JPEG's luma is this luma
				copy(row, m.Y[m.YOffset(b.Min.X, b.Min.Y+y):m.YOffset(b.Min.X, b.Min.Y+y)+w])
			case *image.RGBA: // premultiplied: over white adds 255 - alpha
				p := m.Pix[m.PixOffset(b.Min.X, b.Min.Y+y):]
				for x := range row {
					q := p[x*4 : x*4+4]
					white := 255 - uint32(q[3])
					row[x] = lum(uint32(q[0])+white, uint32(q[1])+white, uint32(q[2])+white)
				}
			case *image.NRGBA:
				p := m.Pix[m.PixOffset(b.Min.X, b.Min.Y+y):]
				for x := range row {
					q := p[x*4 : x*4+4]
					a := uint32(q[3])
					over := func(c uint8) uint32 { return (uint32(c)*a + 255*(255-a) + 127) / 255 }
					row[x] = lum(over(q[0]), over(q[1]), over(q[2]))
				}
			default:
				for x := range row {
					c := color.NRGBAModel.Convert(img.At(b.Min.X+x, b.Min.Y+y)).(color.NRGBA)
					a := uint32(c.A)
					over := func(v uint8) uint32 { return (uint32(v)*a + 255*(255-a) + 127) / 255 }
					row[x] = lum(over(c.R), over(c.G), over(c.B))
				}
			}
		}
	})
	return out, nil
}
