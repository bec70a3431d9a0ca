package results

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
)

// A dictColumn is what the Parquet encoder keeps of one string column in
// the row group being filled: the dictionary the group's first rows of it
// started with. A run column's rows come as stretches (writeRun); the
// other string columns' (a kernel's name and origin, a launch's decision
// and outcome, a page's event, a stage's name) as strings (writeDict).
//
// The others hold a handful of values, in long stretches (BFS scale
// 20: two kernel names over 165,471 rows, one decision). Written as
// strings, every value cost its bytes, the statistics' comparisons with
// the page's least and greatest value and zstd's pass over the bytes;
// the library's own dictionary encoding costs a hash of every value
// besides. So each costs an index a row instead: the group's dictionary is
// the values of its first slice of the column, in the order they came,
// and every later slice's rows of those values are indices into it
// (putIndices). The statistics stay exact: each value of the dictionary
// occurs in the group. A value the dictionary lacks, met later in the
// group, is written as strings, which the library adds to the group's
// dictionary and to its statistics itself.
type dictColumn struct {
	values *array.String    // the group's dictionary; nil before its first rows
	index  map[string]int32 // where each of values sits
	empty  bool             // values holds "", which the library leaves out of its statistics
	plain  bool             // values outgrew a dictionary page: strings for the group
	idx    []int32          // a slice's indices, -1 where values lacks the value
}

var dictType = &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}

// reset forgets the group's dictionary, as the next group starts.
func (c *dictColumn) reset() {
	if c.values != nil {
		c.values.Release()
		c.values = nil
	}
	clear(c.index)
	c.empty, c.plain = false, false
}

// indices returns the index of each value of arr in the dictionary, -1
// for a value it lacks; with grow, a value it lacks is added to it
// instead, through grow. A stretch of equal values costs a comparison a
// row, a change of value a lookup.
func (c *dictColumn) indices(arr *array.String, grow *array.StringBuilder) []int32 {
	n := arr.Len()
	if cap(c.idx) < n {
		c.idx = make([]int32, n)
	}
	idx := c.idx[:n]
	prev, k := "", int32(-1)
	for i := range idx {
		if v := arr.Value(i); i == 0 || v != prev {
			var ok bool
			if k, ok = c.index[v]; !ok {
				k = -1
				if grow != nil {
					k = int32(len(c.index))
					c.index[strings.Clone(v)] = k
					grow.Append(v)
					c.empty = c.empty || v == ""
				}
			}
			prev = v
		}
		idx[i] = k
	}
	return idx
}

// writeDict writes arr, a slice of string column c, to column cw. The
// group's first slice makes the group's dictionary, and its first row goes
// through the library, which puts the dictionary in the column's encoder;
// from there, stretches of values the dictionary holds go as indices
// straight to the column writer, the others as strings.
func (e *parquetEncoder) writeDict(cw file.ColumnChunkWriter, c *dictColumn, arr *array.String) error {
	if arr.Len() == 0 {
		return nil
	}
	if c.values == nil {
		if c.index == nil {
			c.index = map[string]int32{}
		}
		b := array.NewStringBuilder(e.mem)
		idx := c.indices(arr, b)
		c.values = b.NewStringArray()
		b.Release()
		// The library falls back to plain encoding once the dictionary
		// outgrows a page, but it checks only as it adds strings to it.
		c.plain = int64(len(c.values.ValueBytes())) >= cw.Properties().DictionaryPageSizeLimit()
		if c.plain {
			return e.put(cw, arr, nil)
		}
		// The first row goes through the library, which puts the
		// dictionary in the column's encoder; given them all, it would
		// hash every index to find the values they use.
		ind := indexArray(idx[:1])
		d := array.NewDictionaryArray(dictType, ind, c.values)
		ind.Release()
		err := e.put(cw, d, nil)
		d.Release()
		if err != nil || len(idx) == 1 {
			return err
		}
		return e.putIndices(cw, c, idx[1:])
	}
	if c.plain {
		return e.put(cw, arr, nil)
	}
	idx := c.indices(arr, nil)
	for lo := 0; lo < len(idx); {
		known, hi := idx[lo] >= 0, lo+1
		for hi < len(idx) && (idx[hi] >= 0) == known {
			hi++
		}
		var err error
		if known && dictEncoded(cw) {
			err = e.putIndices(cw, c, idx[lo:hi])
		} else {
			s := array.NewSlice(arr, int64(lo), int64(hi))
			err = e.put(cw, s, nil)
			s.Release()
		}
		if err != nil {
			return err
		}
		lo = hi
	}
	return nil
}

// indexArray returns idx as an Arrow array, over the same memory.
func indexArray(idx []int32) *array.Int32 {
	buf := memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(idx))
	data := array.NewData(arrow.PrimitiveTypes.Int32, len(idx), []*memory.Buffer{nil, buf}, nil, 0, 0)
	defer data.Release()
	return array.NewInt32Data(data)
}

// putIndices writes rows of indices idx into c's dictionary, which the
// column's encoder holds, and counts them into the page's statistics as
// the library counts a dictionary array whose dictionary it already holds:
// as the dictionary's values (each of which is in the group), so the
// indices are never looked at. Handed to the library as a dictionary
// array, they would be: it compares the array's dictionary with the one
// it holds by identity, and an array's dictionary is an object of the
// array's own, so with any but the first array it hashes every index to
// find the values used.
func (e *parquetEncoder) putIndices(cw file.ColumnChunkWriter, c *dictColumn, idx []int32) error {
	bound := func() error {
		st := cw.PageStatistics()
		if st == nil {
			return nil
		}
		if c.empty {
			boundEmpty(cw)
		}
		return st.UpdateFromArrow(c.values, false)
	}
	if st := cw.PageStatistics(); st != nil {
		st.IncNumValues(int64(len(idx)))
	}
	if err := bound(); err != nil {
		return err
	}
	ind := indexArray(idx)
	defer ind.Release()
	if err := cw.WriteDictIndices(ind, nil, nil); err != nil {
		return err
	}
	// The rows may have ended in a page after the one they started in.
	return bound()
}

// dictEncoded reports whether cw still encodes with a dictionary: the
// library falls back to plain encoding for the rest of the group once the
// dictionary outgrows its page.
func dictEncoded(cw file.ColumnChunkWriter) bool {
	enc := cw.CurrentEncoder().Encoding()
	return enc == parquet.Encodings.RLEDict || enc == parquet.Encodings.PlainDict
}
