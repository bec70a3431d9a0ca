package results

import (
	"bytes"
	"os"
	"reflect"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/gpureplay/gpureplay/results/internal/colgen"
	"github.com/gpureplay/gpureplay/tables"
)

// col and nullable make a test's columns, and schema a test's schema of
// them after the run columns.
func schema(fields ...arrow.Field) *arrow.Schema {
	run := []arrow.Field{col("trace", str), col("policy", str), col("params", str)}
	return arrow.NewSchema(append(run, fields...), nil)
}

func col(name string, t arrow.DataType) arrow.Field { return arrow.Field{Name: name, Type: t} }

func nullable(name string, t arrow.DataType) arrow.Field {
	return arrow.Field{Name: name, Type: t, Nullable: true}
}

// arrowNames are the Arrow types each declared type is written as.
var arrowNames = map[tables.Type]string{tables.Int64: "int64", tables.Int32: "int32", tables.Float64: "float64", tables.String: "utf8"}

// TestSchemas checks the tables' schemas against their declarations
// (package tables): the order of the tables, which Writer.tables follows
// by index, and each column's name, type and nullability, the run columns
// first.
func TestSchemas(t *testing.T) {
	want := []string{"summary", "kernels", "ctas", "launches", "occupancy", "pages", "stages", "syncs"}
	if got := Tables(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Tables() = %v, want %v", got, want)
	}
	Tables()[0] = "changed"
	if Tables()[0] != "summary" {
		t.Error("Tables() shares its slice with the caller")
	}
	for _, tb := range tables.All() {
		s := Schema(tb.Name)
		if s == nil {
			t.Fatalf("Schema(%q) = nil", tb.Name)
		}
		cols := append(append([]tables.Column(nil), tables.RunColumns()...), tb.Columns...)
		if s.NumFields() != len(cols) {
			t.Fatalf("%s: %d columns, %d declared", tb.Name, s.NumFields(), len(cols))
		}
		for i, f := range s.Fields() {
			c := cols[i]
			if f.Name != c.Name || f.Type.String() != arrowNames[c.Type] || f.Nullable != c.Nullable {
				t.Errorf("%s column %d is %s %s nullable=%v, declared %s %s nullable=%v",
					tb.Name, i, f.Name, f.Type, f.Nullable, c.Name, c.Type, c.Nullable)
			}
		}
	}
	if Schema("nope") != nil {
		t.Error(`Schema("nope") != nil`)
	}
}

// TestGeneratedCurrent checks that the files generated from the tables'
// declarations are what the generator writes now: run `go generate
// ./results` after changing a declaration.
func TestGeneratedCurrent(t *testing.T) {
	src, err := colgen.Go()
	if err != nil {
		t.Fatal(err)
	}
	compare(t, "columns_gen.go", src)
	const py = "../interop/python/gpureplay_tables.py"
	old, err := os.ReadFile(py)
	if err != nil {
		t.Fatal(err)
	}
	if src, err = colgen.Python(old); err != nil {
		t.Fatal(err)
	}
	compare(t, py, src)
}

func compare(t *testing.T, path string, want []byte) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is not what package tables' declarations generate: run go generate ./results", path)
	}
}
