package results

import (
	"context"
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// readTable reads a table file back with an independent reader of its
// format: the Parquet and Arrow IPC readers return the schema and typed
// values (nil for null), the CSV reader the header and the fields as text.
func readTable(t *testing.T, dir, table string, f Format) (*arrow.Schema, []string, [][]any) {
	t.Helper()
	path := filepath.Join(dir, table+"."+string(f))
	switch f {
	case Parquet:
		s, rows := readParquet(t, path)
		return s, columnNames(s), rows
	case Arrow:
		s, rows := readIPC(t, path)
		return s, columnNames(s), rows
	default:
		header, rows := readCSV(t, path)
		return nil, header, rows
	}
}

func readParquet(t *testing.T, path string) (*arrow.Schema, [][]any) {
	t.Helper()
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 1 << 10}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	tr := array.NewTableReader(tbl, 0)
	defer tr.Release()
	var rows [][]any
	for tr.Next() {
		rows = appendRows(t, rows, tr.Record())
	}
	return tbl.Schema(), rows
}

func readIPC(t *testing.T, path string) (*arrow.Schema, [][]any) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := ipc.NewFileReader(f)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var rows [][]any
	for i := 0; i < r.NumRecords(); i++ {
		rec, err := r.Record(i)
		if err != nil {
			t.Fatal(err)
		}
		rows = appendRows(t, rows, rec)
	}
	return r.Schema(), rows
}

func readCSV(t *testing.T, path string) ([]string, [][]any) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) == 0 {
		t.Fatalf("%s: no header line", path)
	}
	var rows [][]any
	for _, rec := range recs[1:] {
		row := make([]any, len(rec))
		for i, v := range rec {
			row[i] = v
		}
		rows = append(rows, row)
	}
	return recs[0], rows
}

func appendRows(t *testing.T, rows [][]any, rec arrow.Record) [][]any {
	t.Helper()
	for i := 0; i < int(rec.NumRows()); i++ {
		row := make([]any, rec.NumCols())
		for j, col := range rec.Columns() {
			row[j] = value(t, col, i)
		}
		rows = append(rows, row)
	}
	return rows
}

func value(t *testing.T, a arrow.Array, i int) any {
	if a.IsNull(i) {
		return nil
	}
	switch a := a.(type) {
	case *array.Int64:
		return a.Value(i)
	case *array.Int32:
		return a.Value(i)
	case *array.Float64:
		return a.Value(i)
	case *array.String:
		return a.Value(i)
	}
	t.Fatalf("unexpected column type %s", a.DataType())
	return nil
}

// asText is how a value is written in CSV: nulls empty, floats in the
// shortest form that reads back exactly, a whole one with ".0".
func asText(rows [][]any) [][]any {
	out := make([][]any, len(rows))
	for i, row := range rows {
		out[i] = make([]any, len(row))
		for j, v := range row {
			switch v := v.(type) {
			case nil:
				out[i][j] = ""
			case float64:
				out[i][j] = strconv.FormatFloat(v, 'g', -1, 64)
				if v == math.Trunc(v) && math.Abs(v) < 1e21 {
					out[i][j] = out[i][j].(string) + ".0"
				}
			default:
				out[i][j] = fmt.Sprint(v)
			}
		}
	}
	return out
}

// sameSchema compares the column names, types and nullability of a schema
// read back with the table's declared schema.
func sameSchema(t *testing.T, table string, got *arrow.Schema) {
	t.Helper()
	want := Schema(table)
	if got.NumFields() != want.NumFields() {
		t.Fatalf("%s: %d columns, want %d: %v", table, got.NumFields(), want.NumFields(), columnNames(got))
	}
	for i, g := range got.Fields() {
		w := want.Field(i)
		if g.Name != w.Name || !arrow.TypeEqual(g.Type, w.Type) || g.Nullable != w.Nullable {
			t.Errorf("%s column %d: got %s %s nullable=%v, want %s %s nullable=%v",
				table, i, g.Name, g.Type, g.Nullable, w.Name, w.Type, w.Nullable)
		}
	}
}
