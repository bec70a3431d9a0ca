package results

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
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
