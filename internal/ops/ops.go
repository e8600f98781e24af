// Package ops is what the service's operators see and do across houses
// (SPEC §4.17): what the work cost, the develops of every house and a
// retry or cancel of many, the letters sent, the failures grouped by their
// normalised text, the frames of every house, and the access an operator
// grants a user to a toolkit or a tool. Only a platform administrator's
// session passes (a key never does, an admin's neither).
package ops

import (
	"context"
	"regexp"
	"strings"
	"time"

	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/job"
	"studio/internal/ledger"
	"studio/internal/ts"
)

// Codes raised by the operators' routes.
var (
	ErrBadAction      = errs.New(errs.KindInvalid, "BAD_ACTION", "action is missing or not one this route knows.")
	ErrItemRequired   = errs.New(errs.KindInvalid, "ITEM_REQUIRED", "The action needs the toolkitId or toolId it grants or revokes.")
	ErrTargetRequired = errs.Msg(errs.TargetRequired, "Name the user by userId or email.")
	ErrUnknownItem    = errs.New(errs.KindInvalid, "UNKNOWN_ITEM", "No toolkit or tool has this id.")
	ErrJobIDsRequired = errs.Msg(errs.JobIDsRequired, "jobIds must name 1 to 200 develops.")
)

// House names a house in the operators' lists.
type House struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// ToolCost is what one tool (or lane) cost over the window.
type ToolCost struct {
	Tool    string  `json:"tool" description:"The develop's tool, the lane's name for work without a develop (classify, describe-item, ...), brand-dna for DNA reads, or judge for the verdicts (which no hold pays for)."`
	Tokens  int64   `json:"tokens" description:"Tokens its posted holds debited."`
	CostUSD float64 `json:"cost_usd" description:"What providers stated it cost, in US dollars, from what the service stores: the DNA reads', the verdicts' and each AI lane call's stated cost (delivered or not); 0 where no provider states one (fal's queue, the local engine, OpenAI)."`
	N       int64   `json:"n" description:"How many settled holds."`
}

// DayCost is what one UTC day cost.
type DayCost struct {
	Day     string  `json:"day" description:"The UTC day, YYYY-MM-DD."`
	Tokens  int64   `json:"tokens"`
	CostUSD float64 `json:"cost_usd"`
}

// Costs is the ai-costs answer.
type Costs struct {
	Days               int        `json:"days" description:"The window read, in days back from now."`
	ByTool             []ToolCost `json:"byTool"`
	Daily              []DayCost  `json:"daily" description:"Oldest day first; days with nothing settled are absent."`
	TotalTokensSettled int64      `json:"totalTokensSettled"`
	TotalCostUSD       float64    `json:"totalCostUsd"`
}

// HouseRun is a develop run of some house.
type HouseRun struct {
	House House    `json:"house"`
	Run   *job.Run `json:"run"`
}

// Develop is one develop of any house as operators read it: the job, its
// inputs and options, and what its provider was sent.
type Develop struct {
	House          House             `json:"house"`
	Job            job.Job           `json:"job"`
	Tier           ledger.Tier       `json:"tier"`
	Inputs         []job.Input       `json:"inputs"`
	Params         map[string]string `json:"params"`
	ProviderPrompt *string           `json:"providerPrompt" description:"The words the provider was sent, exactly (the local engine: what it would send); empty for a model that reads none. Before the run it is the composed direction (brand clause, riding marks, standing notes in scope, memories, the frame's own words); null before the worker reached the develop."`
	ProviderRefs   []job.Ref         `json:"providerRefs" description:"The pictures the provider was sent, in its order: the inputs by role and the riding marks (role mark, the material as text), each by its house asset; last, a restoration pass the develop made as a second request (role restoration, the restoring model as label, the picture sent and the scale as text). Never bytes, URLs or keys."`
}

// Letter is a row of the e-mail log; HTML only when one letter is read.
type Letter struct {
	ID         string  `json:"id"`
	To         string  `json:"to"`
	Template   string  `json:"template"`
	Subject    string  `json:"subject"`
	Text       string  `json:"text"`
	Status     string  `json:"status" description:"logged (console), sent, failed, or what the provider's delivery webhook reported."`
	ProviderID *string `json:"providerId"`
	HasHTML    bool    `json:"hasHtml"`
	HTML       *string `json:"html,omitempty" description:"The archived HTML part; only when one letter is read, null when it had none."`
	CreatedAt  ts.Time `json:"createdAt"`
}

// FailureGroup is the failed develops sharing one normalised error text.
type FailureGroup struct {
	Error      string   `json:"error" description:"The error text with ids, numbers and addresses replaced by <id>, <n>, <email>."`
	Count      int      `json:"count"`
	Houses     int      `json:"houses" description:"How many houses met it."`
	Tools      []string `json:"tools"`
	LastAt     ts.Time  `json:"lastAt"`
	SampleJobs []string `json:"sampleJobIds" description:"Up to 5 of the newest develops in the group."`
}

