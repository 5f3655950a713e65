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
//
// The follower (engine/follow) is another package: it holds no bet, only
// the book's views of them (follow.Bet), and changes them only through
// the book's transitions (follow.Book). So the test also fails when a
// view or the book's side of following is declared outside the book's
// files, when a view's method writes a bet's state, or when a view hands
// out anything a bet could be written through (a pointer, slice, map,
// channel, func or interface): its methods give plain values alone.
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
	followFaces := followInterfaces(t, pkg)
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
	views := map[*types.TypeName]bool{} // the types that implement follow.Bet
	for _, name := range pkg.Scope().Names() {
		tn, ok := pkg.Scope().Lookup(name).(*types.TypeName)
		if !ok || types.IsInterface(tn.Type()) {
			continue
		}
		for face, iface := range followFaces {
			if !types.Implements(tn.Type(), iface) && !types.Implements(types.NewPointer(tn.Type()), iface) {
				continue
			}
			if pos := fset.Position(tn.Pos()); !strings.HasPrefix(filepath.Base(pos.Filename), "book") {
				t.Errorf("%s: %s, the book's %s for the follower, is declared outside the book: keep it in a book*.go file", pos, tn.Name(), face)
			}
			if face != "follow.Bet" {
				continue
			}
			views[tn] = true
			ms := types.NewMethodSet(types.NewPointer(tn.Type()))
			for i := range ms.Len() {
				m := ms.At(i).Obj()
				if !m.Exported() {
					continue // the follower cannot call it
				}
				for r := range m.Type().(*types.Signature).Results().Variables() {
					if !plainValue(r.Type()) {
						t.Errorf("%s: the view's %s hands out a %s, which a bet could be written through: a view gives plain values alone",
							fset.Position(m.Pos()), m.Name(), r.Type())
					}
				}
			}
		}
	}
	if len(views) == 0 {
		t.Fatal("no type of the engine implements follow.Bet: the follower gets its views from elsewhere, and the check sees nothing")
	}
	for _, f := range files {
		pos := fset.Position(f.Pos())
		book := strings.HasPrefix(filepath.Base(pos.Filename), "book")
		var inView string // the view whose method the walk is in, if any
		ast.Inspect(f, func(n ast.Node) bool {
			if fn, ok := n.(*ast.FuncDecl); ok {
				inView = ""
				if fn.Recv != nil && len(fn.Recv.List) > 0 {
					if tn := namedOf(info.Types[fn.Recv.List[0].Type].Type); tn != nil && views[tn] {
						inView = tn.Name()
					}
				}
			}
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
					if inView != "" {
						t.Errorf("%s: the view %s writes %s: a view only reads, the book's transitions write", fset.Position(e.Pos()), inView, name)
						continue
					}
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

// followInterfaces are the follower's faces of the book (engine/follow's
// Bet, the read-only view, and Book, the transitions), as the engine
// imports them.
func followInterfaces(t *testing.T, pkg *types.Package) map[string]*types.Interface {
	t.Helper()
	for _, imp := range pkg.Imports() {
		if imp.Path() != "github.com/betplan/betplan/engine/follow" {
			continue
		}
		faces := map[string]*types.Interface{}
		for _, name := range []string{"Bet", "Book"} {
			obj := imp.Scope().Lookup(name)
			if obj == nil || !types.IsInterface(obj.Type()) {
				t.Fatalf("engine/follow has no interface %s", name)
			}
			faces["follow."+name] = obj.Type().Underlying().(*types.Interface)
		}
		return faces
	}
	t.Fatal("the engine does not import engine/follow: the check of the follower's views sees nothing")
	return nil
}

// plainValue reports whether a value of type typ is a copy that shares
// nothing with where it came from: a boolean, number or string (or a type
// made of one), or a time.Time.
func plainValue(typ types.Type) bool {
	if n, ok := typ.(*types.Named); ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "time" && n.Obj().Name() == "Time" {
		return true
	}
	_, basic := typ.Underlying().(*types.Basic)
	return basic
}

// namedOf is the type name of T, *T, or nil.
func namedOf(typ types.Type) *types.TypeName {
	if p, ok := typ.(*types.Pointer); ok {
		typ = p.Elem()
	}
	if n, ok := typ.(*types.Named); ok {
		return n.Obj()
	}
	return nil
}
