package analyst

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"studio/internal/ops"
	"studio/internal/ts"
)

// Chat is the chat-quality answer: how the studio assistant's
// conversations went.
type Chat struct {
	Window
	Turns           int64   `json:"turns" description:"Turns (a message and the assistant's reply) in the window."`
	Sessions        int64   `json:"sessions" description:"Conversations with at least one turn in the window."`
	Houses          int64   `json:"houses" description:"How many houses talked to the assistant."`
	TurnsApplying   int64   `json:"turnsApplying" description:"Turns whose reply applied at least one mutation to the draft."`
	ApplyRate       float64 `json:"applyRate" description:"turnsApplying / turns."`
	EmptyReplies    int64   `json:"emptyReplies" description:"Turns answered with no text."`
	TurnsPerSession float64 `json:"turnsPerSession" description:"Mean turns of a conversation."`
	// SessionLengths buckets conversations by their turns in the window.
	SessionLengths []Count `json:"sessionLengths" description:"Conversations by turns in the window: 1, 2-3, 4-9, 10+."`
}

// ChatQuality reads the assistant's conversations of the last hours.
func (s *Service) ChatQuality(ctx context.Context, hours int) (Chat, error) {
	w, since := s.window(hours)
	c, lengths, err := s.store.AnalystChat(ctx, since)
	if err != nil {
		return Chat{}, err
	}
	c.Window = w
	c.ApplyRate = rate(c.TurnsApplying, c.Turns)
	if c.Sessions > 0 {
		c.TurnsPerSession = float64(int64(float64(c.Turns)/float64(c.Sessions)*100+0.5)) / 100
	}
	buckets := []Count{{Key: "1"}, {Key: "2-3"}, {Key: "4-9"}, {Key: "10+"}}
	for _, n := range lengths {
		switch {
		case n <= 1:
			buckets[0].Count++
		case n <= 3:
			buckets[1].Count++
		case n <= 9:
			buckets[2].Count++
		default:
			buckets[3].Count++
		}
	}
	c.SessionLengths = buckets
	return c, nil
}

// TemplateStatus is how many letters of one template ended in one status.
type TemplateStatus struct {
	Template string
	Status   string
	Count    int64
}

// TemplateCounts is one template's letters by status.
type TemplateCounts struct {
	Template string  `json:"template"`
	Total    int64   `json:"total"`
	ByStatus []Count `json:"byStatus" description:"Most first."`
}

// Deliverability is the deliverability answer: counts only.
type Deliverability struct {
	Window
	Total       int64            `json:"total" description:"Letters written in the window."`
	Refused     int64            `json:"refused" description:"Letters that failed, bounced or were complained about."`
	RefusedRate float64          `json:"refusedRate" description:"refused / total."`
	ByStatus    []Count          `json:"byStatus" description:"logged (console), sent, failed, or what the provider's delivery webhook reported (delivered, bounced, complained, ...); most first."`
	ByTemplate  []TemplateCounts `json:"byTemplate" description:"Most letters first."`
}

// refusedStatus is a letter status that counts as refused (as the
// operators' failures read counts it).
func refusedStatus(s string) bool { return s == "failed" || s == "bounced" || s == "complained" }

// Deliverability counts the letters of the last hours by status and template.
func (s *Service) Deliverability(ctx context.Context, hours int) (Deliverability, error) {
	w, since := s.window(hours)
	rows, err := s.store.AnalystLetters(ctx, since)
	if err != nil {
		return Deliverability{}, err
	}
	out := Deliverability{Window: w, ByStatus: []Count{}, ByTemplate: []TemplateCounts{}}
	status := map[string]int64{}
	tmpl := map[string]*TemplateCounts{}
	for _, r := range rows {
		out.Total += r.Count
		if refusedStatus(r.Status) {
			out.Refused += r.Count
		}
		status[r.Status] += r.Count
		t := tmpl[r.Template]
		if t == nil {
			t = &TemplateCounts{Template: r.Template, ByStatus: []Count{}}
			tmpl[r.Template] = t
		}
		t.Total += r.Count
		t.ByStatus = append(t.ByStatus, Count{Key: r.Status, Count: r.Count})
	}
	out.RefusedRate = rate(out.Refused, out.Total)
	out.ByStatus = counts(status)
	for _, t := range tmpl {
		sortCounts(t.ByStatus)
		out.ByTemplate = append(out.ByTemplate, *t)
	}
	slices.SortFunc(out.ByTemplate, func(a, b TemplateCounts) int {
		return cmp.Or(cmp.Compare(b.Total, a.Total), strings.Compare(a.Template, b.Template))
	})
	return out, nil
}

