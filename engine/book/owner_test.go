package book_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// moneyName is a name that holds money: a stake, what is at risk, what was
// accepted, a profit.
// (Units a tip staked are a tipster's units, not money.)
var moneyName = regexp.MustCompile(`(?i)^(?:[a-z]*)(stake|risk|profit|accepted|requested|liability|exposure|cents|dollars|amount)`)

// notMoney are names the pattern takes that hold no money.
var notMoney = regexp.MustCompile(`(?i)^units`)

// No code outside the book adds money up: every sum of stakes, what is at
// risk, what was accepted or won is the book's (book.Count, book.Sum,
// book.Ledger, book.Total, book.AddCents), so every view shows the same
// money. It walks every Go file of the module but the book itself, the
// leaf that converts amounts (engine/bet) and the simulated service (it
// keeps the service's own books, as the real one would), and fails on a
// `+=` or `-=` into a name that holds money, or a call of bet.AddCents.
func TestOnlyTheBookAddsMoney(t *testing.T) {
	t.Parallel()
	root := "../.."
	skip := map[string]bool{"engine/book": true, "engine/bet": true, "apiclient/sim": true}
	fset := token.NewFileSet()
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if rel == "." {
				return nil
			}
			if skip[filepath.ToSlash(rel)] || strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		checked++
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.AssignStmt:
				if x.Tok != token.ADD_ASSIGN && x.Tok != token.SUB_ASSIGN {
					return true
				}
				for _, lhs := range x.Lhs {
					if name := lastName(lhs); moneyName.MatchString(name) && !notMoney.MatchString(name) {
						t.Errorf("%s: %s %s: money is added up by the book (engine/book), not here", fset.Position(x.Pos()), name, x.Tok)
					}
				}
			case *ast.CallExpr:
				if sel, ok := x.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "AddCents" {
					if id, ok := sel.X.(*ast.Ident); ok && id.Name == "bet" {
						t.Errorf("%s: bet.AddCents: add money through book.AddCents or book.Total", fset.Position(x.Pos()))
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("only %d files checked: the walk missed the module", checked)
	}
}

// lastName is the name an assignment writes: x in x, s.x, a[i].x.
func lastName(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.Ident:
			return x.Name
		case *ast.SelectorExpr:
			return x.Sel.Name
		case *ast.IndexExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		default:
			return ""
		}
	}
}
