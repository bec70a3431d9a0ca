// Package sqlite reads the tables of an SQLite 3 database file, read-only
// and without SQL: the table B-trees of the documented file format
// (https://www.sqlite.org/fileformat2.html), row by row in rowid order or
// one row by rowid. It is what the Nsight Systems importer needs of an
// export, in a few hundred lines where an SQL engine would be most of the
// replay binary's build.
//
// Read: the schema table (tables, their root pages and CREATE TABLE
// statements, from which column names and declared types come), table
// B-trees of any depth, overflow pages, every record serial type, UTF-8
// and UTF-16 text, an INTEGER PRIMARY KEY column as the rowid, columns
// added by ALTER TABLE that a row predates (NULL: a DEFAULT clause is not
// applied), and REAL affinity (an integer stored in a REAL column reads
// as a float, as SQLite returns it). Not read: WITHOUT ROWID tables,
// views, indexes (never needed: a scan reads the table), and a database
// whose recent writes are still in a write-ahead log (-wal file), which
// Open refuses.
//
// Corrupt files are errors (*Error, naming the page and byte offset),
// never panics or endless loops: each page is read once per scan.
package sqlite

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"unicode/utf16"
)

// Magic is the 16 bytes every SQLite 3 database file starts with.
const Magic = "SQLite format 3\x00"

// Error is a problem with the file's content at a page (1-based; 0 for
// the header) and byte offset in the file.
type Error struct {
	Page   uint32
	Offset int64
	Msg    string
}

func (e *Error) Error() string {
	if e.Page == 0 {
		return fmt.Sprintf("sqlite: header (byte %d): %s", e.Offset, e.Msg)
	}
	return fmt.Sprintf("sqlite: page %d (byte %d): %s", e.Page, e.Offset, e.Msg)
}

// DB is an open database file.
type DB struct {
	r        io.ReaderAt
	pageSize int    // bytes per page
	usable   int    // bytes of a page that hold content (less the reserved tail)
	pages    uint32 // pages in the file
	utf16    binary.ByteOrder
	tables   []*Table
	interior map[uint32][]byte // interior pages read by Row, kept
	leaf     uint32            // the leaf page Row read last, kept in leafBuf
	leafBuf  []byte
}

// Table is a table of the database.
type Table struct {
	Name    string
	Columns []Column
	db      *DB
	root    uint32
	rowid   int // the column that is the rowid (INTEGER PRIMARY KEY), or -1
	real    []bool
}

// Column is a column's name and declared type, as CREATE TABLE gives them.
type Column struct {
	Name, Type string
}

// Open reads the header and schema of the database file r of size bytes.
// walSize is the size of the database's -wal file (0 when there is none):
// a database in WAL mode with a non-empty log is refused, as its tables
// may not be in the file yet.
func Open(r io.ReaderAt, size, walSize int64) (*DB, error) {
	var h [100]byte
	if _, err := r.ReadAt(h[:], 0); err != nil {
		return nil, &Error{Offset: 0, Msg: "no 100-byte header: " + err.Error()}
	}
	if string(h[:16]) != Magic {
		return nil, &Error{Offset: 0, Msg: "not an SQLite 3 database"}
	}
	db := &DB{r: r, interior: map[uint32][]byte{}}
	db.pageSize = int(binary.BigEndian.Uint16(h[16:]))
	if db.pageSize == 1 {
		db.pageSize = 65536
	}
	if db.pageSize < 512 || db.pageSize&(db.pageSize-1) != 0 {
		return nil, &Error{Offset: 16, Msg: fmt.Sprintf("page size %d is not a power of two from 512 to 65536", db.pageSize)}
	}
	if (h[18] == 2 || h[19] == 2) && walSize > 0 {
		return nil, &Error{Offset: 18, Msg: "the database has a write-ahead log that is not checkpointed; open it once with sqlite3 (or run PRAGMA wal_checkpoint) first"}
	}
	if h[18] > 2 || h[19] > 2 {
		return nil, &Error{Offset: 18, Msg: fmt.Sprintf("file format versions %d/%d are not SQLite 3's", h[18], h[19])}
	}
	db.usable = db.pageSize - int(h[20])
	if db.usable < 480 {
		return nil, &Error{Offset: 20, Msg: fmt.Sprintf("%d reserved bytes leave %d of a page usable, below 480", h[20], db.usable)}
	}
	db.pages = uint32(size / int64(db.pageSize))
	if db.pages == 0 {
		return nil, &Error{Offset: 0, Msg: "the file is shorter than a page"}
	}
	switch enc := binary.BigEndian.Uint32(h[56:]); enc {
	case 0, 1:
	case 2:
		db.utf16 = binary.LittleEndian
	case 3:
		db.utf16 = binary.BigEndian
	default:
		return nil, &Error{Offset: 56, Msg: fmt.Sprintf("text encoding %d is not 1 (UTF-8), 2 or 3 (UTF-16)", enc)}
	}
	if err := db.readSchema(); err != nil {
		return nil, err
	}
	return db, nil
}

