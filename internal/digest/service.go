package digest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"studio/internal/ai"
	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/ops"
	"studio/internal/ts"
)

// ErrBadHistory refuses a history outside 0 to MaxHistory.
var ErrBadHistory = errs.New(errs.KindInvalid, "BAD_HISTORY", "history must be a whole number from 0 to 20.")

// maxFailed is how many failed develops of one window are grouped at most.
const maxFailed = 5000

// Service is the analyst digest's use cases.
type Service struct {
	store  Store
	writer Writer // nil or unconfigured: rule-written headlines
	now    func() time.Time

	mu sync.Mutex // one run computes at a time in this process: a second press waits and gets the first one's digest
}

// NewService returns the digest's service; writer may be nil.
func NewService(store Store, writer Writer, now func() time.Time) *Service {
	return &Service{store: store, writer: writer, now: now}
}

// Read answers the latest digest, up to history previous digests'
// headlines and the cadence, and logs the read. It computes nothing.
func (s *Service) Read(ctx context.Context, p auth.Principal, history int) (View, error) {
	if err := p.MayOperate(); err != nil {
		return View{}, err
	}
	if history < 0 || history > MaxHistory {
		return View{}, ErrBadHistory
	}
	v := View{Previous: []Previous{}, History: history}
	cad, err := s.store.AnalystCadence(ctx)
	if err != nil {
		return View{}, err
	}
	v.Cadence = cad
	d, ok, err := s.store.LatestDigest(ctx)
	if err != nil {
		return View{}, err
	}
	read := Read{ID: uuid.Must(uuid.NewV7()).String(), UserID: p.UserID, History: history, At: s.now()}
	if ok {
		v.Digest = &d
		read.DigestID = d.ID
		if history > 0 {
			if v.Previous, err = s.store.PreviousDigests(ctx, d.ID, history); err != nil {
				return View{}, err
			}
		}
	}
	if err := s.store.LogDigestRead(ctx, read); err != nil {
		return View{}, err
	}
	return v, nil
}

// SetCadence stores the cadence's hours and, when given, whether it runs
// on its own.
func (s *Service) SetCadence(ctx context.Context, p auth.Principal, in CadenceRequest) (Cadence, error) {
	if err := p.MayOperate(); err != nil {
		return Cadence{}, err
	}
	if err := in.Validate(); err != nil {
		return Cadence{}, err
	}
	return s.store.SetAnalystCadence(ctx, *in.Hours, in.Enabled, p.UserID, s.now())
}

// Run answers the latest digest when it is younger than the cadence's
// hours (nothing computed, no model asked), else computes and stores a new
// one.
func (s *Service) Run(ctx context.Context, p auth.Principal) (RunResult, error) {
	if err := p.MayOperate(); err != nil {
		return RunResult{}, err
	}
	// The model's answer is paid for once asked: a client that goes away
	// does not lose the digest.
	ctx = context.WithoutCancel(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	cad, err := s.store.AnalystCadence(ctx)
	if err != nil {
		return RunResult{}, err
	}
	now := s.now()
	window := time.Duration(cad.Hours) * time.Hour
	latest, ok, err := s.store.LatestDigest(ctx)
	if err != nil {
		return RunResult{}, err
	}
	if ok {
		fresh := latest.CreatedAt.Add(window)
		if now.Before(fresh) {
			return RunResult{Reused: true, FreshAfter: ts.Of(fresh), Digest: latest}, nil
		}
	}
	d, err := s.compute(ctx, now, cad.Hours, p.UserID)
	if err != nil {
		return RunResult{}, err
	}
	return RunResult{FreshAfter: ts.Of(d.CreatedAt.Add(window)), Digest: d}, nil
}

// RunDue is the workers' automatic run: when the cadence is enabled and
// the latest digest (if any) is at least its hours old, one instance
// claims the run and computes a digest. It reports whether it computed.
func (s *Service) RunDue(ctx context.Context) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cad, err := s.store.AnalystCadence(ctx)
	if err != nil || !cad.Enabled {
		return false, err
	}
	now := s.now()
	latest, ok, err := s.store.LatestDigest(ctx)
	if err != nil {
		return false, err
	}
	if ok && now.Before(latest.CreatedAt.Add(time.Duration(cad.Hours)*time.Hour)) {
		return false, nil
	}
	won, err := s.store.ClaimAutoDigest(ctx, now)
	if err != nil || !won {
		return false, err
	}
	if _, err := s.compute(ctx, now, cad.Hours, ""); err != nil {
		return false, err
	}
	return true, nil
}

