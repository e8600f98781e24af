package httpapi

import (
	"context"
	"mime"
	"mime/multipart"
	"net/http"

	"studio/internal/ai"
	"studio/internal/asset"
	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/lane"
	"studio/internal/ledger"
)

// ImageForm documents the multipart body of the image lanes.
type ImageForm struct {
	Image *multipart.FileHeader `formData:"image" required:"true" description:"A JPEG, PNG or WebP image of at most 12 MB and 50 megapixels."`
}

// FaceRequest is the JSON body of face-features; a multipart body with an
// image part is read as well.
type FaceRequest struct {
	ImageURL string `json:"imageUrl" description:"One of the house's assets (its url or id) or a data: URL; or send the picture as a multipart part named image."`
}

// laneForm reads one image part (and nothing else) of at most 12 MB.
var laneForm = formSpec{
	maxBody: maxUploadBody, files: map[string]int{"image": 1}, named: true, maxFiles: 1, texts: []string{}, maxText: maxFormField,
}

// laneImage reads the image of a multipart lane (its route's Before has
// refused a viewer first).
func laneImage(w http.ResponseWriter, r *http.Request, missing error) (lane.Image, string, error) {
	f, err := readForm(w, r, laneForm)
	if err != nil {
		return lane.Image{}, "", err
	}
	if len(f.files) == 0 {
		im, err := lane.CheckImage(nil, false, missing)
		return im, "", err
	}
	im, err := lane.CheckImage(f.files[0].data, true, missing)
	return im, f.files[0].filename, err
}

func (s *Server) laneDepth(w http.ResponseWriter, r *http.Request) error {
	im, _, err := laneImage(w, r, errs.ImageRequired)
	if err != nil {
		return err
	}
	out, err := s.svc.Lanes.Depth(r.Context(), auth.From(r.Context()), im)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, out)
}

func (s *Server) laneDescribe(w http.ResponseWriter, r *http.Request) error {
	im, _, err := laneImage(w, r, errs.ImageRequired)
	if err != nil {
		return err
	}
	out, err := s.svc.Lanes.DescribeItem(r.Context(), auth.From(r.Context()), im)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, out)
}

func (s *Server) laneDetect(w http.ResponseWriter, r *http.Request) error {
	im, _, err := laneImage(w, r, errs.ImageRequired)
	if err != nil {
		return err
	}
	out, err := s.svc.Lanes.DetectItems(r.Context(), auth.From(r.Context()), im)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, out)
}

func (s *Server) laneCharacter(w http.ResponseWriter, r *http.Request) error {
	im, _, err := laneImage(w, r, errs.ImageRequired)
	if err != nil {
		return err
	}
	out, err := s.svc.Lanes.ExtractCharacter(r.Context(), auth.From(r.Context()), im)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, out)
}

func (s *Server) laneRemoveBackground(w http.ResponseWriter, r *http.Request) error {
	im, name, err := laneImage(w, r, errs.Msg(errs.NoImage, "Send the picture as a multipart part named image."))
	if err != nil {
		return err
	}
	out, err := s.svc.Lanes.RemoveBackground(r.Context(), auth.From(r.Context()), im, name)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, out)
}

func (s *Server) laneSegment(w http.ResponseWriter, r *http.Request) error {
	p := auth.From(r.Context())
	in, err := decode[lane.SegmentRequest](w, r)
	if err != nil {
		return err
	}
	out, err := s.svc.Lanes.Segment(r.Context(), p, in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, out)
}

func (s *Server) laneExtractBuild(w http.ResponseWriter, r *http.Request) error {
	p := auth.From(r.Context())
	in, err := decode[lane.ExtractBuildRequest](w, r)
	if err != nil {
		return err
	}
	out, err := s.svc.Lanes.ExtractBuild(r.Context(), p, in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, out)
}

func (s *Server) laneFace(w http.ResponseWriter, r *http.Request) error {
	p := auth.From(r.Context())
	var out lane.Face
	if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct == "multipart/form-data" {
		im, _, err := laneImage(w, r, errs.ImageRequired)
		if err != nil {
			return err
		}
		if out, err = s.svc.Lanes.FaceFeatures(r.Context(), p, im); err != nil {
			return err
		}
	} else {
		in, err := decode[FaceRequest](w, r)
		if err != nil {
			return err
		}
		if out, err = s.svc.Lanes.FaceFeaturesAt(r.Context(), p, in.ImageURL); err != nil {
			return err
		}
	}
	return encode(w, http.StatusOK, out)
}

