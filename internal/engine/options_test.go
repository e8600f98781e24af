package engine_test

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"studio/internal/engine"
	"studio/internal/engine/fal"
	"studio/internal/engine/fashn"
	"studio/internal/engine/imageapi"
	"studio/internal/engine/local"
	"studio/internal/tool"
)

// TestEnginesReadOnlyDeclaredOptions reads the engines' source: every
// option an engine reads (a Param call) must be declared by some tool, and
// must be named by a literal so that this test sees it. Reading r.Params
// directly is refused outside package engine itself: it would bypass the
// declaration.
func TestEnginesReadOnlyDeclaredOptions(t *testing.T) {
	declared := map[string]bool{}
	for _, name := range tool.Names() {
		for _, o := range tool.Options(name) {
			declared[o.Name] = true
		}
	}
	read := map[string]bool{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		sub := filepath.Dir(path) != "."
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				sel, ok := n.Fun.(*ast.SelectorExpr)
				if !ok || sel.Sel.Name != "Param" || len(n.Args) != 1 {
					return true
				}
				lit, ok := n.Args[0].(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					t.Errorf("%s: Param is called with a name that is not a literal", fset.Position(n.Pos()))
					return true
				}
				name, _ := strconv.Unquote(lit.Value)
				read[name] = true
				if !declared[name] {
					t.Errorf("%s: an engine reads option %q, which no tool declares (package tool)", fset.Position(n.Pos()), name)
				}
			case *ast.SelectorExpr:
				if sub && n.Sel.Name == "Params" {
					t.Errorf("%s: an engine reads Params directly; read declared options with Param", fset.Position(n.Pos()))
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(read) < 8 {
		t.Fatalf("found only %d option reads (%v): is the scan looking in the right place?", len(read), read)
	}
	// Every option an engine is said to read is read by some engine, so the
	// declaration does not promise what no engine does.
	for _, name := range tool.Names() {
		for _, o := range tool.Options(name) {
			if !o.ReadBy(tool.Service) && !read[o.Name] && o.Name != "outputWidth" && o.Name != "outputHeight" {
				t.Errorf("%s declares %q but no engine reads it", name, o.Name)
			}
		}
	}
}

// TestEnginesServeWhatTheRegistryDeclares: each engine performs exactly
// the tools the registry says it serves (fal with its default models), and
// each tool's options accept their defaults (every form has its parser).
func TestEnginesServeWhatTheRegistryDeclares(t *testing.T) {
	f, err := fal.New("k", "")
	if err != nil {
		t.Fatal(err)
	}
	api, err := imageapi.New("https://images.test", "k", "")
	if err != nil {
		t.Fatal(err)
	}
	fa, err := fashn.New("k", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []engine.Engine{local.New(), local.NewLookbook(), f, api, fa} {
		if got, want := e.Tools(), tool.ServedBy(e.Name()); !slices.Equal(got, want) || len(got) == 0 {
			t.Errorf("%s performs %v; the registry says %v", e.Name(), got, want)
		}
		for _, name := range tool.Names() {
			if d, _ := tool.Get(name); e.Can(name) != d.ServedBy(e.Name()) {
				t.Errorf("%s: Can(%s) is %v", e.Name(), name, e.Can(name))
			}
		}
	}
	for _, name := range tool.Names() {
		for _, o := range tool.Options(name) {
			if o.Default == "" {
				continue
			}
			if err := engine.CheckOptions(name, map[string]string{o.Name: o.Default}, func(string) bool { return true }); err != nil {
				var oe *engine.OptionError
				if !errors.As(err, &oe) || oe.Option == o.Name {
					t.Errorf("%s.%s: the default %q is refused: %v", name, o.Name, o.Default, err)
				}
			}
		}
	}
}

func TestCheckOptions(t *testing.T) {
	none := func(string) bool { return false }
	image := func(r string) bool { return r == "image" }
	tests := []struct {
		name    string
		tool    string
		params  map[string]string
		has     func(string) bool
		option  string // "" = accepted
		missing bool
		role    string
	}{
		{"colour blue", "color-change", map[string]string{"color": "blue"}, image, "color", false, ""},
		{"colour absent", "color-change", nil, image, "color", true, ""},
		{"colour blank is absent", "color-change", map[string]string{"color": "  "}, image, "color", true, ""},
		{"colour ok", "color-change", map[string]string{"color": "#1F3A5F"}, image, "", false, ""},
		{"fit baggy", "fit-adjust", map[string]string{"fit": "baggy"}, image, "fit", false, ""},
		{"fit is exact", "fit-adjust", map[string]string{"fit": "Loose"}, image, "fit", false, ""},
		{"fit loose", "fit-adjust", map[string]string{"fit": " loose "}, image, "", false, ""},
		{"bg image without background", "packshot", map[string]string{"bg": "image"}, image, "bg", false, "background"},
		{"bg image with background", "packshot", map[string]string{"bg": "image"}, func(string) bool { return true }, "", false, ""},
		{"bg colour", "packshot", map[string]string{"bg": "#f4f1ea"}, image, "", false, ""},
		{"bg blue", "packshot", map[string]string{"bg": "blue"}, image, "bg", false, ""},
		{"shadow maybe", "packshot", map[string]string{"shadow": "maybe"}, image, "shadow", false, ""},
		{"aspect wide", "reframe", map[string]string{"aspect": "wide"}, image, "aspect", false, ""},
		{"aspect absent", "reframe", nil, image, "aspect", true, ""},
		{"fill mirror", "reframe", map[string]string{"aspect": "4:5", "fill": "mirror"}, image, "fill", false, ""},
		{"lens fisheye", "camera-lens", map[string]string{"lens": "fisheye"}, image, "lens", false, ""},
		{"lens 85mm", "camera-lens", map[string]string{"lens": "85mm"}, image, "", false, ""},
		{"strength 2", "iron", map[string]string{"strength": "2"}, image, "strength", false, ""},
		{"strength strong", "harmonize", map[string]string{"strength": "strong"}, image, "", false, ""},
		{"prompt needed without image", "generate-character", nil, none, "prompt", true, ""},
		{"image lifts prompt", "generate-character", nil, image, "", false, ""},
		{"unknown names are free", "upscale", map[string]string{"color": "blue", "whatever": "x"}, image, "", false, ""},
		{"an option of another tool is unknown here", "iron", map[string]string{"fit": "baggy"}, image, "", false, ""},
		{"unknown tool checks nothing", "nope", map[string]string{"color": "blue"}, none, "", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := engine.CheckOptions(tt.tool, tt.params, tt.has)
			if tt.option == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var oe *engine.OptionError
			if !errors.As(err, &oe) {
				t.Fatalf("err = %v, want an OptionError", err)
			}
			if oe.Option != tt.option || oe.Missing != tt.missing || oe.Role != tt.role || len(oe.Legal) == 0 || oe.Reason() == "" {
				t.Errorf("got %+v", oe)
			}
		})
	}
}

// TestParamReadsOnlyDeclared: an engine asking for an option its tool
// does not declare hears nothing, whatever the params carry.
func TestParamReadsOnlyDeclared(t *testing.T) {
	r := engine.Request{Tool: "upscale", Params: map[string]string{"aspect": "4:5", "runId": "r1"}}
	if got := r.Param("aspect"); got != "" {
		t.Errorf("upscale read aspect %q", got)
	}
	r.Tool = "reframe"
	if got := r.Param("aspect"); got != "4:5" {
		t.Errorf("reframe read aspect %q", got)
	}
}

func FuzzCheckOptions(f *testing.F) {
	for _, s := range []string{"blue", "#1f3a5f", "4:5", "85mm", "strong", "1.5", "image", "", " loose "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		for _, name := range tool.Names() {
			for _, o := range tool.Options(name) {
				err := engine.CheckOptions(name, map[string]string{o.Name: v}, func(string) bool { return true })
				var oe *engine.OptionError
				if err != nil && (!errors.As(err, &oe) || len(oe.Legal) == 0) {
					t.Fatalf("%s %s=%q: %v", name, o.Name, v, err)
				}
			}
		}
	})
}