// Tables returns the database's tables in the schema's order.
func (db *DB) Tables() []*Table { return db.tables }

// Table returns the table called name (any case), or nil.
func (db *DB) Table(name string) *Table {
	for _, t := range db.tables {
		if strings.EqualFold(t.Name, name) {
			return t
		}
	}
	return nil
}

// readSchema reads the schema table (page 1): its rows are type, name,
// tbl_name, rootpage, sql.
func (db *DB) readSchema() error {
	schema := &Table{Name: "sqlite_schema", db: db, root: 1, rowid: -1, real: make([]bool, 5)}
	for _, c := range []string{"type", "name", "tbl_name", "rootpage", "sql"} {
		schema.Columns = append(schema.Columns, Column{Name: c})
	}
	return schema.Scan(func(_ int64, rec []any) error {
		typ, _ := rec[0].(string)
		name, _ := rec[1].(string)
		sql, _ := rec[4].(string)
		if typ != "table" {
			return nil // views, indexes, triggers
		}
		root, _ := rec[3].(int64)
		if root < 0 || root > int64(db.pages) {
			return &Error{Page: 1, Offset: 0, Msg: fmt.Sprintf("table %s has root page %v, outside the file's %d pages", name, rec[3], db.pages)}
		}
		t := &Table{Name: name, db: db, root: uint32(root), rowid: -1}
		if root == 0 { // a virtual table: no B-tree
			db.tables = append(db.tables, t)
			return nil
		}
		if err := t.parse(sql); err != nil {
			// A table we cannot parse is listed without columns; reading
			// it is an error.
			t.Columns = nil
			t.root = 0
		}
		db.tables = append(db.tables, t)
		return nil
	})
}

