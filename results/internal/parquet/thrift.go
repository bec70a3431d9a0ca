package parquet

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Thrift's compact protocol, the encoding of Parquet's page headers and
// footer: only what those structures use (integers, binaries, lists,
// structs, booleans), in both directions.

// The compact protocol's type codes.
const (
	tStop   = 0
	tTrue   = 1
	tFalse  = 2
	tByte   = 3
	tI16    = 4
	tI32    = 5
	tI64    = 6
	tDouble = 7
	tBinary = 8
	tList   = 9
	tSet    = 10
	tMap    = 11
	tStruct = 12
)

// encoder appends a struct's fields in the compact protocol. Fields are
// written in increasing id order within a struct, as Thrift does.
type encoder struct {
	buf  []byte
	last []int16 // the last field id written, per open struct
}

func (e *encoder) field(id int16, typ byte) {
	last := e.last[len(e.last)-1]
	if d := id - last; d > 0 && d <= 15 {
		e.buf = append(e.buf, byte(d)<<4|typ)
	} else {
		e.buf = append(e.buf, typ)
		e.buf = binary.AppendVarint(e.buf, int64(id))
	}
	e.last[len(e.last)-1] = id
}

func (e *encoder) i32(id int16, v int32) {
	e.field(id, tI32)
	e.buf = binary.AppendVarint(e.buf, int64(v))
}

func (e *encoder) i64(id int16, v int64) {
	e.field(id, tI64)
	e.buf = binary.AppendVarint(e.buf, v)
}

func (e *encoder) byteField(id int16, v int8) {
	e.field(id, tByte)
	e.buf = append(e.buf, byte(v))
}

func (e *encoder) boolean(id int16, v bool) {
	if v {
		e.field(id, tTrue)
	} else {
		e.field(id, tFalse)
	}
}

func (e *encoder) binary(id int16, v []byte) {
	e.field(id, tBinary)
	e.buf = binary.AppendUvarint(e.buf, uint64(len(v)))
	e.buf = append(e.buf, v...)
}

// listHeader starts a list of n elements of type typ, as field id.
func (e *encoder) listHeader(id int16, typ byte, n int) {
	e.field(id, tList)
	if n < 15 {
		e.buf = append(e.buf, byte(n)<<4|typ)
	} else {
		e.buf = append(e.buf, 0xf0|typ)
		e.buf = binary.AppendUvarint(e.buf, uint64(n))
	}
}

func (e *encoder) i32List(id int16, vs []int32) {
	e.listHeader(id, tI32, len(vs))
	for _, v := range vs {
		e.buf = binary.AppendVarint(e.buf, int64(v))
	}
}

func (e *encoder) stringList(id int16, vs []string) {
	e.listHeader(id, tBinary, len(vs))
	for _, v := range vs {
		e.buf = binary.AppendUvarint(e.buf, uint64(len(v)))
		e.buf = append(e.buf, v...)
	}
}

// begin opens a struct: as field id of the enclosing struct, or with id 0
// as a list element or the outermost struct.
func (e *encoder) begin(id int16) {
	if id != 0 {
		e.field(id, tStruct)
	}
	e.last = append(e.last, 0)
}

// end closes the innermost open struct.
func (e *encoder) end() {
	e.buf = append(e.buf, tStop)
	e.last = e.last[:len(e.last)-1]
}

// errThrift is a footer or page header the decoder cannot read.
var errThrift = errors.New("malformed Thrift structure")

// maxThriftDepth bounds the nesting the decoder follows when it skips a
// field it does not read, so a hostile header cannot exhaust the stack.
const maxThriftDepth = 32

// decoder reads the compact protocol from a byte slice. Its first error
// sticks: every later read returns zero values, and err says where.
type decoder struct {
	buf []byte
	pos int
	err error
}

func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%w at byte %d: %s", errThrift, d.pos, fmt.Sprintf(format, args...))
	}
}

func (d *decoder) byte() byte {
	if d.err != nil {
		return 0
	}
	if d.pos >= len(d.buf) {
		d.fail("cut short")
		return 0
	}
	b := d.buf[d.pos]
	d.pos++
	return b
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.buf[d.pos:])
	if n <= 0 {
		d.fail("bad varint")
		return 0
	}
	d.pos += n
	return v
}

