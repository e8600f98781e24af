package ops_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"studio/internal/auth"
	"studio/internal/job"
	"studio/internal/ledger"
	"studio/internal/ops"
	"studio/internal/ts"
)

// failedJobs is a store holding failed develops; Failures reads nothing
// else but the (empty) letters, tickets and alerts.
type failedJobs struct {
	ops.Store // the methods Failures does not call are never reached
	jobs      []job.Job
}

func (s failedJobs) JobsAcross(_ context.Context, _ time.Time, status job.Status, _ int) ([]job.Job, error) {
	var out []job.Job
	for _, j := range s.jobs {
		if j.Status == status {
			out = append(out, j)
		}
	}
	return out, nil
}

func (failedJobs) RefusedLetters(context.Context, time.Time, int) ([]ops.Letter, error) {
	return nil, nil
}
func (failedJobs) TicketsAcross(context.Context, time.Time, int) ([]ops.Ticket, error) {
	return nil, nil
}
func (failedJobs) AlertsSince(context.Context, time.Time, int) ([]ops.Alert, error) { return nil, nil }

// TestFailuresShowTimedOutDevelops: develops that passed their render
// deadline (issue 27), whatever their tool's deadline, are one group of
// the operators' failures view under their shared sentence, counted with
// the houses and tools that met it, beside the other failures.
func TestFailuresShowTimedOutDevelops(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	failed := func(id, house, tool string, f job.Failure) job.Job {
		return job.Job{ID: id, HouseID: house, Tool: tool, Status: job.Failed, Tier: ledger.Tier1K,
			Error: &f.Reason, ErrorCode: &f.Code, CreatedAt: ts.Of(now.Add(-time.Hour))}
	}
	refused := job.Failure{Code: "PROVIDER_REFUSED", Reason: "FASHN's safety check refused this picture, so no frame was made. Nothing was charged."}
	store := failedJobs{jobs: []job.Job{
		failed("j1", "h1", "generate-character", job.TimedOut(5*time.Minute)),
		failed("j2", "h2", "generate-character", job.TimedOut(10*time.Minute)),
		failed("j3", "h2", "lookbook-video", job.TimedOut(30*time.Minute)),
		failed("j4", "h1", "tryon", refused),
		{ID: "j5", HouseID: "h1", Tool: "tryon", Status: job.Done},
	}}
	s := ops.NewService(store, nil, nil, nil, ledger.Prices{}, func() time.Time { return now })
	got, err := s.Failures(t.Context(), auth.Principal{UserID: "op", PlatformAdmin: true, Cred: auth.CredSession}, 24)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Groups) != 2 {
		t.Fatalf("groups %+v; want the timed-out develops and the refusal", got.Groups)
	}
	g := got.Groups[0]
	want := "Timed out after <n> s: the provider did not finish in time, so the develop was stopped. Nothing was charged."
	if g.Error != want || g.Count != 3 || g.Houses != 2 || !slices.Equal(g.Tools, []string{"generate-character", "lookbook-video"}) ||
		!slices.Equal(g.SampleJobs, []string{"j1", "j2", "j3"}) {
		t.Errorf("first group %+v; want %q, 3 develops of 2 houses, both tools", g, want)
	}
	if g := got.Groups[1]; g.Error != refused.Reason || g.Count != 1 {
		t.Errorf("second group %+v; want the refusal once", g)
	}
	if _, err := s.Failures(t.Context(), auth.Principal{UserID: "u", Cred: auth.CredSession}, 24); err == nil {
		t.Error("a customer reads the failures view")
	}
}
