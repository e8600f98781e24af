// Package errs is the error model shared by every layer: a closed set of
// kinds that decide the HTTP status and the MCP outcome, and an open set of
// wire codes, each declared once beside the rule that raises it.
package errs

import (
	"errors"
	"fmt"
	"maps"
)

// Kind decides the HTTP status of an error. It does not grow per route.
type Kind uint8

const (
	KindInternal         Kind = iota // 500, and the answer for any error that is not an *Error
	KindInvalid                      // 400
	KindUnauthorized                 // 401
	KindPayment                      // 402
	KindForbidden                    // 403
	KindNotFound                     // 404
	KindMethodNotAllowed             // 405
	KindTimeout                      // 408
	KindConflict                     // 409
	KindGone                         // 410
	KindTooLarge                     // 413
	KindUnsupported                  // 415
	KindUnprocessable                // 422
	KindUpgradeRequired              // 426
	KindRateLimited                  // 429
	KindUpstream                     // 502
	KindUnavailable                  // 503
)

// Error is an error a client may see: its Code and Message go on the wire,
// Fields sit beside them in the body, and Err (the cause) is only logged.
type Error struct {
	Kind    Kind
	Code    string
	Message string
	Fields  map[string]any
	Err     error
}

// New declares an error. Declare each code once, as a package variable.
func New(kind Kind, code, message string) *Error {
	return &Error{Kind: kind, Code: code, Message: message}
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return e.Code + ": " + e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is an *Error with the same code, so that
// errors.Is(err, ledger.ErrInsufficientTokens) holds for every copy made by With.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// With returns a copy of e carrying extra body fields, given as key, value pairs.
func With(e *Error, kv ...any) *Error {
	c := *e
	c.Fields = maps.Clone(e.Fields)
	if c.Fields == nil {
		c.Fields = make(map[string]any, len(kv)/2)
	}
	for i := 0; i+1 < len(kv); i += 2 {
		c.Fields[kv[i].(string)] = kv[i+1]
	}
	return &c
}

// Msg returns a copy of e with another plain message.
func Msg(e *Error, message string) *Error {
	c := *e
	c.Message = message
	return &c
}

// Wrap returns a copy of e that records cause for the log.
func Wrap(e *Error, cause error) *Error {
	c := *e
	c.Err = cause
	return &c
}

// As returns the *Error in err's chain, if any.
func As(err error) (*Error, bool) {
	return errors.AsType[*Error](err)
}

// Shared codes (DECISIONS §1).
var (
	Internal         = New(KindInternal, "INTERNAL", "Something went wrong on our side.")
	BadJSON          = New(KindInvalid, "BAD_JSON", "The request body is not valid JSON.")
	BadBody          = New(KindInvalid, "BAD_BODY", "The request body does not have the expected shape.")
	BadForm          = New(KindInvalid, "BAD_FORM", "The multipart form could not be read.")
	Unauthorized     = New(KindUnauthorized, "UNAUTHORIZED", "A valid session or API key is required.")
	Forbidden        = New(KindForbidden, "FORBIDDEN", "Your role does not allow this.")
	NotFound         = New(KindNotFound, "NOT_FOUND", "Not found.")
	MethodNotAllowed = New(KindMethodNotAllowed, "METHOD_NOT_ALLOWED", "This method is not allowed on this path.")
	Conflict         = New(KindConflict, "CONFLICT", "The request conflicts with the current state.")
	BodyTooLarge     = New(KindTooLarge, "BODY_TOO_LARGE", "The request body is larger than 1 MiB.")
	RateLimited      = New(KindRateLimited, "RATE_LIMITED", "Too many requests; try again later.")
	// RequestTimeout answers a request whose body did not arrive within
	// its deadline (DECISIONS §11): nothing of it was done.
	RequestTimeout = New(KindTimeout, "REQUEST_TIMEOUT", "The request body did not arrive in time; nothing was done.")
)

// Codes several domains answer, declared here once; a domain derives its
// own message with Msg where it says more.
var (
	BadLimit      = New(KindInvalid, "BAD_LIMIT", "limit is not a whole number in the documented range.")
	BadHours      = New(KindInvalid, "BAD_HOURS", "hours must be a whole number in the documented range.")
	BadStatus     = New(KindInvalid, "BAD_STATUS", "status is not one of the documented values.")
	BadFilter     = New(KindInvalid, "BAD_FILTER", "A filter is not one of the documented values.")
	BadReason     = New(KindInvalid, "BAD_REASON", "reason is not one of the documented values.")
	BadSince      = New(KindInvalid, "BAD_SINCE", "since must be a whole number of at least 0.")
	BadQuality    = New(KindInvalid, "BAD_QUALITY", "quality must be 1k, 2k or 4k.")
	NoImage       = New(KindInvalid, "NO_IMAGE", "The request has no image.")
	EmptyImage    = New(KindInvalid, "EMPTY_IMAGE", "An image part is empty.")
	ImageRequired = New(KindInvalid, "IMAGE_REQUIRED", "The request needs an image.")
	// FalNotConfigured answers an image tool or lane that needs the fal
	// engine while FAL_KEY is unset (DECISIONS §5).
	FalNotConfigured = New(KindUnavailable, "FAL_NOT_CONFIGURED", "This tool needs the fal engine, which is not configured.")
	AssetNotFound    = New(KindNotFound, "ASSET_NOT_FOUND", "An asset is not one of this house's.")
	BadCursor        = New(KindInvalid, "BAD_CURSOR", "before must be a nextCursor this list answered.")
	TooManyFrames    = New(KindInvalid, "TOO_MANY_FRAMES", "The request asks for too many frames.")
	BadRole          = New(KindInvalid, "BAD_ROLE", "The role is not one of the roles allowed here.")
	// EmailMismatch refuses an invitation (a seat offer, an operator's
	// invitation) accepted by someone signed in with another address.
	EmailMismatch = New(KindForbidden, "EMAIL_MISMATCH", "The invitation was sent to another e-mail address.")
	AssetRequired = New(KindInvalid, "ASSET_REQUIRED", "Name the asset (assetId).")
	// AlreadyRegistered is a sign-up's taken e-mail address and a mark
	// registered twice at one level (SPEC §7 lists it once, for both).
	AlreadyRegistered = New(KindConflict, "ALREADY_REGISTERED", "It is already registered.")
)

// NameRequired is a look's or a model's missing name.
var NameRequired = New(KindInvalid, "NAME_REQUIRED", "A name is required.")

// Codes two areas share, each deriving its own message with Msg.
var (
	// BadSignature refuses a provider's delivery (payments, e-mail events)
	// whose Standard Webhooks signature does not verify.
	BadSignature = New(KindUnauthorized, "BAD_SIGNATURE", "The delivery's signature does not verify.")
	// Unparseable refuses a verified delivery whose body is not the
	// provider's event object.
	Unparseable = New(KindInvalid, "UNPARSEABLE", "The body could not be read.")
	// JobIDsRequired refuses a batch over develops that names none (the
	// judge's verdict reads, the operators' retry or cancel).
	JobIDsRequired = New(KindInvalid, "JOB_IDS_REQUIRED", "Name at least one job id.")
	// TargetRequired refuses a request that names nothing to act on (a
	// segment's target, an access grant's user).
	TargetRequired = New(KindInvalid, "TARGET_REQUIRED", "Name what to act on.")
	// ReasonRequired refuses a decision without its reason (the analyst's
	// approval, an operator's decline of an applicant).
	ReasonRequired = New(KindInvalid, "REASON_REQUIRED", "reason is required: 1 to 500 characters saying why.")
	// NotPending refuses to decide an applicant decided already.
	NotPending = New(KindConflict, "NOT_PENDING", "The applicant is no longer pending.")
	// NoFigure refuses a picture without the figure the work needs, free:
	// extract-build's full-length figure, a local look's standing figure.
	NoFigure = New(KindUnprocessable, "NO_FIGURE", "No standing figure could be found in the picture.")
)
