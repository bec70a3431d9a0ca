package parquet

import (
	"cmp"
	"encoding/binary"
	"math"
	"math/bits"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// FuzzFields mutates valid files field by field, not bytes alone: the
// fuzzer's bytes are a program of operations on a file laid out as
// fields (tfile), each of 4 bytes, an operation and its arguments.
// Some keep the file valid, as other writers lay the same rows out
// (another codec, encoding, page size, data pages v2, an empty table
// as pyarrow writes it): the file must then read back its rows. The
// rest set a field to what a hostile writer would put there (a page's
// values, encoding, type or declared size; its body one of a long
// string, DELTA_BYTE_ARRAY values that grow, zeros that inflate far;
// pages repeated; a group's rows): the file must be read or refused,
// without a panic and allocating no more than the budgets (lowered
// here), the rows the footer declares and the file's size allow, in
// well under 10 s. Issue
// 75's items 1, 2, 3 and 16 are each a few operations from the seeds.
func FuzzFields(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{opEmpty, 0, 0, 0}) // 16
	// 1: name's first page 65,536 values of DELTA_BYTE_ARRAY that grow
	// from 64 KiB.
	f.Add([]byte{opEncode, 5, 3, 255, opRows, 0, 0, 7, opField, 5, 0, 7, opBody, 5, bodyGrowth, 4})
	// 2: name's dictionary one string of MaxString+1, which every row
	// uses.
	f.Add([]byte{opBody, 5, bodyLong, 6, opField, 5, 0, 1, opBody, 6, bodyIndices, 3})
	// 3: id's page of one value declaring 128 MiB of zeros, 256 times.
	f.Add([]byte{opField, 0, 0, 1, opBody, 0, bodyZeros, 8, opRepeat, 0, 0, 255})
	// valid: other codecs, encodings, pages, v2
	f.Add([]byte{opCodec, 1, 1, 0, opEncode, 2, 0x82, 7, opEncode, 6, 3, 9, opEncode, 10, 0x81, 0, opCodec, 9, 2, 0})
	defer func(file, group int64) { maxFileBytes, maxGroupStrings = file, group }(maxFileBytes, maxGroupStrings)
	maxFileBytes, maxGroupStrings = 256<<20, 64<<20
	f.Fuzz(func(t *testing.T, prog []byte) {
		m := fieldsModel()
		file, legit := m.file(), true
		for len(prog) >= 4 {
			legit = file.apply(&m, prog[0], prog[1], prog[2], prog[3]) && legit
			prog = prog[4:]
		}
		data := file.bytes(t)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		got, err := readValues(data)
		took := time.Since(start)
		runtime.ReadMemStats(&after)
		// Whatever the file, reading it takes a fraction of a second
		// within the lowered budgets; 10 s is past any machine's noise.
		if took > 10*time.Second {
			t.Fatalf("reading %d bytes took %v", len(data), took)
		}
		rows := int64(0)
		for _, g := range file.groups {
			rows += max(0, g.rows)
		}
		allow := 3*uint64(maxFileBytes+perFileByte*int64(len(data))) + 3*uint64(maxGroupStrings) + uint64(rows)*uint64(len(file.cols))*256 + 64<<20
		if a := after.TotalAlloc - before.TotalAlloc; a > allow {
			t.Fatalf("reading %d bytes of %d rows allocated %d MiB", len(data), rows, a>>20)
		}
		if legit {
			if err != nil {
				t.Fatalf("a valid file refused: %v", err)
			}
			if want := m.values(); !reflect.DeepEqual(got, want) {
				t.Fatalf("a valid file read other rows")
			}
			return
		}
		for _, g := range got {
			for _, v := range g {
				for _, s := range v.Strings {
					if len(s) > MaxString {
						t.Fatalf("a string of %d bytes read", len(s))
					}
				}
			}
		}
	})
}

// readValues reads every column of every row group of data.
func readValues(data []byte) ([][]Values, error) {
	f, err := Open(strings.NewReader(string(data)), int64(len(data)))
	if err != nil {
		return nil, err
	}
	// Every column, past one refused: each is read on its own.
	var out [][]Values
	var first error
	for g := range f.RowGroups() {
		var vals []Values
		for i := range f.Columns() {
			v, err := f.ReadColumn(g, i)
			if err != nil {
				first = cmp.Or(first, err)
				continue
			}
			vals = append(vals, *v)
		}
		out = append(out, vals)
	}
	return out, first
}