// Failures is the failures answer.
type Failures struct {
	Hours         int            `json:"hours"`
	Groups        []FailureGroup `json:"groups" description:"Largest group first."`
	RefusedEmails []Letter       `json:"refusedEmails" description:"Letters whose delivery failed, bounced or was complained about, newest first (text and HTML left out)."`
	Tickets       []Ticket       `json:"tickets" description:"Open help-desk tickets whose latest message came within the window, latest first (at most 200)."`
	Alerts        []Alert        `json:"alerts" description:"Operator alerts raised within the window, newest first (at most 200): a letter the provider reported bounced (email.bounced) or marked as spam (email.complained); a paid order the service would not grant (billing.payment_mismatch, billing.customer_conflict, billing.duplicate_order), to be refunded at the provider."`
}

// Alert is something the service raised for the operators to look at.
type Alert struct {
	ID        string         `json:"id"`
	Kind      string         `json:"kind" description:"What happened: email.bounced, email.complained, billing.payment_mismatch (an order's amount or currency is not its price), billing.customer_conflict (its customer or subscription is another house's) or billing.duplicate_order (a second order for a checkout already granted)."`
	Subject   string         `json:"subject" description:"One line for a person, e.g. \"A letter to a@b.c bounced (drip-day3)\"."`
	Detail    map[string]any `json:"detail" description:"What the service knew when it raised it; for a letter emailLogId, providerId, to, template, event and the provider's bounce object; for an order provider, orderId, organizationId, checkoutId, subscriptionId, customerId, amountCents, currency, reason and action."`
	CreatedAt ts.Time        `json:"createdAt"`
}

// Ticket is a help-desk ticket as the failures view shows it: what a
// person reported, beside what the machines failed at.
type Ticket struct {
	ID            string  `json:"id"`
	House         *House  `json:"house" description:"Null for a bridge escalation that named no house."`
	Subject       string  `json:"subject"`
	Source        string  `json:"source" enum:"app,bridge"`
	Messages      int     `json:"messages" description:"Messages the customer sees (internal notes left out)."`
	AwaitingDesk  bool    `json:"awaitingDesk" description:"The latest message is the customer's: the desk owes an answer."`
	LastMessageAt ts.Time `json:"lastMessageAt"`
	CreatedAt     ts.Time `json:"createdAt"`
}

// Frame is an asset of some house, as the operators' frames list shows it.
type Frame struct {
	ID        string  `json:"id"`
	House     House   `json:"house"`
	Name      string  `json:"name"`
	Tool      *string `json:"tool" description:"The tool that made it; null for a brought (uploaded) frame."`
	Origin    string  `json:"origin" enum:"made,brought"`
	Mime      string  `json:"mime"`
	Width     int     `json:"width"`
	Height    int     `json:"height"`
	URL       string  `json:"url" description:"The operators' file route of the frame."`
	CreatedAt ts.Time `json:"createdAt"`
}

// FrameFilter narrows the frames list.
type FrameFilter struct {
	House   string
	Tool    string
	AgeDays int    // 0: any age
	Origin  string // made, brought or ""
	Limit   int
}

// Frames is the frames answer: the frames and what the filters may name.
type Frames struct {
	Frames  []Frame      `json:"frames" description:"Newest first."`
	Filters FrameFilters `json:"filters"`
}

// FrameFilters are the values the frames filters take.
type FrameFilters struct {
	Houses  []House  `json:"houses" description:"Houses with at least one live frame."`
	Tools   []string `json:"tools" description:"Tools that made a live frame."`
	Origins []string `json:"origins"`
}

var (
	reUUID  = regexp.MustCompile(`(?i)\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`)
	reEmail = regexp.MustCompile(`[^\s@<>"]+@[^\s@<>"]+\.[A-Za-z]{2,}`)
	reHex   = regexp.MustCompile(`(?i)\b[0-9a-f]{16,}\b`)
	reNum   = regexp.MustCompile(`\d+(\.\d+)?`)
	reSpace = regexp.MustCompile(`\s+`)
)

// Normalize reduces an error text to what failures of the same cause
// share: ids, e-mail addresses, long hex strings and numbers become
// placeholders, spaces fold, case is kept, and the text is cut at 200
// characters.
func Normalize(s string) string {
	s = reUUID.ReplaceAllString(s, "<id>")
	s = reEmail.ReplaceAllString(s, "<email>")
	s = reHex.ReplaceAllString(s, "<hex>")
	s = reNum.ReplaceAllString(s, "<n>")
	s = strings.TrimSpace(reSpace.ReplaceAllString(s, " "))
	if r := []rune(s); len(r) > 200 {
		s = string(r[:200])
	}
	if s == "" {
		s = "(no error text)"
	}
	return s
}

// DayOf is the UTC day of t, as the daily costs name it.
func DayOf(t time.Time) string { return t.UTC().Format(time.DateOnly) }

// withLegal adds the legal values to a refusal (DECISIONS §1).
func withLegal(e *errs.Error, legal []string) *errs.Error { return errs.With(e, "legal", legal) }

// ensure is the check every operator use case starts with.
func ensure(_ context.Context, p auth.Principal) error { return p.MayOperate() }