// parse takes the column names and types from a CREATE TABLE statement.
func (t *Table) parse(sql string) error {
	sql = stripComments(sql)
	open := indexOutsideQuotes(sql, '(')
	closeAt := strings.LastIndexByte(sql, ')')
	if open < 0 || closeAt < open {
		return errors.New("no column list")
	}
	if strings.Contains(strings.ToUpper(sql[closeAt:]), "WITHOUT") {
		return errors.New("a WITHOUT ROWID table")
	}
	var pk string
	for _, def := range splitTopLevel(sql[open+1 : closeAt]) {
		words := fields(def)
		if len(words) == 0 {
			continue
		}
		switch strings.ToUpper(words[0]) {
		case "CONSTRAINT", "PRIMARY", "UNIQUE", "CHECK", "FOREIGN":
			up := strings.ToUpper(strings.TrimSpace(def))
			if strings.HasPrefix(up, "PRIMARY") {
				if l, r := strings.IndexByte(def, '('), strings.LastIndexByte(def, ')'); l >= 0 && r > l {
					if cols := splitTopLevel(def[l+1 : r]); len(cols) == 1 {
						if w := fields(cols[0]); len(w) == 1 {
							pk = unquote(w[0])
						}
					}
				}
			}
			continue
		}
		c := Column{Name: unquote(words[0])}
		var typ []string
		for _, w := range words[1:] {
			switch strings.ToUpper(w) {
			case "CONSTRAINT", "PRIMARY", "NOT", "NULL", "UNIQUE", "CHECK", "DEFAULT", "COLLATE", "REFERENCES", "GENERATED", "AS":
				goto done
			}
			typ = append(typ, w)
		}
	done:
		c.Type = strings.Join(typ, " ")
		up := strings.ToUpper(" " + strings.Join(words, " ") + " ")
		if strings.EqualFold(c.Type, "INTEGER") && strings.Contains(up, " PRIMARY KEY") && !strings.Contains(up, " PRIMARY KEY DESC") {
			t.rowid = len(t.Columns)
		}
		t.Columns = append(t.Columns, c)
	}
	if pk != "" && t.rowid < 0 {
		for i, c := range t.Columns {
			if strings.EqualFold(c.Name, pk) && strings.EqualFold(c.Type, "INTEGER") {
				t.rowid = i
			}
		}
	}
	t.real = make([]bool, len(t.Columns))
	for i, c := range t.Columns {
		t.real[i] = realAffinity(c.Type)
	}
	return nil
}

// realAffinity reports whether a declared type has REAL affinity
// (https://www.sqlite.org/datatype3.html, 3.1).
func realAffinity(typ string) bool {
	u := strings.ToUpper(typ)
	if strings.Contains(u, "INT") || strings.Contains(u, "CHAR") || strings.Contains(u, "CLOB") ||
		strings.Contains(u, "TEXT") || strings.Contains(u, "BLOB") || u == "" {
		return false
	}
	return strings.Contains(u, "REAL") || strings.Contains(u, "FLOA") || strings.Contains(u, "DOUB")
}

// Column returns the index of the column called name (any case), or -1.
func (t *Table) Column(name string) int {
	for i, c := range t.Columns {
		if strings.EqualFold(c.Name, name) {
			return i
		}
	}
	return -1
}

// Scan calls fn with every row of the table in rowid order: the rowid
// and one value per column, each nil, int64, float64, string or []byte.
// The slice and the byte slices are reused after fn returns. An error
// from fn stops the scan and is returned.
func (t *Table) Scan(fn func(rowid int64, rec []any) error) error {
	if t.root == 0 {
		return &Error{Msg: fmt.Sprintf("table %s: its CREATE TABLE statement is not one this reader understands (a WITHOUT ROWID or virtual table?)", t.Name)}
	}
	s := scan{t: t, seen: map[uint32]bool{}, rec: make([]any, len(t.Columns))}
	return s.page(t.root, fn)
}

