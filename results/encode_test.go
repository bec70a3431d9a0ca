package results

import (
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
)

// TestParquetEncodings checks each column chunk's encoding in every
// table (package parquet): the run columns a dictionary, integers
// DELTA_BINARY_PACKED, the rest plain.
func TestParquetEncodings(t *testing.T) {
	dir := t.TempDir()
	w := newTestWriter(t, dir, Parquet, batchRows)
	writeFixture(w)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for i, table := range tableNames {
		pf, err := file.OpenParquetFile(filepath.Join(dir, table+".parquet"), false)
		if err != nil {
			t.Fatal(err)
		}
		rg := pf.MetaData().RowGroup(0)
		for c, f := range schemas[i].Fields() {
			col, err := rg.ColumnChunk(c)
			if err != nil {
				t.Fatal(err)
			}
			want := parquet.Encodings.Plain
			if id := f.Type.ID(); id == arrow.INT64 || id == arrow.INT32 {
				want = parquet.Encodings.DeltaBinaryPacked
			}
			if f.Type.ID() == arrow.STRING {
				want = parquet.Encodings.RLEDict
				if notDictionary(col) {
					t.Errorf("%s.%s: not dictionary-encoded: %v", table, f.Name, col.Encodings())
				}
			}
			if !hasEncoding(col.Encodings(), want) {
				t.Errorf("%s.%s: encodings %v, want %v", table, f.Name, col.Encodings(), want)
			}
		}
		pf.Close()
	}
}

func hasEncoding(es []parquet.Encoding, e parquet.Encoding) bool {
	for _, x := range es {
		if x == e {
			return true
		}
	}
	return false
}
