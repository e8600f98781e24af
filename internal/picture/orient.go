package picture

import (
	"bytes"
	"encoding/binary"
	"image"

	"github.com/disintegration/imaging"
)

var pngMagic = []byte("\x89PNG\r\n\x1a\n")

// Sniff names the image type of data from its leading bytes (image/jpeg,
// image/png or image/webp), or "" when it is none of them.
func Sniff(data []byte) string {
	switch {
	case len(data) >= 3 && data[0] == 0xFF && data[1] == 0xD8 && data[2] == 0xFF:
		return "image/jpeg"
	case bytes.HasPrefix(data, pngMagic):
		return "image/png"
	case len(data) >= 12 && string(data[:4]) == "RIFF" && string(data[8:12]) == "WEBP":
		return "image/webp"
	}
	return ""
}

// Upright applies an EXIF orientation (1-8) to img: the picture as it is
// meant to be seen. Orientation 1, or one out of range, returns img.
func Upright(img image.Image, orientation int) image.Image {
	switch orientation {
	case 2:
		return imaging.FlipH(img)
	case 3:
		return imaging.Rotate180(img)
	case 4:
		return imaging.FlipV(img)
	case 5:
		return imaging.Transpose(img)
	case 6:
		return imaging.Rotate270(img)
	case 7:
		return imaging.Transverse(img)
	case 8:
		return imaging.Rotate90(img)
	}
	return img
}

// Orientation returns the EXIF orientation (1-8) an image's bytes carry:
// from a JPEG APP1 segment, a PNG eXIf chunk or a WebP EXIF chunk. It is 1
// when there is none or it cannot be read. It never reads past data.
func Orientation(data []byte) int {
	var tiff []byte
	switch Sniff(data) {
	case "image/jpeg":
		tiff = jpegExif(data)
	case "image/png":
		tiff = pngExif(data)
	case "image/webp":
		tiff = webpExif(data)
	}
	if o := tiffOrientation(tiff); o >= 1 && o <= 8 {
		return o
	}
	return 1
}

var exifHeader = []byte("Exif\x00\x00")

// jpegExif walks the JPEG markers up to the start of scan and returns the
// TIFF block of the first APP1 Exif segment.
func jpegExif(data []byte) []byte {
	i := 2 // past SOI
	for i+4 <= len(data) {
		if data[i] != 0xFF {
			return nil
		}
		marker := data[i+1]
		switch {
		case marker == 0xFF: // fill byte
			i++
			continue
		case marker == 0xD8 || marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7):
			i += 2 // markers without a length
			continue
		case marker == 0xD9 || marker == 0xDA: // end of image, start of scan
			return nil
		}
		n := int(binary.BigEndian.Uint16(data[i+2:]))
		if n < 2 || i+2+n > len(data) {
			return nil
		}
		seg := data[i+4 : i+2+n]
		if marker == 0xE1 && bytes.HasPrefix(seg, exifHeader) {
			return seg[len(exifHeader):]
		}
		i += 2 + n
	}
	return nil
}

// pngExif returns the body of the eXIf chunk, which must come before IDAT.
func pngExif(data []byte) []byte {
	i := len(pngMagic)
	for i+8 <= len(data) {
		n := int(binary.BigEndian.Uint32(data[i:]))
		typ := string(data[i+4 : i+8])
		if n < 0 || n > len(data)-i-12 {
			return nil
		}
		switch typ {
		case "eXIf":
			return data[i+8 : i+8+n]
		case "IDAT", "IEND":
			return nil
		}
		i += 12 + n
	}
	return nil
}

// webpExif returns the body of the EXIF chunk of an extended WebP file.
func webpExif(data []byte) []byte {
	i := 12
	for i+8 <= len(data) {
		typ := string(data[i : i+4])
		n := int(binary.LittleEndian.Uint32(data[i+4:]))
		if n < 0 || n > len(data)-i-8 {
			return nil
		}
		if typ == "EXIF" {
			body := data[i+8 : i+8+n]
			// Some writers keep the JPEG-style header.
			return bytes.TrimPrefix(body, exifHeader)
		}
		i += 8 + n + n&1 // chunks are padded to even sizes
	}
	return nil
}

// tiffOrientation reads tag 0x0112 from IFD0 of a TIFF block; 0 when absent.
func tiffOrientation(t []byte) int {
	if len(t) < 8 {
		return 0
	}
	var bo binary.ByteOrder
	switch string(t[:2]) {
	case "II":
		bo = binary.LittleEndian
	case "MM":
		bo = binary.BigEndian
	default:
		return 0
	}
	if bo.Uint16(t[2:]) != 42 {
		return 0
	}
	off := int64(bo.Uint32(t[4:]))
	if off < 8 || off+2 > int64(len(t)) {
		return 0
	}
	count := int64(bo.Uint16(t[off:]))
	for e := range count {
		p := off + 2 + e*12
		if p+12 > int64(len(t)) {
			return 0
		}
		if bo.Uint16(t[p:]) != 0x0112 {
			continue
		}
		if typ := bo.Uint16(t[p+2:]); typ != 3 { // SHORT
			return 0
		}
		return int(bo.Uint16(t[p+8:]))
	}
	return 0
}