// A model is a file's rows, which its chunks encode.
type model struct {
	cols   []Column
	groups [][]Values // by group, then column
}

func fieldsModel() model {
	cols := []Column{
		{Name: "id", Type: Int64}, {Name: "small", Type: Int32}, {Name: "maybe", Type: Int64, Optional: true},
		{Name: "ratio", Type: Double}, {Name: "maybe_ratio", Type: Double, Optional: true},
		{Name: "name", Type: String}, {Name: "maybe_name", Type: String, Optional: true},
	}
	m := model{cols: cols}
	names := []string{"", "bfs_kernel", "bfs_kernel_expand", "sssp", "été"}
	for g, rows := range []int{300, 70} {
		var vals []Values
		for i, c := range cols {
			var v Values
			if c.Optional {
				v.Valid = make([]bool, rows)
			}
			for r := range rows {
				ok := !c.Optional || (r*7+i+g)%3 > 0
				if c.Optional {
					v.Valid[r] = ok
				}
				k := r*31 + i*7 + g
				switch c.Type {
				case Int64:
					x := int64(r) * 1000
					if k%17 == 0 {
						x = math.MinInt64 + int64(k)
					}
					v.Ints = append(v.Ints, map[bool]int64{true: x}[ok])
				case Int32:
					v.Ints = append(v.Ints, map[bool]int64{true: int64(int32(k*2654435761)) >> (r % 30)}[ok])
				case Double:
					v.Doubles = append(v.Doubles, map[bool]float64{true: float64(k%11) / 4}[ok])
				case String:
					v.Strings = append(v.Strings, map[bool]string{true: names[k%len(names)] + strings.Repeat("x", r%3)}[ok])
				}
			}
			vals = append(vals, v)
		}
		m.groups = append(m.groups, vals)
	}
	return m
}

// values are the model's rows as ReadColumn returns them.
func (m model) values() [][]Values {
	var out [][]Values
	for _, g := range m.groups {
		var vals []Values
		for i, v := range g {
			c := Values{Valid: v.Valid}
			switch m.cols[i].Type {
			case String:
				c.Strings = append([]string{}, v.Strings...)
			case Double:
				c.Doubles = append([]float64{}, v.Doubles...)
			default:
				c.Ints = append([]int64{}, v.Ints...)
			}
			if m.cols[i].Optional && c.Valid == nil {
				c.Valid = []bool{}
			}
			vals = append(vals, c)
		}
		out = append(out, vals)
	}
	return out
}

// file is the model laid out as its own writer's would be: dictionary
// strings, PLAIN fixed-width values, one page a chunk, zstd.
func (m model) file() tfile {
	f := tfile{cols: m.cols}
	for _, g := range m.groups {
		tg := tgroup{rows: int64(rowsOf(g[0]))}
		for i, v := range g {
			enc := int32(encPlain)
			if m.cols[i].Type == String {
				enc = encRLEDict
			}
			tg.chunks = append(tg.chunks, chunkOf(m.cols[i], v, enc, 1<<20, false, codecZstd))
		}
		f.groups = append(f.groups, tg)
	}
	return f
}

func rowsOf(v Values) int { return max(len(v.Ints), len(v.Doubles), len(v.Strings)) }

var fieldCodecs = []int32{codecNone, codecSnappy, codecGzip, codecZstd}

func encodingsOf(t Type) []int32 {
	switch t {
	case String:
		return []int32{encPlain, encRLEDict, encDeltaLength, encDeltaByteArray}
	case Double:
		return []int32{encPlain, encRLEDict, encByteStreamSplit}
	}
	return []int32{encPlain, encRLEDict, encDeltaBinary, encByteStreamSplit}
}

