// Package ledger is the house's token account (DECISIONS §4): credits
// (grants and top-ups), holds that reserve tokens before work is queued,
// and the debits a posted hold leaves behind. Balance parts are derived
// from those rows, never kept as a counter.
//
// # The rules this package and its store guarantee
//
//   - A grant may expire; a top-up never does. A hold takes its tokens from
//     grants before top-ups, and among grants from the one that expires
//     soonest (a grant without an expiry after every dated one; ties by age).
//   - A hold reserves specific credits when it is taken. Expiry never touches
//     reserved tokens: posting a hold debits exactly what it reserved, even if
//     a credit it drew on has expired since. Voiding returns the reserved
//     tokens to their credits; tokens returned to a credit that has expired in
//     the meantime are no longer counted (they expire with it).
//   - A hold resolves once: pending, then posted or voided. A second
//     resolution changes nothing and answers ErrHoldResolved.
//   - Balance parts, at every instant and under any concurrency:
//     held = the sum of pending holds;
//     grant = unreserved tokens of unexpired grants + tokens pending holds reserved from grants;
//     topup = unreserved tokens of top-ups + tokens pending holds reserved from top-ups;
//     balance = grant + topup - held = unreserved tokens of live credits >= 0.
//   - Conservation: the tokens ever credited equal
//     balance + held + everything debited + the unreserved remainder of expired grants.
package ledger

import (
	"time"

	"github.com/google/uuid"

	"studio/internal/errs"
	"studio/internal/ts"
)

// CreditKind tells a grant from a top-up.
type CreditKind string

const (
	Grant CreditKind = "grant" // plan, sign-up and admin grants; may expire; spent first
	TopUp CreditKind = "topup" // bought; never expires
)

// Sources of credits: where a credit came from. Free text in the schema so
// later flows (invite codes, offerings) need no migration.
const (
	SourceSignup   = "signup"   // the trial's opening grant
	SourcePlan     = "plan"     // a plan period's grant
	SourceAdmin    = "admin"    // a platform administrator's grant
	SourcePurchase = "purchase" // a bought top-up pack
	SourceInvite   = "invite"   // the grant a door in (an invite code) brings at sign-up
	SourceReferral = "referral" // a host's reward once a guest it invited subscribed (after the hold)
)

// Credit is one grant or top-up: tokens the house may spend.
type Credit struct {
	ID        string
	Kind      CreditKind
	Source    string
	Tokens    int64
	ExpiresAt *ts.Time // grants only; nil never expires
	Reference string   // an outside reference (a payment id), unique when set
	Reason    string   // why it was granted, for the audit trail
	GrantedBy string   // the user who granted it, when a person did
	CreatedAt ts.Time  // zero: the store stamps its clock
	// PaidCents is what the payment provider charged for the order that
	// credited it (read from its entitlement); nil when no order did.
	PaidCents *int64
	// RevokedAt is when an operator revoked that order's entitlement
	// (what was left of the credit was taken back); nil when not.
	RevokedAt *ts.Time
}

// NewGrant returns a grant of tokens from source, expiring at expiresAt
// (nil: never).
func NewGrant(tokens int64, source string, expiresAt *ts.Time) Credit {
	return Credit{ID: newID(), Kind: Grant, Source: source, Tokens: tokens, ExpiresAt: expiresAt}
}

// NewTopUp returns a top-up of tokens, carrying the payment's reference.
func NewTopUp(tokens int64, reference string) Credit {
	return Credit{ID: newID(), Kind: TopUp, Source: SourcePurchase, Tokens: tokens, Reference: reference}
}

// HoldState is where a hold stands in its two-phase life.
type HoldState string

const (
	Pending HoldState = "pending" // tokens reserved, work not finished
	Posted  HoldState = "posted"  // settled: the reserved tokens are debited
	Voided  HoldState = "voided"  // released: the reserved tokens are back
)

