package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"studio/internal/app"
)

// The README and docs/ are read by people who clone the repository; these
// tests keep what they point at real.

// mdLink is a Markdown link's target: [text](target).
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// docFiles returns README.md and every Markdown file under docs/, as paths
// relative to the repository's root.
func docFiles(t *testing.T, root string) []string {
	t.Helper()
	files := []string{"README.md"}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".md") {
			rel, err := filepath.Rel(root, path)
			files = append(files, rel)
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// headingAnchors are the anchors GitHub gives a Markdown file's headings:
// lower case, spaces as hyphens, everything but letters, marks, digits,
// hyphens and underscores dropped.
func headingAnchors(text string) []string {
	var anchors []string
	for line := range strings.SplitSeq(text, "\n") {
		if !strings.HasPrefix(line, "#") {
			continue
		}
		h := strings.ToLower(strings.TrimSpace(strings.TrimLeft(line, "#")))
		var b strings.Builder
		for _, r := range h {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsMark(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		anchors = append(anchors, b.String())
	}
	return anchors
}

// TestDocLinksResolve: every relative link in README.md and docs/*.md names
// a file of the repository (and, with #anchor, a heading of it), and every
// page under docs/ is linked from the README.
func TestDocLinksResolve(t *testing.T) {
	root := filepath.Join("..", "..")
	files := docFiles(t, root)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		text, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mdLink.FindAllStringSubmatch(string(text), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path, anchor, _ := strings.Cut(target, "#")
			dest := filepath.Join(filepath.Dir(f), path)
			if path == "" {
				dest = f
			}
			body, err := os.ReadFile(filepath.Join(root, dest))
			if err != nil {
				t.Errorf("%s links to %s, which does not exist", f, target)
				continue
			}
			if anchor != "" && !slices.Contains(headingAnchors(string(body)), anchor) {
				t.Errorf("%s links to %s: %s has no heading with that anchor", f, target, dest)
			}
		}
		if strings.HasPrefix(f, "docs"+string(filepath.Separator)) && !strings.Contains(string(readme), "("+filepath.ToSlash(f)+")") {
			t.Errorf("README.md does not link to %s", f)
		}
	}
}

// TestSettingsDocumented: docs/settings.md names every setting of the
// table `studio serve --help` prints, and no setting the table lacks.
func TestSettingsDocumented(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "settings.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	var names []string
	for _, s := range app.Settings {
		names = append(names, s.Name)
		if !strings.Contains(doc, "`"+s.Name+"`") {
			t.Errorf("docs/settings.md does not name %s", s.Name)
		}
	}
	// The tables' first column names settings; each must be one.
	for _, m := range regexp.MustCompile("(?m)^\\| (`[A-Z_]+`(?:, `[A-Z_]+`)*) \\|").FindAllStringSubmatch(doc, -1) {
		for _, n := range regexp.MustCompile("`([A-Z_]+)`").FindAllStringSubmatch(m[1], -1) {
			if !slices.Contains(names, n[1]) {
				t.Errorf("docs/settings.md lists %s, which is not a setting (internal/app/config.go)", n[1])
			}
		}
	}
}

// TestArchitectureListsEveryPackage: the package table in
// docs/architecture.md has a row for every package of the module and none
// for a package that is gone.
func TestArchitectureListsEveryPackage(t *testing.T) {
	root := filepath.Join("..", "..")
	b, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z0-9/_]+)` \\|").FindAllStringSubmatch(string(b), -1) {
		listed[m[1]] = true
	}
	found := map[string]bool{}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "docs") && path != root {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			rel, err := filepath.Rel(root, filepath.Dir(path))
			found[filepath.ToSlash(rel)] = true
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for p := range found {
		if !listed[p] {
			t.Errorf("docs/architecture.md has no row for the package %s: add one saying what it is", p)
		}
	}
	for p := range listed {
		if !found[p] {
			t.Errorf("docs/architecture.md lists %s, which holds no package", p)
		}
	}
}