// chunkOf encodes v's rows in pages of at most per rows.
func chunkOf(c Column, v Values, enc int32, per int, v2 bool, codec int32) tchunk {
	ch := tchunk{codec: codec}
	rows := rowsOf(v)
	var dict []int // a dictionary's values, by the row holding each first
	index := map[any]int{}
	key := func(r int) any {
		switch {
		case v.Strings != nil:
			return v.Strings[r]
		case v.Doubles != nil:
			return math.Float64bits(v.Doubles[r])
		}
		return v.Ints[r]
	}
	valid := func(r int) bool { return v.Valid == nil || v.Valid[r] }
	if enc == encRLEDict {
		for r := range rows {
			if _, ok := index[key(r)]; valid(r) && !ok {
				index[key(r)] = len(dict)
				dict = append(dict, r)
			}
		}
		ch.pages = append(ch.pages, tpage{typ: pageDictionary, n: int32(len(dict)), enc: encPlain, body: plainValues(c, v, dict)})
	}
	for lo := 0; lo < rows; lo += per {
		hi := min(rows, lo+per)
		var at []int // the page's rows that hold a value
		var defs []byte
		if v.Valid != nil {
			var e rleEncoder
			e.reset(1)
			for r := lo; r < hi; r++ {
				e.put(uint64(map[bool]uint64{true: 1}[valid(r)]))
			}
			defs = e.finish()
			if !v2 {
				defs = append(binary.LittleEndian.AppendUint32(nil, uint32(len(defs))), defs...)
			}
		}
		for r := lo; r < hi; r++ {
			if valid(r) {
				at = append(at, r)
			}
		}
		var body []byte
		switch enc {
		case encPlain:
			body = plainValues(c, v, at)
		case encRLEDict:
			w := max(1, bits.Len(uint(len(dict)-1)))
			var e rleEncoder
			e.reset(uint(w))
			for _, r := range at {
				e.put(uint64(index[key(r)]))
			}
			body = append([]byte{byte(w)}, e.finish()...)
		case encDeltaBinary:
			vs := make([]int64, len(at))
			for j, r := range at {
				vs[j] = v.Ints[r]
			}
			body, _, _ = appendDelta(nil, vs, c.Type == Int32)
		case encByteStreamSplit:
			plain := plainValues(c, v, at)
			size := len(plain) / max(1, len(at))
			body = make([]byte, len(plain))
			for j := range at {
				for k := range size {
					body[k*len(at)+j] = plain[j*size+k]
				}
			}
		case encDeltaLength, encDeltaByteArray:
			var prefix, suffix []int64
			var tail []byte
			prev := ""
			for _, r := range at {
				s, p := v.Strings[r], 0
				if enc == encDeltaByteArray {
					for p < len(s) && p < len(prev) && s[p] == prev[p] {
						p++
					}
					prefix = append(prefix, int64(p))
				}
				suffix = append(suffix, int64(len(s)-p))
				tail = append(tail, s[p:]...)
				prev = s
			}
			if enc == encDeltaByteArray {
				body, _, _ = appendDelta(nil, prefix, true)
			}
			body, _, _ = appendDelta(body, suffix, true)
			body = append(body, tail...)
		}
		p := tpage{typ: pageData, n: int32(hi - lo), enc: enc, body: append(defs, body...)}
		if v2 {
			p = tpage{typ: pageDataV2, n: int32(hi - lo), enc: enc, defs: defs, body: body}
		}
		ch.pages = append(ch.pages, p)
	}
	return ch
}

// plainValues is the PLAIN encoding of v's values in rows at.
func plainValues(c Column, v Values, at []int) []byte {
	var b []byte
	for _, r := range at {
		switch c.Type {
		case String:
			b = append(b, plainStrs(v.Strings[r])...)
		case Double:
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v.Doubles[r]))
		default:
			b = append(b, plainInts(v.Ints[r:r+1], c.Type)...)
		}
	}
	return b
}

// The operations of FuzzFields' programs.
const (
	opCodec  = iota // legit: chunk a's codec fieldCodecs[b]
	opEncode        // legit: chunk a re-encoded, encoding b (v2 with b's top bit), pages of c+1 rows
	opEmpty         // legit: every group of 0 rows, its chunks 0 bytes at 0 (pyarrow's)
	opField         // page a's field b set to fieldValues[c]
	opBody          // page a's body one of kind b, of size sizes[c]
	opRepeat        // page a repeated c times
	opRows          // group a's rows fieldValues[c]
	opCut           // page a's body cut to c bytes
	numOps
)

// Hostile bodies (opBody).
const (
	bodyLong    = iota // one PLAIN string of the size
	bodyGrowth         // DELTA_BYTE_ARRAY: a value of the size, then each adds a byte
	bodyZeros          // zeros of the size, zstd
	bodyIndices        // a run of index 0 of the size
	numBodies
)