// Row reads the row with rowid id into rec (one value per column, as
// Scan gives them); ok is false when there is none. Rows read in
// about rowid order cost a page read per leaf page, not per row.
func (t *Table) Row(id int64, rec []any) (ok bool, err error) {
	if t.root == 0 {
		return false, &Error{Msg: fmt.Sprintf("table %s: its CREATE TABLE statement is not one this reader understands (a WITHOUT ROWID or virtual table?)", t.Name)}
	}
	db := t.db
	pg := t.root
	for depth := 0; ; depth++ {
		if depth > 64 {
			return false, &Error{Page: pg, Offset: db.offset(pg), Msg: "the table's B-tree is deeper than 64 pages (a cycle?)"}
		}
		b, ok := db.interior[pg]
		switch {
		case ok:
		case pg == db.leaf && db.leafBuf != nil:
			b = db.leafBuf
		default:
			if b, err = db.page(pg); err != nil {
				return false, err
			}
		}
		h, err := db.header(pg, b)
		if err != nil {
			return false, err
		}
		switch h.kind {
		case 0x05:
			db.interior[pg] = b
			// The first cell whose key is >= id holds it on its left;
			// past every key, the right-most child.
			next := h.right
			lo, hi := 0, h.cells
			for lo < hi {
				m := (lo + hi) / 2
				_, key, err := db.interiorCell(pg, b, h, m)
				if err != nil {
					return false, err
				}
				if key >= id {
					hi = m
				} else {
					lo = m + 1
				}
			}
			if lo < h.cells {
				if next, _, err = db.interiorCell(pg, b, h, lo); err != nil {
					return false, err
				}
			}
			pg = next
		case 0x0d:
			db.leaf, db.leafBuf = pg, b
			lo, hi := 0, h.cells
			for lo < hi {
				m := (lo + hi) / 2
				rid, _, _, err := db.leafCell(pg, b, h, m)
				if err != nil {
					return false, err
				}
				if rid >= id {
					hi = m
				} else {
					lo = m + 1
				}
			}
			if lo == h.cells {
				return false, nil
			}
			rid, payload, over, err := db.leafCell(pg, b, h, lo)
			if err != nil || rid != id {
				return false, err
			}
			s := scan{t: t, seen: map[uint32]bool{}, rec: rec}
			err = s.record(pg, rid, payload, over)
			return err == nil, err
		default:
			return false, &Error{Page: pg, Offset: db.offset(pg), Msg: fmt.Sprintf("page type %#x is not a table B-tree page", h.kind)}
		}
	}
}

// offset is the file offset of page pg.
func (db *DB) offset(pg uint32) int64 { return int64(pg-1) * int64(db.pageSize) }

// page reads page pg.
func (db *DB) page(pg uint32) ([]byte, error) {
	if pg < 1 || pg > db.pages {
		return nil, &Error{Page: pg, Offset: -1, Msg: fmt.Sprintf("page %d is outside the file's %d pages", pg, db.pages)}
	}
	b := make([]byte, db.pageSize)
	if _, err := db.r.ReadAt(b, db.offset(pg)); err != nil {
		return nil, &Error{Page: pg, Offset: db.offset(pg), Msg: "reading: " + err.Error()}
	}
	return b, nil
}

// btreeHeader is a B-tree page's header.
type btreeHeader struct {
	kind  byte
	cells int
	ptrs  int    // offset in the page of the cell pointer array
	right uint32 // interior pages: the right-most child
}

func (db *DB) header(pg uint32, b []byte) (btreeHeader, error) {
	at := 0
	if pg == 1 {
		at = 100
	}
	var h btreeHeader
	if at+12 > len(b) {
		return h, &Error{Page: pg, Offset: db.offset(pg) + int64(at), Msg: "no room for a page header"}
	}
	h.kind = b[at]
	h.cells = int(binary.BigEndian.Uint16(b[at+3:]))
	h.ptrs = at + 8
	switch h.kind {
	case 0x05:
		h.right = binary.BigEndian.Uint32(b[at+8:])
		h.ptrs = at + 12
	case 0x0d:
	default:
		return h, &Error{Page: pg, Offset: db.offset(pg) + int64(at), Msg: fmt.Sprintf("page type %#x is not a table B-tree page", h.kind)}
	}
	if h.ptrs+2*h.cells > db.usable {
		return h, &Error{Page: pg, Offset: db.offset(pg) + int64(at+3), Msg: fmt.Sprintf("%d cells do not fit the page", h.cells)}
	}
	return h, nil
}

// cell returns the offset of cell i of a page.
func (db *DB) cell(pg uint32, b []byte, h btreeHeader, i int) (int, error) {
	c := int(binary.BigEndian.Uint16(b[h.ptrs+2*i:]))
	if c < h.ptrs+2*h.cells || c >= db.usable {
		return 0, &Error{Page: pg, Offset: db.offset(pg) + int64(h.ptrs+2*i), Msg: fmt.Sprintf("cell %d starts at %d, outside the cell area", i, c)}
	}
	return c, nil
}

