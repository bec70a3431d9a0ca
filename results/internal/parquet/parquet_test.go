package parquet_test

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/gpureplay/gpureplay/results/internal/parquet"
	. "github.com/gpureplay/gpureplay/results/internal/parquet/parquettest"
)

func TestRoundTrip(t *testing.T) {
	want := Random(1, 3, parquet.PageRows+17, 70000, 1)
	for _, step := range []int{1 << 20, 1000, 7} {
		if step == 7 {
			want = Random(2, 3, 2500)
		}
		data := want.Write(t, step)
		got := Read(t, data)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("step %d: the rows read back differ", step)
		}
		if again := want.Write(t, step); !bytes.Equal(again, data) {
			t.Fatalf("step %d: the same rows gave other bytes", step)
		}
	}
}

func TestEmptyFile(t *testing.T) {
	data := Table{Cols: Cols}.Write(t, 1)
	f, err := parquet.Open(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if f.NumRows() != 0 || f.RowGroups() != 0 || !reflect.DeepEqual(f.Columns(), Cols) {
		t.Fatalf("rows %d, groups %d, columns %v", f.NumRows(), f.RowGroups(), f.Columns())
	}
}

// A nullable string column whose group holds only nulls has an empty
// dictionary, and its null rows' indices are not read.
func TestAllNullStrings(t *testing.T) {
	got := Read(t, AllNullStrings(t))
	want := []parquet.Values{{Valid: []bool{false, false, false}, Strings: []string{"", "", ""}}}
	if !reflect.DeepEqual(got.Groups, [][]parquet.Values{want}) {
		t.Fatalf("read %+v", got.Groups)
	}
}
