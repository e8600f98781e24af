// Package job is the develop: a frame commissioned from a tool, held in
// tokens before it is queued, claimed by a worker, rendered by an engine,
// stored as an asset and settled, each state change told to every listener
// exactly once (ARCHITECTURE "The flow of a develop").
package job

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"unicode/utf8"

	"studio/internal/errs"
	"studio/internal/ledger"
	"studio/internal/ts"
)

// Status is a job's state (SPEC §3 Job).
type Status string

const (
	Queued    Status = "queued"
	Running   Status = "running"
	Done      Status = "done"
	Failed    Status = "failed"
	Cancelled Status = "cancelled"
)

// Terminal reports whether the status is final.
func (s Status) Terminal() bool { return s == Done || s == Failed || s == Cancelled }

// Frame is a developed frame ready to become an asset of the job's house:
// the worker stores its bytes under BlobKey, then the store finishes the job
// with it (asset row, hold posted, event) in one transaction.
type Frame struct {
	AssetID       string
	Name          string // the asset's name: asset.FrameName
	BlobKey       string
	Mime          string
	Width, Height int
	Size          int64
	SHA256        string
}

// Input is one role filled by a house asset.
type Input struct {
	Role    string `json:"role"`
	AssetID string `json:"assetId"`
}

// Job is a develop as pushed on the socket and backfilled by GET /jobs.
type Job struct {
	ID            string  `json:"id"`
	Tool          string  `json:"tool"`
	Status        Status  `json:"status" enum:"queued,running,done,failed,cancelled"`
	ResultURL     string  `json:"resultUrl" description:"The absolute URL of the result's bytes (fetch it with the same credential) once done; empty before."`
	ResultAssetID string  `json:"resultAssetId" description:"The result asset once done; empty before."`
	Error         *string `json:"error"`
	ErrorCode     *string `json:"errorCode" description:"Why a failed develop failed, for machines: PROVIDER_TIMEOUT past its render deadline, or the provider failure its engine named (see the develops docs); null otherwise."`
	BrandID       string  `json:"brandId"`
	CreatedAt     ts.Time `json:"createdAt"`
	EventSeq      int64   `json:"eventSeq" description:"The house's event cursor of this job's latest change."`

	HouseID        string            `json:"-"`
	UserID         string            `json:"-"`
	Tier           ledger.Tier       `json:"-"`
	Params         map[string]string `json:"-"`
	Inputs         []Input           `json:"-"`
	RetryOfJobID   string            `json:"-"`
	IdempotencyKey string            `json:"-"`
	Fingerprint    string            `json:"-"`
	Cost           int64             `json:"-"`
	Settled        int64             `json:"-"` // tokens the hold posted
	StartedAt      *ts.Time          `json:"-"`
	FinishedAt     *ts.Time          `json:"-"`
}

// Reserved form fields never become options (SPEC §4.5, DECISIONS §1b).
var Reserved = []string{"tool", "idempotencyKey", "brandId", "quality"}

// Codes raised by jobs.
var (
	// UNKNOWN_TOOL has two meanings, by the spec (SPEC §4.5): a submit naming
	// a tool that does not exist is 400 (ErrUnknownTool); a rerun (duplicate,
	// redraw, takes) of a frame whose tool is no longer offered is 422
	// (ErrUnknownToolRun). errs' TestEachCodeDeclaredOnce allows exactly this pair.
	ErrUnknownTool    = errs.New(errs.KindInvalid, "UNKNOWN_TOOL", "That tool does not exist.")
	ErrUnknownToolRun = errs.New(errs.KindUnprocessable, "UNKNOWN_TOOL", "The frame's tool is no longer offered.")
	// ErrNoTool is a submit that names no tool: UNKNOWN_TOOL, saying so.
	ErrNoTool = errs.Msg(ErrUnknownTool, "The tool field is missing.")

	ErrNoImage         = errs.Msg(errs.NoImage, "The tool needs an image.")
	ErrEmptyImage      = errs.EmptyImage
	ErrOutputRefused   = errs.Msg(errs.BadForm, "The field output is not accepted on submit.")
	ErrBadQuality      = errs.BadQuality
	ErrKeyReused       = errs.New(errs.KindConflict, "IDEMPOTENCY_KEY_REUSED", "This idempotency key was used for a different request.")
	ErrKeyTooLong      = errs.With(errs.New(errs.KindInvalid, "BAD_IDEMPOTENCY_KEY", "idempotencyKey is at most 200 characters."), "max", MaxKey)
	ErrFalNotConfigure = errs.FalNotConfigured
	ErrSubmitFailed    = errs.New(errs.KindInternal, "SUBMIT_FAILED", "The develop could not be queued; nothing was charged.")
	ErrBadSince        = errs.BadSince
	ErrBadState        = errs.New(errs.KindInvalid, "BAD_STATE", "state must be active or all.")
	ErrBadLimit        = errs.Msg(errs.BadLimit, "limit must be a whole number from 1 to 100.")
	ErrAssetNotFound   = errs.Msg(errs.AssetNotFound, "An input asset is not one of this house's.")
	ErrNoInputs        = errs.New(errs.KindUnprocessable, "NO_INPUTS", "The frame's inputs are gone, so it cannot be developed again.")

	// ErrLeaseLost refuses a worker's settle, fail or release of a job it
	// no longer holds (the rescuer requeued it); no route answers it.
	ErrLeaseLost = errs.New(errs.KindConflict, "LEASE_LOST", "The worker no longer holds this job.")
	// ErrBadOption refuses an option value outside the tool's legal ones,
	// or a required option left out; it carries option and legal.
	ErrBadOption = errs.New(errs.KindInvalid, "BAD_OPTION", "An option of the tool has a value it does not take.")
)

// MaxKey is the longest idempotency key, in characters (DECISIONS §10).
const MaxKey = 200

// CheckKey refuses an idempotency key longer than MaxKey. Every route that
// takes a key (submit, duplicate, MCP start_develop, develop-lock,
// variations) reaches it through the service, before anything is held.
func CheckKey(key string) error {
	if utf8.RuneCountInString(key) > MaxKey {
		return ErrKeyTooLong
	}
	return nil
}

// Fingerprint identifies a request for idempotency: the tool, the tier,
// the inputs (by the digest of their bytes or their asset id) and the params.
func Fingerprint(tool string, tier ledger.Tier, inputs []string, params map[string]string) string {
	h := sha256.New()
	write := func(s string) { h.Write([]byte(s)); h.Write([]byte{0}) }
	write(tool)
	write(string(tier))
	ins := slices.Clone(inputs)
	slices.Sort(ins)
	for _, in := range ins {
		write(in)
	}
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		write(k + "=" + params[k])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// ResultURL is the URL of a result asset's bytes under the service's
// public URL base: the one function that builds a job's resultUrl, so
// every surface (GET /jobs, the socket, MCP, webhooks) answers the same
// absolute URL. An empty base gives the file route alone; an empty asset
// id gives "".
func ResultURL(base, assetID string) string {
	if assetID == "" {
		return ""
	}
	return strings.TrimRight(base, "/") + "/api/toolkit/assets/" + assetID + "/file"
}

// CleanParams drops reserved names and trims values.
func CleanParams(in map[string]string) map[string]string {
	out := make(map[string]string, len(in))
	for k, v := range in {
		if slices.Contains(Reserved, k) {
			continue
		}
		out[k] = strings.TrimSpace(v)
	}
	return out
}
