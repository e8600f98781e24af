// Package digest is the operators' analyst digest (SPEC §4.17): a run
// computes, from the stored facts of every house, what moved between the
// last window and the one before it (develops, failures by normalised
// error text, readable verdicts and their scores, sign-ups, settled
// tokens, refused e-mails), proposes actions by rules from those
// movements, and states its caveats. The headlines are written by the AI
// endpoint from the computed facts alone (counts and normalised error
// texts: no house, user, e-mail or id) when one is configured and the
// window holds enough readable verdicts; by the rules otherwise.
//
// The window is the cadence's hours (1 to 168; 168 until an operator sets
// it). A press inside the window of the latest digest answers that digest
// and computes nothing; below VerdictFloor readable verdicts the digest is
// thin and no model is asked. Every read of the digest is logged (who,
// when, which digest). Only a platform administrator's session passes.
package digest

import (
	"context"
	"time"

	"studio/internal/ai"
	"studio/internal/errs"
	"studio/internal/ts"
)

// Bounds and defaults.
const (
	MinHours       = 1   // the shortest window a cadence sets
	MaxHours       = 168 // the longest: a week
	DefaultHours   = 168 // the window until an operator sets one
	VerdictFloor   = 20  // readable verdicts in the window below which the digest is thin
	MaxHistory     = 20  // previous digests' headlines a read may ask for
	DefaultHistory = 5
	maxGroups      = 10 // failure groups a digest moves, largest first
	maxHeadlines   = 5
	maxHeadline    = 200 // characters of one headline
)

// ErrBadHours refuses a cadence without hours in the range.
var ErrBadHours = errs.Msg(errs.BadHours, "hours is required: a whole number from 1 to 168.")

// Cadence is how long a digest's window is and whether the workers run a
// digest on their own when the latest one is that old.
type Cadence struct {
	Hours     int      `json:"hours" minimum:"1" maximum:"168" description:"The window a digest compares with the one before it, and how long a press answers the latest digest at no cost."`
	Enabled   bool     `json:"enabled" description:"The workers run a digest themselves once the latest is hours old (checked every 10 minutes)."`
	UpdatedAt *ts.Time `json:"updatedAt" description:"Null while the default (168 hours, off) is in force."`
}

// CadenceRequest is the body of PATCH /api/toolkit/admin/analyst/cadence.
type CadenceRequest struct {
	Hours   *int  `json:"hours" required:"true" minimum:"1" maximum:"168" description:"The window in hours, 1 to 168."`
	Enabled *bool `json:"enabled" description:"Absent keeps the stored value (off until set)."`
}

// Validate checks the hours.
func (in *CadenceRequest) Validate() error {
	if in.Hours == nil || *in.Hours < MinHours || *in.Hours > MaxHours {
		return ErrBadHours
	}
	return nil
}

// Movement is one fact compared window over window.
type Movement struct {
	Metric    string   `json:"metric" enum:"develops,failed_develops,failure_rate,failure_group,readable_verdicts,verdict_score,unreadable_verdicts,sign_ups,settled_tokens,email_refusals" description:"failure_rate is in percent of develops; verdict_score is the mean score (1-100) of readable verdicts; failure_group is one normalised error text."`
	Label     string   `json:"label"`
	Group     *string  `json:"group" description:"failure_group: the normalised error text (ids, numbers and addresses replaced); null otherwise."`
	Houses    *int     `json:"houses" description:"failure_group: how many houses met it in the window; null otherwise."`
	Current   float64  `json:"current" description:"The value over the window."`
	Previous  float64  `json:"previous" description:"The value over the window before it."`
	Change    float64  `json:"change" description:"current - previous."`
	ChangePct *float64 `json:"changePct" description:"The change in percent of previous; null when previous is 0."`
	Direction string   `json:"direction" enum:"up,down,flat"`
}

// Action is a step the rules propose from the movements.
type Action struct {
	Kind     string  `json:"kind" enum:"investigate_failure_group,review_failure_rate,review_verdict_quality,check_email_delivery,check_sign_up_path,check_spend_drop"`
	Priority string  `json:"priority" enum:"high,medium"`
	Text     string  `json:"text"`
	Metric   string  `json:"metric" description:"The movement it follows from."`
	Group    *string `json:"group" description:"investigate_failure_group: the normalised error text."`
}

