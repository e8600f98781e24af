package lane

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"image"
	"io"
	"net/url"
	"regexp"
	"strings"
	"sync"

	"studio/internal/asset"
	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/imagemem"
)

// Image is a lane's input image: its bytes and what their header says.
type Image struct {
	Data []byte
	Info asset.Info
}

// CheckImage checks an uploaded image: absent is missing (IMAGE_REQUIRED,
// or NO_IMAGE for remove-background), empty EMPTY_IMAGE, over 12 MB 413
// IMAGE_TOO_LARGE {maxMb}, not a JPEG, PNG or WebP 400 BAD_FORM.
func CheckImage(data []byte, given bool, missing error) (Image, error) {
	if !given {
		return Image{}, missing
	}
	if len(data) == 0 {
		return Image{}, errs.Msg(errs.EmptyImage, "The image is empty.")
	}
	info, err := asset.Inspect(data)
	if err != nil {
		return Image{}, err
	}
	return Image{Data: data, Info: info}, nil
}

var assetPath = regexp.MustCompile(`^/api/toolkit/assets/([0-9a-fA-F-]{36})(?:/file)?$`)

// ErrBadImageURL refuses an imageUrl the lanes do not read.
var ErrBadImageURL = errs.Msg(errs.ImageRequired,
	"imageUrl must name one of the house's assets (its url, /api/toolkit/assets/{id}/file, or its id) or be a data: URL of a JPEG, PNG or WebP image.")

// ImageAt reads the image an imageUrl names: one of the house's assets (its
// file route, absolute or relative, the legacy route, or its bare id) or a
// data: URL. Nothing is ever fetched from elsewhere: a lane is no way to
// make the server call an address. An unknown or foreign asset is the one
// 404 ASSET_NOT_FOUND.
func (s *Service) ImageAt(ctx context.Context, p auth.Principal, raw string) (Image, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return Image{}, errs.Msg(errs.ImageRequired, "imageUrl is required.")
	}
	if rest, ok := strings.CutPrefix(raw, "data:"); ok {
		meta, payload, ok := strings.Cut(rest, ",")
		if !ok || !strings.HasSuffix(meta, ";base64") {
			return Image{}, ErrBadImageURL
		}
		data, err := base64.StdEncoding.DecodeString(payload)
		if err != nil {
			return Image{}, ErrBadImageURL
		}
		return CheckImage(data, true, nil)
	}
	id := raw
	if !uuidLike.MatchString(raw) {
		u, err := url.Parse(raw)
		if err != nil {
			return Image{}, ErrBadImageURL
		}
		m := assetPath.FindStringSubmatch(u.Path)
		if m == nil {
			return Image{}, ErrBadImageURL
		}
		id = m[1]
	}
	f, err := s.opts.Assets.File(ctx, p, strings.ToLower(id))
	if errors.Is(err, errs.NotFound) {
		return Image{}, errs.AssetNotFound
	}
	if err != nil {
		return Image{}, err
	}
	obj, err := s.opts.Assets.Open(ctx, f)
	if err != nil {
		if errors.Is(err, errs.NotFound) {
			return Image{}, errs.AssetNotFound
		}
		return Image{}, err
	}
	defer obj.Close()
	data, err := io.ReadAll(io.LimitReader(obj, asset.MaxBytes+1))
	if err != nil {
		return Image{}, err
	}
	return CheckImage(data, true, nil)
}

var uuidLike = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// decode decodes im within the process's budget of decoded pixels; done
// gives the memory back. The image is as stored: no orientation applied.
func (s *Service) decode(ctx context.Context, im Image) (img image.Image, done func(), err error) {
	_, _, size, err := imagemem.Decoded(im.Data)
	if err != nil {
		return nil, nil, errs.Wrap(asset.ErrUnreadable, err)
	}
	// The decoded pixels and an upright NRGBA copy of them.
	release, err := s.opts.Decoding.Acquire(ctx, 2*size)
	if errors.Is(err, imagemem.ErrOverBudget) {
		return nil, nil, errs.Msg(asset.ErrTooLarge, "The image needs more memory to decode than this server allows.")
	}
	if err != nil {
		return nil, nil, err
	}
	done = sync.OnceFunc(release)
	img, err = asset.Decode(im.Info.Mime, im.Data)
	if err != nil {
		done()
		return nil, nil, errs.Wrap(asset.ErrUnreadable, err)
	}
	return img, done, nil
}

// preview is a JPEG of im for a vision model, at most edge pixels long:
// upright (EXIF orientation applied) unless raw, when it is the stored
// pixel matrix as it is.
func (s *Service) preview(ctx context.Context, im Image, edge int, raw bool) ([]byte, error) {
	img, done, err := s.decode(ctx, im)
	if err != nil {
		return nil, err
	}
	defer done()
	orientation := im.Info.Orientation
	if raw {
		orientation = 1
	}
	return asset.Preview(img, orientation, edge)
}

// dataURL renders image bytes as a data: URL of their sniffed type.
func dataURL(b []byte) string {
	mime := asset.Sniff(b)
	if mime == "" {
		mime = "image/png"
	}
	var buf bytes.Buffer
	buf.WriteString("data:" + mime + ";base64,")
	enc := base64.NewEncoder(base64.StdEncoding, &buf)
	_, _ = enc.Write(b)
	_ = enc.Close()
	return buf.String()
}
