package httpapi

import (
	"errors"
	"net/http"

	"studio/internal/account"
	"studio/internal/asset"
	"studio/internal/auth"
	"studio/internal/errs"
)

func (s *Server) accountView(w http.ResponseWriter, r *http.Request) error {
	v, err := s.svc.Accounts.View(r.Context(), auth.From(r.Context()), account.Window(queryOf[account.ViewQuery](r).Days))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, v)
}

// AvatarForm documents the avatar upload's form.
type AvatarForm struct {
	File []byte `formData:"file" format:"binary" required:"true" description:"A square WebP, PNG or JPEG image of at most 512 KB."`
}

// avatarBody bounds the whole upload: the picture and the form around it.
const avatarBody = account.AvatarMaxBytes + 16<<10

func (s *Server) uploadAvatar(w http.ResponseWriter, r *http.Request) error {
	data, err := readAvatar(w, r)
	if err != nil {
		return err
	}
	out, err := s.svc.Accounts.SetAvatar(r.Context(), auth.From(r.Context()), data)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, out)
}

// readAvatar reads the one file part of the upload with the shared form
// reader, bounded to the picture's size (a body past it is 413
// AVATAR_TOO_LARGE before it is read).
func readAvatar(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	f, err := readForm(w, r, formSpec{maxBody: avatarBody, files: map[string]int{"file": 1}, named: true, maxFiles: 1,
		texts: []string{}, maxText: 1})
	if errors.Is(err, asset.ErrTooLarge) {
		return nil, account.ErrAvatarTooLarge
	}
	if err != nil {
		return nil, err
	}
	if len(f.files) == 0 {
		return nil, errs.Msg(errs.NoImage, "The form has no file part.")
	}
	return f.files[0].data, nil
}

func (s *Server) deleteAvatar(w http.ResponseWriter, r *http.Request) error {
	out, err := s.svc.Accounts.DeleteAvatar(r.Context(), auth.From(r.Context()))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, out)
}

func (s *Server) avatarFile(w http.ResponseWriter, r *http.Request) error {
	obj, mime, err := s.svc.Accounts.OpenAvatar(r.Context(), auth.From(r.Context()), r.PathValue("userId"))
	if err != nil {
		return err
	}
	defer obj.Close()
	h := w.Header()
	h.Set("Content-Type", mime)
	h.Set("Cache-Control", assetCacheControl)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", assetCSP)
	http.ServeContent(w, r, "", obj.Info().ModTime, obj)
	return nil
}

// avatarOut documents the picture's bytes.
func avatarOut() []Out {
	out := make([]Out, len(account.AvatarTypes))
	for i, mt := range account.AvatarTypes {
		out[i] = Out{Status: http.StatusOK, ContentType: mt}
	}
	return out
}

// accountRoutes are the routes of the account view and the avatar (SPEC §4.13, §2 Account, §8).
func (s *Server) accountRoutes() []Route {
	return []Route{
		{Method: "GET", Path: "/api/account", Class: KeyOrSession, Tag: "account",
			Summary: "You, the house's plan, tokens with spend per tool over 7, 30 or 90 days, invoices and billing",
			Query:   account.ViewQuery{}, Out: []Out{{Status: 200, Body: account.View{}}}, Errors: []*errs.Error{account.ErrBadDays},
			Handler: s.accountView},
		{Method: "POST", Path: "/api/account/avatar", Class: KeyOrSession, Tag: "account",
			Summary: "Set your picture: a square WebP, PNG or JPEG of at most 512 KB",
			In:      Multipart{Form: AvatarForm{}}, Out: []Out{{Status: 200, Body: account.AvatarAnswer{}}},
			Errors:  []*errs.Error{errs.NoImage, errs.EmptyImage, account.ErrNotSquare, account.ErrAvatarTooLarge},
			Handler: s.uploadAvatar},
		{Method: "DELETE", Path: "/api/account/avatar", Class: KeyOrSession, Tag: "account",
			Summary: "Remove your picture and its bytes",
			Out:     []Out{{Status: 200, Body: account.AvatarAnswer{}}}, Handler: s.deleteAvatar},
		{Method: "GET", Path: "/api/account/avatar/{userId}", Class: SessionOnly, Tag: "account",
			Summary: "The picture of someone who shares a house with you",
			Out:     avatarOut(), Errors: []*errs.Error{errs.NotFound}, Handler: s.avatarFile},
	}
}
