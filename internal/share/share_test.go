package share

import (
	"bytes"
	"encoding/json"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math"
	"strings"
	"testing"

	"studio/internal/asset"
	"studio/internal/errs"
)

func code(err error) string {
	if e, ok := errs.As(err); ok {
		return e.Code
	}
	if err != nil {
		return err.Error()
	}
	return ""
}

func TestToken(t *testing.T) {
	seen := map[string]bool{}
	for range 100 {
		tok := NewToken()
		if !WellFormed(tok) || len(tok) != 43 || seen[tok] {
			t.Fatalf("token %q", tok)
		}
		seen[tok] = true
		if HashToken(tok) == tok || len(HashToken(tok)) != 64 {
			t.Fatalf("hash of %q", tok)
		}
	}
	good := NewToken()
	for _, bad := range []string{"", "short", good[:42], good + "A", strings.Repeat("+", 43), strings.Repeat("/", 43),
		good[:42] + "=", "0196a6c2-7c4e-7d4b-9d3e-1f2a3b4c5d6e", good[:42] + "\x00"} {
		if WellFormed(bad) {
			t.Errorf("WellFormed(%q) = true", bad)
		}
	}
	if got := URL("https://studio.example/", good); got != "https://studio.example/s#"+good {
		t.Errorf("URL = %q", got)
	}
}

func TestParseDrawings(t *testing.T) {
	pts := func(n int) string {
		var b strings.Builder
		b.WriteString("[")
		for i := range n {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString("[0.5,0.25]")
		}
		return b.String() + "]"
	}
	tests := []struct {
		name, raw string
		ok        bool
	}{
		{"empty", `[]`, true},
		{"free", `[{"kind":"free","points":[[0,0],[1,1],[0.5,0.25]]}]`, true},
		{"circle", `[{"kind":"circle","points":[[0.1,0.2],[0.3,0.4]],"note":"collar"}]`, true},
		{"three strokes", `[{"kind":"free","points":[[0,0]]},{"kind":"free","points":[[0,0]]},{"kind":"circle","points":[[0,0],[1,1]]}]`, true},
		{"120 points", `[{"kind":"free","points":` + pts(120) + `}]`, true},
		{"exponent", `[{"kind":"free","points":[[1e-1,5E-1]]}]`, true},
		{"four strokes", `[{"kind":"free","points":[[0,0]]},{"kind":"free","points":[[0,0]]},{"kind":"free","points":[[0,0]]},{"kind":"free","points":[[0,0]]}]`, false},
		{"121 points", `[{"kind":"free","points":` + pts(121) + `}]`, false},
		{"circle of three", `[{"kind":"circle","points":[[0,0],[1,1],[0.5,0.5]]}]`, false},
		{"circle of one", `[{"kind":"circle","points":[[0,0]]}]`, false},
		{"no points", `[{"kind":"free","points":[]}]`, false},
		{"square", `[{"kind":"square","points":[[0,0]]}]`, false},
		{"no kind", `[{"points":[[0,0]]}]`, false},
		{"string coordinate", `[{"kind":"free","points":[["0.5",0.5]]}]`, false},
		{"NaN string", `[{"kind":"free","points":[["NaN",0.5]]}]`, false},
		{"Infinity string", `[{"kind":"free","points":[[0.5,"Infinity"]]}]`, false},
		{"null coordinate", `[{"kind":"free","points":[[null,0.5]]}]`, false},
		{"bool coordinate", `[{"kind":"free","points":[[true,0.5]]}]`, false},
		{"object coordinate", `[{"kind":"free","points":[[{},0.5]]}]`, false},
		{"over one", `[{"kind":"free","points":[[1.0001,0.5]]}]`, false},
		{"negative", `[{"kind":"free","points":[[-0.1,0.5]]}]`, false},
		{"overflow", `[{"kind":"free","points":[[1e400,0.5]]}]`, false},
		{"three numbers", `[{"kind":"free","points":[[0.1,0.2,0.3]]}]`, false},
		{"one number", `[{"kind":"free","points":[[0.1]]}]`, false},
		{"flat point", `[{"kind":"free","points":[0.1,0.2]}]`, false},
		{"not an array", `{"kind":"free"}`, false},
		{"stroke not object", `[[0,0]]`, false},
		{"long note", `[{"kind":"free","points":[[0,0]],"note":"` + strings.Repeat("x", 201) + `"}]`, false},
		{"control note", `[{"kind":"free","points":[[0,0]],"note":"a\u0000b"}]`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := ParseDrawings(json.RawMessage(tt.raw))
			if tt.ok && err != nil {
				t.Fatalf("refused: %v", err)
			}
			if !tt.ok {
				if !errors.Is(err, ErrBadDrawing) {
					t.Fatalf("got %v (%s); want BAD_DRAWING", err, code(err))
				}
				if e, _ := errs.As(err); e.Fields["reason"] == "" {
					t.Errorf("no reason: %v", e.Fields)
				}
				return
			}
			if d == nil {
				t.Error("nil drawings")
			}
		})
	}
}

