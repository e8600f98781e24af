package judge

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/job"
	"studio/internal/notify"
)

// OpinionStore is what opinions need from persistence.
type OpinionStore interface {
	// RaiseOpinion raises n once per settlement of a run (the run and its
	// newest frame): raised is false when it was raised already.
	RaiseOpinion(ctx context.Context, house, runID, newestJobID string, n notify.Notification) (raised bool, err error)
	// Notification returns one notification the user sees.
	Notification(ctx context.Context, house, user, id string) (notify.Notification, error)
	// VerdictsSince returns the house's verdicts written at or after the
	// instant.
	VerdictsSince(ctx context.Context, house string, after time.Time) ([]Verdict, error)
}

// Opinion is the facts behind a develop.opinion notification (SPEC
// §4.14), computed from stored rows when asked, never by a model.
type Opinion struct {
	Surface        string         `json:"surface" enum:"bar" description:"Where it is shown: the develop bar."`
	Moment         string         `json:"moment" enum:"ranking" description:"When: the judge ranked a settled run's frames."`
	Subject        string         `json:"subject" description:"The run's title."`
	Href           string         `json:"href" description:"The verdicts of the frames it is about."`
	Frames         []OpinionFrame `json:"frames" description:"One row per finding of each flagged frame, one per unreadable frame, in the run's order."`
	TokensReleased int64          `json:"tokensReleased" description:"Tokens the run's failed and cancelled frames released."`
	PatternCode    *Code          `json:"patternCode" description:"The code of this run's flagged frames seen in the most runs of the last 30 days (at least two); null when none recurs."`
	PatternWhere   *string        `json:"patternWhere" description:"Where that code was seen most often."`
	PatternRuns    int            `json:"patternRuns" description:"How many runs of the last 30 days had a flagged frame with patternCode."`
	FloorCode      *Code          `json:"floorCode" description:"The heaviest sure finding of the run's lowest-scored frame."`
	FloorWhere     *string        `json:"floorWhere"`
	Cost           int64          `json:"cost" description:"Tokens the run's developed frames cost."`
}

// OpinionFrame is one fact about a frame of the run.
type OpinionFrame struct {
	JobID      string      `json:"jobId"`
	Ordinal    int         `json:"ordinal" description:"The frame's place in the run, from 1."`
	Code       *Code       `json:"code" description:"One of the twelve defect codes; null for an unreadable frame."`
	Where      *string     `json:"where" description:"The finding's place; null for an unreadable frame."`
	Confidence *Confidence `json:"confidence" description:"sure or not-sure; null for an unreadable frame."`
	Unreadable bool        `json:"unreadable"`
}

// consider raises the run's opinion when its last verdict came in: the
// run of jobID has settled (nothing queued or rendering), every developed
// frame has its verdict, and some were flagged or unreadable. Failures are
// logged: an opinion never holds up a verdict.
func (s *Service) consider(ctx context.Context, house, jobID string) {
	if err := s.raise(ctx, house, jobID); err != nil {
		s.opts.Log.Error("opinion", "house", house, "job", jobID, "err", err)
	}
}

func (s *Service) raise(ctx context.Context, house, jobID string) error {
	jobs, err := s.store.JobsCreatedSince(ctx, house, s.now().Add(-job.RunAge))
	if err != nil {
		return err
	}
	var run *job.Run
	for _, r := range job.Group(jobs, s.prices) {
		if slices.Contains(r.JobIDs, jobID) {
			run = r
		}
	}
	if run == nil || run.Active() {
		return nil
	}
	verdicts, err := s.store.Verdicts(ctx, house, run.JobIDs)
	if err != nil {
		return err
	}
	byJob := map[string]Verdict{}
	for _, v := range verdicts {
		byJob[v.JobID] = v
	}
	var flagged []any
	for _, j := range run.Jobs() {
		v, ok := byJob[j.ID]
		if j.Status == job.Done && !ok {
			return nil // its verdict is still coming
		}
		if ok && (v.Flagged || v.Unreadable) {
			flagged = append(flagged, j.ID)
		}
	}
	if len(flagged) == 0 {
		return nil
	}
	ids := make([]any, len(run.JobIDs))
	for i, id := range run.JobIDs {
		ids[i] = id
	}
	n := notify.New(uuid.Must(uuid.NewV7()).String(), house, "", notify.KindDevelopOpinion, "run", run.ID, map[string]any{
		"runId": run.ID, "title": run.Title, "jobIds": ids, "flaggedJobIds": flagged,
	}, s.now())
	_, err = s.store.RaiseOpinion(ctx, house, run.ID, run.JobIDs[len(run.JobIDs)-1], n)
	return err
}

