package results

// Parquet through arrow-go's parquet/file and parquet/schema packages
// alone. The tables are flat columns of four types, so what the library's
// pqarrow package would do for them (its schema mapping, its arrow-array
// column writer, its record reader) is the little below; importing
// pqarrow would pull arrow/flight and with it grpc and protobuf into the
// replay binary, for a schema-serialisation helper the tables do not use
// (the files carry no ARROW:schema). The files written are the same bytes
// pqarrow wrote (TestParquetGolden).

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	pqschema "github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/gpureplay/gpureplay/internal/tempfile"
)

// parquetSchema is s as a Parquet schema, each column a leaf of the root
// as pqarrow.ToParquet maps it: int64 and int32 as INT64 and INT32 with
// the signed integer logical type, float64 as DOUBLE, string as
// BYTE_ARRAY with the string logical type; a nullable column is
// OPTIONAL, the others REQUIRED; no field ids.
func parquetSchema(s *arrow.Schema, props *parquet.WriterProperties) (*pqschema.GroupNode, error) {
	nodes := make(pqschema.FieldList, 0, s.NumFields())
	for _, f := range s.Fields() {
		rep := parquet.Repetitions.Required
		if f.Nullable {
			rep = parquet.Repetitions.Optional
		}
		var (
			typ parquet.Type
			lt  pqschema.LogicalType
		)
		switch f.Type.ID() {
		case arrow.INT64:
			typ, lt = parquet.Types.Int64, pqschema.NewIntLogicalType(64, true)
		case arrow.INT32:
			typ, lt = parquet.Types.Int32, pqschema.NewIntLogicalType(32, true)
		case arrow.FLOAT64:
			typ, lt = parquet.Types.Double, pqschema.NoLogicalType{}
		case arrow.STRING:
			typ, lt = parquet.Types.ByteArray, pqschema.StringLogicalType{}
		default:
			return nil, fmt.Errorf("results: column %s: no Parquet mapping for %s", f.Name, f.Type)
		}
		n, err := pqschema.NewPrimitiveNodeLogical(f.Name, rep, lt, typ, -1, -1)
		if err != nil {
			return nil, err
		}
		nodes = append(nodes, n)
	}
	return pqschema.NewGroupNode(props.RootName(), props.RootRepetition(), nodes, -1)
}

// arrowSchema is the columns of a Parquet file's schema as the tables'
// arrow types, the inverse of parquetSchema. A column of any other shape
// (nested, repeated, another type) is an OldTableError.
func arrowSchema(path string, sc *pqschema.Schema) (*arrow.Schema, error) {
	root := sc.Root()
	fields := make([]arrow.Field, 0, root.NumFields())
	for i := range root.NumFields() {
		n, ok := root.Field(i).(*pqschema.PrimitiveNode)
		if !ok || n.RepetitionType() == parquet.Repetitions.Repeated {
			return nil, &OldTableError{path, fmt.Sprintf("column %d (%s) is not a flat column", i+1, root.Field(i).Name())}
		}
		var t arrow.DataType
		lt := n.LogicalType()
		switch n.PhysicalType() {
		case parquet.Types.Int64:
			if isSignedInt(lt, 64) {
				t = i64
			}
		case parquet.Types.Int32:
			if isSignedInt(lt, 32) {
				t = i32
			}
		case parquet.Types.Double:
			if lt.Equals(pqschema.NoLogicalType{}) {
				t = f64
			}
		case parquet.Types.ByteArray:
			if lt.Equals(pqschema.StringLogicalType{}) {
				t = str
			}
		}
		if t == nil {
			return nil, &OldTableError{path, fmt.Sprintf("column %d is %s of Parquet type %s (%s)", i+1, n.Name(), n.PhysicalType(), lt)}
		}
		fields = append(fields, arrow.Field{Name: n.Name(), Type: t, Nullable: n.RepetitionType() == parquet.Repetitions.Optional})
	}
	return arrow.NewSchema(fields, nil), nil
}

// isSignedInt reports whether lt is the signed integer type of bits bits,
// or no logical type (a plain INT32 or INT64).
func isSignedInt(lt pqschema.LogicalType, bits int8) bool {
	return lt.Equals(pqschema.NewIntLogicalType(bits, true)) || lt.Equals(pqschema.NoLogicalType{})
}

// writeColumn is how the encoder writes a column's rows: writeArrow, or
// in a test the library's pqarrow, to compare the bytes.
var writeColumn = writeArrow

