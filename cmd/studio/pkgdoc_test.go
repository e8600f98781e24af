package main

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryPackageIsDocumented: every package of the module says what it
// is in a package comment (docs/architecture.md's package list is drawn from them).
func TestEveryPackageIsDocumented(t *testing.T) {
	root := filepath.Join("..", "..")
	files := map[string][]string{} // directory -> its non-test Go files
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "docs") && path != root {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			files[filepath.Dir(path)] = append(files[filepath.Dir(path)], path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for dir, paths := range files {
		documented := false
		for _, p := range paths {
			f, err := parser.ParseFile(fset, p, nil, parser.ParseComments|parser.PackageClauseOnly)
			if err != nil {
				t.Fatal(err)
			}
			documented = documented || (f.Doc != nil && strings.TrimSpace(f.Doc.Text()) != "")
		}
		if !documented {
			t.Errorf("the package in %s has no package comment", dir)
		}
	}
}
