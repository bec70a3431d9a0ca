package parquet

// The parts of parquet.thrift (apache/parquet-format) the tables use,
// with their field ids. Fields this package neither writes nor reads are
// skipped when read.

// Physical types.
const (
	typeInt32     = 1
	typeInt64     = 2
	typeDouble    = 5
	typeByteArray = 6
)

// Repetition types.
const (
	repRequired = 0
	repOptional = 1
	repRepeated = 2
)

// Converted types (the logical types' predecessors, which older readers
// read).
const (
	convUTF8  = 0
	convInt32 = 17
	convInt64 = 18
)

// Encodings.
const (
	encPlain           = 0
	encPlainDict       = 2
	encRLE             = 3
	encDeltaBinary     = 5
	encRLEDict         = 8
	encDeltaLength     = 6
	encDeltaByteArray  = 7
	encByteStreamSplit = 9
)

// Compression codecs.
const (
	codecNone   = 0
	codecSnappy = 1
	codecGzip   = 2
	codecZstd   = 6
)

// Page types.
const (
	pageData       = 0
	pageDictionary = 2
	pageDataV2     = 3
)

// schemaElement is a node of the schema: the root (numChildren > 0) or a
// column.
type schemaElement struct {
	typ         int32 // -1 for the root
	repetition  int32
	name        string
	numChildren int32
	converted   int32 // -1 for none
	logical     logicalType
}

// logicalType is the LogicalType union, as far as the tables use it.
type logicalType struct {
	kind     int16 // its union field: 1 STRING, 10 INTEGER; 0 for none
	bitWidth int8
	signed   bool
}

const (
	logicalString  = 1
	logicalInteger = 10
)

func (s *schemaElement) encode(e *encoder) {
	e.begin(0)
	if s.typ >= 0 {
		e.i32(1, s.typ)
	}
	e.i32(3, s.repetition)
	e.binary(4, []byte(s.name))
	if s.numChildren > 0 {
		e.i32(5, s.numChildren)
	}
	if s.converted >= 0 {
		e.i32(6, s.converted)
	}
	if s.logical.kind != 0 {
		e.begin(10)
		e.begin(s.logical.kind)
		if s.logical.kind == logicalInteger {
			e.byteField(1, s.logical.bitWidth)
			e.boolean(2, s.logical.signed)
		}
		e.end()
		e.end()
	}
	e.end()
}

func (s *schemaElement) decode(d *decoder) {
	s.typ, s.converted, s.repetition = -1, -1, repRequired
	named := false
	defer func() {
		if !named {
			d.fail("a schema element without a name")
		}
	}()
	d.structFields(func(id int16, typ byte) {
		switch {
		case id == 1 && d.want(typ, tI32):
			s.typ = d.i32()
		case id == 3 && d.want(typ, tI32):
			s.repetition = d.i32()
		case id == 4 && d.want(typ, tBinary):
			s.name, named = string(d.bytes()), true
		case id == 5 && d.want(typ, tI32):
			s.numChildren = d.i32()
		case id == 6 && d.want(typ, tI32):
			s.converted = d.i32()
		case id == 10 && d.want(typ, tStruct):
			d.structFields(func(kind int16, typ byte) {
				if !d.want(typ, tStruct) {
					return
				}
				s.logical.kind = kind
				d.structFields(func(id int16, typ byte) {
					switch {
					case kind == logicalInteger && id == 1 && d.want(typ, tByte):
						s.logical.bitWidth = int8(d.byte())
					case kind == logicalInteger && id == 2:
						s.logical.signed = d.boolValue(typ)
					default:
						d.skip(typ)
					}
				})
			})
		default:
			d.skip(typ)
		}
	})
}

// statistics are a column chunk's: min_value and max_value (plain
// encoded, in the type's order) and the null count.
type statistics struct {
	min, max  []byte
	nullCount int64
}

func (s *statistics) encode(e *encoder, id int16) {
	e.begin(id)
	e.i64(3, s.nullCount)
	if s.max != nil {
		e.binary(5, s.max)
		e.binary(6, s.min)
	}
	e.end()
}

// columnMeta is a column chunk's ColumnMetaData.
type columnMeta struct {
	typ              int32
	encodings        []int32
	path             string
	codec            int32
	numValues        int64
	uncompressedSize int64
	compressedSize   int64
	dataPageOffset   int64
	dictPageOffset   int64 // 0 for none
	stats            statistics
}