var fieldValues = []int64{0, 1, 2, -1, 7, 255, 4096, 1 << 16, 1 << 20, MaxString + 1, 1 << 22, 1 << 27, math.MaxInt32, math.MinInt32}

var fieldSizes = []int{0, 1, 100, 4096, 1 << 16, MaxString, MaxString + 1, 16 << 20, 128 << 20}

// zeros is a zstd frame of n zeros, made once a size.
var zeros sync.Map

func zerosOf(n int) []byte {
	if z, ok := zeros.Load(n); ok {
		return z.([]byte)
	}
	z := compressed(codecZstd, make([]byte, n))
	zeros.Store(n, z)
	return z
}

// apply applies an operation and says whether the file is still valid.
func (f *tfile) apply(m *model, op, a, b, c byte) bool {
	var pages []*tpage
	var chunks []*tchunk
	for g := range f.groups {
		for i := range f.groups[g].chunks {
			ch := &f.groups[g].chunks[i]
			chunks = append(chunks, ch)
			for k := range ch.pages {
				pages = append(pages, &ch.pages[k])
			}
		}
	}
	switch op % numOps {
	case opCodec:
		if len(chunks) > 0 {
			chunks[int(a)%len(chunks)].codec = fieldCodecs[int(b)%len(fieldCodecs)]
		}
		return true
	case opEncode:
		if len(chunks) == 0 {
			return true
		}
		k := int(a) % len(chunks)
		g, i := k/len(f.cols), k%len(f.cols)
		encs := encodingsOf(f.cols[i].Type)
		enc := encs[int(b&0x7f)%len(encs)]
		*chunks[k] = chunkOf(f.cols[i], m.groups[g][i], enc, int(c)+1, b&0x80 != 0, chunks[k].codec)
		return true
	case opEmpty:
		for g := range f.groups {
			f.groups[g].rows = 0
			for i := range f.groups[g].chunks {
				f.groups[g].chunks[i].pages = nil
			}
		}
		f.zeroEmpty = true
		for g := range m.groups {
			for i := range m.groups[g] {
				m.groups[g][i] = Values{}
			}
		}
		return true
	}
	if len(pages) == 0 {
		return false
	}
	p := pages[int(a)%len(pages)]
	switch op % numOps {
	case opField:
		x := int32(fieldValues[int(c)%len(fieldValues)])
		switch b % 4 {
		case 0:
			p.n = x
		case 1:
			p.enc = x
		case 2:
			p.typ = x
		case 3:
			p.usize = x
		}
	case opBody:
		// Past MaxString, a size only zeros take: a program is built in
		// milliseconds, well inside the fuzzer's 10 s for an input.
		n := fieldSizes[int(c)%len(fieldSizes)]
		if b%numBodies != bodyZeros {
			n = min(n, MaxString+1)
		}
		p.zbody, p.usize = nil, 0
		switch b % numBodies {
		case bodyLong:
			p.body = plainStrs(strings.Repeat("n", n))
		case bodyGrowth:
			rows := min(max(1, int(p.n)), 1<<16)
			prefix, suffix := make([]int64, rows), make([]int64, rows)
			tail := []byte(strings.Repeat("k", n))
			suffix[0] = int64(n)
			for i := 1; i < rows; i++ {
				prefix[i], suffix[i] = int64(n+i-1), 1
				tail = append(tail, 'x')
			}
			p.body = append(append(delta(prefix), delta(suffix)...), tail...)
			p.enc = encDeltaByteArray
		case bodyZeros:
			p.body, p.zbody, p.usize = nil, zerosOf(n), int32(n)
		case bodyIndices:
			p.body, p.enc = runIndices(0, n), encRLEDict
		}
	case opRepeat:
		for _, ch := range chunks {
			for k := range ch.pages {
				if &ch.pages[k] == p {
					// Compressed once, not once a copy.
					if p.zbody == nil {
						p.zbody, p.usize = compressed(ch.codec, p.body), int32(len(p.defs)+len(p.body))
					}
					for range int(c) {
						ch.pages = append(ch.pages, *p)
					}
					return false
				}
			}
		}
	case opRows:
		f.groups[int(a)%len(f.groups)].rows = fieldValues[int(c)%len(fieldValues)]
	case opCut:
		p.body = p.body[:min(len(p.body), int(c))]
	}
	return false
}