// Opinion answers the facts of a develop.opinion notification; any other
// notification, or one the caller does not see, is NOT_FOUND.
func (s *Service) Opinion(ctx context.Context, p auth.Principal, id string) (Opinion, error) {
	n, err := s.store.Notification(ctx, p.HouseID, p.UserID, id)
	if err != nil {
		return Opinion{}, err
	}
	if n.Kind != notify.KindDevelopOpinion {
		return Opinion{}, errs.NotFound
	}
	ids := strs(n.Payload["jobIds"])
	flaggedIDs := strs(n.Payload["flaggedJobIds"])
	title, _ := n.Payload["title"].(string)
	jobs, err := s.store.Jobs(ctx, p.HouseID, ids)
	if err != nil {
		return Opinion{}, err
	}
	verdicts, err := s.store.Verdicts(ctx, p.HouseID, ids)
	if err != nil {
		return Opinion{}, err
	}
	byJob := map[string]Verdict{}
	for _, v := range verdicts {
		byJob[v.JobID] = v
	}
	o := Opinion{Surface: "bar", Moment: "ranking", Subject: title, Frames: []OpinionFrame{},
		Href: "/api/toolkit/judge/verdicts?jobIds=" + strings.Join(flaggedIDs, ",")}
	for _, j := range jobs {
		switch j.Status {
		case job.Done:
			o.Cost += j.Cost
		case job.Failed, job.Cancelled:
			o.TokensReleased += j.Cost
		}
	}
	var floor *Verdict
	for i, id := range ids {
		v, ok := byJob[id]
		if !ok {
			continue
		}
		if v.Unreadable {
			o.Frames = append(o.Frames, OpinionFrame{JobID: id, Ordinal: i + 1, Unreadable: true})
			continue
		}
		if floor == nil || *v.Score < *floor.Score {
			floor = &v
		}
		if !v.Flagged {
			continue
		}
		for _, f := range v.Findings {
			o.Frames = append(o.Frames, OpinionFrame{JobID: id, Ordinal: i + 1, Code: ptr(f.Code), Where: ptr(f.Where), Confidence: ptr(f.Confidence)})
		}
	}
	if floor != nil {
		for _, f := range floor.Findings {
			if f.Weight() > 0 {
				o.FloorCode, o.FloorWhere = ptr(f.Code), ptr(f.Where)
				break
			}
		}
	}
	if err := s.pattern(ctx, p.HouseID, &o, flaggedIDs, byJob); err != nil {
		return Opinion{}, err
	}
	return o, nil
}

// pattern finds, among the codes of this run's flagged frames (sure
// findings), the one seen in flagged frames of the most runs of the last
// 30 days, when that is at least two runs; ties go to the heavier code.
func (s *Service) pattern(ctx context.Context, house string, o *Opinion, flagged []string, here map[string]Verdict) error {
	mine := map[Code]bool{}
	for _, id := range flagged {
		for _, f := range here[id].Findings {
			if f.Weight() > 0 {
				mine[f.Code] = true
			}
		}
	}
	if len(mine) == 0 {
		return nil
	}
	since := s.now().Add(-job.RunAge)
	jobs, err := s.store.JobsCreatedSince(ctx, house, since)
	if err != nil {
		return err
	}
	all, err := s.store.VerdictsSince(ctx, house, since)
	if err != nil {
		return err
	}
	byJob := map[string]Verdict{}
	for _, v := range all {
		byJob[v.JobID] = v
	}
	runs := map[Code]int{}
	wheres := map[Code]map[string]int{}
	for _, r := range job.Group(jobs, s.prices) {
		seen := map[Code]bool{}
		for _, id := range r.JobIDs {
			v, ok := byJob[id]
			if !ok || !v.Flagged {
				continue
			}
			for _, f := range v.Findings {
				if f.Weight() == 0 || !mine[f.Code] {
					continue
				}
				seen[f.Code] = true
				if wheres[f.Code] == nil {
					wheres[f.Code] = map[string]int{}
				}
				wheres[f.Code][f.Where]++
			}
		}
		for c := range seen {
			runs[c]++
		}
	}
	var best Code
	for _, c := range Codes() { // DECISIONS order breaks the last ties
		if runs[c] < 2 {
			continue
		}
		if best == "" || runs[c] > runs[best] || (runs[c] == runs[best] && c.Weight() > best.Weight()) {
			best = c
		}
	}
	if best == "" {
		return nil
	}
	where, most := "", 0
	for w, n := range wheres[best] {
		if n > most || (n == most && w < where) {
			where, most = w, n
		}
	}
	o.PatternCode, o.PatternWhere, o.PatternRuns = ptr(best), ptr(where), runs[best]
	return nil
}

func ptr[T any](v T) *T { return &v }

func strs(v any) []string {
	list, _ := v.([]any)
	out := []string{}
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
