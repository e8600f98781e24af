package text

import (
	"encoding/json"
	"testing"
)

func TestClean(t *testing.T) {
	for s, want := range map[string]bool{
		"": true, "plain": true, "tab\tline\nbreak\r\n": true, "é 漢字 🧵": true,
		"nul\x00": false, "\x01": false, "bell\x07": false, "esc\x1b[0m": false, "\x0b": false, "\x1f": false,
		"bad \xff utf-8": false, "\xc3": false,
	} {
		if got := Clean(s); got != want {
			t.Errorf("Clean(%q) = %v; want %v", s, got, want)
		}
	}
}

func TestCleanValue(t *testing.T) {
	type inner struct {
		Name   string
		hidden string
	}
	type body struct {
		Title  *string
		Tags   []string
		Labels map[string]string
		Inner  inner
		Raw    json.RawMessage
		Any    any
		Bytes  []byte
	}
	nul := "a\x00"
	for name, tc := range map[string]struct {
		v    any
		want bool
	}{
		"clean":         {body{Tags: []string{"a"}, Raw: json.RawMessage(`{"k":"v"}`), Any: map[string]any{"x": []any{"y"}}}, true},
		"pointer":       {body{Title: &nul}, false},
		"slice":         {body{Tags: []string{"ok", nul}}, false},
		"map key":       {body{Labels: map[string]string{nul: "v"}}, false},
		"map value":     {body{Labels: map[string]string{"k": nul}}, false},
		"nested":        {body{Inner: inner{Name: nul}}, false},
		"unexported":    {body{Inner: inner{hidden: nul}}, true},
		"raw message":   {body{Raw: json.RawMessage(`{"k":["\u0000"]}`)}, false},
		"raw key":       {body{Raw: json.RawMessage(`{"\u0001":1}`)}, false},
		"any":           {body{Any: map[string]any{"x": []any{nul}}}, false},
		"bytes":         {body{Bytes: []byte{0}}, true},
		"escaped slash": {body{Raw: json.RawMessage(`"\\u0000"`)}, true}, // the six characters \u0000, not a NUL
	} {
		if got := CleanValue(tc.v); got != tc.want {
			t.Errorf("%s: CleanValue = %v; want %v", name, got, tc.want)
		}
	}
}

func FuzzClean(f *testing.F) {
	for _, s := range []string{"", "a", "\x00", "\t\n\r", "\xff", "é"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		raw, _ := json.Marshal(s)
		if Clean(s) != CleanJSON(raw) && Clean(s) {
			t.Fatalf("%q is clean but its JSON is not", s)
		}
	})
}
