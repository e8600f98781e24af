package share

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/jpeg"
	"image/png"
	"io"
	"strconv"
	"strings"

	"github.com/disintegration/imaging"

	"studio/internal/asset"
	"studio/internal/blob"
	"studio/internal/errs"
	"studio/internal/imagemem"
	"studio/internal/picture"
)

// ThumbKey is where the thumbnail of an asset of the house is kept: derived
// from ids only, outside assets/ so the sweeper never takes it for an
// orphaned original.
func ThumbKey(house, assetID string) string {
	return "thumbs/" + house + "/" + assetID + "-" + strconv.Itoa(ThumbEdge)
}

// thumbMime is the rendition's type: png for png sources (they may be
// transparent), jpeg otherwise.
func thumbMime(source string) string {
	if source == asset.MimePNG {
		return asset.MimePNG
	}
	return asset.MimeJPEG
}

// thumb opens f's thumbnail, rendering and storing it the first time. The
// ETag is the original's with a suffix, so it changes only if the original
// does (never: stored bytes are not rewritten).
func (s *Service) thumb(ctx context.Context, f asset.File) (Bytes, error) {
	key := ThumbKey(f.HouseID, f.ID)
	etag := `"` + strings.Trim(f.ETag, `"`) + "-t" + strconv.Itoa(ThumbEdge) + `"`
	mime := thumbMime(f.Mime)
	if obj, err := s.blobs.Open(ctx, key); err == nil {
		return Bytes{Object: obj, Mime: mime, ETag: etag, ModTime: f.CreatedAt.Time}, nil
	} else if !errors.Is(err, blob.ErrNotFound) {
		return Bytes{}, err
	}
	data, err := s.renderThumb(ctx, f)
	if err != nil {
		return Bytes{}, err
	}
	// Two requests may render at once; both put the same bytes.
	if _, err := s.blobs.Put(ctx, key, bytes.NewReader(data)); err != nil {
		return Bytes{}, err
	}
	obj, err := s.blobs.Open(ctx, key)
	if err != nil {
		return Bytes{}, err
	}
	return Bytes{Object: obj, Mime: mime, ETag: etag, ModTime: f.CreatedAt.Time}, nil
}

// renderThumb decodes the original within the process's decoding budget
// (a frame may be 50 megapixels) and fits it within ThumbEdge, upright and
// never upscaled.
func (s *Service) renderThumb(ctx context.Context, f asset.File) ([]byte, error) {
	obj, err := s.blobs.Open(ctx, f.BlobKey)
	if errors.Is(err, blob.ErrNotFound) {
		return nil, errs.NotFound
	}
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(obj)
	obj.Close()
	if err != nil {
		return nil, err
	}
	w, h, size, err := imagemem.Decoded(data)
	if err != nil {
		return nil, err
	}
	release, err := s.decoding.Acquire(ctx, size+int64(w)*int64(h)*8) // the pixels and a working copy
	if err != nil {
		return nil, err
	}
	defer release()
	img, err := asset.Decode(f.Mime, data)
	if err != nil {
		return nil, err
	}
	return Thumbnail(img, picture.Orientation(data), f.Mime)
}

// Thumbnail renders img (stored with the EXIF orientation) upright within
// ThumbEdge, as png for png sources and jpeg otherwise.
func Thumbnail(img image.Image, orientation int, source string) ([]byte, error) {
	img = picture.Upright(img, orientation)
	if b := img.Bounds(); b.Dx() > ThumbEdge || b.Dy() > ThumbEdge {
		img = imaging.Fit(img, ThumbEdge, ThumbEdge, imaging.Linear)
	}
	var buf bytes.Buffer
	var err error
	if thumbMime(source) == asset.MimePNG {
		err = png.Encode(&buf, img)
	} else {
		err = jpeg.Encode(&buf, img, &jpeg.Options{Quality: 82})
	}
	return buf.Bytes(), err
}

// AssetThumb opens the thumbnail of a live asset's stored file, of any
// house (the analyst's preview; the caller resolved the file), rendering
// and keeping it the first time as a share's frames do.
func (s *Service) AssetThumb(ctx context.Context, f asset.File) (Bytes, error) {
	return s.thumb(ctx, f)
}
