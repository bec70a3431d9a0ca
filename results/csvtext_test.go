package results

import (
	"bytes"
	"encoding/csv"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/gpureplay/gpureplay/tables"
)

// The CSV encoder writes the bytes encoding/csv's Writer writes for the
// same fields: every string its quoting rule quotes (a comma, a quote, a
// CR or an LF, a leading space of any kind, `\.`), in the run columns
// and after them, numbers and nulls as they were.
func TestCSVMatchesEncodingCSV(t *testing.T) {
	strs := []string{"", "plain", `\.`, " lead", "\u00a0nbsp", "a,b", `q"uo"te`, "line\nbreak", "cr\rx", "tail ", "ünïcode", `"`, ","}
	runs := []runRows{
		{tables.Run{Trace: "t", Policy: "a,b"}, 4},
		{tables.Run{Trace: " t", Policy: `q"`, Params: "k=1"}, 0},
		{tables.Run{Trace: "t", Policy: "p", Params: `\.`}, 7},
		{tables.Run{Trace: "t", Policy: "p", Params: "x\ny"}, len(strs) - 11},
	}
	rest := []arrow.Field{
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "i, \"64\"", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "i32", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	}
	s := withRunFields(rest)
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema(rest, nil))
	defer b.Release()
	var lines [][]string
	floats := []float64{0, 1, -2.5, 1e21, 3e-9, 0.1}
	run, left := 0, runs[0].rows
	for i, str := range strs {
		for left == 0 {
			run++
			left = runs[run].rows
		}
		left--
		r := runs[run].run
		rec := []string{r.Trace, r.Policy, r.Params, "", "", "", ""}
		if i%5 == 4 {
			b.Field(0).AppendNull()
		} else {
			b.Field(0).(*array.StringBuilder).Append(str)
			rec[3] = str
		}
		if i%4 == 3 {
			b.Field(1).AppendNull()
		} else {
			v := int64(i*1000003) - 5000000
			b.Field(1).(*array.Int64Builder).Append(v)
			rec[4] = strconv.FormatInt(v, 10)
		}
		v32 := int32(i/3 - 1) // -1, then each value three rows running
		b.Field(2).(*array.Int32Builder).Append(v32)
		rec[5] = strconv.Itoa(int(v32))
		f := floats[i%len(floats)]
		b.Field(3).(*array.Float64Builder).Append(f)
		rec[6] = string(appendFloatText(nil, f))
		lines = append(lines, rec)
	}
	rec := b.NewRecord()
	defer rec.Release()
	// The whole record, and a slice of it (its bitmaps' first bit not
	// its first row's): rows 4 to 10 are the third stretch's.
	slice := rec.NewSlice(4, 11)
	defer slice.Release()
	for _, c := range []struct {
		b     block
		lines [][]string
	}{{block{runs: runs, rest: rec}, lines}, {block{runs: []runRows{runs[2]}, rest: slice}, lines[4:11]}} {
		var want bytes.Buffer
		cw := csv.NewWriter(&want)
		cw.Write([]string{"trace", "policy", "params", "s", "i, \"64\"", "i32", "f"})
		cw.WriteAll(c.lines)
		var got bytes.Buffer
		e, err := newCSVEncoder(&got, s, memory.DefaultAllocator)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.write(c.b); err != nil {
			t.Fatal(err)
		}
		if err := e.close(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("CSV:\n%q\nwant (encoding/csv):\n%q", got.String(), want.String())
		}
	}
}

