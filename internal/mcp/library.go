package mcp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"strings"

	"studio/internal/asset"
	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/judge"
	"studio/internal/share"
)

// The library's tools: upload_asset and get_asset (the asset service, as
// the upload and file routes), get_verdict (the judge, as GET
// /judge/verdicts/{jobId}) and share_frames (the share service, as POST
// /api/share).

// Codes the library's tools raise.
var (
	// ErrBadData refuses upload_asset's data that is not base64.
	ErrBadData = errs.New(errs.KindInvalid, "BAD_DATA", "data is not base64: send the image's bytes in standard base64, or as a data: URL.")
	// errNoFrame answers get_verdict for an asset no develop of the house made.
	errNoFrame = errs.Msg(errs.AssetNotFound, "No developed frame of this house has this id.")
	// errNoVerdict answers get_verdict for a frame not judged yet.
	errNoVerdict = errs.Msg(errs.NotFound, "The frame has no verdict yet: the judge scores every frame shortly after it lands; ask again in a moment.")
	// errNoAsset is the one refusal of an asset id that is not the house's.
	errNoAsset = errs.Msg(errs.AssetNotFound, "No asset of this house has this id.")
)

// libraryTools are the library's tools.
func libraryTools() []*tool {
	return []*tool{
		{
			name: "upload_asset", title: "Upload an image",
			description: "Store an image in the house's library and answer its asset: pass the id to start_develop's inputs, " +
				"create_look or develop_lookbook. Send the bytes as base64 in data (or a data: URL), or a public https url " +
				"the server fetches (no private addresses, at most 3 redirects, 20 s). JPEG, PNG or WebP, at most 12 MB " +
				"(IMAGE_TOO_LARGE) and 50 megapixels. Free. Needs a member key.",
			input: object(schema{
				"kind":     enum("What the image is: clothes (a garment), accessory, jewelry, model (a person to dress), background, or mark (a logo).", "clothes", "accessory", "jewelry", "model", "background", "mark"),
				"name":     str("A name for the asset (1-200 characters); default the file's name."),
				"data":     str("The image's bytes in standard base64, or a data:image/...;base64, URL. Give data or url, not both."),
				"url":      str("An https URL of the image, fetched once by the server. Give data or url, not both."),
				"folderId": str("A collection of the house; absent is the root."),
				"sku":      str("The house's own code for the piece (at most 64 characters)."),
			}, "kind"),
			output:   object(schema{"asset": assetSchema}, "asset"),
			run:      uploadAsset,
			notFound: errs.Msg(errs.NotFound, "No collection of this house has this folderId."),
		},
		{
			name: "get_asset", title: "Get an asset", readOnly: true,
			description: "An asset's fields (kind, name, size, what made it). With preview true the answer also carries " +
				"the image itself, a rendition at most 512 px on the long edge, so you can look at a frame before " +
				"locking a look on it or sharing it. Free.",
			input: object(schema{
				"assetId": str("The asset's id (list_assets, upload_asset, or a develop's resultAssetId)."),
				"preview": schema{"type": "boolean", "default": false, "description": "Also answer an image content block of the asset."},
			}, "assetId"),
			output:   object(schema{"asset": assetSchema}, "asset"),
			run:      getAsset,
			notFound: errNoAsset,
		},
		{
			name: "get_verdict", title: "Get a frame's verdict", readOnly: true,
			description: "The judge's verdict on a developed frame: a score from 1 to 100 (null when unreadable), whether " +
				"it is flagged, its findings (what is wrong, where), whether a redraw could mend it (retryFutile), and the " +
				"house's answer. Every frame is judged shortly after it lands; before that this answers NOT_FOUND. " +
				"Name the frame by assetId (a develop's resultAssetId) or by its develop's jobId. Free.",
			input: object(schema{
				"assetId": str("The frame's asset id."),
				"jobId":   str("The develop's id, instead of assetId."),
			}),
			output:   verdictSchema,
			run:      getVerdict,
			notFound: errNoVerdict,
		},
		{
			name: "share_frames", title: "Share frames with a reviewer",
			description: "Mint a review link to 1-60 of the house's frames, in order: anyone with the link marks each " +
				"frame keep or pass, without an account, for 7 days. The link carries its token after # (shown only " +
				"here); with email the link is also mailed. Free; at most 30 links an hour. Ids that are not the house's " +
				"are skipped; none left is ASSET_NOT_FOUND. Needs a member key.",
			input: object(schema{
				"assetIds":       schema{"type": "array", "items": schema{"type": "string"}, "minItems": 1, "maxItems": 60, "description": "The frames' asset ids, in the order the reviewer sees them."},
				"recipientLabel": str("Who the link is for, as the house will see it (at most 200 characters)."),
				"email":          str("Mail the link to this address."),
				"message":        str("A note for the reviewer (at most 2000 characters)."),
			}, "assetIds"),
			output: object(schema{
				"id":      str("The share's id."),
				"url":     str("The reviewer's link: the token rides after #. Open GET /api/share/<token> for its manifest."),
				"token":   str("The link's 256-bit token, base64url; shown only here."),
				"frames":  integer("How many frames the link shares."),
				"emailed": enum("What the mailer did: none (no email given), sent, logged (console mailer) or failed.", "none", "sent", "logged", "failed"),
			}, "id", "url", "token", "frames", "emailed"),
			run:      shareFrames,
			notFound: errs.Msg(errs.AssetNotFound, "None of the assetIds is a frame of this house."),
		},
	}
}

