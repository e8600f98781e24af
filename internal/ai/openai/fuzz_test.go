package openai

import (
	"encoding/json"
	"testing"
)

// FuzzAnswerCheck: whatever a model answers, the check never panics, and
// what passes is one JSON object inside the schema.
func FuzzAnswerCheck(f *testing.F) {
	sc, err := compileSchema(json.RawMessage(`{"type":"object","properties":{"kind":{"type":"string","enum":["a","b"]},"n":{"type":["integer","null"]}},"required":["kind","n"],"additionalProperties":false}`))
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{`{"kind":"a","n":1}`, "```json\n{\"kind\":\"b\",\"n\":null}\n```", `Sure! {"kind":"a","n":2} Hope it helps.`, `{"kind":"c","n":1}`, `{`, ``, `[]`, `{"kind":"a","n":1,"x":0}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, answer string) {
		text, err := sc.check(answer)
		if err != nil {
			return
		}
		var v struct {
			Kind string   `json:"kind"`
			N    *float64 `json:"n"`
		}
		var m map[string]any
		if json.Unmarshal(text, &m) != nil || json.Unmarshal(text, &v) != nil || len(m) != 2 || (v.Kind != "a" && v.Kind != "b") {
			t.Fatalf("%q passed as %s", answer, text)
		}
	})
}
