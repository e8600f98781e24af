package account

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"image"
	_ "image/jpeg" // decoders for DecodeConfig
	_ "image/png"
	"net/http"
	"strconv"

	_ "golang.org/x/image/webp"

	"studio/internal/auth"
	"studio/internal/blob"
	"studio/internal/errs"
)

// An avatar is at most 512 KB (KiB) of WebP, PNG or JPEG, square: as wide
// as it is tall, in stored pixels (the picture is never cropped or
// re-encoded here; the client squares it before upload).
// Its side is at most 2,048 pixels, so checking that the whole picture
// decodes costs at most 16 MiB.
const (
	AvatarMaxKB    = 512
	AvatarMaxBytes = AvatarMaxKB << 10
	AvatarMaxSide  = 2048
)

// AvatarTypes lists the accepted avatar types.
var AvatarTypes = []string{"image/webp", "image/png", "image/jpeg"}

// Codes of avatars.
var (
	ErrAvatarTooLarge = errs.With(errs.New(errs.KindTooLarge, "AVATAR_TOO_LARGE", "The picture is larger than 512 KB."), "maxKb", AvatarMaxKB, "maxPx", AvatarMaxSide)
	ErrNotSquare      = errs.New(errs.KindInvalid, "NOT_SQUARE", "The picture must be square: as wide as it is tall.")
	errAvatarType     = errs.With(errs.Msg(errs.BadForm, "The picture must be a WebP, PNG or JPEG image."), "accepted", AvatarTypes)
	errAvatarRead     = errs.With(errs.Msg(errs.BadForm, "The picture could not be read as a WebP, PNG or JPEG image."), "accepted", AvatarTypes)
)

// AvatarKey is where a user's picture is kept.
func AvatarKey(userID string) string { return "avatars/" + userID }

// AvatarPath is the route a user's picture is read from.
func AvatarPath(userID string) string { return "/api/account/avatar/" + userID }

// avatarStore is what avatars need from persistence.
type avatarStore interface {
	// SetAvatar records the picture's path (with its stamp) and type, or
	// clears both with "".
	SetAvatar(ctx context.Context, userID, path, mime string) error
	// Avatar returns the type of the user's picture; errs.NotFound when
	// there is none.
	Avatar(ctx context.Context, userID string) (string, error)
	// SharesHouse reports whether two users hold seats in a common house.
	SharesHouse(ctx context.Context, a, b string) (bool, error)
}

// AvatarAnswer answers an upload or a delete.
type AvatarAnswer struct {
	Image *string `json:"image" description:"The picture's URL with a ?v= stamp of its bytes; null once deleted."`
}

// SetAvatar stores the caller's picture: sniffed from its bytes (WebP, PNG
// or JPEG; anything else, or bytes that do not decode, 400 BAD_FORM naming
// the accepted types), at most 512 KB and 2048 pixels a side (413
// AVATAR_TOO_LARGE), square (400 NOT_SQUARE). The URL's stamp
// is the start of the bytes' SHA-256, so it changes with them.
func (s *Service) SetAvatar(ctx context.Context, p auth.Principal, data []byte) (AvatarAnswer, error) {
	switch {
	case len(data) == 0:
		return AvatarAnswer{}, errs.Msg(errs.EmptyImage, "The picture is empty.")
	case len(data) > AvatarMaxBytes:
		return AvatarAnswer{}, ErrAvatarTooLarge
	}
	mime := http.DetectContentType(data)
	if mime != "image/webp" && mime != "image/png" && mime != "image/jpeg" {
		return AvatarAnswer{}, errAvatarType
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return AvatarAnswer{}, errAvatarRead
	}
	if cfg.Width != cfg.Height || cfg.Width == 0 {
		return AvatarAnswer{}, errs.With(ErrNotSquare, "width", cfg.Width, "height", cfg.Height)
	}
	if cfg.Width > AvatarMaxSide {
		return AvatarAnswer{}, errs.Msg(ErrAvatarTooLarge, "The picture is larger than 2048 x 2048 pixels.")
	}
	if _, _, err := image.Decode(bytes.NewReader(data)); err != nil { // the whole picture must read
		return AvatarAnswer{}, errAvatarRead
	}
	if _, err := s.opts.Blobs.Put(ctx, AvatarKey(p.UserID), bytes.NewReader(data)); err != nil {
		return AvatarAnswer{}, err
	}
	sum := sha256.Sum256(data)
	path := AvatarPath(p.UserID) + "?v=" + hex.EncodeToString(sum[:8])
	if err := s.store.SetAvatar(ctx, p.UserID, path, mime); err != nil {
		return AvatarAnswer{}, err
	}
	img := s.opts.PublicURL + path
	return AvatarAnswer{Image: &img}, nil
}

// DeleteAvatar removes the caller's picture, its bytes included. Deleting
// when there is none is fine.
func (s *Service) DeleteAvatar(ctx context.Context, p auth.Principal) (AvatarAnswer, error) {
	if err := s.store.SetAvatar(ctx, p.UserID, "", ""); err != nil {
		return AvatarAnswer{}, err
	}
	return AvatarAnswer{}, s.opts.Blobs.Delete(ctx, AvatarKey(p.UserID))
}

// OpenAvatar opens a user's picture for someone who shares a house with
// them (or themselves). Anyone else, and a user without a picture, is the
// one 404.
func (s *Service) OpenAvatar(ctx context.Context, p auth.Principal, userID string) (blob.Object, string, error) {
	if userID != p.UserID {
		ok, err := s.store.SharesHouse(ctx, p.UserID, userID)
		if err != nil {
			return nil, "", err
		}
		if !ok {
			return nil, "", errs.NotFound
		}
	}
	mime, err := s.store.Avatar(ctx, userID)
	if err != nil {
		return nil, "", err
	}
	obj, err := s.opts.Blobs.Open(ctx, AvatarKey(userID))
	if errors.Is(err, blob.ErrNotFound) {
		return nil, "", errs.NotFound
	}
	return obj, mime, err
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
