package httpapi_test

// Test images, made in code: JPEG and PNG from the standard encoders, a
// JPEG carrying an EXIF orientation in an APP1 segment built by hand, and
// a 1x1 lossless WebP kept as bytes (nothing in Go encodes WebP).

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"net/http"
	"testing"

	"studio/internal/apptest"
)

// pattern is a w x h image with some structure, so that encoders have
// something to encode.
func pattern(w, h int) image.Image {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{uint8(x * 255 / max(w, 1)), uint8(y * 255 / max(h, 1)), 128, 255})
		}
	}
	return img
}

// jpegOf is pattern as a JPEG, drawn once per test binary (drawn).
func jpegOf(t testing.TB, w, h int) []byte {
	t.Helper()
	return drawn("jpegOf", w, h, func() []byte {
		var b bytes.Buffer
		if err := jpeg.Encode(&b, pattern(w, h), &jpeg.Options{Quality: 80}); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	})
}

// pngOf is pattern as a PNG, drawn once per test binary (drawn).
func pngOf(t testing.TB, w, h int) []byte {
	t.Helper()
	return drawn("pngOf", w, h, func() []byte {
		var b bytes.Buffer
		if err := png.Encode(&b, pattern(w, h)); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	})
}

// exifJPEG is a w x h JPEG whose APP1 segment says orientation: a phone
// photo taken upright with the sensor on its side is stored w x h with
// orientation 6 and shown h x w.
func exifJPEG(t testing.TB, w, h, orientation int) []byte {
	t.Helper()
	plain := jpegOf(t, w, h)
	// TIFF block, big-endian: header, IFD0 with one entry (0x0112 SHORT 1), no next IFD.
	var tiff bytes.Buffer
	tiff.WriteString("MM")
	_ = binary.Write(&tiff, binary.BigEndian, uint16(42))
	_ = binary.Write(&tiff, binary.BigEndian, uint32(8))
	_ = binary.Write(&tiff, binary.BigEndian, uint16(1))
	_ = binary.Write(&tiff, binary.BigEndian, [4]uint16{0x0112, 3, 0, 1}) // tag, type, count (2 words)
	_ = binary.Write(&tiff, binary.BigEndian, [2]uint16{uint16(orientation), 0})
	_ = binary.Write(&tiff, binary.BigEndian, uint32(0))
	payload := append([]byte("Exif\x00\x00"), tiff.Bytes()...)
	seg := []byte{0xFF, 0xE1, 0, 0}
	binary.BigEndian.PutUint16(seg[2:], uint16(len(payload)+2))
	seg = append(seg, payload...)
	out := append([]byte{}, plain[:2]...) // SOI
	out = append(out, seg...)
	return append(out, plain[2:]...)
}

// webp1x1 is a 1x1 lossless WebP.
var webp1x1, _ = base64.StdEncoding.DecodeString("UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==")

// hugePNG is a PNG header that claims w x h pixels with no pixel data: its
// size is read from the header alone, so it must be refused before any
// decoding is tried.
func hugePNG(w, h int) []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], uint32(w))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(h))
	ihdr[8], ihdr[9] = 8, 2 // 8-bit RGB
	chunk := func(typ string, data []byte) {
		_ = binary.Write(&b, binary.BigEndian, uint32(len(data)))
		b.WriteString(typ)
		b.Write(data)
		_ = binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(append([]byte(typ), data...)))
	}
	chunk("IHDR", ihdr)
	chunk("IEND", nil)
	return b.Bytes()
}

// uploadForm is a multipart upload of data as file, with extra fields.
func uploadForm(t testing.TB, filename string, data []byte, fields ...string) apptest.Form {
	t.Helper()
	parts := []apptest.Part{{Name: "file", Filename: filename, Data: data}}
	for i := 0; i+1 < len(fields); i += 2 {
		parts = append(parts, apptest.Part{Name: fields[i], Value: fields[i+1]})
	}
	return apptest.Multipart(t, parts...)
}

// wireAsset is the Asset wire shape as tests read it.
type wireAsset struct {
	ID            string  `json:"id"`
	Name          string  `json:"name"`
	SKU           *string `json:"sku"`
	Kind          *string `json:"kind"`
	URL           string  `json:"url"`
	FolderID      *string `json:"folderId"`
	GroupID       *string `json:"groupId"`
	Fit           *string `json:"fit"`
	Wearer        *string `json:"wearer"`
	FitGuessed    bool    `json:"fitGuessed"`
	WearerGuessed bool    `json:"wearerGuessed"`
	MarkGuessed   bool    `json:"markGuessed"`
	CarriesMark   bool    `json:"carriesMark"`
	Mime          string  `json:"mime"`
	Tool          *string `json:"tool"`
	Width         int     `json:"width"`
	Height        int     `json:"height"`
	Size          int64   `json:"size"`
	CreatedAt     string  `json:"createdAt"`
	Approved      bool    `json:"approved"`
	ApprovedBy    *string `json:"approvedBy"`
	ApprovedAt    *string `json:"approvedAt"`
}

// upload uploads data for u's house and returns the asset.
func upload(t testing.TB, a *apptest.App, c apptest.Cred, data []byte, fields ...string) wireAsset {
	t.Helper()
	res := a.Do(t, "POST", "/api/toolkit/assets/upload", c, uploadForm(t, "photo.jpg", data, fields...))
	if res.Status != http.StatusCreated {
		t.Fatalf("upload: %d %s", res.Status, res.Body)
	}
	var body struct{ Asset wireAsset }
	res.JSON(t, &body)
	return body.Asset
}

// assetID uploads a small JPEG for u's house and returns its id.
func assetID(t *testing.T, a *apptest.App, u *apptest.User) string {
	t.Helper()
	return upload(t, a, u.Session(), jpegOf(t, 16, 12), "kind", "clothes").ID
}

// folderID makes a collection in u's house and returns its id.
func folderID(t *testing.T, a *apptest.App, u *apptest.User) string {
	t.Helper()
	res := a.Do(t, "POST", "/api/toolkit/folders", u.Session(), map[string]string{"name": "Fixture"})
	if res.Status != http.StatusCreated {
		t.Fatalf("create folder: %d %s", res.Status, res.Body)
	}
	var body struct{ Folder struct{ ID string } }
	res.JSON(t, &body)
	return body.Folder.ID
}
