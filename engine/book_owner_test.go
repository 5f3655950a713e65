package engine_test

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestOnlyTheBookWritesBetState fails when code of the engine outside the
// book (book*.go) assigns a bet's state: a field of betState set, bumped,
// appended to or taken the address of, or a betState built. Every
// change of a bet goes through one of the book's transitions, so alerts
// and the limits' sums see each.
func TestOnlyTheBookWritesBetState(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("type-checks the engine")
	}
	list := func(args ...string) []string {
		out, err := exec.Command("go", append([]string{"list"}, args...)...).Output()
		if err != nil {
			t.Fatalf("go list %v: %v", args, err)
		}
		return strings.Fields(string(out))
	}
	exports := map[string]string{}
	for _, l := range list("-export", "-deps", "-f", "{{.ImportPath}}={{.Export}}", ".") {
		path, file, _ := strings.Cut(l, "=")
		exports[path] = file
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range list("-f", `{{join .GoFiles " "}}`, ".") {
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	info := &types.Info{Selections: map[*ast.SelectorExpr]*types.Selection{}, Types: map[ast.Expr]types.TypeAndValue{}}
	conf := types.Config{Importer: importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		return os.Open(exports[path])
	})}
	pkg, err := conf.Check("github.com/betplan/betplan/engine", fset, files, info)
	if err != nil {
		t.Fatal(err)
	}
	stateType := pkg.Scope().Lookup("betState")
	if stateType == nil {
		t.Fatal("no type betState in the engine")
	}
	st := stateType.Type().Underlying().(*types.Struct)
	owned := map[*types.Var]bool{}
	for i := range st.NumFields() {
		owned[st.Field(i)] = true
	}
	writes := func(e ast.Expr) (string, bool) {
		for {
			switch x := e.(type) {
			case *ast.ParenExpr:
				e = x.X
				continue
			case *ast.IndexExpr:
				e = x.X
				continue
			case *ast.SliceExpr:
				e = x.X
				continue
			case *ast.StarExpr:
				e = x.X
				continue
			}
			break
		}
		sel, ok := e.(*ast.SelectorExpr)
		if !ok {
			return "", false
		}
		s := info.Selections[sel]
		if s == nil || s.Kind() != types.FieldVal {
			return "", false
		}
		v, ok := s.Obj().(*types.Var)
		return sel.Sel.Name, ok && owned[v]
	}
	inBook := 0
	var outside []string
	for _, f := range files {
		pos := fset.Position(f.Pos())
		book := strings.HasPrefix(filepath.Base(pos.Filename), "book")
		ast.Inspect(f, func(n ast.Node) bool {
			var targets []ast.Expr
			switch s := n.(type) {
			case *ast.AssignStmt:
				targets = s.Lhs
			case *ast.IncDecStmt:
				targets = []ast.Expr{s.X}
			case *ast.UnaryExpr:
				if s.Op == token.AND {
					targets = []ast.Expr{s.X}
				}
			case *ast.RangeStmt:
				targets = []ast.Expr{s.Key, s.Value}
			case *ast.CompositeLit:
				if tv, ok := info.Types[s]; ok && types.Identical(tv.Type, stateType.Type()) {
					if book {
						inBook++
					} else {
						outside = append(outside, fset.Position(s.Pos()).String()+": builds a betState")
					}
				}
			}
			for _, e := range targets {
				if e == nil {
					continue
				}
				if name, ok := writes(e); ok {
					if book {
						inBook++
					} else {
						outside = append(outside, fset.Position(e.Pos()).String()+": writes "+name)
					}
				}
			}
			return true
		})
	}
	if inBook == 0 {
		t.Fatal("found no write of a bet's state in the book itself: the check sees nothing")
	}
	for _, w := range outside {
		t.Errorf("%s outside the book: change a bet through a transition of book.go", w)
	}
}
