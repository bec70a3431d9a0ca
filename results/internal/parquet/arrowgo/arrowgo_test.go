// Package arrowgo_test checks package parquet against arrow-go's Parquet
// reader and writer, which wrote the tables before: each reads what the
// other writes. It is a package of its own so that arrow-go stays out of
// package parquet's fuzzing binary, whose coverage it would swamp.
package arrowgo_test

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"

	pq "github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	pqschema "github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/gpureplay/gpureplay/results/internal/parquet"
	. "github.com/gpureplay/gpureplay/results/internal/parquet/parquettest"
)

// arrowGoRead reads a file with arrow-go's reader: the rows, and each
// chunk's statistics checked against them.
func arrowGoRead(t *testing.T, data []byte) Table {
	r, err := file.NewParquetReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out Table
	for g := range r.NumRowGroups() {
		rg := r.RowGroup(g)
		var vals []parquet.Values
		for i := range rg.NumColumns() {
			cr, err := rg.Column(i)
			if err != nil {
				t.Fatal(err)
			}
			n := rg.NumRows()
			defs := make([]int16, n)
			var v parquet.Values
			var nv int
			switch cr := cr.(type) {
			case *file.Int64ColumnChunkReader:
				buf := make([]int64, n)
				_, nv, err = cr.ReadBatch(n, buf, defs, nil)
				v.Ints = buf[:nv]
			case *file.Int32ColumnChunkReader:
				buf := make([]int32, n)
				_, nv, err = cr.ReadBatch(n, buf, defs, nil)
				for _, x := range buf[:nv] {
					v.Ints = append(v.Ints, int64(x))
				}
			case *file.Float64ColumnChunkReader:
				buf := make([]float64, n)
				_, nv, err = cr.ReadBatch(n, buf, defs, nil)
				v.Doubles = buf[:nv]
			case *file.ByteArrayColumnChunkReader:
				buf := make([]pq.ByteArray, n)
				_, nv, err = cr.ReadBatch(n, buf, defs, nil)
				for _, x := range buf[:nv] {
					v.Strings = append(v.Strings, string(x))
				}
			}
			if err != nil {
				t.Fatalf("row group %d, column %d: %v", g, i, err)
			}
			if cr.Descriptor().MaxDefinitionLevel() > 0 {
				v.Valid = make([]bool, n)
				for j, d := range defs {
					v.Valid[j] = d == 1
				}
			}
			checkStats(t, rg.MetaData().ColumnChunk, i, v)
			vals = append(vals, v)
		}
		out.Groups = append(out.Groups, vals)
	}
	return out
}

func checkStats(t *testing.T, chunk func(int) (*metadata.ColumnChunkMetaData, error), i int, v parquet.Values) {
	m, err := chunk(i)
	if err != nil {
		t.Fatal(err)
	}
	st, err := m.Statistics()
	if err != nil || st == nil {
		t.Fatalf("column %d: no statistics (%v)", i, err)
	}
	nulls := 0
	for _, ok := range v.Valid {
		if !ok {
			nulls++
		}
	}
	if st.NullCount() != int64(nulls) {
		t.Errorf("column %d: null count %d, want %d", i, st.NullCount(), nulls)
	}
	if !st.HasMinMax() {
		if len(v.Ints)+len(v.Doubles)+len(v.Strings) > 0 {
			t.Errorf("column %d: no bounds", i)
		}
		return
	}
	switch st := st.(type) {
	case *metadata.Int64Statistics:
		if st.Min() != slicesMin(v.Ints) || st.Max() != slicesMax(v.Ints) {
			t.Errorf("column %d: bounds %d..%d", i, st.Min(), st.Max())
		}
	case *metadata.Int32Statistics:
		if int64(st.Min()) != slicesMin(v.Ints) || int64(st.Max()) != slicesMax(v.Ints) {
			t.Errorf("column %d: bounds %d..%d", i, st.Min(), st.Max())
		}
	case *metadata.Float64Statistics:
		if st.Min() != slicesMin(v.Doubles) || st.Max() != slicesMax(v.Doubles) {
			t.Errorf("column %d: bounds %g..%g", i, st.Min(), st.Max())
		}
	case *metadata.ByteArrayStatistics:
		if string(st.Min()) != slicesMin(v.Strings) || string(st.Max()) != slicesMax(v.Strings) {
			t.Errorf("column %d: bounds %q..%q", i, st.Min(), st.Max())
		}
	}
}

