// Package picturetest makes the image bytes the picture code is tested
// on: EXIF blocks carrying an orientation and the JPEG, PNG and WebP
// containers that hold them, built by hand so every branch of the readers
// is reached. Tests only.
package picturetest

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"hash/crc32"
)

// TIFF is a TIFF block whose IFD0 holds the orientation, in the byte order
// bo, after another entry (so the walk must skip one).
func TIFF(bo binary.ByteOrder, orientation int) []byte {
	var b bytes.Buffer
	if bo == binary.LittleEndian {
		b.WriteString("II")
	} else {
		b.WriteString("MM")
	}
	w := func(v any) { _ = binary.Write(&b, bo, v) }
	w(uint16(42))
	w(uint32(8))
	w(uint16(2))
	w([]uint16{0x010F, 2}) // Make, ASCII
	w(uint32(4))
	b.WriteString("Ace\x00")
	w([]uint16{0x0112, 3})
	w(uint32(1))
	w([]uint16{uint16(orientation), 0})
	w(uint32(0))
	return b.Bytes()
}

// WithJPEGExif puts an APP1 Exif segment holding tiff into a JPEG, after
// an APP0 (as cameras write, so the walk must skip a segment).
func WithJPEGExif(jpg, tiff []byte) []byte {
	payload := append([]byte("Exif\x00\x00"), tiff...)
	seg := []byte{0xFF, 0xE1, 0, 0}
	binary.BigEndian.PutUint16(seg[2:], uint16(len(payload)+2))
	app0 := []byte{0xFF, 0xE0, 0x00, 0x07, 'J', 'F', 'I', 'F', 0}
	out := append([]byte{}, jpg[:2]...)
	out = append(out, app0...)
	out = append(out, append(seg, payload...)...)
	return append(out, jpg[2:]...)
}

// PNGChunk is one PNG chunk: length, type, data and CRC.
func PNGChunk(typ string, data []byte) []byte {
	var b bytes.Buffer
	_ = binary.Write(&b, binary.BigEndian, uint32(len(data)))
	b.WriteString(typ)
	b.Write(data)
	_ = binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(append([]byte(typ), data...)))
	return b.Bytes()
}

// WithPNGExif puts an eXIf chunk holding tiff right after a PNG's IHDR.
func WithPNGExif(p, tiff []byte) []byte {
	ihdrEnd := 8 + 8 + 13 + 4
	out := append([]byte{}, p[:ihdrEnd]...)
	out = append(out, PNGChunk("eXIf", tiff)...)
	return append(out, p[ihdrEnd:]...)
}

// WebPLossless is a 1x1 lossless WebP (VP8L).
var WebPLossless, _ = base64.StdEncoding.DecodeString("UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==")

// ExtendedWebP wraps WebPLossless's bitstream in a VP8X container with an
// EXIF chunk holding tiff, of odd length (so the padding rule is
// exercised).
func ExtendedWebP(tiff []byte) []byte {
	vp8l := WebPLossless[12:] // the VP8L chunk, header included
	chunk := func(typ string, data []byte) []byte {
		c := append([]byte(typ), 0, 0, 0, 0)
		binary.LittleEndian.PutUint32(c[4:], uint32(len(data)))
		c = append(c, data...)
		if len(data)%2 == 1 {
			c = append(c, 0)
		}
		return c
	}
	vp8x := make([]byte, 10)
	vp8x[0] = 0x08 // EXIF present
	body := append([]byte("WEBP"), chunk("VP8X", vp8x)...)
	body = append(body, vp8l...)
	body = append(body, chunk("EXIF", append(tiff, 0))...)
	out := append([]byte("RIFF"), 0, 0, 0, 0)
	binary.LittleEndian.PutUint32(out[4:], uint32(len(body)))
	return append(out, body...)
}
