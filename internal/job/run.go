package job

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"studio/internal/ledger"
	"studio/internal/ts"
)

// RunGap is the longest pause between two same-tool jobs of one run (DECISIONS §8).
const RunGap = 10 * time.Minute

// RunAge is how long a run is kept; older runs are aged out (404).
const RunAge = 30 * 24 * time.Hour

// Run is a develop run: derived from jobs, never stored (SPEC §2).
type Run struct {
	ID           string    `json:"id" description:"run.<runId or oldest job id> or look.<lookId>.<stage>"`
	Kind         string    `json:"kind" enum:"lookbook,batch,single"`
	Tool         string    `json:"tool"`
	Title        string    `json:"title"`
	Stage        *string   `json:"stage" enum:"lock,variation"`
	LookID       *string   `json:"lookId"`
	State        string    `json:"state" enum:"queued,developing,done,failed,cancelled"`
	Counts       Counts    `json:"counts"`
	CreatedAt    ts.Time   `json:"createdAt"`
	FinishedAt   *ts.Time  `json:"finishedAt"`
	ThumbAssetID *string   `json:"thumbAssetId"`
	JobIDs       []string  `json:"jobIds"`
	AgainCost    *int64    `json:"againCost" description:"Tokens to develop the whole run again; null when a price is unknown."`
	jobs         []Job     // the run's jobs, oldest first
	last         time.Time // creation of the newest job, for the time gap
}

// Counts are a run's frames by state; always whole.
type Counts struct {
	Total     int `json:"total"`
	Done      int `json:"done"`
	Failed    int `json:"failed"`
	Cancelled int `json:"cancelled"`
	Active    int `json:"active"`
}

// Jobs returns the run's jobs, oldest first.
func (r *Run) Jobs() []Job { return r.jobs }

// Active reports whether frames of the run are still queued or rendering.
func (r *Run) Active() bool { return r.State == "queued" || r.State == "developing" }

// Group derives runs from a house's jobs: params.runId first, else the
// look and stage of a lookbook develop, else same-tool jobs each created
// within RunGap of the previous one. Runs come back newest first; each
// run's againCost is priced at prices.
func Group(jobs []Job, prices ledger.Prices) []*Run {
	sorted := slices.Clone(jobs)
	slices.SortStableFunc(sorted, func(a, b Job) int {
		if c := a.CreatedAt.Compare(b.CreatedAt.Time); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	byID := map[string]*Run{}
	open := map[string]*Run{} // tool -> the time-gap run still open
	var runs []*Run
	for _, j := range sorted {
		var r *Run
		switch key, kind, stage, look := runKey(j); {
		case key != "":
			r = byID[key]
			if r == nil {
				r = &Run{ID: key, Kind: kind, Tool: j.Tool}
				if stage != "" {
					r.Stage, r.LookID = &stage, &look
				}
				byID[key] = r
				runs = append(runs, r)
			}
		default:
			r = open[j.Tool]
			if r == nil || j.CreatedAt.Sub(r.last) > RunGap {
				r = &Run{ID: "run." + j.ID, Kind: "single", Tool: j.Tool}
				open[j.Tool] = r
				byID[r.ID] = r
				runs = append(runs, r)
			}
		}
		r.jobs = append(r.jobs, j)
		r.last = j.CreatedAt.Time
	}
	for _, r := range runs {
		r.derive(prices)
	}
	slices.SortStableFunc(runs, func(a, b *Run) int {
		if c := b.CreatedAt.Compare(a.CreatedAt.Time); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	})
	return runs
}

func runKey(j Job) (key, kind, stage, look string) {
	if id := j.Params["runId"]; id != "" {
		return "run." + id, "batch", "", ""
	}
	if look, stage := j.Params["lookId"], j.Params["stage"]; look != "" && (stage == "lock" || stage == "variation") {
		return "look." + look + "." + stage, "lookbook", stage, look
	}
	return "", "", "", ""
}

func (r *Run) derive(prices ledger.Prices) {
	r.JobIDs = make([]string, 0, len(r.jobs))
	var again int64
	var finished time.Time
	var thumb string
	started := false
	for _, j := range r.jobs {
		r.JobIDs = append(r.JobIDs, j.ID)
		r.Counts.Total++
		switch j.Status {
		case Done:
			r.Counts.Done++
			thumb = j.ResultAssetID
			started = true
		case Failed:
			r.Counts.Failed++
			started = true
		case Cancelled:
			r.Counts.Cancelled++
		case Running:
			r.Counts.Active++
			started = true
		default:
			r.Counts.Active++
		}
		if j.FinishedAt != nil && j.FinishedAt.After(finished) {
			finished = j.FinishedAt.Time
		}
		again += prices.Tool(j.Tool, j.Tier)
	}
	r.CreatedAt = r.jobs[0].CreatedAt
	if r.Kind == "single" && len(r.jobs) > 1 {
		r.Kind = "batch"
	}
	switch {
	case r.Counts.Active > 0 && started:
		r.State = "developing"
	case r.Counts.Active > 0:
		r.State = "queued"
	case r.Counts.Done > 0:
		r.State = "done"
	case r.Counts.Failed > 0:
		r.State = "failed"
	default:
		r.State = "cancelled"
	}
	if r.Counts.Active == 0 && !finished.IsZero() {
		f := ts.Of(finished)
		r.FinishedAt = &f
	}
	if thumb != "" {
		r.ThumbAssetID = &thumb
	}
	r.AgainCost = &again // every tool has a price (a default), so never null
	r.Title = title(r)
}

func title(r *Run) string {
	name := strings.ReplaceAll(r.Tool, "-", " ")
	if name != "" {
		name = strings.ToUpper(name[:1]) + name[1:]
	}
	if r.Kind == "lookbook" && r.Stage != nil {
		name = "Look " + *r.Stage
	}
	if n := r.Counts.Total; n > 1 {
		return name + " · " + strconv.Itoa(n) + " frames"
	}
	return name
}