// writeArrow writes arr to column cw with definition levels defs (nil
// for a required column), as pqarrow.WriteArrowToColumn writes a flat
// column: values with their validity bitmap where the column is nullable
// and arr has nulls, the values alone otherwise; a string array through
// the writer's arrow path where its encoder takes offsets; a dictionary
// array by its indices (writeDictArrow).
func writeArrow(mem memory.Allocator, cw file.ColumnChunkWriter, arr arrow.Array, defs []int16) error {
	if d, ok := arr.(*array.Dictionary); ok {
		return writeDictArrow(mem, cw, d, defs)
	}
	spaced := arr.NullN() > 0 && cw.Descr().SchemaNode().RepetitionType() != parquet.Repetitions.Required
	valid, off := arr.NullBitmapBytes(), int64(arr.Data().Offset())
	var err error
	switch wr := cw.(type) {
	case *file.Int64ColumnChunkWriter:
		a, ok := arr.(*array.Int64)
		if !ok {
			return mismatch(cw, arr)
		}
		if spaced {
			_, err = wr.WriteBatchSpacedWithError(a.Int64Values(), defs, nil, valid, off)
		} else {
			_, err = wr.WriteBatch(a.Int64Values(), defs, nil)
		}
	case *file.Int32ColumnChunkWriter:
		a, ok := arr.(*array.Int32)
		if !ok {
			return mismatch(cw, arr)
		}
		if spaced {
			_, err = wr.WriteBatchSpacedWithError(a.Int32Values(), defs, nil, valid, off)
		} else {
			_, err = wr.WriteBatch(a.Int32Values(), defs, nil)
		}
	case *file.Float64ColumnChunkWriter:
		a, ok := arr.(*array.Float64)
		if !ok {
			return mismatch(cw, arr)
		}
		if spaced {
			_, err = wr.WriteBatchSpacedWithError(a.Float64Values(), defs, nil, valid, off)
		} else {
			_, err = wr.WriteBatch(a.Float64Values(), defs, nil)
		}
	case *file.ByteArrayColumnChunkWriter:
		a, ok := arr.(*array.String)
		if !ok {
			return mismatch(cw, arr)
		}
		buf := []byte{}
		if b := a.Data().Buffers()[2]; b != nil {
			buf = b.Bytes()
		}
		offsets := a.ValueOffsets()
		if wr.SupportsArrowOffsets() {
			if spaced {
				_, err = wr.WriteBatchSpacedArrow(buf, offsets, defs, nil, valid, off)
			} else {
				_, err = wr.WriteBatchArrow(buf, offsets, defs, nil)
			}
			return err
		}
		data := make([]parquet.ByteArray, a.Len())
		for i := range data {
			data[i] = parquet.ByteArray(buf[offsets[i]:offsets[i+1]])
		}
		if spaced {
			_, err = wr.WriteBatchSpacedWithError(data, defs, nil, valid, off)
		} else {
			_, err = wr.WriteBatch(data, defs, nil)
		}
	default:
		return mismatch(cw, arr)
	}
	return err
}

func mismatch(cw file.ColumnChunkWriter, arr arrow.Array) error {
	return fmt.Errorf("results: column of Parquet type %s given an arrow %s array", cw.Type(), arr.DataType())
}

// dictEncoder is what writeDictArrow asks of a column's dictionary
// encoder (the library's encoding.DictEncoder, an internal type).
type dictEncoder interface {
	NumEntries() int
	PutDictionary(arrow.Array) error
	PreservedDictionary() arrow.Array
	NormalizeDict(arrow.Array) (arrow.Array, error)
}

// writeDictArrow writes a dictionary array of strings as pqarrow does:
// into a dictionary-encoded column whose encoder holds no dictionary yet,
// the array's dictionary becomes the encoder's and the indices are handed
// over; into one holding the same dictionary, the indices alone; in every
// other case (another dictionary, plain encoding) the strings. The page
// statistics count the dictionary's values the indices use.
func writeDictArrow(mem memory.Allocator, cw file.ColumnChunkWriter, d *array.Dictionary, defs []int16) error {
	enc, ok := cw.CurrentEncoder().(dictEncoder)
	if !ok || cw.CurrentEncoder().Encoding() != parquet.Encodings.PlainDict {
		return writeDense(mem, cw, d, defs)
	}
	normalized, err := enc.NormalizeDict(d.Dictionary())
	if err != nil {
		return err
	}
	defer normalized.Release()
	preserved := enc.PreservedDictionary()
	whole := preserved != nil && preserved == normalized // pqarrow's test, by identity
	switch {
	case preserved == nil:
		if err := enc.PutDictionary(normalized); err != nil {
			return err
		}
		if enc.NumEntries() != normalized.Len() { // duplicate values
			cw.FallbackToPlain()
			return writeDense(mem, cw, d, defs)
		}
	case !array.Equal(normalized, preserved):
		cw.FallbackToPlain()
		return writeDense(mem, cw, d, defs)
	}
	if st := cw.PageStatistics(); st != nil {
		used := normalized
		if whole {
			used.Retain()
		} else {
			used = referenced(mem, normalized, d.Indices())
		}
		n := d.Indices().Len() - d.Indices().NullN()
		st.IncNulls(int64(max(len(defs)-n, 0)))
		st.IncNumValues(int64(n))
		err := st.UpdateFromArrow(used, false)
		used.Release()
		if err != nil {
			return err
		}
	}
	return cw.WriteDictIndices(d.Indices(), defs, nil)
}

