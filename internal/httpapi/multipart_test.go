package httpapi

import (
	"bytes"
	"mime/multipart"
	"net/http/httptest"
	"strings"
	"testing"

	"studio/internal/errs"
)

var fuzzSpec = formSpec{maxBody: 1 << 16, files: map[string]int{"image": 1, "garment": 3}, others: true, maxFiles: 4, maxText: 64}

func formBody(t testing.TB, parts ...[3]string) ([]byte, string) {
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	for _, p := range parts {
		if p[1] != "" {
			fw, _ := w.CreateFormFile(p[0], p[1])
			fw.Write([]byte(p[2]))
		} else {
			w.WriteField(p[0], p[2])
		}
	}
	w.Close()
	return b.Bytes(), w.FormDataContentType()
}

// TestReadForm: the reader's bounds, each refused at the part that breaks it.
func TestReadForm(t *testing.T) {
	for _, tc := range []struct {
		name  string
		parts [][3]string
		code  string
	}{
		{"ok", [][3]string{{"tool", "", "upscale"}, {"image", "a.png", "x"}, {"garment", "g.png", "x"}, {"garment", "h.png", "x"}}, ""},
		{"single role twice", [][3]string{{"image", "a.png", "x"}, {"image", "b.png", "x"}}, "BAD_FORM"},
		{"repeatable role over its bound", [][3]string{{"garment", "a", "x"}, {"garment", "b", "x"}, {"garment", "c", "x"}, {"garment", "d", "x"}}, "BAD_FORM"},
		{"other file twice", [][3]string{{"mask", "a", "x"}, {"mask", "b", "x"}}, "BAD_FORM"},
		{"too many files", [][3]string{{"image", "a", "x"}, {"garment", "b", "x"}, {"mask", "c", "x"}, {"model", "d", "x"}, {"background", "e", "x"}}, "BAD_FORM"},
		{"text twice", [][3]string{{"tool", "", "a"}, {"tool", "", "b"}}, "BAD_FORM"},
		{"text too long", [][3]string{{"tool", "", strings.Repeat("a", 65)}}, "BAD_FORM"},
		{"text with NUL", [][3]string{{"tool", "", "a\x00"}}, "BAD_FORM"},
		{"file name with ESC", [][3]string{{"image", "a\x1b.png", "x"}}, "BAD_FORM"},
		{"body too large", [][3]string{{"image", "a", strings.Repeat("x", 1<<16)}}, "IMAGE_TOO_LARGE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body, ct := formBody(t, tc.parts...)
			r := httptest.NewRequest("POST", "/x", bytes.NewReader(body))
			r.Header.Set("Content-Type", ct)
			_, err := readForm(httptest.NewRecorder(), r, fuzzSpec)
			e, _ := errs.As(err)
			switch {
			case tc.code == "" && err != nil:
				t.Fatal(err)
			case tc.code != "" && (e == nil || e.Code != tc.code):
				t.Fatalf("got %v; want %s", err, tc.code)
			}
		})
	}
}

func FuzzReadForm(f *testing.F) {
	body, ct := formBody(f, [3]string{"tool", "", "upscale"}, [3]string{"image", "a.png", "xyz"})
	boundary := strings.TrimPrefix(ct, "multipart/form-data; boundary=")
	f.Add(body)
	f.Add([]byte("--" + boundary + "\r\nContent-Disposition: form-data; name=\"image\"; filename*=UTF-8''a%00\r\n\r\nx\r\n--" + boundary + "--\r\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		r := httptest.NewRequest("POST", "/x", bytes.NewReader(body))
		r.Header.Set("Content-Type", ct)
		got, err := readForm(httptest.NewRecorder(), r, fuzzSpec)
		if err != nil {
			if e, ok := errs.As(err); !ok || (e.Kind != errs.KindInvalid && e.Kind != errs.KindTooLarge) {
				t.Fatalf("%v is neither a 400 nor a 413", err)
			}
			return
		}
		count := map[string]int{}
		for _, file := range got.files {
			count[file.field]++
			if !cleanText(file.filename) {
				t.Fatalf("file name %q kept", file.filename)
			}
		}
		for field, n := range count {
			if most, ok := fuzzSpec.files[field]; (ok && n > most) || (!ok && n > 1) {
				t.Fatalf("%d parts of %s kept", n, field)
			}
		}
		if len(got.files) > fuzzSpec.maxFiles {
			t.Fatalf("%d files kept", len(got.files))
		}
		for k, v := range got.values {
			if !cleanText(v) || len(v) > fuzzSpec.maxText {
				t.Fatalf("%s = %q kept", k, v)
			}
		}
	})
}