// interiorCell returns cell i of an interior page: its left child and key.
func (db *DB) interiorCell(pg uint32, b []byte, h btreeHeader, i int) (uint32, int64, error) {
	c, err := db.cell(pg, b, h, i)
	if err != nil {
		return 0, 0, err
	}
	if c+4 >= db.usable {
		return 0, 0, &Error{Page: pg, Offset: db.offset(pg) + int64(c), Msg: fmt.Sprintf("interior cell %d runs past the page", i)}
	}
	child := binary.BigEndian.Uint32(b[c:])
	key, n := varint(b[c+4 : db.usable])
	if n == 0 {
		return 0, 0, &Error{Page: pg, Offset: db.offset(pg) + int64(c+4), Msg: fmt.Sprintf("interior cell %d's key runs past the page", i)}
	}
	return child, key, nil
}

// leafCell returns cell i of a leaf page: the rowid, the payload held on
// the page and, when the payload spills, its total size and first
// overflow page.
func (db *DB) leafCell(pg uint32, b []byte, h btreeHeader, i int) (rowid int64, local []byte, over overflow, err error) {
	c, err := db.cell(pg, b, h, i)
	if err != nil {
		return 0, nil, over, err
	}
	end := db.usable
	size, n := varint(b[c:end])
	if n == 0 || size < 0 || size > 1<<31 {
		return 0, nil, over, &Error{Page: pg, Offset: db.offset(pg) + int64(c), Msg: fmt.Sprintf("cell %d has a bad payload size", i)}
	}
	c += n
	rowid, n = varint(b[c:end])
	if n == 0 {
		return 0, nil, over, &Error{Page: pg, Offset: db.offset(pg) + int64(c), Msg: fmt.Sprintf("cell %d's rowid runs past the page", i)}
	}
	c += n
	// How much of the payload is on the page (the file format's X, M, K).
	u := int64(db.usable)
	x := u - 35
	keep := size
	if size > x {
		m := (u-12)*32/255 - 23
		keep = m + (size-m)%(u-4)
		if keep > x {
			keep = m
		}
		if int64(c)+keep+4 > u {
			return 0, nil, over, &Error{Page: pg, Offset: db.offset(pg) + int64(c), Msg: fmt.Sprintf("cell %d runs past the page", i)}
		}
		over = overflow{size: size, next: binary.BigEndian.Uint32(b[c+int(keep):])}
	} else if int64(c)+keep > u {
		return 0, nil, over, &Error{Page: pg, Offset: db.offset(pg) + int64(c), Msg: fmt.Sprintf("cell %d runs past the page", i)}
	}
	return rowid, b[c : c+int(keep)], over, nil
}

// overflow is where a spilled payload goes on: its whole size and the
// first overflow page (0: it does not spill).
type overflow struct {
	size int64
	next uint32
}

// scan is one walk over a table's B-tree.
type scan struct {
	t    *Table
	seen map[uint32]bool // pages read, so that a corrupt tree cannot loop
	rec  []any
	buf  []byte // a spilled payload, reassembled
}

func (s *scan) visit(pg uint32) error {
	if s.seen[pg] {
		return &Error{Page: pg, Offset: s.t.db.offset(pg), Msg: "the page is reached twice (the B-tree has a cycle)"}
	}
	s.seen[pg] = true
	return nil
}

func (s *scan) page(pg uint32, fn func(int64, []any) error) error {
	db := s.t.db
	if err := s.visit(pg); err != nil {
		return err
	}
	b, err := db.page(pg)
	if err != nil {
		return err
	}
	h, err := db.header(pg, b)
	if err != nil {
		return err
	}
	if h.kind == 0x05 {
		for i := range h.cells {
			child, _, err := db.interiorCell(pg, b, h, i)
			if err != nil {
				return err
			}
			if err := s.page(child, fn); err != nil {
				return err
			}
		}
		return s.page(h.right, fn)
	}
	for i := range h.cells {
		rowid, local, over, err := db.leafCell(pg, b, h, i)
		if err != nil {
			return err
		}
		if err := s.record(pg, rowid, local, over); err != nil {
			return err
		}
		if err := fn(rowid, s.rec); err != nil {
			return err
		}
	}
	return nil
}

