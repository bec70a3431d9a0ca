package results

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/gpureplay/gpureplay/results/internal/parquet"
)

// A batch's string column holds at most scanBatchBytes (one row's
// excepted), whatever its rows hold: 200 rows of a dictionary's one
// string of parquet.MaxString (issue 75, 2: 40 rows of a 64 MB string
// passed the 2 GiB of an Arrow string array's 32-bit offsets). Every row
// reads back, in order.
func TestParquetBatchBytes(t *testing.T) {
	cols := []parquet.Column{{Name: "id", Type: parquet.Int64}, {Name: "name", Type: parquet.String}}
	path := filepath.Join(t.TempDir(), "t.parquet")
	fh, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := parquet.NewWriter(fh, cols)
	if err != nil {
		t.Fatal(err)
	}
	const rows = 200
	long := strings.Repeat("n", parquet.MaxString)
	ids := make([]int64, rows)
	for i := range ids {
		ids[i] = int64(i)
	}
	w.Int64s(0, ids, parquet.Bitmap{})
	w.Repeat(1, w.Index(1, "a"), 1)
	w.Repeat(1, w.Index(1, long), rows-2)
	w.Repeat(1, w.Index(1, "b"), 1)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := fh.Close(); err != nil {
		t.Fatal(err)
	}
	next, batches := int64(0), 0
	err = scanParquet(path, arrowSchema(cols), func(rec arrow.Record) error {
		batches++
		id, name := rec.Column(0).(*array.Int64), rec.Column(1).(*array.String)
		if n := len(name.ValueBytes()); n > scanBatchBytes+parquet.MaxString {
			t.Fatalf("batch %d: %d bytes of strings", batches, n)
		}
		for i := range id.Len() {
			want := long
			switch next {
			case 0:
				want = "a"
			case rows - 1:
				want = "b"
			}
			if id.Value(i) != next || name.Value(i) != want {
				t.Fatalf("row %d: id %d, a name of %d bytes", next, id.Value(i), len(name.Value(i)))
			}
			next++
		}
		return nil
	})
	if err != nil || next != rows {
		t.Fatalf("%d rows of %d: %v", next, rows, err)
	}
	if want := rows * parquet.MaxString / scanBatchBytes; batches < want {
		t.Fatalf("%d batches, want at least %d", batches, want)
	}
}
