package engine_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// maxMethods is the most methods one type of the engine may have: a type
// with more owns more than one concern and should be split into parts.
const maxMethods = 40

// TestNoTypeHasMoreThan40Methods fails when a type anywhere under engine/
// gains more than maxMethods methods, so no part grows back into the
// one object that did everything.
func TestNoTypeHasMoreThan40Methods(t *testing.T) {
	counts := map[string]int{} // "dir.Type" → methods
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || len(fn.Recv.List) == 0 {
				continue
			}
			counts[filepath.ToSlash(filepath.Join("engine", filepath.Dir(path)))+"."+receiverName(fn.Recv.List[0].Type)]++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(counts) == 0 {
		t.Fatal("found no methods under engine/: the walk read nothing")
	}
	var over []string
	for typ, n := range counts {
		if n > maxMethods {
			over = append(over, typ)
		}
	}
	sort.Strings(over)
	for _, typ := range over {
		t.Errorf("%s has %d methods, more than %d: split it into parts", typ, counts[typ], maxMethods)
	}
}

// TestPartsImportOneWay fails when a part of the engine that is its own
// package imports more of the module than its place allows: the arrows
// point one way, from the engine to its parts. Following (engine/follow)
// reads the service and hands the book what it saw, so it imports the
// service's client, what a bet is (engine/bet) and the list of reasons
// (reason), never the engine; a bet's words and the reasons import nothing
// of the module; the book (engine/book) counts money from plain facts, so
// it imports what a bet is, the plan's periods and the figures the limits
// read (limit), never the service. The limit kinds import nothing of the
// module, and the plan only them, so each kind is one file the plan, the
// engine and the reports all read.
func TestPartsImportOneWay(t *testing.T) {
	t.Parallel()
	const module = "github.com/betplan/betplan/"
	allowed := map[string][]string{
		"engine/follow": {"apiclient", "engine/bet", "reason"},
		"engine/bet":    nil,
		"engine/book":   {"engine/bet", "limit", "plan"},
		"reason":        nil,
		"limit":         nil,
		"plan":          {"limit"},
	}
	for part, may := range allowed {
		dir := "./" + strings.TrimPrefix(part, "engine/")
		if !strings.HasPrefix(part, "engine/") {
			dir = "../" + part
		}
		out, err := exec.Command("go", "list", "-f", `{{join .Imports " "}}`, dir).Output()
		if err != nil {
			t.Fatalf("go list %s: %v", part, err)
		}
		for _, imp := range strings.Fields(string(out)) {
			if rest, ok := strings.CutPrefix(imp, module); ok && !slices.Contains(may, rest) {
				t.Errorf("%s imports %s: it may import only %v of the module", part, rest, may)
			}
		}
	}
}

// receiverName is the type a method's receiver names: T of T, *T, T[P].
func receiverName(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return "?"
		}
	}
}
