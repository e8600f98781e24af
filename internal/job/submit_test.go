package job_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"studio/internal/auth"
	"studio/internal/engine/local"
	"studio/internal/errs"
	"studio/internal/job"
	"studio/internal/tool"
)

// TestSubmitSaysWhatIsWrong: a submit that names no tool, or sends an
// input in a role its tool does not take, is refused before the store,
// the assets or the engines are reached, in plain words naming what the
// tool takes (issue 26, item 7).
func TestSubmitSaysWhatIsWrong(t *testing.T) {
	s := job.NewService(nil, nil, nil, tool.DefaultPrices(), func() time.Time { return time.Unix(0, 0) })
	p := auth.Principal{HouseID: "h", UserID: "u", Role: auth.Member}
	png := []byte("\x89PNG")
	tests := []struct {
		name      string
		in        job.SubmitRequest
		code      string
		status    errs.Kind
		message   string
		wantLegal []string
	}{
		{"no tool", job.SubmitRequest{Uploads: []job.Upload{{Role: "image", Data: png}}},
			"UNKNOWN_TOOL", errs.KindInvalid, "The tool field is missing.", tool.SubmitTools()},
		{"a tool that does not exist", job.SubmitRequest{Tool: "levitate"},
			"UNKNOWN_TOOL", errs.KindInvalid, job.ErrUnknownTool.Message, tool.SubmitTools()},
		{"an upload in a role upscale lacks", job.SubmitRequest{Tool: "upscale", Uploads: []job.Upload{{Role: "garment", Data: png}}},
			"NO_IMAGE", errs.KindInvalid, "The tool upscale takes no garment input; it takes image.", []string{"image"}},
		{"an asset in a role packshot lacks", job.SubmitRequest{Tool: "packshot", Inputs: []job.Input{{Role: "mask", AssetID: "a"}}},
			"NO_IMAGE", errs.KindInvalid, "The tool packshot takes no mask input; it takes image and background.", []string{"image", "background"}},
		{"two required roles", job.SubmitRequest{Tool: "tryon", Inputs: []job.Input{{Role: "image", AssetID: "a"}}},
			"NO_IMAGE", errs.KindInvalid, "The tool tryon takes no image input; it takes model and garment.", []string{"model", "garment"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.Submit(context.Background(), p, tt.in)
			var e *errs.Error
			if !errors.As(err, &e) || e.Code != tt.code || e.Kind != tt.status || e.Message != tt.message {
				t.Fatalf("got %v; want %s %q", err, tt.code, tt.message)
			}
			if legal, _ := e.Fields["legal"].([]string); !slices.Equal(legal, tt.wantLegal) {
				t.Errorf("legal %v; want %v", e.Fields["legal"], tt.wantLegal)
			}
		})
	}
}

// TestUnservedTools: with the local engine alone, a tool no configured
// engine performs is in the catalog with engine null and a note naming
// every setting that would serve it, MCP list_capabilities the same, and
// its submit's 503 says the same (issue 27, item 7).
func TestUnservedTools(t *testing.T) {
	s := job.NewService(nil, nil, local.New(), tool.DefaultPrices(), func() time.Time { return time.Unix(0, 0) })
	rows := map[string]job.CatalogTool{}
	for _, row := range s.Catalog().Tools {
		rows[row.Tool] = row
	}
	caps := map[string]job.Capability{}
	for _, c := range s.Capabilities() {
		caps[c.Tool] = c
	}
	for name, note := range map[string]string{
		"generate-character": "No engine configured here performs generate-character; set FAL_KEY, AI_IMAGE_BASE_URL or FASHN_API_KEY to develop it.",
		"lookbook-video":     "No engine configured here performs lookbook-video; set FAL_KEY or FASHN_API_KEY to develop it.",
	} {
		if row := rows[name]; row.Engine != nil || row.Note != note {
			t.Errorf("catalog %s: engine %v note %q; want null and %q", name, row.Engine, row.Note, note)
		}
		if c, ok := caps[name]; !ok || c.Engine != nil || c.Note != note || len(c.Prices) != 3 {
			t.Errorf("list_capabilities %s: %+v; want it listed with its prices, a null engine and %q", name, c, note)
		}
		in := job.SubmitRequest{Tool: name, Uploads: []job.Upload{{Role: "image", Data: []byte("\x89PNG")}}}
		_, err := s.Submit(context.Background(), auth.Principal{HouseID: "h", UserID: "u", Role: auth.Member}, in)
		var e *errs.Error
		if !errors.As(err, &e) || e.Code != "FAL_NOT_CONFIGURED" || e.Kind != errs.KindUnavailable || e.Message != note {
			t.Errorf("submit %s: %v; want 503 FAL_NOT_CONFIGURED %q", name, err, note)
		}
	}
	if row := rows["upscale"]; row.Engine == nil || *row.Engine != "local" || row.Note != "" {
		t.Errorf("catalog upscale: %+v; want the local engine, no note", row)
	}
}
