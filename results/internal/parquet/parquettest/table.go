// Package parquettest makes test tables for package parquet's tests and
// its cross-checks against arrow-go: random rows that reach the types'
// extremes, written through each of the Writer's ways of taking rows.
package parquettest

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gpureplay/gpureplay/results/internal/parquet"
)

// Table is a test Table: its columns and each column's rows as parquet.Values.
type Table struct {
	Cols   []parquet.Column
	Groups [][]parquet.Values // by row group, then column
}

var Cols = []parquet.Column{
	{Name: "id", Type: parquet.Int64},
	{Name: "small", Type: parquet.Int32},
	{Name: "maybe", Type: parquet.Int64, Optional: true},
	{Name: "ratio", Type: parquet.Double},
	{Name: "maybe_ratio", Type: parquet.Double, Optional: true},
	{Name: "name", Type: parquet.String},
	{Name: "maybe_name", Type: parquet.String, Optional: true},
	{Name: "run", Type: parquet.String},
}

// Random makes groups of the given sizes whose values reach the
// types' extremes, climb, repeat and jump.
func Random(seed uint64, sizes ...int) Table {
	rng := rand.New(rand.NewPCG(seed, 1))
	t := Table{Cols: Cols}
	names := []string{"", "bfs", "sssp_kernel", "été", "a,b\"c"}
	for g, n := range sizes {
		vals := make([]parquet.Values, len(Cols))
		for i, c := range Cols {
			v := &vals[i]
			if c.Optional {
				v.Valid = make([]bool, n)
			}
			for r := range n {
				ok := !c.Optional || rng.IntN(3) > 0 || (g == 1 && r > n/2)
				if c.Optional {
					v.Valid[r] = ok
				}
				switch c.Type {
				case parquet.Int64:
					x := int64(r) * 1000
					switch rng.IntN(20) {
					case 0:
						x = math.MinInt64
					case 1:
						x = math.MaxInt64
					case 2:
						x = rng.Int64() - rng.Int64()
					}
					if !ok {
						x = 0
					}
					v.Ints = append(v.Ints, x)
				case parquet.Int32:
					x := int64(int32(rng.Uint32()))
					if rng.IntN(2) == 0 {
						x = int64(r % 7)
					}
					v.Ints = append(v.Ints, x)
				case parquet.Double:
					x := rng.NormFloat64() * 1e6
					if r < n/2 { // a few values: a dictionary's, until a page of many
						x = float64(r%7) / 4
					}
					switch rng.IntN(30) {
					case 0:
						x = math.Inf(-1)
					case 1:
						x = 0
					}
					if !ok {
						x = 0
					}
					v.Doubles = append(v.Doubles, x)
				case parquet.String:
					s := names[rng.IntN(len(names))]
					if c.Name == "run" {
						s = names[(r/5000)%len(names)]
					}
					if !ok {
						s = ""
					}
					v.Strings = append(v.Strings, s)
				}
			}
		}
		t.Groups = append(t.Groups, vals)
	}
	return t
}

// bitmap is valid as an Arrow validity bitmap, starting at bit off.
func bitmap(valid []bool, off int) parquet.Bitmap {
	if valid == nil {
		return parquet.Bitmap{}
	}
	b := make([]byte, (len(valid)+off+7)/8)
	for i, ok := range valid {
		if ok {
			b[(i+off)/8] |= 1 << ((i + off) % 8)
		}
	}
	return parquet.Bitmap{Bits: b, Off: off}
}

// write writes t, each column's rows in slices of up to step rows, the
// run column by Repeat.
func (t Table) Write(tb testing.TB, step int) []byte {
	var buf bytes.Buffer
	w, err := parquet.NewWriter(&buf, t.Cols)
	if err != nil {
		tb.Fatal(err)
	}
	for _, vals := range t.Groups {
		for i, c := range t.Cols {
			v := vals[i]
			n := max(len(v.Ints), len(v.Doubles), len(v.Strings))
			for lo := 0; lo < n; lo += step {
				hi := min(n, lo+step)
				var valid parquet.Bitmap
				if v.Valid != nil {
					valid = bitmap(v.Valid[lo:hi], lo%8)
				}
				switch c.Type {
				case parquet.Int64:
					w.Int64s(i, v.Ints[lo:hi], valid)
				case parquet.Int32:
					x := make([]int32, hi-lo)
					for j := range x {
						x[j] = int32(v.Ints[lo+j])
					}
					w.Int32s(i, x, valid)
				case parquet.Double:
					w.Doubles(i, v.Doubles[lo:hi], valid)
				case parquet.String:
					if c.Name == "run" {
						for j := lo; j < hi; {
							k := j
							for k < hi && v.Strings[k] == v.Strings[j] {
								k++
							}
							w.Repeat(i, w.Index(i, v.Strings[j]), k-j)
							j = k
						}
						continue
					}
					idx := make([]uint32, hi-lo)
					for j := range idx {
						if v.Valid == nil || v.Valid[lo+j] {
							idx[j] = w.Index(i, v.Strings[lo+j])
						}
					}
					w.Indices(i, idx, valid)
				}
			}
		}
		if err := w.EndRowGroup(); err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

func Read(tb testing.TB, data []byte) Table {
	f, err := parquet.Open(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		tb.Fatal(err)
	}
	t := Table{Cols: f.Columns()}
	for g := range f.RowGroups() {
		var vals []parquet.Values
		for i := range t.Cols {
			v, err := f.ReadColumn(g, i)
			if err != nil {
				tb.Fatal(err)
			}
			vals = append(vals, *v)
		}
		t.Groups = append(t.Groups, vals)
	}
	return t
}

// Compact is t's groups with only the valid values, as arrow-go's
// ReadBatch returns them.
func Compact(t Table) Table {
	out := Table{}
	for _, vals := range t.Groups {
		var cv []parquet.Values
		for _, v := range vals {
			c := parquet.Values{Valid: v.Valid}
			for j := range max(len(v.Ints), len(v.Doubles), len(v.Strings)) {
				if v.Valid != nil && !v.Valid[j] {
					continue
				}
				switch {
				case v.Ints != nil:
					c.Ints = append(c.Ints, v.Ints[j])
				case v.Doubles != nil:
					c.Doubles = append(c.Doubles, v.Doubles[j])
				default:
					c.Strings = append(c.Strings, v.Strings[j])
				}
			}
			cv = append(cv, c)
		}
		out.Groups = append(out.Groups, cv)
	}
	return out
}

// AllNullStrings is a file of one nullable string column whose one row
// group holds only nulls: an empty dictionary, and indices that are
// never read.
func AllNullStrings(tb testing.TB) []byte {
	var buf bytes.Buffer
	w, err := parquet.NewWriter(&buf, []parquet.Column{{Name: "s", Type: parquet.String, Optional: true}})
	if err != nil {
		tb.Fatal(err)
	}
	w.Indices(0, []uint32{0, 0, 0}, parquet.Bitmap{Bits: []byte{0}})
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}
