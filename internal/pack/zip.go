package pack

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/disintegration/imaging"
	_ "golang.org/x/image/webp" // decodes webp sources for renditions

	"studio/internal/imagemem"
	"studio/internal/picture"
)

// entryOverhead bounds a stored entry's zip headers besides its name: the
// local header, the data descriptor and the central directory record,
// with room for zip64 extras.
const entryOverhead = 30 + 24 + 46 + 64

// renditionPixelBytes is the conservative size of a rendition per pixel.
const renditionPixelBytes = 4

// Estimate returns the archive's size for entries and sizes, rounded up.
func Estimate(entries []Entry, sizes []Size) int64 {
	var n int64 = 22 + 56 + 20 // end of central directory, zip64 end and locator
	for _, e := range entries {
		n += e.Size + entryOverhead + 2*int64(MaxName)
		for _, s := range sizes {
			w, h := fitted(e.Width, e.Height, s.Width, s.Height)
			n += int64(w)*int64(h)*renditionPixelBytes + entryOverhead + 2*int64(MaxName) + 1024
		}
	}
	return n
}

// fitted is the size of a w x h image fitted within maxW x maxH without
// upscaling, as imaging.Fit computes it.
func fitted(w, h, maxW, maxH int) (int, int) {
	if w <= 0 || h <= 0 {
		return 0, 0
	}
	if w <= maxW && h <= maxH {
		return w, h
	}
	src := float64(w) / float64(h)
	if src > float64(maxW)/float64(maxH) {
		return maxW, max(1, int(float64(maxW)/src))
	}
	return max(1, int(float64(maxH)*src)), maxH
}

// ext is the file extension of a stored type.
func ext(mime string) string {
	switch mime {
	case "image/jpeg":
		return "jpg"
	case "image/png":
		return "png"
	case "image/webp":
		return "webp"
	}
	return "bin"
}

// renditionExt is the extension of a rendition of a source type: png
// stays png, everything else becomes jpeg.
func renditionExt(mime string) string {
	if mime == "image/png" {
		return "png"
	}
	return "jpg"
}

// baseName makes an asset's name safe as one path segment of an archive:
// no separators, no control characters, no leading dots, at most 120
// characters; the id when nothing is left.
func baseName(e Entry) string {
	s := strings.Map(func(r rune) rune {
		switch {
		case r == '/' || r == '\\' || r == ':':
			return '-'
		case unicode.IsControl(r) || r == utf8.RuneError:
			return -1
		}
		return r
	}, e.Name)
	s = strings.TrimLeft(strings.TrimSpace(s), ".")
	if r := []rune(s); len(r) > 120 {
		s = strings.TrimSpace(string(r[:120]))
	}
	if s == "" {
		return e.ID
	}
	return s
}

// namer hands out distinct names within an archive, case-insensitively.
type namer map[string]bool

func (n namer) name(dir, base, ext string) string {
	for i := 1; ; i++ {
		cand := base + "." + ext
		if i > 1 {
			cand = fmt.Sprintf("%s (%d).%s", base, i, ext)
		}
		if dir != "" {
			cand = dir + "/" + cand
		}
		if !n[strings.ToLower(cand)] {
			n[strings.ToLower(cand)] = true
			return cand
		}
	}
}

// Opener opens the stored bytes of a frame.
type Opener func(ctx context.Context, key string) (io.ReadCloser, error)

// WriteArchive writes the zip of entries to w: each original, stored as
// is, then its renditions, one folder per size. Names and order depend
// only on entries and sizes, so two downloads of a pack are the same.
// Renditions decode each frame within the decoding budget.
func WriteArchive(ctx context.Context, w io.Writer, entries []Entry, sizes []Size, open Opener, decoding *imagemem.Budget) error {
	zw := zip.NewWriter(w)
	names := namer{}
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return err
		}
		base := baseName(e)
		original := names.name("", base, ext(e.Mime))
		hdr := &zip.FileHeader{Name: original, Method: zip.Store, Modified: e.CreatedAt.UTC()}
		var data []byte
		if len(sizes) > 0 {
			// Renditions decode the bytes: read them once.
			rc, err := open(ctx, e.BlobKey)
			if err != nil {
				return fmt.Errorf("open %s: %w", e.ID, err)
			}
			data, err = io.ReadAll(rc)
			rc.Close()
			if err != nil {
				return fmt.Errorf("read %s: %w", e.ID, err)
			}
			fw, err := zw.CreateHeader(hdr)
			if err != nil {
				return err
			}
			if _, err := fw.Write(data); err != nil {
				return err
			}
		} else if err := copyEntry(ctx, zw, hdr, e, open); err != nil {
			return err
		}
		if len(sizes) == 0 {
			continue
		}
		if err := renditions(ctx, zw, names, base, e, data, sizes, decoding); err != nil {
			return err
		}
	}
	return zw.Close()
}

// renditions decodes one frame, holding its pixels' memory from the budget
// (the decoded image, its NRGBA copy and an EXIF rotation), and writes a
// rendition per size.
func renditions(ctx context.Context, zw *zip.Writer, names namer, base string, e Entry, data []byte, sizes []Size, decoding *imagemem.Budget) error {
	w, h, size, err := imagemem.Decoded(data)
	if err != nil {
		return fmt.Errorf("decode %s: %w", e.ID, err)
	}
	release, err := decoding.Acquire(ctx, size+int64(w)*int64(h)*8)
	if err != nil {
		return fmt.Errorf("decode %s: %w", e.ID, err)
	}
	defer release()
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("decode %s: %w", e.ID, err)
	}
	img = picture.Upright(img, picture.Orientation(data))
	for _, s := range sizes {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := writeRendition(zw, names.name(s.Name, base, renditionExt(e.Mime)), e, img, s); err != nil {
			return err
		}
	}
	return nil
}

func copyEntry(ctx context.Context, zw *zip.Writer, hdr *zip.FileHeader, e Entry, open Opener) error {
	rc, err := open(ctx, e.BlobKey)
	if err != nil {
		return fmt.Errorf("open %s: %w", e.ID, err)
	}
	defer rc.Close()
	fw, err := zw.CreateHeader(hdr)
	if err != nil {
		return err
	}
	if _, err := io.Copy(fw, rc); err != nil {
		return fmt.Errorf("copy %s: %w", e.ID, err)
	}
	return nil
}

func writeRendition(zw *zip.Writer, name string, e Entry, img image.Image, s Size) error {
	fit := imaging.Fit(img, s.Width, s.Height, imaging.Lanczos)
	fw, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store, Modified: e.CreatedAt.UTC()})
	if err != nil {
		return err
	}
	if e.Mime == "image/png" {
		return png.Encode(fw, fit)
	}
	return jpeg.Encode(fw, fit, &jpeg.Options{Quality: 90})
}
