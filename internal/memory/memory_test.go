package memory_test

import (
	"strings"
	"testing"

	"studio/internal/errs"
	"studio/internal/memory"
)

// TestGrade: an observation's confidence is n/(n+1) of its distinct turns,
// at most 0.95, and it is a candidate until the third turn makes it active.
func TestGrade(t *testing.T) {
	for _, tc := range []struct {
		evidence   int
		confidence float64
		status     string
	}{
		{1, 0.5, memory.StatusCandidate},
		{2, 2.0 / 3, memory.StatusCandidate},
		{3, 0.75, memory.StatusActive},
		{4, 0.8, memory.StatusActive},
		{19, 0.95, memory.StatusActive},
		{100, 0.95, memory.StatusActive},
	} {
		c, s := memory.Grade(tc.evidence)
		if c != tc.confidence || s != tc.status {
			t.Errorf("Grade(%d) = %v, %s; want %v, %s", tc.evidence, c, s, tc.confidence, tc.status)
		}
	}
}

func ptr(s string) *string { return &s }

// TestWriteRequest: a statement of 1 to 1000 characters (trimmed), a scope
// of house or user and a known class; all three required.
func TestWriteRequest(t *testing.T) {
	for name, tc := range map[string]struct {
		in   memory.WriteRequest
		code string
	}{
		"whole":             {memory.WriteRequest{Statement: ptr("  Shoot linen in daylight. "), Scope: ptr("house"), MemoryClass: ptr("lesson")}, ""},
		"personal":          {memory.WriteRequest{Statement: ptr("I like wide frames."), Scope: ptr("user"), MemoryClass: ptr("preference")}, ""},
		"no statement":      {memory.WriteRequest{Scope: ptr("house"), MemoryClass: ptr("fact")}, "BAD_BODY"},
		"no scope":          {memory.WriteRequest{Statement: ptr("x"), MemoryClass: ptr("fact")}, "BAD_BODY"},
		"no class":          {memory.WriteRequest{Statement: ptr("x"), Scope: ptr("house")}, "BAD_BODY"},
		"blank":             {memory.WriteRequest{Statement: ptr("   "), Scope: ptr("house"), MemoryClass: ptr("fact")}, "BAD_STATEMENT"},
		"too long":          {memory.WriteRequest{Statement: ptr(strings.Repeat("a", memory.MaxStatement+1)), Scope: ptr("house"), MemoryClass: ptr("fact")}, "BAD_STATEMENT"},
		"as long as it may": {memory.WriteRequest{Statement: ptr(strings.Repeat("a", memory.MaxStatement)), Scope: ptr("house"), MemoryClass: ptr("fact")}, ""},
		"a bad scope":       {memory.WriteRequest{Statement: ptr("x"), Scope: ptr("team"), MemoryClass: ptr("fact")}, "BAD_SCOPE"},
		"a bad class":       {memory.WriteRequest{Statement: ptr("x"), Scope: ptr("user"), MemoryClass: ptr("rumour")}, "BAD_MEMORY_CLASS"},
	} {
		in := tc.in
		err := in.Validate()
		got := ""
		if e, ok := errs.As(err); ok {
			got = e.Code
		}
		if got != tc.code {
			t.Errorf("%s: %v; want %q", name, err, tc.code)
		}
		if tc.code == "" && *in.Statement != strings.TrimSpace(*tc.in.Statement) {
			t.Errorf("%s: the statement is kept trimmed: %q", name, *in.Statement)
		}
	}
}
