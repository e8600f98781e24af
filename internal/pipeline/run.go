package pipeline

import (
	"fmt"
	"strings"

	"studio/internal/job"
	"studio/internal/ledger"
	"studio/internal/ts"
)

// FrameState is where a planned frame's develop stands in the store.
type FrameState string

const (
	Waiting FrameState = "waiting" // held; its develop is queued when the step before lands
	Started FrameState = "started" // its develop exists (the job's status says the rest)
	Dropped FrameState = "dropped" // released unrun: an earlier step failed or the run was cancelled
)

// Frame is one planned frame of a run: one step of one asset, with the
// develop's id chosen and its hold taken when the run started.
type Frame struct {
	AssetIndex    int
	Step          int
	SourceAssetID string
	JobID         string
	HoldID        string
	Tokens        int64
	State         FrameState

	// Read back with the run.
	HoldState     ledger.HoldState
	JobStatus     job.Status // "" before the develop exists
	ResultAssetID string
	ResultURL     string
	Error         *string
}

// Record is a stored run with its frames, by asset then step.
type Record struct {
	ID             string
	HouseID        string
	UserID         string
	PresetID       string
	Name           string
	Steps          []Step
	AssetIDs       []string
	IdempotencyKey string
	Fingerprint    string
	Cost           int64
	CancelledAt    *ts.Time
	CreatedAt      ts.Time
	Frames         []Frame
}

// Advance is what follows when one of a run's develops settles.
type Advance struct {
	Start *Frame  // the frame whose develop is queued now, on its hold, fed the settled step's frame
	Drop  []Frame // frames released unrun: the step did not land, or the run was cancelled
}

// After decides how the run moves on once the develop of step of the
// asset at index settled with status. Only the asset's later frames still
// waiting are concerned (none: nothing follows). A step that landed, in a
// run not cancelled, starts the step after it; one that failed or was
// cancelled, or any step of a cancelled run, releases them all. A landed
// step whose next waiting frame is not the step right after it is an
// inconsistent run: an error, and nothing moves.
func After(rec Record, index, step int, status job.Status) (Advance, error) {
	var later []Frame
	for _, f := range rec.Frames {
		if f.AssetIndex == index && f.Step > step && f.State == Waiting {
			later = append(later, f)
		}
	}
	switch {
	case len(later) == 0:
		return Advance{}, nil
	case status != job.Done || rec.CancelledAt != nil:
		return Advance{Drop: later}, nil
	case later[0].Step != step+1:
		return Advance{}, fmt.Errorf("pipeline run %s asset %d: step %d landed but step %d waits", rec.ID, index, step, later[0].Step)
	}
	return Advance{Start: &later[0]}, nil
}

// NextJob is the develop of frame f (a step after the first) fed with
// input, the asset the step before made: the run's user, the step's tool,
// tier and options, the frame's chosen id and its hold's price.
func NextJob(rec Record, f Frame, input string, now ts.Time) job.Job {
	s := rec.Steps[f.Step]
	inputs := []job.Input{{Role: "image", AssetID: input}}
	params := s.params(rec.ID)
	return job.Job{
		ID: f.JobID, Tool: s.Tool, Status: job.Queued, CreatedAt: now, HouseID: rec.HouseID, UserID: rec.UserID,
		Tier: s.Quality, Params: params, Inputs: inputs, Cost: f.Tokens,
		Fingerprint: job.Fingerprint(s.Tool, s.Quality, []string{"image:asset:" + input}, params),
	}
}

// Run is a pipeline run as the routes answer it.
type Run struct {
	ID           string          `json:"id"`
	Name         string          `json:"name"`
	PresetID     *string         `json:"presetId" description:"The preset the plan came from; null for a plan sent inline."`
	Steps        []Step          `json:"steps"`
	State        string          `json:"state" enum:"queued,developing,done,failed,cancelled"`
	DevelopRunID string          `json:"developRunId" description:"The develop run (GET /api/toolkit/develops) that groups the run's frames."`
	Counts       Counts          `json:"counts"`
	Tokens       Tokens          `json:"tokens"`
	CreatedAt    ts.Time         `json:"createdAt"`
	CancelledAt  *ts.Time        `json:"cancelledAt"`
	Assets       []AssetProgress `json:"assets" description:"Each asset's progress through the steps, in the order sent."`
}

// Counts are a run's assets by state.
type Counts struct {
	Assets    int `json:"assets"`
	Done      int `json:"done" description:"Assets through every step."`
	Failed    int `json:"failed" description:"Assets a step failed for; their later steps were released."`
	Cancelled int `json:"cancelled" description:"Assets stopped by a cancel."`
	Active    int `json:"active" description:"Assets with a step queued, rendering or waiting."`
}

// Tokens are what a run held, spent and released.
type Tokens struct {
	Held     int64 `json:"held" description:"What the run held when it started: every planned frame."`
	Spent    int64 `json:"spent" description:"Posted: the frames that ran."`
	Released int64 `json:"released" description:"Voided: frames that failed, were cancelled or could no longer run."`
	Pending  int64 `json:"pending" description:"Still held: frames queued, rendering or waiting."`
}