func slicesMin[T int64 | float64 | string](vs []T) T {
	m := vs[0]
	for _, v := range vs {
		m = min(m, v)
	}
	return m
}

func slicesMax[T int64 | float64 | string](vs []T) T {
	m := vs[0]
	for _, v := range vs {
		m = max(m, v)
	}
	return m
}

// TestArrowGoReads: arrow-go's reader reads what the writer wrote, with
// the same rows and statistics that bound them.
func TestArrowGoReads(t *testing.T) {
	want := Random(3, 5, parquet.PageRows*2+3, 4000)
	got := arrowGoRead(t, want.Write(t, 5000))
	if !reflect.DeepEqual(fmt.Sprint(got.Groups), fmt.Sprint(Compact(want).Groups)) {
		t.Fatal("arrow-go reads other rows")
	}
}

// TestReadsArrowGoFiles: the reader reads what arrow-go's writer gives
// the tables' columns with the settings the replay used, with its
// defaults (dictionary integers, snappy), and with what other writers
// choose (DuckDB's PARQUET_VERSION v2, pyarrow's options): data pages
// v2, DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY strings,
// BYTE_STREAM_SPLIT doubles.
func TestReadsArrowGoFiles(t *testing.T) {
	want := Random(4, 300, 9000)
	for name, props := range map[string][]pq.WriterProperty{
		"replay's": {pq.WithCompression(compress.Codecs.Zstd), pq.WithDictionaryDefault(false),
			pq.WithDataPageVersion(pq.DataPageV1), pq.WithDataPageSize(4 << 10),
			pq.WithEncodingFor("id", pq.Encodings.DeltaBinaryPacked), pq.WithEncodingFor("small", pq.Encodings.DeltaBinaryPacked),
			pq.WithDictionaryFor("name", true), pq.WithDictionaryFor("run", true)},
		"plain, gzip":             {pq.WithCompression(compress.Codecs.Gzip), pq.WithDictionaryDefault(false), pq.WithDataPageVersion(pq.DataPageV1)},
		"dictionary limit":        {pq.WithCompression(compress.Codecs.Snappy), pq.WithDataPageVersion(pq.DataPageV1), pq.WithDictionaryPageSizeLimit(64)},
		"dictionary every column": {pq.WithCompression(compress.Codecs.Snappy), pq.WithDataPageVersion(pq.DataPageV1)},
		"v2 pages, delta strings, split floats": {pq.WithCompression(compress.Codecs.Zstd), pq.WithDataPageVersion(pq.DataPageV2),
			pq.WithDictionaryDefault(false), pq.WithDataPageSize(4 << 10),
			pq.WithEncodingFor("name", pq.Encodings.DeltaLengthByteArray), pq.WithEncodingFor("maybe_name", pq.Encodings.DeltaByteArray),
			pq.WithEncodingFor("run", pq.Encodings.DeltaByteArray), pq.WithEncodingFor("ratio", pq.Encodings.ByteStreamSplit),
			pq.WithEncodingFor("maybe_ratio", pq.Encodings.ByteStreamSplit), pq.WithEncodingFor("id", pq.Encodings.DeltaBinaryPacked)},
		"v2 pages, dictionaries, uncompressed": {pq.WithDataPageVersion(pq.DataPageV2), pq.WithDataPageSize(4 << 10)},
	} {
		data := arrowGoWrite(t, want, pq.NewWriterProperties(props...))
		f, err := parquet.Open(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var got Table
		got.Cols = f.Columns()
		for g := range f.RowGroups() {
			var vals []parquet.Values
			for i := range got.Cols {
				v, err := f.ReadColumn(g, i)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				vals = append(vals, *v)
			}
			got.Groups = append(got.Groups, vals)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the rows read differ", name)
		}
	}
}

func arrowGoWrite(t *testing.T, tb Table, props *pq.WriterProperties) []byte {
	var nodes pqschema.FieldList
	for _, c := range tb.Cols {
		rep := pq.Repetitions.Required
		if c.Optional {
			rep = pq.Repetitions.Optional
		}
		var n pqschema.Node
		var err error
		switch c.Type {
		case parquet.Int64:
			n, err = pqschema.NewPrimitiveNodeLogical(c.Name, rep, pqschema.NewIntLogicalType(64, true), pq.Types.Int64, -1, -1)
		case parquet.Int32:
			n, err = pqschema.NewPrimitiveNodeLogical(c.Name, rep, pqschema.NewIntLogicalType(32, true), pq.Types.Int32, -1, -1)
		case parquet.Double:
			n, err = pqschema.NewPrimitiveNode(c.Name, rep, pq.Types.Double, -1, -1)
		case parquet.String:
			n, err = pqschema.NewPrimitiveNodeLogical(c.Name, rep, pqschema.StringLogicalType{}, pq.Types.ByteArray, -1, -1)
		}
		if err != nil {
			t.Fatal(err)
		}
		nodes = append(nodes, n)
	}
	root, err := pqschema.NewGroupNode("schema", pq.Repetitions.Required, nodes, -1)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w := file.NewParquetWriter(&buf, root, file.WithWriterProps(props))
	for _, vals := range tb.Groups {
		rg := w.AppendRowGroup()
		for i, c := range tb.Cols {
			cw, err := rg.NextColumn()
			if err != nil {
				t.Fatal(err)
			}
			v := Compact(Table{Groups: [][]parquet.Values{{vals[i]}}}).Groups[0][0]
			var defs []int16
			if c.Optional {
				for _, ok := range vals[i].Valid {
					defs = append(defs, map[bool]int16{true: 1}[ok])
				}
			}
			switch cw := cw.(type) {
			case *file.Int64ColumnChunkWriter:
				_, err = cw.WriteBatch(v.Ints, defs, nil)
			case *file.Int32ColumnChunkWriter:
				x := make([]int32, len(v.Ints))
				for j := range x {
					x[j] = int32(v.Ints[j])
				}
				_, err = cw.WriteBatch(x, defs, nil)
			case *file.Float64ColumnChunkWriter:
				_, err = cw.WriteBatch(v.Doubles, defs, nil)
			case *file.ByteArrayColumnChunkWriter:
				x := make([]pq.ByteArray, len(v.Strings))
				for j := range x {
					x[j] = pq.ByteArray(v.Strings[j])
				}
				_, err = cw.WriteBatch(x, defs, nil)
			}
			if err != nil {
				t.Fatal(err)
			}
			cw.Close()
		}
		rg.Close()
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestArrowGoReadsAllNullStrings: a group whose string column holds only
// nulls has an empty dictionary page, which arrow-go reads.
func TestArrowGoReadsAllNullStrings(t *testing.T) {
	r, err := file.NewParquetReader(bytes.NewReader(AllNullStrings(t)))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cr, err := r.RowGroup(0).Column(0)
	if err != nil {
		t.Fatal(err)
	}
	vals, defs := make([]pq.ByteArray, 3), make([]int16, 3)
	rows, n, err := cr.(*file.ByteArrayColumnChunkReader).ReadBatch(3, vals, defs, nil)
	if err != nil || rows != 3 || n != 0 || defs[0]+defs[1]+defs[2] != 0 {
		t.Fatalf("rows %d, values %d, levels %v, %v", rows, n, defs, err)
	}
}

// TestArrowGoReadsRawFrames: a compressed chunk whose later pages zstd
// cannot shrink holds them in zstd frames of raw blocks (the writer's
// store), which arrow-go reads, a double column's dictionary page among
// them.
func TestArrowGoReadsRawFrames(t *testing.T) {
	x := uint64(88172645463325252)
	var ints []int64
	var dbls []float64
	for i := range 3 * parquet.PageRows {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		v := int64(i%7) << 40 // a first page that shrinks, then noise
		if i >= parquet.PageRows {
			v = int64(x >> 24)
		}
		ints = append(ints, v)
		dbls = append(dbls, float64(x%5000)) // indices of 13 bits: they shrink less after the first page
		if i < parquet.PageRows {
			dbls[i] = float64(i % 3)
		}
	}
	var buf bytes.Buffer
	w, err := parquet.NewWriter(&buf, []parquet.Column{{Name: "a", Type: parquet.Int64}, {Name: "d", Type: parquet.Double}})
	if err != nil {
		t.Fatal(err)
	}
	w.Int64s(0, ints, parquet.Bitmap{})
	w.Doubles(1, dbls, parquet.Bitmap{})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got := arrowGoRead(t, buf.Bytes())
	if len(got.Groups) != 1 || !reflect.DeepEqual(got.Groups[0][0].Ints, ints) || !reflect.DeepEqual(got.Groups[0][1].Doubles, dbls) {
		t.Fatal("arrow-go reads other rows")
	}
}
