package errs_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// declaration is one errs.New call found in the module's source.
type declaration struct {
	code, kind, at string
}

// twoMeanings lists the codes the spec gives two statuses, each with the
// kinds of its two declarations. UNKNOWN_TOOL is 400 when a submit names a
// tool that does not exist (job.ErrUnknownTool) and 422 when a rerun
// (duplicate, redraw, takes) meets a frame whose tool is no longer offered
// (job.ErrUnknownToolRun): SPEC §4.5 documents both.
var twoMeanings = map[string][]string{
	"UNKNOWN_TOOL": {"KindInvalid", "KindUnprocessable"},
}

// TestEachCodeDeclaredOnce reads every Go file of the module and fails when
// a wire code is declared (errs.New) more than once, or with two kinds, or
// by a code that is not a string literal. Copies made by With, Msg and Wrap
// keep their code and kind and are not declarations.
func TestEachCodeDeclaredOnce(t *testing.T) {
	decls := moduleDeclarations(t)
	if len(decls) < 20 {
		t.Fatalf("found only %d declarations; is the module root right?", len(decls))
	}
	byCode := map[string][]declaration{}
	for _, d := range decls {
		byCode[d.code] = append(byCode[d.code], d)
	}
	for code, ds := range byCode {
		if want, ok := twoMeanings[code]; ok {
			var kinds []string
			for _, d := range ds {
				kinds = append(kinds, d.kind)
			}
			slices.Sort(kinds)
			if !slices.Equal(kinds, want) {
				t.Errorf("%s: declared with kinds %v; the spec gives it exactly %v", code, kinds, want)
			}
			continue
		}
		if len(ds) > 1 {
			var at []string
			for _, d := range ds {
				at = append(at, d.at+" ("+d.kind+")")
			}
			t.Errorf("%s is declared %d times: %s; declare it once, in the package that owns it (shared codes in errs), and derive copies with errs.Msg or errs.With",
				code, len(ds), strings.Join(at, ", "))
		}
	}
}

// moduleDeclarations parses every non-test Go file under the module root.
func moduleDeclarations(t *testing.T) []declaration {
	t.Helper()
	root := filepath.Join("..", "..")
	var out []declaration
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		inErrs := f.Name.Name == "errs"
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || !isNew(call.Fun, inErrs) || len(call.Args) != 3 {
				return true
			}
			at := fset.Position(call.Pos()).String()
			lit, ok := call.Args[1].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				t.Errorf("%s: errs.New with a code that is not a string literal", at)
				return true
			}
			code, _ := strconv.Unquote(lit.Value)
			kind := ""
			switch k := call.Args[0].(type) {
			case *ast.SelectorExpr:
				kind = k.Sel.Name
			case *ast.Ident:
				kind = k.Name
			}
			out = append(out, declaration{code: code, kind: kind, at: at})
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func isNew(fun ast.Expr, inErrs bool) bool {
	switch f := fun.(type) {
	case *ast.SelectorExpr:
		x, ok := f.X.(*ast.Ident)
		return ok && x.Name == "errs" && f.Sel.Name == "New"
	case *ast.Ident:
		return inErrs && f.Name == "New"
	}
	return false
}