// compute reads the facts of the window ending now and of the one before,
// writes the digest and stores it.
func (s *Service) compute(ctx context.Context, now time.Time, hours int, by string) (Digest, error) {
	span := time.Duration(hours) * time.Hour
	start, before := now.Add(-span), now.Add(-2*span)
	cur, err := s.store.AnalystWindow(ctx, start, now)
	if err != nil {
		return Digest{}, err
	}
	prev, err := s.store.AnalystWindow(ctx, before, start)
	if err != nil {
		return Digest{}, err
	}
	curFailed, err := s.store.FailedDevelops(ctx, start, now, maxFailed)
	if err != nil {
		return Digest{}, err
	}
	prevFailed, err := s.store.FailedDevelops(ctx, before, start, maxFailed)
	if err != nil {
		return Digest{}, err
	}
	d := Digest{
		ID: uuid.Must(uuid.NewV7()).String(), CreatedAt: ts.Of(now), WindowHours: hours,
		WindowStart: ts.Of(start), WindowEnd: ts.Of(now), ReadableVerdicts: cur.ReadableVerdicts,
		VerdictFloor: VerdictFloor, HeadlinesBy: "rules", Caveats: []Caveat{},
	}
	var capped bool
	d.Movements, capped = movements(cur, prev, curFailed, prevFailed)
	d.Actions = actions(d.Movements, cur, prev)
	d.Thin = cur.ReadableVerdicts < VerdictFloor
	if d.Thin {
		d.Caveats = append(d.Caveats, Caveat{Code: "THIN_DATA", Text: fmt.Sprintf(
			"Only %d readable verdicts in the window (the floor is %d): the movements are indicative and no model was asked.", cur.ReadableVerdicts, VerdictFloor)})
	}
	if prev == (Window{}) && len(prevFailed) == 0 {
		d.Caveats = append(d.Caveats, Caveat{Code: "NO_PREVIOUS_DATA", Text: "Nothing was stored in the window before this one: every movement starts from zero."})
	}
	if capped {
		d.Caveats = append(d.Caveats, Caveat{Code: "GROUPS_CAPPED", Text: fmt.Sprintf("Only the %d largest failure groups are compared.", maxGroups)})
	}
	st := Stored{Digest: d, RunBy: by}
	switch {
	case d.Thin:
	case s.writer == nil || !s.writer.Configured():
		st.Caveats = append(st.Caveats, Caveat{Code: "AI_NOT_CONFIGURED", Text: "No AI endpoint is configured: the headlines are written by rules."})
	default:
		s.write(ctx, &st)
	}
	if st.HeadlinesBy == "rules" {
		st.Headlines = ruleHeadlines(st.Digest)
	}
	if err := s.store.InsertDigest(ctx, st); err != nil {
		return Digest{}, err
	}
	return st.Digest, nil
}

// facts is what the model is told: the computed movements, actions and
// caveats, without a house, a person, an address or an id.
type facts struct {
	WindowHours      int      `json:"windowHours"`
	ReadableVerdicts int      `json:"readableVerdicts"`
	Movements        []fact   `json:"movements"`
	ProposedActions  []string `json:"proposedActions"`
	Caveats          []string `json:"caveats"`
}

type fact struct {
	Metric    string   `json:"metric"`
	Label     string   `json:"label"`
	Group     *string  `json:"errorText,omitempty"`
	Houses    *int     `json:"housesAffected,omitempty"`
	Current   float64  `json:"current"`
	Previous  float64  `json:"previous"`
	ChangePct *float64 `json:"changePct"`
}

// headlineSchema is the answer asked for.
var headlineSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"headlines": map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
	},
	"required":             []string{"headlines"},
	"additionalProperties": false,
}

const headlinePrompt = `You write the headlines of the weekly operators' digest of an imagery studio service.
The user message is JSON: the facts computed from the service's stored data, each metric over the window and the window before it.
Write 1 to 5 headlines, most important first, each one sentence of at most 160 characters.
Use only these facts: do not invent numbers, causes, customers or names. Answer {"headlines": [...]}.`