func counts(m map[string]int64) []Count {
	out := make([]Count, 0, len(m))
	for k, n := range m {
		out = append(out, Count{Key: k, Count: n})
	}
	sortCounts(out)
	return out
}

func sortCounts(cs []Count) {
	slices.SortFunc(cs, func(a, b Count) int { return cmp.Or(cmp.Compare(b.Count, a.Count), strings.Compare(a.Key, b.Key)) })
}

// FailedJob is a failed develop as the failures read groups it.
type FailedJob struct {
	House     string
	Tool      string
	Error     string
	CreatedAt time.Time
}

// FailureGroup is the failed develops sharing one normalised error text.
type FailureGroup struct {
	Error  string   `json:"error" description:"The error text with ids, numbers and addresses replaced by <id>, <n>, <email> (as the operators' failures read)."`
	Count  int64    `json:"count"`
	Houses int64    `json:"houses" description:"How many houses met it."`
	Tools  []string `json:"tools"`
	LastAt ts.Time  `json:"lastAt"`
}

// Failures is the failures answer.
type Failures struct {
	Window
	Develops    int64          `json:"develops" description:"Develops created in the window."`
	Failed      int64          `json:"failed" description:"Of those, develops that failed."`
	FailureRate float64        `json:"failureRate" description:"failed / develops."`
	Groups      []FailureGroup `json:"groups" description:"Largest group first."`
}

// maxFailed is how many failed develops a failures read groups at most.
const maxFailed = 5000

// Failures groups the failed develops of the last hours by their
// normalised error text (ops.Normalize), without naming a develop or a house.
func (s *Service) Failures(ctx context.Context, hours int) (Failures, error) {
	w, since := s.window(hours)
	jobs, all, err := s.store.AnalystFailed(ctx, since, maxFailed)
	if err != nil {
		return Failures{}, err
	}
	out := Failures{Window: w, Develops: all, Failed: int64(len(jobs)), Groups: []FailureGroup{}}
	type group struct {
		FailureGroup
		houses map[string]bool
	}
	groups := map[string]*group{}
	for _, j := range jobs { // newest first
		key := ops.Normalize(j.Error)
		g := groups[key]
		if g == nil {
			g = &group{FailureGroup: FailureGroup{Error: key, Tools: []string{}, LastAt: ts.Of(j.CreatedAt)}, houses: map[string]bool{}}
			groups[key] = g
		}
		g.Count++
		g.houses[j.House] = true
		if !slices.Contains(g.Tools, j.Tool) {
			g.Tools = append(g.Tools, j.Tool)
		}
	}
	for _, g := range groups {
		g.Houses = int64(len(g.houses))
		slices.Sort(g.Tools)
		out.Groups = append(out.Groups, g.FailureGroup)
	}
	slices.SortFunc(out.Groups, func(a, b FailureGroup) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), strings.Compare(a.Error, b.Error))
	})
	out.FailureRate = rate(out.Failed, out.Develops)
	return out, nil
}

// FunnelCounts are the sign-ups of a window and how many of their houses
// reached each step.
type FunnelCounts struct {
	SignUps, Uploaded, Developed, Looked, Paid int64
}

// FunnelStep is one step of the funnel.
type FunnelStep struct {
	Step         string  `json:"step" enum:"signup,first_upload,first_develop,first_look,paid"`
	Count        int64   `json:"count" description:"Sign-ups of the window whose own house reached this step (by now)."`
	RateOfSignup float64 `json:"rateOfSignups" description:"count / sign-ups."`
	RateOfPrev   float64 `json:"rateOfPrevious" description:"count / the previous step's count."`
}

// Funnel is the funnel answer.
type Funnel struct {
	Window
	Steps []FunnelStep `json:"steps" description:"signup, first_upload (an image brought into the library), first_develop, first_look, paid (a paid plan or a bought top-up), in order."`
}