func (d *decoder) varint() int64 {
	u := d.uvarint()
	return int64(u>>1) ^ -int64(u&1)
}

func (d *decoder) i32() int32 {
	v := d.varint()
	if v < math.MinInt32 || v > math.MaxInt32 {
		d.fail("i32 out of range")
		return 0
	}
	return int32(v)
}

func (d *decoder) bytes() []byte {
	n := d.uvarint()
	if d.err != nil {
		return nil
	}
	if n > uint64(len(d.buf)-d.pos) {
		d.fail("binary of %d bytes past the end", n)
		return nil
	}
	b := d.buf[d.pos : d.pos+int(n)]
	d.pos += int(n)
	return b
}

// fieldHeader reads the next field of a struct whose previous field id
// was last: its id and type, or typ tStop at the struct's end.
func (d *decoder) fieldHeader(last int16) (id int16, typ byte) {
	b := d.byte()
	if d.err != nil {
		return 0, tStop
	}
	typ = b & 0x0f
	if typ == tStop {
		return 0, tStop
	}
	if delta := int16(b >> 4); delta != 0 {
		return last + delta, typ
	}
	v := d.varint()
	if v < math.MinInt16 || v > math.MaxInt16 {
		d.fail("field id out of range")
		return 0, tStop
	}
	return int16(v), typ
}

// listHeader reads a list's element type and size. The size is checked
// against the bytes left, each element taking at least one, so a hostile
// size allocates nothing.
func (d *decoder) listHeader() (typ byte, n int) {
	b := d.byte()
	typ, size := b&0x0f, uint64(b>>4)
	if size == 15 {
		size = d.uvarint()
	}
	if d.err == nil && size > uint64(len(d.buf)-d.pos) {
		d.fail("list of %d elements in %d bytes", size, len(d.buf)-d.pos)
	}
	if d.err != nil {
		return tStop, 0
	}
	return typ, int(size)
}

// structFields calls fn with each field of the struct that starts here;
// fn reads the field's value, or skips it.
func (d *decoder) structFields(fn func(id int16, typ byte)) {
	var last int16
	for d.err == nil {
		id, typ := d.fieldHeader(last)
		if typ == tStop {
			return
		}
		fn(id, typ)
		last = id
	}
}

// boolValue is a struct field's boolean, carried in its type.
func (d *decoder) boolValue(typ byte) bool {
	if typ != tTrue && typ != tFalse {
		d.fail("type %d where a bool was expected", typ)
	}
	return typ == tTrue
}

// want checks that a field has the type the structure defines.
func (d *decoder) want(got, typ byte) bool {
	if got != typ {
		d.fail("field of type %d where %d was expected", got, typ)
		return false
	}
	return true
}

// skip reads past a value of type typ.
func (d *decoder) skip(typ byte) { d.skipDepth(typ, 0) }

func (d *decoder) skipDepth(typ byte, depth int) {
	if depth > maxThriftDepth {
		d.fail("nested too deep")
		return
	}
	switch typ {
	case tTrue, tFalse:
	case tByte:
		d.byte()
	case tI16, tI32, tI64:
		d.uvarint()
	case tDouble:
		if len(d.buf)-d.pos < 8 {
			d.fail("cut short")
			return
		}
		d.pos += 8
	case tBinary:
		d.bytes()
	case tList, tSet:
		et, n := d.listHeader()
		for i := 0; i < n && d.err == nil; i++ {
			if et == tTrue || et == tFalse { // a list's booleans take a byte each
				d.byte()
				continue
			}
			d.skipDepth(et, depth+1)
		}
	case tMap:
		n := d.uvarint()
		if n == 0 || d.err != nil {
			return
		}
		kv := d.byte()
		if n > uint64(len(d.buf)-d.pos) {
			d.fail("map of %d entries past the end", n)
			return
		}
		for i := uint64(0); i < n && d.err == nil; i++ {
			d.skipDepth(kv>>4, depth+1)
			d.skipDepth(kv&0x0f, depth+1)
		}
	case tStruct:
		var last int16
		for d.err == nil {
			id, t := d.fieldHeader(last)
			if t == tStop {
				return
			}
			d.skipDepth(t, depth+1)
			last = id
		}
	default:
		d.fail("unknown type %d", typ)
	}
}