func (c *columnMeta) encode(e *encoder) {
	e.begin(0) // ColumnChunk
	e.i64(2, c.chunkStart())
	e.begin(3) // ColumnMetaData
	e.i32(1, c.typ)
	e.i32List(2, c.encodings)
	e.stringList(3, []string{c.path})
	e.i32(4, c.codec)
	e.i64(5, c.numValues)
	e.i64(6, c.uncompressedSize)
	e.i64(7, c.compressedSize)
	e.i64(9, c.dataPageOffset)
	if c.dictPageOffset > 0 {
		e.i64(11, c.dictPageOffset)
	}
	c.stats.encode(e, 12)
	e.end()
	e.end()
}

// chunkStart is where the chunk's first page starts.
func (c *columnMeta) chunkStart() int64 {
	if c.dictPageOffset > 0 {
		return c.dictPageOffset
	}
	return c.dataPageOffset
}

// decodeChunk reads a ColumnChunk, keeping its ColumnMetaData.
func (c *columnMeta) decodeChunk(d *decoder) {
	c.dictPageOffset = 0
	meta := false
	defer func() {
		if !meta {
			d.fail("a column chunk without its metadata")
		}
	}()
	d.structFields(func(id int16, typ byte) {
		if id != 3 || !d.want(typ, tStruct) {
			d.skip(typ)
			return
		}
		meta = true
		d.structFields(func(id int16, typ byte) {
			switch {
			case id == 1 && d.want(typ, tI32):
				c.typ = d.i32()
			case id == 4 && d.want(typ, tI32):
				c.codec = d.i32()
			case id == 5 && d.want(typ, tI64):
				c.numValues = d.varint()
			case id == 6 && d.want(typ, tI64):
				c.uncompressedSize = d.varint()
			case id == 7 && d.want(typ, tI64):
				c.compressedSize = d.varint()
			case id == 9 && d.want(typ, tI64):
				c.dataPageOffset = d.varint()
			case id == 11 && d.want(typ, tI64):
				c.dictPageOffset = d.varint()
			default:
				d.skip(typ)
			}
		})
	})
}

// rowGroup is a RowGroup: its columns' chunks and its rows.
type rowGroup struct {
	columns   []columnMeta
	totalSize int64 // uncompressed bytes of its pages
	numRows   int64
}

func (g *rowGroup) encode(e *encoder) {
	e.begin(0)
	e.listHeader(1, tStruct, len(g.columns))
	for i := range g.columns {
		g.columns[i].encode(e)
	}
	e.i64(2, g.totalSize)
	e.i64(3, g.numRows)
	if len(g.columns) > 0 {
		e.i64(5, g.columns[0].chunkStart())
	}
	var compressed int64
	for i := range g.columns {
		compressed += g.columns[i].compressedSize
	}
	e.i64(6, compressed)
	e.end()
}

// decode reads a RowGroup of cols columns (the schema's).
func (g *rowGroup) decode(d *decoder, cols int) {
	defer func() {
		if len(g.columns) != cols {
			d.fail("a row group of %d columns, the schema %d", len(g.columns), cols)
		}
	}()
	d.structFields(func(id int16, typ byte) {
		switch {
		case id == 1 && d.want(typ, tList):
			et, n := d.listHeader()
			if n > 0 && !d.want(et, tStruct) {
				return
			}
			if n != cols {
				d.fail("a row group of %d columns, the schema %d", n, cols)
				return
			}
			g.columns = make([]columnMeta, n)
			for i := range g.columns {
				g.columns[i].decodeChunk(d)
			}
		case id == 3 && d.want(typ, tI64):
			g.numRows = d.varint()
		default:
			d.skip(typ)
		}
	})
}

// fileMeta is the footer's FileMetaData.
type fileMeta struct {
	schema    []schemaElement
	numRows   int64
	rowGroups []rowGroup
	createdBy string
}