// FuzzParseDrawings: whatever is sent, accepted drawings keep the limits.
func FuzzParseDrawings(f *testing.F) {
	for _, s := range []string{`[]`, `[{"kind":"free","points":[[0,0],[1,1]]}]`, `[{"kind":"circle","points":[[0.1,0.2],[0.3,0.4]]}]`,
		`[{"kind":"free","points":[["NaN",1]]}]`, `[{"kind":"free","points":[[1e400,0]]}]`, `[{"kind":"free","points":[[-0,1]]}]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		d, err := ParseDrawings(json.RawMessage(raw))
		if err != nil {
			if !errors.Is(err, ErrBadDrawing) {
				t.Fatalf("refused with %v", err)
			}
			return
		}
		if len(d) > MaxStrokes {
			t.Fatalf("%d strokes", len(d))
		}
		for _, s := range d {
			if len(s.Points) == 0 || len(s.Points) > MaxPoints || (s.Kind == Circle && len(s.Points) != 2) || (s.Kind != Circle && s.Kind != Free) {
				t.Fatalf("stroke %+v", s)
			}
			for _, p := range s.Points {
				for _, v := range p {
					if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v > 1 {
						t.Fatalf("coordinate %v accepted from %s", v, raw)
					}
				}
			}
		}
		if _, err := json.Marshal(d); err != nil {
			t.Fatalf("accepted drawings do not encode: %v", err)
		}
	})
}

func TestMarkRequest(t *testing.T) {
	tests := []struct {
		name, body, code string
	}{
		{"verdict", `{"i":0,"verdict":"keep"}`, ""},
		{"note only", `{"i":2,"note":"tighter crop"}`, ""},
		{"clear note", `{"i":2,"note":""}`, ""},
		{"drawings only", `{"i":1,"drawings":[{"kind":"free","points":[[0,0]]}]}`, ""},
		{"clear drawings", `{"i":1,"drawings":[]}`, ""},
		{"no i", `{"verdict":"keep"}`, "BAD_BODY"},
		{"nothing", `{"i":0}`, "BAD_BODY"},
		{"null drawings only", `{"i":0,"drawings":null}`, "BAD_BODY"},
		{"bad verdict", `{"i":0,"verdict":"maybe"}`, "BAD_BODY"},
		{"long note", `{"i":0,"note":"` + strings.Repeat("é", 601) + `"}`, "NOTE_TOO_LONG"},
		{"600 note", `{"i":0,"note":"` + strings.Repeat("é", 600) + `"}`, ""},
		{"control note", `{"i":0,"note":"a\u0007"}`, "BAD_BODY"},
		{"string point", `{"i":0,"drawings":[{"kind":"free","points":[["x",0]]}]}`, "BAD_DRAWING"},
		{"drawings object", `{"i":0,"drawings":{"kind":"free"}}`, "BAD_DRAWING"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m MarkRequest
			if err := json.Unmarshal([]byte(tt.body), &m); err != nil {
				t.Fatal(err)
			}
			if got := code(m.Validate()); got != tt.code {
				t.Errorf("got %q; want %q", got, tt.code)
			}
		})
	}
	var typed MarkRequest
	var typeErr *json.UnmarshalTypeError
	if err := json.Unmarshal([]byte(`{"i":"zero"}`), &typed); !errors.As(err, &typeErr) {
		t.Errorf("a string i: %v; want a type error (BAD_BODY)", err)
	}
}

func TestMintRequest(t *testing.T) {
	ids := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = strings.Repeat("a", 10) + string(rune('A'+i%26)) + string(rune('a'+i/26))
		}
		return out
	}
	str := func(s string) *string { return &s }
	tests := []struct {
		name string
		in   MintRequest
		code string
	}{
		{"one", MintRequest{AssetIDs: []string{"a"}}, ""},
		{"sixty", MintRequest{AssetIDs: ids(60)}, ""},
		{"sixty with repeats", MintRequest{AssetIDs: append(ids(60), ids(60)...)}, ""},
		{"sixty-one", MintRequest{AssetIDs: ids(61)}, "TOO_MANY_FRAMES"},
		{"none", MintRequest{}, "BAD_ASSET_IDS"},
		{"empty id", MintRequest{AssetIDs: []string{""}}, "BAD_ASSET_IDS"},
		{"email", MintRequest{AssetIDs: []string{"a"}, Email: str(" Buyer@Example.com ")}, ""},
		{"bad email", MintRequest{AssetIDs: []string{"a"}, Email: str("buyer@")}, "BAD_EMAIL"},
		{"named email", MintRequest{AssetIDs: []string{"a"}, Email: str("Buyer <buyer@example.com>")}, "BAD_EMAIL"},
		{"label", MintRequest{AssetIDs: []string{"a"}, RecipientLabel: str("Buyer, Paris")}, ""},
		{"label control", MintRequest{AssetIDs: []string{"a"}, RecipientLabel: str("a\nb")}, "BAD_BODY"},
		{"long label", MintRequest{AssetIDs: []string{"a"}, RecipientLabel: str(strings.Repeat("x", 201))}, "BAD_BODY"},
		{"message lines", MintRequest{AssetIDs: []string{"a"}, Message: str("Hi,\nten frames.")}, ""},
		{"long note", MintRequest{AssetIDs: []string{"a"}, Notes: map[string]string{"a": strings.Repeat("x", 601)}}, "NOTE_TOO_LONG"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := code(tt.in.Validate()); got != tt.code {
				t.Errorf("got %q; want %q", got, tt.code)
			}
		})
	}
	r := MintRequest{AssetIDs: []string{"b", "a", "b", "c", "a"}, Email: str(" X@Y.org"), RecipientLabel: str("  "), Notes: map[string]string{"a": " "}}
	if err := r.Validate(); err != nil {
		t.Fatal(err)
	}
	if strings.Join(r.AssetIDs, ",") != "b,a,c" || *r.Email != "x@y.org" || r.RecipientLabel != nil || len(r.Notes) != 0 {
		t.Errorf("tidied: %+v", r)
	}
}

func TestDerive(t *testing.T) {
	// Pieces p1..p5 (newest first), a group holding p1 and an upload u1 and
	// another piece p5; develops: j1 tries p2 on (r1), j2 upscales r1 (r2),
	// j3 retakes j1 with other inputs (r3), j4 takes p3 and p4 (r4), j5 is
	// queued on p4.
	f := Facts{
		Pieces: []Piece{{AssetID: "p1", Name: "Coat", GroupID: "g"}, {AssetID: "p2", Name: "Dress"}, {AssetID: "p3", Name: "Bag"},
			{AssetID: "p4", Name: "Belt"}, {AssetID: "p5", Name: "Scarf", GroupID: "g"}, {AssetID: "p6", Name: "Hat"}},
		Groups: map[string][]string{"g": {"p1", "u1", "p5"}},
		Jobs: []Lineage{
			{JobID: "j2", Inputs: []string{"r1"}, Result: "r2"},
			{JobID: "j1", Inputs: []string{"m", "p2"}, Result: "r1"},
			{JobID: "j3", RetryOf: "j1", Inputs: []string{"m"}, Result: "r3"},
			{JobID: "j4", Inputs: []string{"p3", "p4"}, Result: "r4"},
			{JobID: "j5", Inputs: []string{"p4"}},
			{JobID: "j6", Inputs: []string{"zz"}, Result: "r6"},
		},
	}
	tied := framesOf(f)
	want := map[string]string{"p1": "p1,u1", "p2": "p2,r1,r2,r3", "p3": "p3,r4", "p4": "p4,r4", "p5": "p5,u1", "p6": "p6"}
	for p, w := range want {
		if got := strings.Join(tied[p], ","); got != w {
			t.Errorf("frames of %s: %q; want %q", p, got, w)
		}
	}
	if got := strings.Join(Candidates(f), ","); got != "p1,p2,p3,p4,p5,p6,r1,r2,r3,r4,u1" {
		t.Errorf("candidates %q", got)
	}
	f.Frames = map[string]FrameFact{
		"u1": {Pending: true},           // p1, p5: waiting on a reviewer
		"r1": {Passed: 1},               // p2: passed...
		"r2": {Passed: 2},               //
		"r3": {Approved: true, Kept: 0}, // ...but the retake is approved: covered
		"r4": {Passed: 1},               // p3, p4: changes asked
		"r6": {Approved: true, Kept: 3}, // tied to nothing
	}
	c := Derive(f)
	states := map[string]string{}
	for _, s := range c.States {
		states[s.AssetID] = s.State
	}
	wantStates := map[string]string{"p1": StateAwaiting, "p2": StateCovered, "p3": StateChangesAsked, "p4": StateChangesAsked,
		"p5": StateAwaiting, "p6": StateNotSent}
	for p, w := range wantStates {
		if states[p] != w {
			t.Errorf("%s: %s; want %s", p, states[p], w)
		}
	}
	if c.Pieces != 6 || c.Covered != 1 || c.Missing != 5 || c.States[0].AssetID != "p1" {
		t.Errorf("coverage %+v", c)
	}
	if s := c.States[1]; s.Frames != 3 || s.Approved != 1 || s.Passed != 3 { // p2 itself is not in Frames: removed
		t.Errorf("p2 %+v", s)
	}
	// A kept frame without the director's approval awaits the director;
	// a removed frame (absent from Frames) says nothing.
	f.Frames["r4"] = FrameFact{Kept: 1}
	delete(f.Frames, "u1")
	f.Frames["p6"] = FrameFact{Approved: true} // the piece's own image, approved
	c = Derive(f)
	if c.States[2].State != StateAwaiting || c.States[0].State != StateNotSent || c.States[0].Frames != 0 || c.States[5].State != StateCovered {
		t.Errorf("after a keep: %+v", c.States)
	}
}

func TestThumbnail(t *testing.T) {
	big := image.NewNRGBA(image.Rect(0, 0, 1600, 900))
	for y := range 900 {
		for x := range 1600 {
			big.Set(x, y, color.NRGBA{uint8(x), uint8(y), 100, uint8(x % 256)})
		}
	}
	for _, tc := range []struct {
		source, want string
		orient       int
		w, h         int
	}{
		{asset.MimePNG, asset.MimePNG, 1, 512, 288},
		{asset.MimeJPEG, asset.MimeJPEG, 1, 512, 288},
		{asset.MimeWebP, asset.MimeJPEG, 6, 288, 512},
	} {
		b, err := Thumbnail(big, tc.orient, tc.source)
		if err != nil {
			t.Fatal(err)
		}
		var img image.Image
		if tc.want == asset.MimePNG {
			img, err = png.Decode(bytes.NewReader(b))
		} else {
			img, err = jpeg.Decode(bytes.NewReader(b))
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.source, err)
		}
		if r := img.Bounds(); r.Dx() != tc.w || r.Dy() != tc.h {
			t.Errorf("%s orientation %d: %dx%d; want %dx%d", tc.source, tc.orient, r.Dx(), r.Dy(), tc.w, tc.h)
		}
	}
	small := image.NewRGBA(image.Rect(0, 0, 100, 40))
	b, err := Thumbnail(small, 1, asset.MimeJPEG)
	if err != nil {
		t.Fatal(err)
	}
	if img, err := jpeg.Decode(bytes.NewReader(b)); err != nil || img.Bounds().Dx() != 100 {
		t.Errorf("a small frame is not upscaled: %v", err)
	}
}