// record decodes a row's payload into s.rec.
func (s *scan) record(pg uint32, rowid int64, payload []byte, over overflow) error {
	db := s.t.db
	if over.next != 0 {
		s.buf = append(s.buf[:0], payload...)
		seen := map[uint32]bool{}
		for next := over.next; int64(len(s.buf)) < over.size; {
			if next == 0 || seen[next] {
				return &Error{Page: pg, Offset: db.offset(pg), Msg: fmt.Sprintf("row %d's overflow chain ends early or loops", rowid)}
			}
			seen[next] = true
			b, err := db.page(next)
			if err != nil {
				return err
			}
			n := min(int64(db.usable-4), over.size-int64(len(s.buf)))
			s.buf = append(s.buf, b[4:4+n]...)
			next = binary.BigEndian.Uint32(b)
		}
		payload = s.buf
	}
	bad := func(msg string) error {
		return &Error{Page: pg, Offset: db.offset(pg), Msg: fmt.Sprintf("row %d: %s", rowid, msg)}
	}
	hsize, n := varint(payload)
	if n == 0 || hsize < int64(n) || hsize > int64(len(payload)) {
		return bad("the record header is longer than the record")
	}
	types, body := payload[n:hsize], payload[hsize:]
	for i := range s.rec {
		s.rec[i] = nil
	}
	for col := 0; len(types) > 0; col++ {
		st, n := varint(types)
		if n == 0 {
			return bad("a serial type runs past the record header")
		}
		types = types[n:]
		size := serialSize(st)
		if size < 0 || size > int64(len(body)) {
			return bad(fmt.Sprintf("column %d's value (serial type %d) runs past the record", col+1, st))
		}
		v := body[:size]
		body = body[size:]
		if col >= len(s.rec) {
			continue // more values than columns: ignored, as SQLite does
		}
		s.rec[col] = db.value(st, v)
		if s.t.real[col] {
			if i, ok := s.rec[col].(int64); ok {
				s.rec[col] = float64(i)
			}
		}
	}
	if s.t.rowid >= 0 && s.t.rowid < len(s.rec) {
		s.rec[s.t.rowid] = rowid
	}
	return nil
}

// serialSize is the bytes of a value of serial type st; -1 for the
// reserved types.
func serialSize(st int64) int64 {
	switch {
	case st >= 0 && st <= 4:
		return st
	case st == 5:
		return 6
	case st == 6 || st == 7:
		return 8
	case st == 8 || st == 9:
		return 0
	case st >= 12:
		return (st - 12) / 2
	}
	return -1
}

// value decodes a value of serial type st from its bytes b.
func (db *DB) value(st int64, b []byte) any {
	switch {
	case st == 0:
		return nil
	case st >= 1 && st <= 6:
		v := int64(int8(b[0]))
		for _, c := range b[1:] {
			v = v<<8 | int64(c)
		}
		return v
	case st == 7:
		return math.Float64frombits(binary.BigEndian.Uint64(b))
	case st == 8:
		return int64(0)
	case st == 9:
		return int64(1)
	case st%2 == 0:
		return b
	}
	if db.utf16 == nil {
		return string(b)
	}
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = db.utf16.Uint16(b[2*i:])
	}
	return string(utf16.Decode(u))
}

// varint decodes an SQLite varint (1 to 9 bytes, big-endian, seven bits a
// byte but all eight of the ninth) from b; n is 0 when b ends first.
func varint(b []byte) (v int64, n int) {
	var u uint64
	for i := 0; i < 9; i++ {
		if i >= len(b) {
			return 0, 0
		}
		if i == 8 {
			return int64(u<<8 | uint64(b[i])), 9
		}
		u = u<<7 | uint64(b[i]&0x7f)
		if b[i] < 0x80 {
			return int64(u), i + 1
		}
	}
	return 0, 0
}

