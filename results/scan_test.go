package results

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

// Scan reads every table of a CSV output as it reads the Parquet output
// of the same rows: the same values (a null string reads as empty, as CSV
// cannot tell them apart), the same typed columns.
func TestScanCSVReadsWhatParquetHolds(t *testing.T) {
	dirs := map[Format]string{Parquet: t.TempDir(), CSV: t.TempDir()}
	for f, dir := range dirs {
		w := newTestWriter(t, dir, f, batchRows)
		writeFixture(w)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	scan := func(dir, table string) [][]any {
		var rows [][]any
		err := Scan(dir, table, func(rec arrow.Record) error {
			if err := sameColumns(dir, rec.Schema(), Schema(table)); err != nil {
				t.Error(err)
			}
			rows = appendRows(t, rows, rec)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return rows
	}
	for _, table := range Tables() {
		pq, cs := scan(dirs[Parquet], table), scan(dirs[CSV], table)
		if len(pq) == 0 {
			t.Errorf("%s: no rows in the fixture", table)
		}
		if !reflect.DeepEqual(asText(pq), asText(cs)) {
			t.Errorf("%s: CSV reads\n%v\nParquet\n%v", table, cs, pq)
		}
	}
	// Another version's columns are refused with the difference named.
	path := filepath.Join(dirs[CSV], "summary.csv")
	os.WriteFile(path, []byte("trace,policy\nbfs,cdp\n"), 0o644)
	var old *OldTableError
	if err := Scan(dirs[CSV], "summary", func(arrow.Record) error { return nil }); !errors.As(err, &old) {
		t.Errorf("a CSV table of other columns: %v", err)
	}
}

// A directory holding tables of two runs in two formats (a CSV run's
// --out over a Parquet run's) is refused, naming the files, where Scan
// read the Parquet run's rows for the CSV run's; OtherFormats names what
// a run in one format finds of the others.
func TestScanRefusesMixedFormats(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []Format{Parquet, CSV} {
		w := newTestWriter(t, dir, f, batchRows)
		writeFixture(w)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	read := false
	err := Scan(dir, "summary", func(arrow.Record) error { read = true; return nil })
	if !errors.Is(err, ErrMixedFormats) || read || !strings.Contains(err.Error(), "(summary.parquet, summary.csv)") {
		t.Errorf("summary in Parquet and CSV: read %v, %v; want ErrMixedFormats naming both files, nothing read", read, err)
	}
	if got := OtherFormats(dir, CSV); len(got) != len(Tables()) || got[0] != "summary.parquet" {
		t.Errorf("OtherFormats(CSV) = %v; want each table's .parquet", got)
	}
	if got := OtherFormats(dir, Arrow); len(got) != 2*len(Tables()) {
		t.Errorf("OtherFormats(Arrow) = %v; want each table's .parquet and .csv", got)
	}
	for _, table := range Tables() {
		os.Remove(filepath.Join(dir, table+".parquet"))
	}
	if err := Scan(dir, "summary", func(arrow.Record) error { return nil }); err != nil {
		t.Errorf("one format left: %v", err)
	}
	if got := OtherFormats(dir, CSV); len(got) != 0 {
		t.Errorf("OtherFormats(CSV) of a CSV run alone = %v", got)
	}
}
