package digest

import (
	"slices"
	"strings"
	"testing"
)

// TestActions: each rule proposes its action at its threshold and not
// below it.
func TestActions(t *testing.T) {
	kinds := func(cur, prev Window, curF, prevF []Failed) []string {
		ms, _ := movements(cur, prev, curF, prevF)
		var out []string
		for _, a := range actions(ms, cur, prev) {
			out = append(out, a.Kind+"/"+a.Priority)
		}
		return out
	}
	fails := func(text string, houses ...string) []Failed {
		var out []Failed
		for _, h := range houses {
			out = append(out, Failed{Error: text, House: h})
		}
		return out
	}
	for _, tc := range []struct {
		name       string
		cur, prev  Window
		curF, prvF []Failed
		want       []string
	}{
		{"quiet", Window{}, Window{}, nil, nil, nil},
		{"a group tripling", Window{}, Window{}, fails("timeout 30 s", "a", "a", "b"), fails("timeout 9 s", "a"),
			[]string{"investigate_failure_group/high"}},
		{"a group of 3 that only grew by half", Window{}, Window{}, fails("x", "a", "a", "a"), fails("x", "a", "a"), nil},
		{"a group of 2 from none", Window{}, Window{}, fails("x", "a", "a"), nil, nil},
		{"failure rate up 10 points over 10 develops", Window{Develops: 10, FailedDevelops: 2}, Window{Develops: 10, FailedDevelops: 1}, nil, nil,
			[]string{"review_failure_rate/high"}},
		{"failure rate up over 9 develops", Window{Develops: 9, FailedDevelops: 5}, Window{Develops: 10}, nil, nil, nil},
		{"score down 5", Window{ReadableVerdicts: 2, ScoreSum: 130}, Window{ReadableVerdicts: 2, ScoreSum: 140}, nil, nil,
			[]string{"review_verdict_quality/medium"}},
		{"score down 4", Window{ReadableVerdicts: 2, ScoreSum: 132}, Window{ReadableVerdicts: 2, ScoreSum: 140}, nil, nil, nil},
		{"refusals growing to 3", Window{EmailRefusals: 3}, Window{EmailRefusals: 2}, nil, nil, []string{"check_email_delivery/medium"}},
		{"refusals steady at 3", Window{EmailRefusals: 3}, Window{EmailRefusals: 3}, nil, nil, nil},
		{"sign-ups halved from 4", Window{SignUps: 2}, Window{SignUps: 4}, nil, nil, []string{"check_sign_up_path/medium"}},
		{"sign-ups halved from 3", Window{SignUps: 1}, Window{SignUps: 3}, nil, nil, nil},
		{"spend halved from 100", Window{SettledTokens: 50}, Window{SettledTokens: 100}, nil, nil, []string{"check_spend_drop/medium"}},
		{"spend down a third", Window{SettledTokens: 70}, Window{SettledTokens: 100}, nil, nil, nil},
		{"high first", Window{EmailRefusals: 3}, Window{}, fails("x", "a", "b", "c"), nil,
			[]string{"investigate_failure_group/high", "check_email_delivery/medium"}},
	} {
		if got := kinds(tc.cur, tc.prev, tc.curF, tc.prvF); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v; want %v", tc.name, got, tc.want)
		}
	}
}

// TestMovementsCapGroups: the 10 largest failure groups are compared, the
// rest left out and said so.
func TestMovementsCapGroups(t *testing.T) {
	var cur []Failed
	for i := range 12 {
		for range i + 1 {
			cur = append(cur, Failed{Error: "cause " + strings.Repeat("x", i), House: "h"})
		}
	}
	ms, capped := movements(Window{}, Window{}, cur, nil)
	var groups []float64
	for _, m := range ms {
		if m.Metric == "failure_group" {
			groups = append(groups, m.Current)
		}
	}
	if !capped || len(groups) != 10 || groups[0] != 12 || groups[9] != 3 {
		t.Errorf("capped %v, groups %v; want the 10 largest, largest first", capped, groups)
	}
}

// TestRuleHeadlines: the rules' headlines, five at most, actions first.
func TestRuleHeadlines(t *testing.T) {
	d := Digest{WindowHours: 24, VerdictFloor: VerdictFloor}
	if got := ruleHeadlines(d); len(got) != 1 || !strings.HasPrefix(got[0], "A quiet window") {
		t.Errorf("quiet: %q", got)
	}
	cur := Window{Develops: 12, FailedDevelops: 6, SignUps: 3, SettledTokens: 40, EmailRefusals: 4, ReadableVerdicts: 2, ScoreSum: 120}
	prev := Window{Develops: 10, FailedDevelops: 1, SignUps: 3, SettledTokens: 20, ReadableVerdicts: 2, ScoreSum: 150}
	d.Movements, _ = movements(cur, prev, nil, nil)
	d.Actions = actions(d.Movements, cur, prev)
	d.Thin, d.ReadableVerdicts = true, 2
	got := ruleHeadlines(d)
	if len(got) != 5 || !strings.HasPrefix(got[0], "Thin window: 2 readable verdicts") || got[1] != d.Actions[0].Text ||
		!strings.Contains(strings.Join(got, "|"), "Develops submitted: 12 (+20% on the previous 24 hours).") {
		t.Errorf("headlines %q", got)
	}
}