// The encoder writes what encoding/csv writes over many rows: strings
// short and long, changing and quoted, nulls in every column, integers
// of every length and sign, repeated and not, and floats of every form,
// in a block sliced off a record's start; and integer columns that hold
// the column before them's values (opTwin), short, long and negative.
func TestCSVManyRows(t *testing.T) {
	rest := []arrow.Field{
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "i64", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "i32", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "plain", Type: arrow.PrimitiveTypes.Int64},
		{Name: "plain2", Type: arrow.PrimitiveTypes.Int64},
		{Name: "none", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "wide", Type: arrow.PrimitiveTypes.Int64},
		{Name: "wide2", Type: arrow.PrimitiveTypes.Int64},
	}
	s := withRunFields(rest)
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema(rest, nil))
	defer b.Release()
	strs := []string{"k", "a kernel name long enough to need more than a slot", "x,y", strings.Repeat("q\"", 20), ""}
	ints := []int64{0, 7, -1, 99999999, 100000000, -100000000, math.MaxInt64, math.MinInt64, 123456789012, 999999999999999, 1e15, 1234567890123456, 1e16 + 5}
	floats := []float64{0, 1, -2.5, 1e21, 3e-9, 0.1, 5.64816650148662, math.Inf(1), math.NaN(), -0.0, 123456.75, math.MaxFloat64, -math.SmallestNonzeroFloat64}
	const skip, n = 3, 1000
	var lines [][]string
	for i := range skip + n {
		rec := []string{"t", "p", "", "", "", "", "", "", "", "", "", ""}
		if i%7 == 5 {
			b.Field(0).AppendNull()
		} else {
			str := strs[i/13%len(strs)]
			b.Field(0).(*array.StringBuilder).Append(str)
			rec[3] = str
		}
		if i%11 == 4 {
			b.Field(1).AppendNull()
		} else {
			v := ints[i%len(ints)] + int64(i/len(ints)%3)
			b.Field(1).(*array.Int64Builder).Append(v)
			rec[4] = strconv.FormatInt(v, 10)
		}
		if i%9 == 8 {
			b.Field(2).AppendNull()
		} else {
			v := int32(i/4) * int32(1-2*(i%2)) * 1000
			b.Field(2).(*array.Int32Builder).Append(v)
			rec[5] = strconv.Itoa(int(v))
		}
		if i%6 == 1 {
			b.Field(3).AppendNull()
		} else {
			f := floats[i%len(floats)] * float64(1+i%3)
			b.Field(3).(*array.Float64Builder).Append(f)
			rec[6] = strconv.FormatFloat(f, 'g', -1, 64)
			if !strings.ContainsAny(rec[6], ".eIN") {
				rec[6] += ".0"
			}
		}
		b.Field(4).(*array.Int64Builder).Append(int64(i / 5))
		b.Field(5).(*array.Int64Builder).Append(int64(i / 5))
		rec[7], rec[8] = strconv.Itoa(i/5), strconv.Itoa(i/5)
		b.Field(6).AppendNull()
		w := ints[i%len(ints)] - int64(i%4)
		b.Field(7).(*array.Int64Builder).Append(w)
		b.Field(8).(*array.Int64Builder).Append(w)
		rec[10], rec[11] = strconv.FormatInt(w, 10), strconv.FormatInt(w, 10)
		lines = append(lines, rec)
	}
	rec := b.NewRecord()
	defer rec.Release()
	slice := rec.NewSlice(skip, skip+n)
	defer slice.Release()
	var want bytes.Buffer
	cw := csv.NewWriter(&want)
	cw.Write([]string{"trace", "policy", "params", "s", "i64", "i32", "f", "plain", "plain2", "none", "wide", "wide2"})
	cw.WriteAll(lines[skip:])
	var got bytes.Buffer
	e, err := newCSVEncoder(&got, s, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.write(block{runs: []runRows{{tables.Run{Trace: "t", Policy: "p"}, n}}, rest: slice}); err != nil {
		t.Fatal(err)
	}
	if err := e.close(); err != nil {
		t.Fatal(err)
	}
	if g, w := strings.Split(got.String(), "\n"), strings.Split(want.String(), "\n"); len(g) != len(w) {
		t.Fatalf("CSV has %d lines, encoding/csv %d", len(g), len(w))
	} else {
		for i := range g {
			if g[i] != w[i] {
				t.Fatalf("CSV line %d:\n%q\nwant (encoding/csv):\n%q", i, g[i], w[i])
			}
		}
	}
}

// withRunFields is the schema of a table file whose columns past a run's
// (trace, policy, params) are rest.
func withRunFields(rest []arrow.Field) *arrow.Schema {
	var all []arrow.Field
	for _, name := range []string{"trace", "policy", "params"} {
		all = append(all, arrow.Field{Name: name, Type: arrow.BinaryTypes.String})
	}
	return arrow.NewSchema(append(all, rest...), nil)
}