func (f *fileMeta) encode() []byte {
	e := &encoder{}
	e.begin(0)
	e.i32(1, 2) // format version 2: the logical types, min_value/max_value
	e.listHeader(2, tStruct, len(f.schema))
	for i := range f.schema {
		f.schema[i].encode(e)
	}
	e.i64(3, f.numRows)
	e.listHeader(4, tStruct, len(f.rowGroups))
	for i := range f.rowGroups {
		f.rowGroups[i].encode(e)
	}
	e.binary(6, []byte(f.createdBy))
	// column_orders: every column in its type's order, without which
	// readers ignore min_value and max_value.
	leaves := len(f.schema) - 1
	e.listHeader(7, tStruct, leaves)
	for range leaves {
		e.begin(0)
		e.begin(1) // TYPE_ORDER
		e.end()
		e.end()
	}
	e.end()
	return e.buf
}

func (f *fileMeta) decode(d *decoder) {
	d.structFields(func(id int16, typ byte) {
		switch {
		case id == 2 && d.want(typ, tList):
			et, n := d.listHeader()
			if n > 0 && !d.want(et, tStruct) {
				return
			}
			// Grown as elements are read, not to the declared count: an
			// element in memory takes more than its one byte at least.
			f.schema = make([]schemaElement, 0, min(n, 1024))
			for range n {
				var el schemaElement
				el.decode(d)
				if d.err != nil {
					return
				}
				f.schema = append(f.schema, el)
			}
		case id == 3 && d.want(typ, tI64):
			f.numRows = d.varint()
		case id == 4 && d.want(typ, tList):
			et, n := d.listHeader()
			if n > 0 && !d.want(et, tStruct) {
				return
			}
			if len(f.schema) == 0 {
				d.fail("row groups before the schema")
				return
			}
			f.rowGroups = make([]rowGroup, 0, min(n, 1024))
			for range n {
				var g rowGroup
				g.decode(d, len(f.schema)-1)
				if d.err != nil {
					return
				}
				f.rowGroups = append(f.rowGroups, g)
			}
		case id == 6 && d.want(typ, tBinary):
			f.createdBy = string(d.bytes())
		default:
			d.skip(typ)
		}
	})
}

// pageHeader is a PageHeader of a data page (v1) or a dictionary page.
type pageHeader struct {
	typ              int32
	uncompressedSize int32
	compressedSize   int32
	numValues        int32
	encoding         int32
	defEncoding      int32 // a data page's definition levels'
	// a data page v2's: its levels' lengths (uncompressed, before the
	// values) and whether its values are compressed
	defBytes, repBytes int32
	compressed         bool
}

func (p *pageHeader) encode(e *encoder) {
	e.begin(0)
	e.i32(1, p.typ)
	e.i32(2, p.uncompressedSize)
	e.i32(3, p.compressedSize)
	if p.typ == pageDictionary {
		e.begin(7)
		e.i32(1, p.numValues)
		e.i32(2, p.encoding)
		e.end()
	} else {
		e.begin(5)
		e.i32(1, p.numValues)
		e.i32(2, p.encoding)
		e.i32(3, p.defEncoding)
		e.i32(4, encRLE)
		e.end()
	}
	e.end()
}

func (p *pageHeader) decode(d *decoder) {
	p.typ, p.compressed = -1, true
	d.structFields(func(id int16, typ byte) {
		switch {
		case id == 1 && d.want(typ, tI32):
			p.typ = d.i32()
		case id == 2 && d.want(typ, tI32):
			p.uncompressedSize = d.i32()
		case id == 3 && d.want(typ, tI32):
			p.compressedSize = d.i32()
		case (id == 5 || id == 7) && d.want(typ, tStruct):
			data := id == 5
			d.structFields(func(id int16, typ byte) {
				switch {
				case id == 1 && d.want(typ, tI32):
					p.numValues = d.i32()
				case id == 2 && d.want(typ, tI32):
					p.encoding = d.i32()
				case data && id == 3 && d.want(typ, tI32):
					p.defEncoding = d.i32()
				default:
					d.skip(typ)
				}
			})
		case id == 8 && d.want(typ, tStruct): // DataPageHeaderV2
			d.structFields(func(id int16, typ byte) {
				switch {
				case id == 1 && d.want(typ, tI32):
					p.numValues = d.i32()
				case id == 4 && d.want(typ, tI32):
					p.encoding = d.i32()
				case id == 5 && d.want(typ, tI32):
					p.defBytes = d.i32()
				case id == 6 && d.want(typ, tI32):
					p.repBytes = d.i32()
				case id == 7:
					p.compressed = d.boolValue(typ)
				default:
					d.skip(typ)
				}
			})
		default:
			d.skip(typ)
		}
	})
}