// Funnel follows the sign-ups of the last hours through their first steps.
func (s *Service) Funnel(ctx context.Context, hours int) (Funnel, error) {
	w, since := s.window(hours)
	c, err := s.store.AnalystFunnel(ctx, since)
	if err != nil {
		return Funnel{}, err
	}
	names := []string{"signup", "first_upload", "first_develop", "first_look", "paid"}
	vals := []int64{c.SignUps, c.Uploaded, c.Developed, c.Looked, c.Paid}
	out := Funnel{Window: w, Steps: make([]FunnelStep, len(names))}
	for i, n := range names {
		prev := c.SignUps
		if i > 0 {
			prev = vals[i-1]
		}
		out.Steps[i] = FunnelStep{Step: n, Count: vals[i], RateOfSignup: rate(vals[i], c.SignUps), RateOfPrev: rate(vals[i], prev)}
	}
	return out, nil
}

// ToolUsage is one tool's develops in the window.
type ToolUsage struct {
	Tool      string `json:"tool"`
	Develops  int64  `json:"develops"`
	Done      int64  `json:"done"`
	Failed    int64  `json:"failed"`
	Cancelled int64  `json:"cancelled"`
	Houses    int64  `json:"houses" description:"How many houses used it."`
	Tokens    int64  `json:"tokens" description:"Tokens its done develops cost."`
}

// LaneUsage is one AI lane's calls in the window.
type LaneUsage struct {
	Lane   string `json:"lane"`
	Calls  int64  `json:"calls"`
	Failed int64  `json:"failed"`
}

// Usage is the product-usage answer.
type Usage struct {
	Window
	ActiveHouses int64       `json:"activeHouses" description:"Houses with at least one develop in the window."`
	Develops     int64       `json:"develops"`
	Uploads      int64       `json:"uploads" description:"Images brought into libraries (not made by a tool)."`
	Looks        int64       `json:"looks" description:"Looks composed."`
	Shares       int64       `json:"shares" description:"Share links minted."`
	ByTool       []ToolUsage `json:"byTool" description:"Most develops first."`
	ByTier       []Count     `json:"byTier" description:"Develops by quality tier (1k, 2k, 4k)."`
	Lanes        []LaneUsage `json:"lanes" description:"Calls to the AI endpoint by lane (classify, judge, chat, ...), most first."`
}

// ProductUsage reads what the houses used in the last hours.
func (s *Service) ProductUsage(ctx context.Context, hours int) (Usage, error) {
	w, since := s.window(hours)
	u, err := s.store.AnalystUsage(ctx, since)
	if err != nil {
		return Usage{}, err
	}
	u.Window = w
	return u, nil
}

// Intake is what an applicant answered about their house, without free text.
type Intake struct {
	Audience string   `json:"audience,omitempty"`
	Volume   string   `json:"volume,omitempty"`
	Draws    string   `json:"draws,omitempty"`
	AiToday  string   `json:"aiToday,omitempty"`
	Pain     string   `json:"pain,omitempty"`
	Cost     []string `json:"cost,omitempty"`
}

// Applicant is an applicant as the analyst sees it: no name, address,
// house name, links or free text.
type Applicant struct {
	ID         string   `json:"id" description:"The applicant's id: what approve and research take."`
	Status     string   `json:"status" enum:"pending,invited,declined"`
	HasWebsite bool     `json:"hasWebsite" description:"Whether research has a homepage to read."`
	Intake     Intake   `json:"intake" description:"The intake's short answers (free text left out); empty when none were given."`
	CreatedAt  ts.Time  `json:"createdAt"`
	DecidedAt  *ts.Time `json:"decidedAt"`
	Details    string   `json:"-"`
}

// Invitations is the invitations answer.
type Invitations struct {
	Window
	Status     string      `json:"status" enum:"pending,invited,declined,all"`
	ByStatus   []Count     `json:"byStatus" description:"Applicants who asked in the window, by status (every status, whatever the filter)."`
	Applicants []Applicant `json:"applicants" description:"Newest first, of the status asked, at most limit."`
}