type uploadArgs struct {
	Kind     string `json:"kind"`
	Name     string `json:"name"`
	Data     string `json:"data"`
	URL      string `json:"url"`
	FolderID string `json:"folderId"`
	SKU      string `json:"sku"`
}

type assetResult struct {
	Asset asset.Asset `json:"asset"`
}

func uploadAsset(s *Server, ctx context.Context, p auth.Principal, raw json.RawMessage) (any, error) {
	// A viewer is refused before a byte is decoded or fetched, as the
	// upload route's Before refuses before reading its body (Upload asks
	// the same rule).
	if err := p.MayEdit(); err != nil {
		return nil, err
	}
	in, err := decodeArgs[uploadArgs](raw)
	if err != nil {
		return nil, err
	}
	u := asset.Upload{Kind: strings.TrimSpace(in.Kind), Name: strings.TrimSpace(in.Name), FolderID: strings.TrimSpace(in.FolderID), SKU: in.SKU}
	if u.Kind == "" {
		return nil, errs.Msg(ErrBadArguments, "kind is required: clothes, accessory, jewelry, model, background or mark.")
	}
	data, link := strings.TrimSpace(in.Data), strings.TrimSpace(in.URL)
	switch {
	case (data == "") == (link == ""):
		return nil, errs.Msg(ErrBadArguments, "Give the image as data (base64) or as url, one of the two.")
	case data != "":
		if u.Data, err = decodeBase64(data); err != nil {
			return nil, err
		}
	default:
		if u.Data, u.Filename, err = s.opts.Assets.Fetch(ctx, link); err != nil {
			return nil, err
		}
	}
	a, err := s.opts.Assets.Upload(ctx, p, u)
	if err != nil {
		return nil, err
	}
	return assetResult{Asset: a}, nil
}

// decodeBase64 reads upload_asset's data: standard or URL-safe base64,
// padded or not, optionally behind a data: URL's header; more than 12 MB
// decoded is IMAGE_TOO_LARGE, found before it is all decoded.
func decodeBase64(data string) ([]byte, error) {
	if rest, ok := strings.CutPrefix(data, "data:"); ok {
		_, payload, found := strings.Cut(rest, ",")
		if !found || !strings.HasSuffix(strings.SplitN(rest, ",", 2)[0], ";base64") {
			return nil, errs.Msg(ErrBadData, "A data: URL must be base64 (data:image/png;base64,...).")
		}
		data = payload
	}
	data = strings.TrimRight(data, "=")
	enc := base64.RawStdEncoding
	if strings.ContainsAny(data, "-_") {
		enc = base64.RawURLEncoding
	}
	if enc.DecodedLen(len(data)) > asset.MaxBytes {
		return nil, asset.ErrTooLarge
	}
	out, err := io.ReadAll(base64.NewDecoder(enc, strings.NewReader(data)))
	if err != nil {
		return nil, errs.Wrap(ErrBadData, err)
	}
	if len(out) == 0 {
		return nil, asset.ErrEmptyImage
	}
	return out, nil
}

type getAssetArgs struct {
	AssetID string `json:"assetId"`
	Preview bool   `json:"preview"`
}

// assetPreview is get_asset's answer with preview: the asset, and its
// rendition as an image content block.
type assetPreview struct {
	assetResult
	mime string
	data []byte
}

