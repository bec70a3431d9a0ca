package parquet_test

import (
	"bytes"
	"testing"

	"github.com/gpureplay/gpureplay/results/internal/parquet"
	. "github.com/gpureplay/gpureplay/results/internal/parquet/parquettest"
)

// FuzzRead: any bytes are read or refused with an error, never a panic,
// and what reads stays within the file's rows and MaxString. Its seeds
// include FuzzFields' shapes (FieldSeeds).
func FuzzRead(f *testing.F) {
	small := Random(5, 3, 40)
	f.Add(small.Write(f, 7))
	f.Add(Table{Cols: Cols}.Write(f, 1))
	f.Add([]byte("PAR1PAR1"))
	for _, b := range parquet.FieldSeeds(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		pf, err := parquet.Open(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		for g := range pf.RowGroups() {
			for i, c := range pf.Columns() {
				v, err := pf.ReadColumn(g, i)
				if err != nil {
					continue
				}
				n := max(len(v.Ints), len(v.Doubles), len(v.Strings))
				if int64(n) != pf.RowGroupRows(g) || (c.Optional && len(v.Valid) != n) {
					t.Fatalf("group %d, column %d: %d rows of %d", g, i, n, pf.RowGroupRows(g))
				}
				for _, s := range v.Strings {
					if len(s) > parquet.MaxString {
						t.Fatalf("group %d, column %d: a string of %d bytes", g, i, len(s))
					}
				}
			}
		}
	})
}
