package main

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The import rules of the house (internal/engine's package doc, STYLE.md
// 3.8): engines side by side, and domains that name the AI methods they
// need rather than hold the concrete client.
const (
	module     = "studio"
	engineRoot = module + "/internal/engine"
	picturePkg = module + "/internal/picture"
)

// engineHelpers are the folders under internal/engine that are not
// engines but what engines share: they implement no engine.Engine and
// import no engine. Every other folder directly under internal/engine is
// an engine (a new provider is a sibling folder, and the rules hold it at
// once).
var engineHelpers = []string{"segment", "lookbrief", "hosted"}

// goFile is one Go file of the module and what it imports.
type goFile struct {
	pkg     string // the import path of its folder
	name    string // its path from the module root
	test    bool
	imports []string
}

// moduleFiles parses the imports of every Go file of the module.
func moduleFiles(t *testing.T) []goFile {
	t.Helper()
	root := filepath.Join("..", "..")
	var files []goFile
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		g := goFile{pkg: path.Join(module, path.Dir(rel)), name: rel, test: strings.HasSuffix(p, "_test.go")}
		for _, im := range f.Imports {
			v, err := strconv.Unquote(im.Path.Value)
			if err != nil {
				return err
			}
			g.imports = append(g.imports, v)
		}
		files = append(files, g)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 100 {
		t.Fatalf("found only %d Go files; is the module root right?", len(files))
	}
	return files
}

// engineOf is the engine or helper folder a package belongs to ("local"
// for internal/engine/local and below), or "" outside them and for
// package engine itself.
func engineOf(pkg string) string {
	rest, ok := strings.CutPrefix(pkg, engineRoot+"/")
	if !ok {
		return ""
	}
	first, _, _ := strings.Cut(rest, "/")
	return first
}

func isHelper(folder string) bool { return slices.Contains(engineHelpers, folder) }

// wiring reports whether pkg builds the program from its parts (app,
// cmd), or the test apps' render program from the local engines
// (internal/apptest/renderproc): the only code outside internal/engine
// that names an engine.
func wiring(pkg string) bool {
	return pkg == module+"/internal/app" || strings.HasPrefix(pkg, module+"/internal/app/") || strings.HasPrefix(pkg, module+"/cmd/") ||
		pkg == module+"/internal/apptest/renderproc"
}

// TestEnginesSideBySide: no engine imports another engine, in its code or
// its tests; a helper of engines imports no engine; package engine (the
// contract) and package picture import no engine, and picture not even
// package engine; outside internal/engine, only the wiring names an engine
// (a test may use one to make frames). So a provider is a sibling folder
// that needs nothing of another provider.
func TestEnginesSideBySide(t *testing.T) {
	engines := map[string]bool{}
	for _, f := range moduleFiles(t) {
		from := engineOf(f.pkg)
		if from != "" && !isHelper(from) {
			engines[from] = true
		}
		for _, im := range f.imports {
			if f.pkg == picturePkg && im == engineRoot {
				t.Errorf("%s imports package engine: picture sits below the engines", f.name)
			}
			to := engineOf(im)
			switch {
			case to == "" || isHelper(to) || to == from:
			case isHelper(from):
				t.Errorf("%s imports the %s engine: a helper of engines imports none", f.name, to)
			case from != "":
				t.Errorf("%s imports the %s engine: no engine imports another; share it through package engine or picture", f.name, to)
			case !f.test && !wiring(f.pkg):
				t.Errorf("%s imports the %s engine: only the wiring (internal/app) names an engine", f.name, to)
			}
		}
	}
	for _, want := range []string{"local", "fal", "imageapi"} {
		if !engines[want] {
			t.Errorf("no %s engine found under internal/engine; the rule reads the wrong tree", want)
		}
	}
}

// aiClient is the concrete client of the AI endpoint; aiTest its stand-in
// endpoint for tests, which hands tests a client configuration.
const (
	aiClient = module + "/internal/ai/openai"
	aiTest   = module + "/internal/ai/aitest"
	aiSDK    = "github.com/openai/openai-go"
)

// TestDomainsNameTheirAI: a domain declares the few AI methods it calls
// as an interface of its own (package ai's doc lists them); no code but
// the wiring and the test stand-in imports the concrete client, and none
// but the client imports the SDK. Tests may build the client to talk to
// the stand-in.
func TestDomainsNameTheirAI(t *testing.T) {
	importers := 0
	for _, f := range moduleFiles(t) {
		for _, im := range f.imports {
			switch {
			case im == aiClient:
				importers++
				if !f.test && !wiring(f.pkg) && f.pkg != aiTest {
					t.Errorf("%s imports the concrete AI client: declare the methods it calls as an interface and let internal/app hand the client over", f.name)
				}
			case im == aiSDK || strings.HasPrefix(im, aiSDK+"/"):
				if f.pkg != aiClient {
					t.Errorf("%s imports the OpenAI SDK: only %s speaks it", f.name, aiClient)
				}
			}
		}
	}
	if importers == 0 {
		t.Error("nothing imports the AI client; the rule reads the wrong tree")
	}
}