func (a assetPreview) content(Rules) []Content {
	return []Content{{Type: "image", MimeType: a.mime, Data: base64.StdEncoding.EncodeToString(a.data)}}
}

func getAsset(s *Server, ctx context.Context, p auth.Principal, raw json.RawMessage) (any, error) {
	in, err := decodeArgs[getAssetArgs](raw)
	if err != nil {
		return nil, err
	}
	id := strings.TrimSpace(in.AssetID)
	if id == "" {
		return nil, errs.Msg(ErrBadArguments, "assetId is required.")
	}
	a, err := s.opts.Assets.Get(ctx, p, id)
	if err != nil {
		return nil, err
	}
	out := assetResult{Asset: a}
	if !in.Preview {
		return out, nil
	}
	f, err := s.opts.Assets.File(ctx, p, id)
	if err != nil {
		return nil, err
	}
	thumb, err := s.opts.Shares.AssetThumb(ctx, f)
	if err != nil {
		return nil, err
	}
	defer thumb.Object.Close()
	data, err := io.ReadAll(thumb.Object)
	if err != nil {
		return nil, err
	}
	return assetPreview{assetResult: out, mime: thumb.Mime, data: data}, nil
}

type verdictArgs struct {
	AssetID string `json:"assetId"`
	JobID   string `json:"jobId"`
}

func getVerdict(s *Server, ctx context.Context, p auth.Principal, raw json.RawMessage) (any, error) {
	in, err := decodeArgs[verdictArgs](raw)
	if err != nil {
		return nil, err
	}
	assetID, jobID := strings.TrimSpace(in.AssetID), strings.TrimSpace(in.JobID)
	switch {
	case (assetID == "") == (jobID == ""):
		return nil, errs.Msg(ErrBadArguments, "Name the frame by assetId or by jobId, one of the two.")
	case assetID != "":
		j, err := s.opts.Jobs.FrameJob(ctx, p, assetID)
		if errors.Is(err, errs.NotFound) {
			return nil, errNoFrame
		}
		if err != nil {
			return nil, err
		}
		jobID = j.ID
	}
	return s.opts.Judge.Verdict(ctx, p, jobID)
}

type shareArgs struct {
	AssetIDs       []string `json:"assetIds"`
	RecipientLabel *string  `json:"recipientLabel"`
	Email          *string  `json:"email"`
	Message        *string  `json:"message"`
}

func shareFrames(s *Server, ctx context.Context, p auth.Principal, raw json.RawMessage) (any, error) {
	in, err := decodeArgs[shareArgs](raw)
	if err != nil {
		return nil, err
	}
	return s.opts.Shares.Mint(ctx, p, share.MintRequest{AssetIDs: in.AssetIDs, RecipientLabel: in.RecipientLabel, Email: in.Email, Message: in.Message})
}

// verdictSchema is judge.Verdict on the wire.
var verdictSchema = object(schema{
	"jobId":       str("The develop whose frame was judged."),
	"score":       nullable(schema{"type": "integer", "minimum": 1, "maximum": 100, "description": "1 to 100; null exactly when unreadable."}),
	"unreadable":  boolean("The judge could not look; nothing is shown."),
	"flagged":     boolean("The score was under the house's threshold when the verdict was written."),
	"showScore":   boolean("False for a clean frame and for one whose only findings weigh 0."),
	"retryFutile": boolean("True: a redraw cannot mend it (the defect comes from the input); none is offered."),
	"findings": array(object(schema{
		"code":       enum("What is wrong.", findingCodes()...),
		"where":      str("Where on the frame, in the judge's words."),
		"label":      str("The code in a sentence."),
		"confidence": enum("How sure the judge is; a not-sure finding takes nothing off the score.", "sure", "not-sure"),
	}, "code", "where", "label", "confidence"), "What the judge found; empty for a clean frame."),
	"rubricVersion": integer("The rubric the score was written under; scores of different versions are not comparable."),
	"createdAt":     str("When the verdict was written (RFC 3339, UTC)."),
	"answer": object(schema{
		"agrees": boolean("The house agrees with the verdict."),
		"note":   str("The house's note; absent when none."),
	}, "agrees"),
}, "jobId", "score", "unreadable", "flagged", "showScore", "retryFutile", "findings", "rubricVersion", "createdAt")

// findingCodes lists the judge's finding codes.
func findingCodes() []string {
	var out []string
	for _, c := range judge.Codes() {
		out = append(out, string(c))
	}
	return out
}
