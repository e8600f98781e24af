package asset

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"studio/internal/ts"
)

// full is an asset with every field set, so a field AppendJSON forgets
// shows up against encoding/json.
func full(name string) Asset {
	k, f, w := Clothes, Fit("loose"), Women
	at := ts.Of(time.Date(2026, 11, 23, 7, 8, 9, 123e6, time.UTC))
	return Asset{ID: "01a2-x", Name: name, SKU: ptr("SKU-1"), Kind: &k, URL: FileURL("01a2-x"), FolderID: ptr("f"),
		GroupID: ptr("g"), Fit: &f, Wearer: &w, FitGuessed: true, WearerGuessed: true, MarkGuessed: true, CarriesMark: true,
		Mime: MimePNG, Tool: ptr("upscale"), Width: 1600, Height: -2, Size: 1 << 40, CreatedAt: at, Approved: true,
		ApprovedBy: ptr("u"), ApprovedAt: &at, OtherTags: []string{"hidden"}}
}

func checkAppendJSON(t *testing.T, a Asset) {
	t.Helper()
	want, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	if got := a.AppendJSON(nil); !bytes.Equal(got, want) {
		t.Errorf("AppendJSON\n got %s\nwant %s", got, want)
	}
}

func TestAppendJSON(t *testing.T) {
	if n := reflect.TypeFor[Asset]().NumField(); n != 23 {
		t.Errorf("Asset has %d fields; AppendJSON writes 22 and skips OtherTags: update it and this count", n)
	}
	checkAppendJSON(t, Asset{})
	for _, name := range []string{"Coat", "", `quote " and \ back`, "<b>&amp;</b>", "tab\tnew\nline\r\b\f\x00\x1f\x7f",
		"é ü 漢字 🧥", "line\u2028para\u2029", "bad \xff\xfe utf8", "\xe2\x80"} {
		checkAppendJSON(t, full(name))
	}
}

func FuzzAppendJSON(f *testing.F) {
	f.Add("Coat", "SKU-1", 10, int64(20))
	f.Add("<\u2028\xff>", "\x00", -1, int64(-1))
	f.Fuzz(func(t *testing.T, name, sku string, width int, size int64) {
		a := full(name)
		a.SKU, a.Width, a.Size, a.Tool = &sku, width, size, &name
		checkAppendJSON(t, a)
	})
}