// Caveat is what a reader should weigh the digest with.
type Caveat struct {
	Code string `json:"code" enum:"THIN_DATA,AI_NOT_CONFIGURED,MODEL_FAILED,NO_PREVIOUS_DATA,GROUPS_CAPPED"`
	Text string `json:"text"`
}

// Digest is one computed digest.
type Digest struct {
	ID               string     `json:"id"`
	CreatedAt        ts.Time    `json:"createdAt"`
	WindowHours      int        `json:"windowHours"`
	WindowStart      ts.Time    `json:"windowStart" description:"The window is (windowStart, windowEnd]; the previous one is as long and ends at windowStart."`
	WindowEnd        ts.Time    `json:"windowEnd"`
	Thin             bool       `json:"thin" description:"Fewer than verdictFloor readable verdicts in the window: no model was asked."`
	ReadableVerdicts int        `json:"readableVerdicts" description:"Verdicts with a score written in the window."`
	VerdictFloor     int        `json:"verdictFloor"`
	HeadlinesBy      string     `json:"headlinesBy" enum:"rules,model"`
	Model            *string    `json:"model" description:"The model that wrote (or failed to write) the headlines; null when none was asked."`
	CostUSD          float64    `json:"costUsd" description:"What the provider stated the model call cost (0 when none was asked or none was stated); admin ai-costs lists it as analyst."`
	Headlines        []string   `json:"headlines" description:"1 to 5, most important first."`
	Movements        []Movement `json:"movements"`
	Actions          []Action   `json:"actions" description:"Proposed by rules, high priority first."`
	Caveats          []Caveat   `json:"caveats"`
}

// Previous is a previous digest's headlines.
type Previous struct {
	ID          string   `json:"id"`
	CreatedAt   ts.Time  `json:"createdAt"`
	WindowHours int      `json:"windowHours"`
	Thin        bool     `json:"thin"`
	HeadlinesBy string   `json:"headlinesBy" enum:"rules,model"`
	Headlines   []string `json:"headlines"`
}

// View is the answer to a read of the digest.
type View struct {
	Digest   *Digest    `json:"digest" nullable:"true" description:"The latest digest; null while no run has computed one."`
	Previous []Previous `json:"previous" description:"Up to history earlier digests' headlines, newest first."`
	Cadence  Cadence    `json:"cadence"`
	History  int        `json:"history" description:"How many previous digests were asked for."`
}

// RunResult is the answer to a run.
type RunResult struct {
	Reused     bool    `json:"reused" description:"true: the latest digest is younger than the cadence's hours and is answered as it is; nothing was computed and no model asked."`
	FreshAfter ts.Time `json:"freshAfter" description:"From this instant a press computes a new digest."`
	Digest     Digest  `json:"digest"`
}

// Window is the stored facts of one window, across houses.
type Window struct {
	Develops           int
	FailedDevelops     int
	ReadableVerdicts   int
	UnreadableVerdicts int
	ScoreSum           int64 // of the readable verdicts
	SignUps            int
	SettledTokens      int64
	EmailRefusals      int
}

// Failed is a develop that failed in a window: its error text and house.
type Failed struct {
	Error string
	House string
}

// Stored is a digest as persisted.
type Stored struct {
	Digest
	RunBy            string // the operator who pressed; "" for an automatic run
	PromptTokens     int64
	CompletionTokens int64
}

// Read is one logged read of the digest.
type Read struct {
	ID       string
	UserID   string
	DigestID string // "" while none exists
	History  int
	At       time.Time
}

// Store keeps the digests, the cadence and the read log, and reads the
// facts across houses.
type Store interface {
	AnalystWindow(ctx context.Context, from, to time.Time) (Window, error) // (from, to]
	FailedDevelops(ctx context.Context, from, to time.Time, limit int) ([]Failed, error)
	AnalystCadence(ctx context.Context) (Cadence, error)
	SetAnalystCadence(ctx context.Context, hours int, enabled *bool, by string, at time.Time) (Cadence, error)
	ClaimAutoDigest(ctx context.Context, at time.Time) (bool, error)
	LatestDigest(ctx context.Context) (Digest, bool, error)
	PreviousDigests(ctx context.Context, beforeID string, limit int) ([]Previous, error)
	InsertDigest(ctx context.Context, d Stored) error
	LogDigestRead(ctx context.Context, r Read) error
}

// Writer is the AI endpoint the headlines are asked of.
type Writer interface {
	Configured() bool
	Model() string
	JSON(ctx context.Context, req ai.Request, out any) (ai.Usage, error)
}
