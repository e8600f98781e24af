package job_test

import (
	"errors"
	"testing"

	"studio/internal/errs"
	"studio/internal/job"
)

func TestCheckOptions(t *testing.T) {
	image := []job.Input{{Role: "image", AssetID: "a"}}
	tests := []struct {
		name   string
		tool   string
		params map[string]string
		inputs []job.Input
		code   string
		field  string // the field besides option: legal or role
	}{
		{"colour blue", "color-change", map[string]string{"color": "blue"}, image, "BAD_OPTION", "legal"},
		{"fit left out", "fit-adjust", nil, image, "BAD_OPTION", "legal"},
		{"bg=image without background", "packshot", map[string]string{"bg": "image"}, image, "NO_INPUTS", "role"},
		{"bg=image with background", "packshot", map[string]string{"bg": "image"}, append([]job.Input{{Role: "background"}}, image...), "", ""},
		{"unknown name", "upscale", map[string]string{"colour": "blue"}, image, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := job.CheckOptions(tt.tool, tt.params, tt.inputs)
			if tt.code == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			e, ok := errs.As(err)
			if !ok || e.Code != tt.code || e.Fields["option"] == nil || e.Fields[tt.field] == nil {
				t.Fatalf("err = %#v; want %s with option and %s", err, tt.code, tt.field)
			}
			if tt.code == "BAD_OPTION" && !errors.Is(err, job.ErrBadOption) {
				t.Error("not ErrBadOption")
			}
		})
	}
}