// write asks the model for the headlines; a failure leaves the rules'
// headlines and says so in a caveat. Whatever the provider stated the call
// cost is kept either way.
func (s *Service) write(ctx context.Context, st *Stored) {
	f := facts{WindowHours: st.WindowHours, ReadableVerdicts: st.ReadableVerdicts, Movements: []fact{}, ProposedActions: []string{}, Caveats: []string{}}
	for _, m := range st.Movements {
		f.Movements = append(f.Movements, fact{Metric: m.Metric, Label: m.Label, Group: m.Group, Houses: m.Houses,
			Current: m.Current, Previous: m.Previous, ChangePct: m.ChangePct})
	}
	for _, a := range st.Actions {
		f.ProposedActions = append(f.ProposedActions, a.Text)
	}
	for _, c := range st.Caveats {
		f.Caveats = append(f.Caveats, c.Text)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // "<id>", not "\u003cid\u003e"
	if err := enc.Encode(f); err != nil {
		return
	}
	body := bytes.TrimSpace(buf.Bytes())
	var out struct {
		Headlines []string `json:"headlines"`
	}
	model := s.writer.Model()
	u, err := s.writer.JSON(ctx, ai.Request{System: headlinePrompt, User: string(body), Schema: headlineSchema,
		SchemaName: "digest_headlines", MaxTokens: 600}, &out)
	if u.Model != "" {
		model = u.Model
	}
	st.Model = &model
	st.CostUSD, st.PromptTokens, st.CompletionTokens = u.CostUSD, u.PromptTokens, u.CompletionTokens
	var lines []string
	if err == nil {
		lines = cleanHeadlines(out.Headlines)
		if len(lines) == 0 {
			err = errors.New("the answer held no headline")
		}
	}
	if err != nil {
		code := "AI_FAILED"
		if e, ok := errs.As(err); ok {
			code = e.Code
		}
		st.Caveats = append(st.Caveats, Caveat{Code: "MODEL_FAILED", Text: "The AI endpoint did not write the headlines (" + code + "): they are written by rules."})
		return
	}
	st.HeadlinesBy, st.Headlines = "model", lines
}

func cleanHeadlines(in []string) []string {
	out := []string{}
	for _, h := range in {
		h = strings.Join(strings.Fields(h), " ")
		if h == "" {
			continue
		}
		if r := []rune(h); len(r) > maxHeadline {
			h = string(r[:maxHeadline])
		}
		out = append(out, h)
		if len(out) == maxHeadlines {
			break
		}
	}
	return out
}

// move compares one value window over window.
func move(metric, label string, cur, prev float64) Movement {
	m := Movement{Metric: metric, Label: label, Current: round(cur), Previous: round(prev), Change: round(cur - prev), Direction: "flat"}
	if prev != 0 {
		pct := round((cur - prev) / prev * 100)
		m.ChangePct = &pct
	}
	switch {
	case m.Change > 0:
		m.Direction = "up"
	case m.Change < 0:
		m.Direction = "down"
	}
	return m
}

func round(x float64) float64 { return math.Round(x*10) / 10 }

// groupOf folds failed develops by their normalised error text.
func groupOf(fs []Failed) map[string]map[string]int {
	out := map[string]map[string]int{}
	for _, f := range fs {
		k := ops.Normalize(f.Error)
		if out[k] == nil {
			out[k] = map[string]int{}
		}
		out[k][f.House]++
	}
	return out
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// movements are the window-over-window comparisons, and whether failure
// groups beyond maxGroups were left out.
func movements(cur, prev Window, curFailed, prevFailed []Failed) ([]Movement, bool) {
	out := []Movement{
		move("develops", "Develops submitted", float64(cur.Develops), float64(prev.Develops)),
		move("failed_develops", "Develops failed", float64(cur.FailedDevelops), float64(prev.FailedDevelops)),
	}
	if cur.Develops > 0 && prev.Develops > 0 {
		out = append(out, move("failure_rate", "Failure rate (% of develops)",
			100*float64(cur.FailedDevelops)/float64(cur.Develops), 100*float64(prev.FailedDevelops)/float64(prev.Develops)))
	}
	out = append(out, move("readable_verdicts", "Readable verdicts", float64(cur.ReadableVerdicts), float64(prev.ReadableVerdicts)))
	if cur.ReadableVerdicts > 0 && prev.ReadableVerdicts > 0 {
		out = append(out, move("verdict_score", "Mean verdict score",
			float64(cur.ScoreSum)/float64(cur.ReadableVerdicts), float64(prev.ScoreSum)/float64(prev.ReadableVerdicts)))
	}
	out = append(out,
		move("unreadable_verdicts", "Unreadable verdicts", float64(cur.UnreadableVerdicts), float64(prev.UnreadableVerdicts)),
		move("sign_ups", "Sign-ups", float64(cur.SignUps), float64(prev.SignUps)),
		move("settled_tokens", "Tokens settled", float64(cur.SettledTokens), float64(prev.SettledTokens)),
		move("email_refusals", "E-mails refused (failed, bounced, complained)", float64(cur.EmailRefusals), float64(prev.EmailRefusals)),
	)
	cg, pg := groupOf(curFailed), groupOf(prevFailed)
	keys := make([]string, 0, len(cg)+len(pg))
	for k := range cg {
		keys = append(keys, k)
	}
	for k := range pg {
		if cg[k] == nil {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b string) int {
		if d := sum(cg[b]) - sum(cg[a]); d != 0 {
			return d
		}
		if d := sum(pg[b]) - sum(pg[a]); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	capped := len(keys) > maxGroups
	if capped {
		keys = keys[:maxGroups]
	}
	for _, k := range keys {
		m := move("failure_group", "Failures: "+k, float64(sum(cg[k])), float64(sum(pg[k])))
		g, h := k, len(cg[k])
		m.Group, m.Houses = &g, &h
		out = append(out, m)
	}
	return out, capped
}

// actions are the rules' proposals: a failure group growing (at least 3
// in the window and at least double the window before), the failure rate
// up by 10 points or more over at least 10 develops, the mean verdict
// score down by 5 points or more, refused e-mails growing to 3 or more,
// sign-ups halved from at least 4, settled tokens halved from at least
// 100.
func actions(ms []Movement, cur, prev Window) []Action {
	out := []Action{}
	for _, m := range ms {
		switch {
		case m.Metric == "failure_group" && m.Current >= 3 && m.Current >= 2*m.Previous:
			out = append(out, Action{Kind: "investigate_failure_group", Priority: "high", Metric: m.Metric, Group: m.Group,
				Text: fmt.Sprintf("Investigate the failures %q: %s in the window against %s before, in %d houses.", *m.Group, num(m.Current), num(m.Previous), *m.Houses)})
		case m.Metric == "failure_rate" && cur.Develops >= 10 && m.Change >= 10:
			out = append(out, Action{Kind: "review_failure_rate", Priority: "high", Metric: m.Metric,
				Text: fmt.Sprintf("Review the develop failure rate: %s%% against %s%% before.", num(m.Current), num(m.Previous))})
		case m.Metric == "verdict_score" && m.Change <= -5:
			out = append(out, Action{Kind: "review_verdict_quality", Priority: "medium", Metric: m.Metric,
				Text: fmt.Sprintf("Review frame quality: the mean verdict score fell from %s to %s.", num(m.Previous), num(m.Current))})
		case m.Metric == "email_refusals" && m.Current >= 3 && m.Current > m.Previous:
			out = append(out, Action{Kind: "check_email_delivery", Priority: "medium", Metric: m.Metric,
				Text: fmt.Sprintf("Check e-mail delivery: %s letters refused against %s before.", num(m.Current), num(m.Previous))})
		case m.Metric == "sign_ups" && prev.SignUps >= 4 && 2*cur.SignUps <= prev.SignUps:
			out = append(out, Action{Kind: "check_sign_up_path", Priority: "medium", Metric: m.Metric,
				Text: fmt.Sprintf("Check the way in: %s sign-ups against %s before.", num(m.Current), num(m.Previous))})
		case m.Metric == "settled_tokens" && prev.SettledTokens >= 100 && 2*cur.SettledTokens <= prev.SettledTokens:
			out = append(out, Action{Kind: "check_spend_drop", Priority: "medium", Metric: m.Metric,
				Text: fmt.Sprintf("Look at the drop in spend: %s tokens settled against %s before.", num(m.Current), num(m.Previous))})
		}
	}
	slices.SortStableFunc(out, func(a, b Action) int {
		if a.Priority == b.Priority {
			return 0
		}
		if a.Priority == "high" {
			return -1
		}
		return 1
	})
	return out
}

func num(x float64) string {
	if x == math.Trunc(x) {
		return fmt.Sprintf("%d", int64(x))
	}
	return fmt.Sprintf("%.1f", x)
}

// change renders a movement's change: "+20%", "-5%", "new" or "unchanged".
func change(m Movement) string {
	switch {
	case m.Change == 0:
		return "unchanged"
	case m.ChangePct == nil:
		return "from none"
	case *m.ChangePct > 0:
		return fmt.Sprintf("+%s%%", num(*m.ChangePct))
	}
	return fmt.Sprintf("%s%%", num(*m.ChangePct))
}

// ruleHeadlines are the headlines the rules write: the actions first, then
// the movements that moved, in their order, five at most.
func ruleHeadlines(d Digest) []string {
	out := []string{}
	if d.Thin {
		out = append(out, fmt.Sprintf("Thin window: %d readable verdicts in %d hours, below the floor of %d.", d.ReadableVerdicts, d.WindowHours, d.VerdictFloor))
	}
	for _, a := range d.Actions {
		out = append(out, a.Text)
	}
	for _, m := range d.Movements {
		if m.Metric == "failure_group" || m.Current == 0 && m.Previous == 0 {
			continue
		}
		out = append(out, fmt.Sprintf("%s: %s (%s on the previous %d hours).", m.Label, num(m.Current), change(m), d.WindowHours))
	}
	if len(out) == 0 {
		out = append(out, fmt.Sprintf("A quiet window: nothing was developed, judged, signed up, settled or refused in %d hours.", d.WindowHours))
	}
	return cleanHeadlines(out)
}
