package look

import (
	"encoding/json"
	"errors"
	"testing"

	"studio/internal/errs"
	"studio/internal/ledger"
)

func TestParseOutput(t *testing.T) {
	tests := []struct {
		in   string
		want Destination
		code string
	}{
		{``, DefaultDestination, ""},
		{`null`, DefaultDestination, ""},
		{`"story"`, Destination{"story", 1080, 1920}, ""},
		{`{"destination":"print-a4"}`, Destination{"print-a4", 2480, 3508}, ""},
		{`{"destination":"web-tile","width":5,"height":5}`, Destination{"web-tile", 1024, 1024}, ""}, // a named place keeps its size
		{`{"destination":"custom","width":64,"height":8192}`, Destination{"custom", 64, 8192}, ""},
		{`{"destination":"custom","width":63,"height":100}`, Destination{}, "BAD_DIMENSIONS"},
		{`{"destination":"custom","width":100}`, Destination{}, "BAD_DIMENSIONS"},
		{`{"destination":"custom","width":100.5,"height":100}`, Destination{}, "BAD_DIMENSIONS"},
		{`{"destination":"custom","width":-100,"height":100}`, Destination{}, "BAD_DIMENSIONS"},
		{`{"destination":"custom","width":1e300,"height":100}`, Destination{}, "BAD_DIMENSIONS"},
		{`{"destination":"custom","width":8193,"height":100}`, Destination{}, "OUTPUT_TOO_LARGE"},
		{`{"destination":"billboard"}`, Destination{}, "UNKNOWN_DESTINATION"},
		{`"custom"`, Destination{}, "BAD_DIMENSIONS"},
		{`""`, Destination{}, "UNKNOWN_DESTINATION"},
		{`42`, Destination{}, "BAD_BODY"},
		{`{"destination":7}`, Destination{}, "BAD_BODY"},
	}
	for _, tt := range tests {
		got, err := ParseOutput(json.RawMessage(tt.in))
		code := ""
		if e, ok := errs.As(err); ok {
			code = e.Code
		} else if err != nil {
			t.Fatalf("%s: not a wire error: %v", tt.in, err)
		}
		if code != tt.code || got != tt.want {
			t.Errorf("ParseOutput(%s) = %+v, %q; want %+v, %q", tt.in, got, code, tt.want, tt.code)
		}
		if code == "UNKNOWN_DESTINATION" && err.(*errs.Error).Fields["legal"] == nil {
			t.Errorf("%s: UNKNOWN_DESTINATION without legal", tt.in)
		}
	}
}

func TestRestoration(t *testing.T) {
	d := func(w, h int) Destination { return Destination{"custom", w, h} }
	tests := []struct {
		d       Destination
		tier    ledger.Tier
		restore bool
		tooLow  bool
	}{
		{d(1024, 1024), ledger.Tier1K, false, false},
		{d(1025, 64), ledger.Tier1K, true, false},
		{d(2048, 64), ledger.Tier1K, true, false},
		{d(64, 2049), ledger.Tier1K, false, true},
		{d(2480, 3508), ledger.Tier2K, true, false},
		{d(8192, 100), ledger.Tier4K, true, false},
		{d(4096, 4096), ledger.Tier4K, false, false},
	}
	for _, tt := range tests {
		restore, err := Restoration(tt.d, tt.tier)
		if restore != tt.restore || errors.Is(err, ErrQualityTooLow) != tt.tooLow || (err != nil && !tt.tooLow) {
			t.Errorf("Restoration(%v, %s) = %v, %v; want %v, too low %v", tt.d, tt.tier, restore, err, tt.restore, tt.tooLow)
		}
	}
}

// FuzzParseOutput: any input either parses to a destination within the
// limits or answers one of the documented 400 codes; it never panics.
func FuzzParseOutput(f *testing.F) {
	for _, s := range []string{`"story"`, `{"destination":"custom","width":640,"height":480}`, `{"destination":"custom","width":1e9}`, `null`, `[`, `{"destination":"web-tile"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		d, err := ParseOutput(raw)
		if err != nil {
			e, ok := errs.As(err)
			if !ok || e.Kind != errs.KindInvalid {
				t.Fatalf("ParseOutput(%q): %v is not a 400", raw, err)
			}
			switch e.Code {
			case "BAD_BODY", "BAD_DIMENSIONS", "OUTPUT_TOO_LARGE", "UNKNOWN_DESTINATION":
			default:
				t.Fatalf("ParseOutput(%q): unexpected code %s", raw, e.Code)
			}
			return
		}
		if d.Width < MinEdge || d.Height < MinEdge || d.LongEdge() > MaxEdge || d.Name == "" {
			t.Fatalf("ParseOutput(%q) = %+v outside the limits", raw, d)
		}
	})
}