// textTool is the handler of a text tool: the body, the tool (which
// refuses a viewer first).
func textTool[In, Out any](w http.ResponseWriter, r *http.Request, run func(context.Context, auth.Principal, In) (Out, error)) error {
	in, err := decode[In](w, r)
	if err != nil {
		return err
	}
	out, err := run(r.Context(), auth.From(r.Context()), in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, out)
}

func (s *Server) laneKeywords(w http.ResponseWriter, r *http.Request) error {
	return textTool(w, r, s.svc.Lanes.InspirationKeywords)
}

func (s *Server) laneShots(w http.ResponseWriter, r *http.Request) error {
	return textTool(w, r, s.svc.Lanes.MidjourneyPrompts)
}

func (s *Server) laneBuild(w http.ResponseWriter, r *http.Request) error {
	return textTool(w, r, s.svc.Lanes.PromptBuilder)
}

func (s *Server) laneEnhance(w http.ResponseWriter, r *http.Request) error {
	return textTool(w, r, s.svc.Lanes.PromptEnhancer)
}

// laneErrors are the codes every paid AI lane may answer.
var laneErrors = []*errs.Error{ledger.ErrInsufficientTokens, ai.ErrNeedsBilling, errs.Forbidden, ai.ErrBadOutput, ai.ErrFailed, ai.ErrNotConfigured}

// imageErrors are the codes of a multipart image.
var imageErrors = []*errs.Error{errs.ImageRequired, errs.EmptyImage, errs.BadForm, asset.ErrTooLarge}