// Hold reserves tokens for one piece of work, usually a job.
type Hold struct {
	ID         string
	JobID      string // "" for a hold that belongs to no job; a job has at most one hold
	Tokens     int64
	UserID     string // who asked, for attribution; may be ""
	Workflow   string // what it pays for: the job's tool, or a lane's name (the account view's spend per tool)
	State      HoldState
	CreatedAt  ts.Time  // zero: the store stamps its clock
	ResolvedAt *ts.Time // set once posted or voided
	// Until is, for a hold of no job, when the call it pays for can no
	// longer finish: a sweep voids it after that (and sooner if the
	// process that holds it dies). Zero: CallHold after it is taken. A
	// job's hold is its job's and has none.
	Until time.Time
}

// CallHold is how long a hold of no job may wait for its call when the
// holder names no deadline of its own.
const CallHold = 10 * time.Minute

// NewHold returns a pending hold of tokens for the job (jobID "" for none).
func NewHold(jobID string, tokens int64) Hold {
	return Hold{ID: newID(), JobID: jobID, Tokens: tokens, State: Pending}
}

// Balance is the house's account as GET /api/toolkit/ai/billing/balance and
// MCP check_balance answer it (DECISIONS §1b).
type Balance struct {
	Balance int64        `json:"balance" description:"Spendable tokens: grant + topup - held. Never negative."`
	Grant   int64        `json:"grant" description:"Tokens from unexpired grants, including those open holds reserved from grants."`
	Topup   int64        `json:"topup" description:"Tokens from top-ups, including those open holds reserved from top-ups."`
	Held    int64        `json:"held" description:"Tokens reserved by open holds: the sum of holds[].tokens."`
	Holds   []HeldTokens `json:"holds" description:"Open holds, newest first."`
}

// HeldTokens is one open hold as the balance lists it.
type HeldTokens struct {
	JobID     *string `json:"jobId" description:"The job the hold pays for; null for a hold that belongs to no job."`
	Tokens    int64   `json:"tokens"`
	CreatedAt ts.Time `json:"createdAt"`
}

// Fixed amounts of DECISIONS §4.
const (
	// SignupTokens is the opening grant of a new house, expiring with the trial.
	SignupTokens = 60
	// TrialLength is how long the trial (and its opening grant) lasts.
	TrialLength = 14 * 24 * time.Hour
	// MaxGrant is the largest admin grant.
	MaxGrant = 100_000
	// MaxExpiryDays bounds an admin grant's expiryDays (ten years).
	MaxExpiryDays = 3650
)

// Codes raised by the ledger.
var (
	// ErrInsufficientTokens refuses a hold the balance cannot cover; it
	// carries need (what the whole request needs), spendable (the balance
	// at that moment) and held (what the house's open holds already
	// reserve; DECISIONS §10). Nothing is held or created.
	ErrInsufficientTokens = errs.New(errs.KindPayment, "INSUFFICIENT_TOKENS", "The house does not have enough tokens for this request.")
	// ErrHoldResolved answers a second post or void of a hold; it carries
	// state, the resolution that won. Nothing changed.
	ErrHoldResolved = errs.New(errs.KindConflict, "HOLD_RESOLVED", "The hold was already settled or released.")
	// ErrHoldExists refuses a second hold for a job (or a reused hold id).
	ErrHoldExists = errs.New(errs.KindConflict, "HOLD_EXISTS", "The job already has a hold.")
	// ErrCreditExists refuses a second credit with the same outside
	// reference (a payment delivered twice).
	ErrCreditExists = errs.New(errs.KindConflict, "CREDIT_EXISTS", "This payment was already credited.")

	ErrUserRequired = errs.New(errs.KindInvalid, "USER_REQUIRED", "userId or email is required.")
	ErrBadTokens    = errs.With(errs.New(errs.KindInvalid, "BAD_TOKENS", "tokens must be a whole number from 1 to 100000."), "max", MaxGrant)
	ErrUserNotFound = errs.New(errs.KindNotFound, "USER_NOT_FOUND", "No user has this id or e-mail.")
)

// Insufficient is ErrInsufficientTokens with its need, spendable and held.
func Insufficient(need, spendable, held int64) error {
	return errs.With(ErrInsufficientTokens, "need", need, "spendable", spendable, "held", held)
}

func newID() string { return uuid.Must(uuid.NewV7()).String() }
