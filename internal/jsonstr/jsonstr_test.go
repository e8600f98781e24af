package jsonstr

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"testing"
	"time"
)

var samples = []string{"", "Coat", `quote " and \ back`, "<b>&amp;</b>", "tab\tnew\nline\r\b\f\x00\x1f\x7f",
	"é ü 漢字 🧥", "line\u2028para\u2029", "bad \xff\xfe utf8", "\xe2\x80", "\xc3(", "\xed\xa0\x80"}

// viaEncodingJSON is what encoding/json writes for s.
func viaEncodingJSON(t *testing.T, s string) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// viaSlog is what slog's JSON handler writes for s as a string attribute's
// value.
func viaSlog(t *testing.T, s string) string {
	t.Helper()
	var buf bytes.Buffer
	r := slog.NewRecord(time.Time{}, slog.LevelInfo, "", 0)
	r.AddAttrs(slog.String("s", s))
	h := slog.NewJSONHandler(&buf, &slog.HandlerOptions{ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
		if a.Key != "s" {
			return slog.Attr{}
		}
		return a
	}})
	if err := h.Handle(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	const prefix, suffix = `{"s":`, "}\n"
	if len(out) < len(prefix)+len(suffix) || out[:len(prefix)] != prefix || out[len(out)-len(suffix):] != suffix {
		t.Fatalf("slog wrote %q", out)
	}
	return out[len(prefix) : len(out)-len(suffix)]
}

func check(t *testing.T, s string) {
	t.Helper()
	if got, want := string(Append([]byte("x"), s)), "x"+viaEncodingJSON(t, s); got != want {
		t.Errorf("Append(%q)\n got %s\nwant %s", s, got, want)
	}
	if got, want := string(AppendSlog([]byte("x"), s)), "x"+viaSlog(t, s); got != want {
		t.Errorf("AppendSlog(%q)\n got %s\nwant %s", s, got, want)
	}
}

// TestAppend: each function writes what its reference writes, every ASCII
// byte and the awkward runes included.
func TestAppend(t *testing.T) {
	for _, s := range samples {
		check(t, s)
	}
	for c := range 0x80 {
		check(t, "a"+string(rune(c))+"b")
	}
}

func TestAppendAllocatesNothing(t *testing.T) {
	b := make([]byte, 0, 256)
	if n := testing.AllocsPerRun(100, func() { _ = AppendSlog(Append(b[:0], samples[4]), samples[7]) }); n != 0 {
		t.Errorf("%v allocations", n)
	}
}

func FuzzAppend(f *testing.F) {
	for _, s := range samples {
		f.Add(s)
	}
	f.Fuzz(check)
}

func BenchmarkAppend(b *testing.B) {
	buf := make([]byte, 0, 256)
	s := "Linen overshirt, sand <SS27> — look 12"
	b.Run("jsonstr", func(b *testing.B) {
		for b.Loop() {
			buf = Append(buf[:0], s)
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		for b.Loop() {
			_, _ = json.Marshal(s)
		}
	})
}
