package replay_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpureplay/gpureplay/ingest"
	"github.com/gpureplay/gpureplay/replay"
)

// readAhead is what a test passes as Options.Ahead to read ahead or not.
func readAhead(on bool) replay.ReadAhead {
	if on {
		return ingest.Ahead{}
	}
	return nil
}

// The engine starts no goroutine (Options.Ahead): its own code holds no go
// statement and starts no trace.Prefetcher, which would start one behind
// its back; what reads ahead runs on the ReadAhead it is given.
func TestEngineStartsNoGoroutine(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.GoStmt:
				t.Errorf("%s: a go statement", fset.Position(n.Pos()))
			case *ast.SelectorExpr:
				if n.Sel.Name == "NewPrefetcher" {
					t.Errorf("%s: starts a trace.Prefetcher", fset.Position(n.Pos()))
				}
			}
			return true
		})
	}
}