// lanesRoutes are the AI lanes and text tools (SPEC §4.9).
func (s *Server) lanesRoutes() []Route {
	visionErrors := append(append([]*errs.Error{}, imageErrors...), laneErrors...)
	textErrors := func(required *errs.Error) []*errs.Error {
		return append([]*errs.Error{required, errs.BadBody}, laneErrors...)
	}
	upload := auth.Principal.MaySpend // an image lane: a viewer is refused before a byte of the picture is read
	return []Route{
		{Method: "POST", Path: "/api/toolkit/ai/depth", Class: KeyOrSession, Tag: "ai",
			Summary: "A depth map of a picture (fal); 1 token, refunded on failure",
			In:      Multipart{Form: ImageForm{}}, Out: []Out{{Status: 200, Body: lane.Picture{}}},
			Errors: append(append([]*errs.Error{}, imageErrors...), ledger.ErrInsufficientTokens, errs.Forbidden, lane.ErrDepthFailed, errs.FalNotConfigured),
			Before: upload, Handler: s.laneDepth},
		{Method: "POST", Path: "/api/toolkit/ai/describe-item", Class: KeyOrSession, Tag: "ai",
			Summary: "Name an item and file its kind, as classify=1 on upload reads it; 1 token, refunded on failure",
			In:      Multipart{Form: ImageForm{}}, Out: []Out{{Status: 200, Body: lane.Item{}}}, Errors: visionErrors, Before: upload, Handler: s.laneDescribe},
		{Method: "POST", Path: "/api/toolkit/ai/detect-items", Class: KeyOrSession, Tag: "ai",
			Summary: "The fashion items of a picture and their boxes in the raw pixel matrix; 1 token, refunded on failure",
			In:      Multipart{Form: ImageForm{}}, Out: []Out{{Status: 200, Body: lane.Items{}}}, Errors: visionErrors, Before: upload, Handler: s.laneDetect},
		{Method: "POST", Path: "/api/toolkit/ai/extract-character", Class: KeyOrSession, Tag: "ai",
			Summary: "The traits of the face in a picture, for a model's sheet; 1 token, refunded on failure",
			In:      Multipart{Form: ImageForm{}}, Out: []Out{{Status: 200, Body: lane.Character{}}}, Errors: visionErrors, Before: upload, Handler: s.laneCharacter},
		{Method: "POST", Path: "/api/toolkit/ai/segment", Class: KeyOrSession, Tag: "ai",
			Summary: "Cut out what a label, a box or a point names (fal, or the local engine's subject separation for a box or a point); 1 token, refunded on failure",
			In:      lane.SegmentRequest{}, Out: []Out{{Status: 200, Body: lane.Cutout{}}},
			Errors: []*errs.Error{errs.ImageRequired, lane.ErrTargetRequired, ledger.ErrInsufficientTokens, errs.Forbidden,
				errs.AssetNotFound, lane.ErrSegmentFailed, errs.FalNotConfigured}, Handler: s.laneSegment},
		{Method: "POST", Path: "/api/toolkit/ai/extract-build", Class: KeyOrSession, Tag: "ai",
			Summary: "A model's build (proportions, silhouette, posture) read from a full-length photograph; 1 token, refunded when no full-length figure is found",
			In:      lane.ExtractBuildRequest{}, Out: []Out{{Status: 200, Body: lane.Extracted{}}},
			Errors:  []*errs.Error{errs.BadBody, errs.AssetRequired, ledger.ErrInsufficientTokens, errs.Forbidden, errs.AssetNotFound, lane.ErrNoFigure},
			Handler: s.laneExtractBuild},
		{Method: "POST", Path: "/api/toolkit/ai/remove-background", Class: KeyOrSession, Tag: "ai",
			Summary: "Cut the subject out of a picture and store it as an asset; priced as the remove-background tool, refunded on failure",
			In:      Multipart{Form: ImageForm{}}, Out: []Out{{Status: 200, Body: lane.Removed{}}},
			Errors: []*errs.Error{errs.NoImage, errs.EmptyImage, errs.BadForm, ledger.ErrInsufficientTokens, errs.Forbidden,
				asset.ErrTooLarge, lane.ErrRemoveBgFailed, errs.FalNotConfigured}, Before: upload, Handler: s.laneRemoveBackground},
		{Method: "POST", Path: "/api/toolkit/ai/face-features", Class: KeyOrSession, Tag: "ai",
			Summary: "Keywords of the face in a picture (JSON imageUrl, or a multipart image); 1 token, charged only on success",
			In:      FaceRequest{}, Out: []Out{{Status: 200, Body: lane.Face{}}},
			Errors: append(append([]*errs.Error{errs.AssetNotFound}, imageErrors...), laneErrors...), Before: upload, Handler: s.laneFace},
		{Method: "POST", Path: "/api/toolkit/ai/inspiration-keywords", Class: KeyOrSession, Tag: "ai",
			Summary: "Inspiration keywords for a vibe, by category; 1 token, charged only on success",
			In:      lane.KeywordsRequest{}, Out: []Out{{Status: 200, Body: lane.Keywords{}}},
			Errors: textErrors(lane.ErrVibeRequired), Handler: s.laneKeywords},
		{Method: "POST", Path: "/api/toolkit/ai/midjourney-prompts", Class: KeyOrSession, Tag: "ai",
			Summary: "A shot list of Midjourney prompts; 1 token, charged only on success",
			In:      lane.ShotsRequest{}, Out: []Out{{Status: 200, Body: lane.Shots{}}},
			Errors: textErrors(lane.ErrDescriptionRequired), Handler: s.laneShots},
		{Method: "POST", Path: "/api/toolkit/ai/prompt-builder", Class: KeyOrSession, Tag: "ai",
			Summary: "An image prompt from a subject and a vibe; 1 token, charged only on success",
			In:      lane.BuildRequest{}, Out: []Out{{Status: 200, Body: lane.Built{}}},
			Errors: textErrors(lane.ErrSubjectRequired), Handler: s.laneBuild},
		{Method: "POST", Path: "/api/toolkit/ai/prompt-enhancer", Class: KeyOrSession, Tag: "ai",
			Summary: "A prompt improved, with notes on what changed; 1 token, charged only on success",
			In:      lane.EnhanceRequest{}, Out: []Out{{Status: 200, Body: lane.Enhanced{}}},
			Errors: textErrors(lane.ErrPromptRequired), Handler: s.laneEnhance},
	}
}