// Invitations reads the applicant list of the last hours.
func (s *Service) Invitations(ctx context.Context, hours int, status string, limit int) (Invitations, error) {
	w, since := s.window(hours)
	if status == "all" {
		status = ""
	}
	list, by, err := s.store.AnalystApplicants(ctx, since, status, limit)
	if err != nil {
		return Invitations{}, err
	}
	m := map[string]int64{"pending": 0, "invited": 0, "declined": 0}
	for _, c := range by {
		m[c.Key] = c.Count
	}
	out := Invitations{Window: w, Status: cmp.Or(status, "all"), ByStatus: counts(m), Applicants: list}
	for i := range out.Applicants {
		var d struct {
			Intake *Intake `json:"intake"`
		}
		if json.Unmarshal([]byte(out.Applicants[i].Details), &d) == nil && d.Intake != nil {
			out.Applicants[i].Intake = *d.Intake
		}
	}
	return out, nil
}

// Learnings is the learnings answer: what the studio learned from the
// houses (memories and their answers to the judge), counted.
type Learnings struct {
	Window
	Memories       int64   `json:"memories" description:"Memories written in the window."`
	MemoryByStatus []Count `json:"memoryByStatus" description:"candidate, active, retired, superseded."`
	MemoryByScope  []Count `json:"memoryByScope" description:"house or user."`
	MemoryByKind   []Count `json:"memoryByKind" description:"Most first, at most limit."`
	Corrections    int64   `json:"corrections" description:"Memories written as a correction of another."`
	NotesSet       int64   `json:"standingNotesSet" description:"Standing notes set in the window."`
	Answers        int64   `json:"judgeAnswers" description:"Verdicts a house answered in the window."`
	Agreed         int64   `json:"agreed" description:"Answers agreeing with the judge."`
	Disagreed      int64   `json:"disagreed" description:"Answers disagreeing with the judge."`
	AgreementRate  float64 `json:"agreementRate" description:"agreed / (agreed + disagreed)."`
	Ratings        []Count `json:"ratings" description:"Ratings given, 1 to 5."`
}

// Learnings counts what the houses taught the studio in the last hours.
func (s *Service) Learnings(ctx context.Context, hours, limit int) (Learnings, error) {
	w, since := s.window(hours)
	l, err := s.store.AnalystLearnings(ctx, since, limit)
	if err != nil {
		return Learnings{}, err
	}
	l.Window = w
	l.AgreementRate = rate(l.Agreed, l.Agreed+l.Disagreed)
	return l, nil
}

// Rejections is the rejections answer: what the judge refused.
type Rejections struct {
	Window
	Verdicts    int64   `json:"verdicts" description:"Verdicts written in the window."`
	Flagged     int64   `json:"flagged" description:"Frames the judge flagged (score under 70)."`
	Unreadable  int64   `json:"unreadable" description:"Frames the judge could not read."`
	RetryFutile int64   `json:"retryFutile" description:"Verdicts saying a redraw cannot mend the frame (the defect is in the input, or the local engine can mend none of it): a redraw of those is refused."`
	FlagRate    float64 `json:"flagRate" description:"flagged / verdicts."`
	ByDefect    []Count `json:"byDefect" description:"Sure findings by defect code, most first, at most limit."`
	Disagreed   int64   `json:"houseDisagreed" description:"Verdicts of the window a house answered as wrong."`
}

// Rejections counts what the judge refused in the last hours.
func (s *Service) Rejections(ctx context.Context, hours, limit int) (Rejections, error) {
	w, since := s.window(hours)
	r, findings, err := s.store.AnalystRejections(ctx, since)
	if err != nil {
		return Rejections{}, err
	}
	r.Window = w
	r.FlagRate = rate(r.Flagged, r.Verdicts)
	defects := map[string]int64{}
	for _, f := range findings {
		var fs []struct {
			Code       string `json:"code"`
			Confidence string `json:"confidence"`
		}
		if json.Unmarshal([]byte(f), &fs) != nil {
			continue
		}
		for _, x := range fs {
			if x.Confidence != "not-sure" {
				defects[x.Code]++
			}
		}
	}
	r.ByDefect = counts(defects)
	if len(r.ByDefect) > limit {
		r.ByDefect = r.ByDefect[:limit]
	}
	return r, nil
}