// AssetProgress is one asset's way through the steps.
type AssetProgress struct {
	AssetID       string         `json:"assetId"`
	State         string         `json:"state" enum:"queued,developing,done,failed,cancelled"`
	Step          int            `json:"step" description:"The index (from 0) of the step the asset is at: the last one started."`
	ResultAssetID *string        `json:"resultAssetId" description:"The last step's frame once the asset is done."`
	ResultURL     *string        `json:"resultUrl" description:"The absolute URL of that frame's bytes."`
	Steps         []StepProgress `json:"steps"`
}

// StepProgress is one step of one asset.
type StepProgress struct {
	Step          int     `json:"step"`
	Tool          string  `json:"tool"`
	JobID         *string `json:"jobId" description:"The develop once queued; null while the step waits for the one before."`
	Status        string  `json:"status" enum:"waiting,queued,running,done,failed,cancelled,dropped" description:"waiting: held, queued when the step before lands; dropped: released unrun."`
	Tokens        int64   `json:"tokens"`
	ResultAssetID *string `json:"resultAssetId"`
	ResultURL     *string `json:"resultUrl"`
	Error         *string `json:"error"`
}

// View derives a run's answer from its record.
func View(rec Record) Run {
	r := Run{ID: rec.ID, Name: rec.Name, Steps: rec.Steps, DevelopRunID: "run." + rec.ID,
		CreatedAt: rec.CreatedAt, CancelledAt: rec.CancelledAt, Assets: make([]AssetProgress, len(rec.AssetIDs))}
	if rec.PresetID != "" {
		id := rec.PresetID
		r.PresetID = &id
	}
	for i, a := range rec.AssetIDs {
		r.Assets[i] = AssetProgress{AssetID: a, Steps: make([]StepProgress, 0, len(rec.Steps))}
	}
	started := false
	for _, f := range rec.Frames {
		sp := StepProgress{Step: f.Step, Tool: rec.Steps[f.Step].Tool, Tokens: f.Tokens, Error: f.Error}
		switch {
		case f.State == Waiting:
			sp.Status = "waiting"
		case f.State == Dropped:
			sp.Status = "dropped"
		default:
			id := f.JobID
			sp.JobID, sp.Status = &id, string(f.JobStatus)
		}
		if f.ResultAssetID != "" {
			id, url := f.ResultAssetID, f.ResultURL
			sp.ResultAssetID, sp.ResultURL = &id, &url
		}
		switch f.HoldState {
		case ledger.Posted:
			r.Tokens.Spent += f.Tokens
		case ledger.Voided:
			r.Tokens.Released += f.Tokens
		default:
			r.Tokens.Pending += f.Tokens
		}
		r.Tokens.Held += f.Tokens
		a := &r.Assets[f.AssetIndex]
		if f.State == Started {
			a.Step = f.Step
			if f.JobStatus != job.Queued {
				started = true
			}
		}
		a.Steps = append(a.Steps, sp)
	}
	r.Counts.Assets = len(r.Assets)
	for i := range r.Assets {
		a := &r.Assets[i]
		a.State = assetState(a.Steps)
		switch a.State {
		case "done":
			r.Counts.Done++
			last := a.Steps[len(a.Steps)-1]
			a.ResultAssetID, a.ResultURL = last.ResultAssetID, last.ResultURL
		case "failed":
			r.Counts.Failed++
		case "cancelled":
			r.Counts.Cancelled++
		default:
			r.Counts.Active++
		}
	}
	switch {
	case r.Counts.Active > 0 && started:
		r.State = "developing"
	case r.Counts.Active > 0:
		r.State = "queued"
	case rec.CancelledAt != nil:
		r.State = "cancelled"
	case r.Counts.Done == 0 && r.Counts.Failed > 0:
		r.State = "failed"
	default:
		r.State = "done"
	}
	return r
}

// assetState reads an asset's state from its steps: failed when a step
// failed, cancelled when one was cancelled or dropped, done when every
// step is, developing once a develop of it started, else queued.
func assetState(steps []StepProgress) string {
	active, done, begun := false, 0, false
	stopped := ""
	for _, s := range steps {
		switch s.Status {
		case "failed":
			stopped = "failed"
		case "cancelled", "dropped":
			if stopped == "" {
				stopped = "cancelled"
			}
		case "done":
			done++
			begun = true
		case "running":
			active, begun = true, true
		case "queued", "waiting":
			active = true
		}
	}
	switch {
	case active && begun:
		return "developing"
	case active:
		return "queued"
	case stopped != "":
		return stopped
	case done == len(steps):
		return "done"
	}
	return "cancelled"
}

// title names a plan by its tools: "Remove background → Packshot → Upscale".
func title(steps []Step) string {
	names := make([]string, len(steps))
	for i, s := range steps {
		n := strings.ReplaceAll(s.Tool, "-", " ")
		names[i] = strings.ToUpper(n[:1]) + n[1:]
	}
	return strings.Join(names, " → ")
}
