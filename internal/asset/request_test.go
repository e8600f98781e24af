package asset

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"studio/internal/errs"
)

func decodePatch(t testing.TB, body string) (PatchRequest, error) {
	t.Helper()
	var r PatchRequest
	if err := json.Unmarshal([]byte(body), &r); err != nil {
		return r, err
	}
	return r, r.Validate()
}

func TestPatchRequest(t *testing.T) {
	base := Asset{Name: "Tee", SKU: ptr("T-1"), Kind: ptr(Clothes), FolderID: ptr("f1"), Fit: ptr(Fit("loose")), FitGuessed: true,
		Wearer: ptr(Men), WearerGuessed: true}
	for _, tt := range []struct {
		name     string
		body     string
		wantCode string
		want     func(a *Asset)
		empty    bool
	}{
		{"empty", `{}`, "", func(*Asset) {}, true},
		{"unknown fields only", `{"colour": "red"}`, "", func(*Asset) {}, true},
		{"name trimmed", `{"name": "  Boxy tee  "}`, "", func(a *Asset) { a.Name = "Boxy tee" }, false},
		{"keys in another case", `{"Name": "Boxy"}`, "", func(a *Asset) { a.Name = "Boxy" }, false},
		{"sku null clears", `{"sku": null}`, "", func(a *Asset) { a.SKU = nil }, false},
		{"kind null un-files", `{"kind": null}`, "", func(a *Asset) { a.Kind = nil }, false},
		{"folder null is the root", `{"folderId": null}`, "", func(a *Asset) { a.FolderID = nil }, false},
		{"fit by a person", `{"fit": "fitted"}`, "", func(a *Asset) { a.Fit, a.FitGuessed = ptr(Fit("fitted")), false }, false},
		{"wearer null", `{"wearer": null}`, "", func(a *Asset) { a.Wearer, a.WearerGuessed = nil, false }, false},
		{"unisex by a person", `{"wearer": "unisex"}`, "", func(a *Asset) { a.Wearer, a.WearerGuessed = ptr(Unisex), false }, false},
		{"name null", `{"name": null}`, "BAD_BODY", nil, false},
		{"name too long", `{"name": "` + repeat("n", 201) + `"}`, "BAD_BODY", nil, false},
		{"name with a control character", `{"name": "a\u0007b"}`, "BAD_BODY", nil, false},
		{"bad kind", `{"kind": "shoes"}`, "BAD_KIND", nil, false},
		{"mark is upload-only", `{"kind": "mark"}`, "BAD_KIND", nil, false},
		{"sku with spaces around", `{"sku": " A "}`, "BAD_SKU", nil, false},
		{"sku too long", `{"sku": "` + repeat("S", 65) + `"}`, "BAD_SKU", nil, false},
		{"empty folder id", `{"folderId": ""}`, "BAD_FOLDER", nil, false},
		{"bad fit", `{"fit": "baggy"}`, "BAD_BODY", nil, false},
		{"bad wearer", `{"wearer": "kids"}`, "BAD_BODY", nil, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, err := decodePatch(t, tt.body)
			if tt.wantCode != "" {
				if e, ok := errs.As(err); !ok || e.Code != tt.wantCode {
					t.Fatalf("got %v; want %s", err, tt.wantCode)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.Empty() != tt.empty {
				t.Errorf("Empty = %v", r.Empty())
			}
			got, want := base, base
			r.Apply(&got)
			tt.want(&want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got %+v; want %+v", got, want)
			}
		})
	}
	var bad PatchRequest
	if err := json.Unmarshal([]byte(`[]`), &bad); err == nil {
		t.Error("an array decoded as a patch")
	}
}

func repeat(s string, n int) string {
	out := make([]byte, 0, n*len(s))
	for range n {
		out = append(out, s...)
	}
	return string(out)
}

// FuzzPatchRequest: any body either is refused with a wire error, or
// validates into a patch whose application leaves the asset legal.
func FuzzPatchRequest(f *testing.F) {
	for _, s := range []string{`{}`, `{"name":"x","sku":null,"kind":"clothes","folderId":"f","fit":"loose","wearer":"unisex"}`,
		`{"kind":null,"fit":null}`, `{"sku":"` + repeat("s", 64) + `"}`, `{"name":7}`, `null`, `[]`, `{"wearer":"men"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		var r PatchRequest
		if err := json.Unmarshal([]byte(body), &r); err != nil {
			return
		}
		if err := r.Validate(); err != nil {
			if _, ok := errs.As(err); !ok {
				t.Fatalf("Validate error %v is not a wire error", err)
			}
			return
		}
		a := Asset{Name: "Tee", Kind: ptr(Clothes), FitGuessed: true, WearerGuessed: true}
		r.Apply(&a)
		if _, err := CleanName(a.Name); err != nil || a.Name != mustClean(a.Name) {
			t.Fatalf("name %q after a valid patch", a.Name)
		}
		if a.SKU != nil && CheckSKU(*a.SKU) != nil {
			t.Fatalf("sku %q after a valid patch", *a.SKU)
		}
		if a.Kind != nil && !slices.Contains(FileKinds, *a.Kind) {
			t.Fatalf("kind %q after a valid patch", *a.Kind)
		}
		if a.Fit != nil && !slices.Contains(Fits, *a.Fit) || a.Wearer != nil && !slices.Contains(Wearers, *a.Wearer) {
			t.Fatalf("fit %v wearer %v after a valid patch", a.Fit, a.Wearer)
		}
		if a.FolderID != nil && *a.FolderID == "" {
			t.Fatal("empty folder id after a valid patch")
		}
		// Tags round-trip: what the store writes reads back the same.
		var back Asset
		for _, tag := range a.Tags() {
			back.SetTag(tag)
		}
		if !reflect.DeepEqual(back.SKU, a.SKU) || !reflect.DeepEqual(back.Kind, a.Kind) ||
			!reflect.DeepEqual(back.Fit, a.Fit) || !reflect.DeepEqual(back.Wearer, a.Wearer) {
			t.Fatalf("tags %v read back as %+v from %+v", a.Tags(), back, a)
		}
	})
}

func mustClean(s string) string {
	c, _ := CleanName(s)
	return c
}

func TestTagsRoundTrip(t *testing.T) {
	a := Asset{SKU: ptr("kind:odd:sku"), Kind: ptr(Jewelry), Fit: ptr(Fit("auto")), Wearer: ptr(Women), GroupID: ptr("g1"),
		OtherTags: []string{"season:ss27"}}
	var back Asset
	for _, tag := range a.Tags() {
		back.SetTag(tag)
	}
	if !reflect.DeepEqual(back, a) {
		t.Errorf("got %+v; want %+v", back, a)
	}
	var odd Asset
	odd.SetTag("kind:shoes")
	odd.SetTag("fit:baggy")
	if odd.Kind != nil || odd.Fit != nil {
		t.Errorf("illegal stored values read as %+v", odd)
	}
}

func TestBatchAndGroupRequests(t *testing.T) {
	for _, tt := range []struct {
		name, body, wantCode string
		req                  any
	}{
		{"batch ok", `{"assetIds":["a"],"approved":true}`, "", &BatchRequest{}},
		{"batch null folder", `{"assetIds":["a"],"folderId":null}`, "", &BatchRequest{}},
		{"batch no change", `{"assetIds":["a"]}`, "BAD_BODY", &BatchRequest{}},
		{"batch no ids", `{"approved":true}`, "BAD_BODY", &BatchRequest{}},
		{"batch too many", `{"assetIds":[` + repeat(`"a",`, 1000) + `"a"],"approved":true}`, "BAD_BODY", &BatchRequest{}},
		{"batch bad kind", `{"assetIds":[],"kind":"x"}`, "BAD_KIND", &BatchRequest{}},
		{"batch empty folder", `{"assetIds":[],"folderId":""}`, "NOT_FOUND", &BatchRequest{}},
		{"group ok", `{"assetIds":["a","b"]}`, "", &GroupRequest{}},
		{"group empty", `{"assetIds":[]}`, "BAD_ASSET_IDS", &GroupRequest{}},
		{"group duplicate", `{"assetIds":["a","a"]}`, "BAD_ASSET_IDS", &GroupRequest{}},
		{"group missing", `{}`, "BAD_BODY", &GroupRequest{}},
		{"quote ok", `{"assetIds":[],"operation":"packshot"}`, "", &QuoteRequest{}},
		{"quote bad op", `{"assetIds":[],"operation":"x"}`, "BAD_BODY", &QuoteRequest{}},
		{"ids missing", `{}`, "BAD_BODY", &IDsRequest{}},
		{"folder ok", `{"name":" x "}`, "", &CreateFolderRequest{}},
		{"folder no name", `{}`, "BAD_BODY", &CreateFolderRequest{}},
		{"folder patch null name", `{"name":null}`, "BAD_BODY", &UpdateFolderRequest{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := json.Unmarshal([]byte(tt.body), tt.req); err != nil {
				t.Fatal(err)
			}
			err := tt.req.(interface{ Validate() error }).Validate()
			code := ""
			if e, ok := errs.As(err); ok {
				code = e.Code
			} else if err != nil {
				t.Fatalf("not a wire error: %v", err)
			}
			if code != tt.wantCode {
				t.Errorf("got %v; want %q", err, tt.wantCode)
			}
		})
	}
}