// quotes follows a left-to-right scan of SQL text through its quoted
// names and strings: between single, double or back quotes, or [ and ].
// A doubled quote inside closes and reopens them, which leaves the
// scan's view of what is outside alone.
type quotes struct{ end byte }

// in reports whether c, the scan's next byte, is part of a quoted name or
// string (its quotes included), and moves the state past it.
func (q *quotes) in(c byte) bool {
	switch {
	case q.end != 0:
		if c == q.end {
			q.end = 0
		}
	case closer(c) != 0:
		q.end = closer(c)
	default:
		return false
	}
	return true
}

// closer is the byte that closes a quote opened by c, or 0 where c opens
// none.
func closer(c byte) byte {
	switch c {
	case '\'', '"', '`':
		return c
	case '[':
		return ']'
	}
	return 0
}

// indexOutsideQuotes is the index of the first c in s not inside quotes,
// or -1.
func indexOutsideQuotes(s string, c byte) int {
	var q quotes
	for i := 0; i < len(s); i++ {
		if !q.in(s[i]) && s[i] == c {
			return i
		}
	}
	return -1
}

// stripComments replaces each SQL comment outside quotes (-- to the end
// of the line, /* to */) by a space. SQLite keeps a CREATE TABLE as it
// was written, and Nsight Systems writes one comment per column ("start
// INTEGER NOT NULL, -- Event start timestamp (ns)."), whose commas,
// parentheses and apostrophes would otherwise be taken for the column
// list's.
func stripComments(s string) string {
	var b strings.Builder
	var q quotes
	for i := 0; i < len(s); i++ {
		switch {
		case q.in(s[i]):
		case strings.HasPrefix(s[i:], "--"):
			end := strings.IndexByte(s[i:], '\n')
			if end < 0 {
				end = len(s) - i
			}
			b.WriteByte(' ')
			i += end - 1 // the newline itself is kept
			continue
		case strings.HasPrefix(s[i:], "/*"):
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				end = len(s) - i - 2
			}
			b.WriteByte(' ')
			i += end + 3
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// splitTopLevel splits a column list at the commas outside parentheses
// and quotes.
func splitTopLevel(s string) []string {
	var out []string
	var q quotes
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch {
		case q.in(s[i]):
		case s[i] == '(':
			depth++
		case s[i] == ')':
			depth--
		case s[i] == ',' && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// fields splits a column definition into words, a quoted name or a
// parenthesised group being one word.
func fields(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case closer(c) != 0:
			j := closingQuote(s, i)
			if j < 0 {
				return append(out, s[i:])
			}
			out = append(out, s[i:j+1])
			i = j + 1
		case c == '(':
			depth, j := 0, i
			for ; j < len(s); j++ {
				if s[j] == '(' {
					depth++
				} else if s[j] == ')' {
					if depth--; depth == 0 {
						break
					}
				}
			}
			out = append(out, s[i:min(j+1, len(s))])
			i = j + 1
		default:
			j := i
			for j < len(s) && !strings.ContainsRune(" \t\n\r(", rune(s[j])) {
				j++
			}
			out = append(out, s[i:j])
			i = j
		}
	}
	return out
}

// closingQuote is the index of the quote that closes the one at s[i]
// (']' for '['), passing over doubled quotes, which stand for one inside
// the name; -1 when none does.
func closingQuote(s string, i int) int {
	end := closer(s[i])
	for k := i + 1; k < len(s); k++ {
		switch {
		case s[k] != end:
		case end != ']' && k+1 < len(s) && s[k+1] == end:
			k++
		default:
			return k
		}
	}
	return -1
}

// unquote removes a name's quotes.
func unquote(s string) string {
	if len(s) >= 2 {
		switch s[0] {
		case '"', '\'', '`':
			if s[len(s)-1] == s[0] {
				return strings.ReplaceAll(s[1:len(s)-1], string(s[0])+string(s[0]), string(s[0]))
			}
		case '[':
			if s[len(s)-1] == ']' {
				return s[1 : len(s)-1]
			}
		}
	}
	return s
}