// referenced is the values of dict that indices use, each once in the
// order first used, or dict itself where they use all of it.
func referenced(mem memory.Allocator, dict arrow.Array, indices arrow.Array) arrow.Array {
	ind := indices.(*array.Int32)
	seen := map[int32]bool{}
	var order []int32
	for i := range ind.Len() {
		if ind.IsValid(i) && !seen[ind.Value(i)] {
			seen[ind.Value(i)] = true
			order = append(order, ind.Value(i))
		}
	}
	if len(order) == dict.Len() {
		dict.Retain()
		return dict
	}
	s := dict.(*array.String)
	b := array.NewStringBuilder(mem)
	defer b.Release()
	for _, j := range order {
		b.Append(s.Value(int(j)))
	}
	return b.NewArray()
}

// writeDense writes a dictionary array's strings.
func writeDense(mem memory.Allocator, cw file.ColumnChunkWriter, d *array.Dictionary, defs []int16) error {
	s := d.Dictionary().(*array.String)
	ind := d.Indices().(*array.Int32)
	b := array.NewStringBuilder(mem)
	defer b.Release()
	for i := range ind.Len() {
		if ind.IsNull(i) {
			b.AppendNull()
			continue
		}
		b.Append(s.Value(int(ind.Value(i))))
	}
	dense := b.NewArray()
	defer dense.Release()
	return writeArrow(mem, cw, dense, defs)
}

// scanBatchRows is the most rows a record batch read from a Parquet file
// holds; a batch never spans row groups.
const scanBatchRows = 1 << 14

// scanParquet reads a Parquet table batch by batch, as Scan describes.
func scanParquet(path string, want *arrow.Schema, fn func(arrow.Record) error) error {
	tempfile.AddInput(path)
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	defer pf.Close()
	got, err := arrowSchema(path, pf.MetaData().Schema)
	if err != nil {
		return err
	}
	if err := sameColumns(path, got, want); err != nil {
		return err
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, want)
	defer b.Release()
	readers := make([]file.ColumnChunkReader, want.NumFields())
	for g := range pf.NumRowGroups() {
		rg := pf.RowGroup(g)
		for i := range readers {
			if readers[i], err = rg.Column(i); err != nil {
				return fmt.Errorf("%s: row group %d, column %s: %w", path, g, want.Field(i).Name, err)
			}
		}
		for row, n := int64(0), rg.NumRows(); row < n; {
			k := min(n-row, scanBatchRows)
			for i, cr := range readers {
				if err := readColumn(cr, b.Field(i), k); err != nil {
					return fmt.Errorf("%s: row group %d, column %s, rows from %d: %w", path, g, want.Field(i).Name, row, err)
				}
			}
			rec := b.NewRecord()
			err := fn(rec)
			rec.Release()
			if err != nil {
				return err
			}
			row += k
		}
	}
	return nil
}

// readColumn appends the next n rows of column cr to fb, a builder of
// the arrow type arrowSchema gives the column.
func readColumn(cr file.ColumnChunkReader, fb array.Builder, n int64) error {
	nullable := cr.Descriptor().MaxDefinitionLevel() > 0
	switch r := cr.(type) {
	case *file.Int64ColumnChunkReader:
		b := fb.(*array.Int64Builder)
		return readValues(n, nullable, r.ReadBatch, b.Append, b.AppendNull)
	case *file.Int32ColumnChunkReader:
		b := fb.(*array.Int32Builder)
		return readValues(n, nullable, r.ReadBatch, b.Append, b.AppendNull)
	case *file.Float64ColumnChunkReader:
		b := fb.(*array.Float64Builder)
		return readValues(n, nullable, r.ReadBatch, b.Append, b.AppendNull)
	case *file.ByteArrayColumnChunkReader:
		b := fb.(*array.StringBuilder)
		return readValues(n, nullable, r.ReadBatch, func(v parquet.ByteArray) { b.BinaryBuilder.Append(v) }, b.AppendNull)
	}
	return fmt.Errorf("no reader for Parquet type %s", cr.Type())
}

// readValues reads n rows through read, a typed column reader's
// ReadBatch, appending each value (the value is valid only during the
// call) or null.
func readValues[T any](n int64, nullable bool, read func(int64, []T, []int16, []int16) (int64, int, error), appendValue func(T), appendNull func()) error {
	vals := make([]T, n)
	var defs []int16
	if nullable {
		defs = make([]int16, n)
	}
	for got := int64(0); got < n; {
		rows, nv, err := read(n-got, vals, defs, nil)
		if err != nil {
			return err
		}
		if rows == 0 {
			return fmt.Errorf("the column ends %d rows short of its row group", n-got)
		}
		if !nullable {
			for _, v := range vals[:nv] {
				appendValue(v)
			}
		} else {
			j := 0
			for _, d := range defs[:rows] {
				if d > 0 {
					appendValue(vals[j])
					j++
				} else {
					appendNull()
				}
			}
		}
		got += rows
	}
	return nil
}