// DayCounts is what happened on one UTC day.
type DayCounts struct {
	Day      string `json:"day" description:"The UTC day, YYYY-MM-DD."`
	Joined   int64  `json:"joined" description:"Seats taken (a sign-up's own house counts its founder)."`
	Uploads  int64  `json:"uploads"`
	Develops int64  `json:"develops"`
	Failed   int64  `json:"failed"`
	Looks    int64  `json:"looks"`
	Verdicts int64  `json:"verdicts"`
	Shares   int64  `json:"shares"`
}

// Story is the longstory answer.
type Story struct {
	Window
	OrganizationID *string     `json:"organizationId" description:"The house the story is narrowed to; null: every house together."`
	Days           []DayCounts `json:"days" description:"Newest day first, days with nothing left out, at most limit."`
}

// Longstory tells the last hours day by day, for every house together or
// for one.
func (s *Service) Longstory(ctx context.Context, hours, limit int, house string) (Story, error) {
	w, since := s.window(hours)
	out := Story{Window: w}
	if house != "" {
		ok, err := s.store.HouseExists(ctx, house)
		if err != nil {
			return Story{}, err
		}
		if !ok {
			return Story{}, ErrOrgNotFound
		}
		out.OrganizationID = &house
	}
	days, err := s.store.AnalystStory(ctx, since, house)
	if err != nil {
		return Story{}, err
	}
	slices.SortFunc(days, func(a, b DayCounts) int { return strings.Compare(b.Day, a.Day) })
	if len(days) > limit {
		days = days[:limit]
	}
	out.Days = days
	return out, nil
}

// Experiment would be an experiment the service runs; it runs none.
type Experiment struct {
	ID     string `json:"id"`
	Status string `json:"status" enum:"complete,draft,exposure_frozen,paused,running,stopped"`
}

// Experiments is the experiments answer.
type Experiments struct {
	Experiments []Experiment `json:"experiments" description:"Always empty: the service runs no experiments (every house gets the same product)."`
	Note        string       `json:"note"`
}

// FeatureFlag would be a feature flag; the service has none.
type FeatureFlag struct {
	Key    string `json:"key"`
	Active bool   `json:"active"`
}

// FeatureFlags is the feature-flags answer.
type FeatureFlags struct {
	Flags []FeatureFlag `json:"flags" description:"Always empty: the service has no feature flags; what differs between installations are its settings (studio serve --help)."`
	Note  string        `json:"note"`
}

// Recording would be a recorded session; the service records none.
type Recording struct {
	ID        string  `json:"id"`
	CreatedAt ts.Time `json:"createdAt"`
}

// Recordings is the recordings answer.
type Recordings struct {
	Window
	Recordings []Recording `json:"recordings" description:"Always empty: the service records no sessions."`
	Note       string      `json:"note"`
}

// Analysis is a recording's analysis.
type Analysis struct {
	RecordingID string  `json:"recordingId"`
	State       string  `json:"state" enum:"not_generated" description:"not_generated: no analysis is stored (the service records no sessions, so none ever is)."`
	Analysis    *string `json:"analysis" description:"The stored analysis; null while not generated."`
}

// Notes of the honest empty answers.
const (
	noExperiments = "The service runs no experiments: every house gets the same product."
	noFlags       = "The service has no feature flags: installations differ only by their settings."
	noRecordings  = "The service records no sessions, so there is nothing to list or analyse."
)

// Experiments lists the experiments: none.
func (s *Service) Experiments() Experiments {
	return Experiments{Experiments: []Experiment{}, Note: noExperiments}
}

// FeatureFlags lists the feature flags: none.
func (s *Service) FeatureFlags() FeatureFlags {
	return FeatureFlags{Flags: []FeatureFlag{}, Note: noFlags}
}

// Recordings lists the recordings of the last hours: none.
func (s *Service) Recordings(hours int) Recordings {
	w, _ := s.window(hours)
	return Recordings{Window: w, Recordings: []Recording{}, Note: noRecordings}
}

// Analysis answers a recording's analysis: not generated.
func (s *Service) Analysis(id string) Analysis {
	return Analysis{RecordingID: id, State: "not_generated"}
}
