package replay

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// components are the engine's component types (docs/architecture.md): a
// component's fields are read and written only by its own methods and its
// constructor. What crosses between components is a method call or an
// event.
var components = []string{
	"recorder", "watchers",
	"hostSide", "hostIO", "bodyCursor", "hostThreads", "hostStreams", "legacyGate",
	"kernelDistributor", "kernelRuns",
	"smArray", "shareJobs", "occupancy", "ctaIssue",
	"ctaRuns",
	"siteEngine", "deviceRuntime", "launchPath", "deviceStreams", "groupTable", "agt", "aggregator",
	"pageGate", "scoreboard",
	"taskDriver",
}

// TestComponentsKeepTheirFields type-checks the package and fails on any
// field of a component read or written outside its own methods and its
// constructors (functions named new…): the rule of issue 41 that keeps a
// mechanism's state in one room.
func TestComponentsKeepTheirFields(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks the package")
	}
	fset := token.NewFileSet()
	files := packageFiles(t, fset)
	conf := types.Config{Importer: exportImporter(t, fset)}
	info := &types.Info{Selections: map[*ast.SelectorExpr]*types.Selection{}}
	if _, err := conf.Check("replay", fset, files, info); err != nil {
		t.Fatal(err)
	}
	owned := map[string]bool{}
	for _, c := range components {
		owned[c] = true
	}
	var bad []string
	for _, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			recv := receiverName(fd)
			if recv == "" && strings.HasPrefix(fd.Name.Name, "new") {
				continue // a constructor fills the fields it makes
			}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				se, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				sel := info.Selections[se]
				if sel == nil || sel.Kind() != types.FieldVal {
					return true
				}
				recvT := sel.Recv()
				if p, ok := recvT.(*types.Pointer); ok {
					recvT = p.Elem()
				}
				named, ok := recvT.(*types.Named)
				if !ok {
					return true
				}
				owner := named.Obj().Name()
				if owned[owner] && owner != recv {
					where := fd.Name.Name
					if recv != "" {
						where = recv + "." + where
					}
					bad = append(bad, fmt.Sprintf("%s: %s.%s in %s", fset.Position(se.Pos()), owner, se.Sel.Name, where))
				}
				return true
			})
		}
	}
	sort.Strings(bad)
	for _, b := range bad {
		t.Error(b)
	}
}

// receiverName is the name of fd's receiver type, "" for a function.
func receiverName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return ""
	}
	x := fd.Recv.List[0].Type
	if s, ok := x.(*ast.StarExpr); ok {
		x = s.X
	}
	if id, ok := x.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// exportImporter imports the package's dependencies from the export data
// the go command has built for them (go list -export), so the check costs
// what a build costs rather than type-checking every dependency's source.
func exportImporter(t *testing.T, fset *token.FileSet) types.Importer {
	t.Helper()
	out, err := exec.Command("go", "list", "-export", "-deps", "-f", "{{.ImportPath}}\t{{.Export}}", ".").Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("go list -export: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list -export: %v", err)
	}
	exports := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		path, file, ok := strings.Cut(sc.Text(), "\t")
		if ok && file != "" {
			exports[path] = file
		}
	}
	return importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(file)
	})
}

// TestEngineStaysSmall holds the engine to what issue 56 set: at most 20
// fields and 50 methods. The engine is the CTA's and the kernel's paths
// and the loop; state belongs to a component, and an optional mechanism
// takes part through the lifecycle interface (mechanism.go) rather than
// as another field and more methods here.
func TestEngineStaysSmall(t *testing.T) {
	fields, methods := 0, 0
	for _, f := range packageFiles(t, token.NewFileSet()) {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if receiverName(d) == "engine" {
					methods++
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					if ts, ok := s.(*ast.TypeSpec); ok && ts.Name.Name == "engine" {
						for _, fl := range ts.Type.(*ast.StructType).Fields.List {
							fields += max(len(fl.Names), 1)
						}
					}
				}
			}
		}
	}
	if fields == 0 || fields > 20 || methods > 50 {
		t.Errorf("engine has %d fields and %d methods; at most 20 and 50", fields, methods)
	}
}

// packageFiles parses the package's own files, its tests left out.
func packageFiles(t *testing.T, fset *token.FileSet) []*ast.File {
	t.Helper()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, n, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}
