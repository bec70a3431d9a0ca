// Package sqlite reads the tables of an SQLite 3 database file, read-only
// and without SQL: the table B-trees of the documented file format
// (https://www.sqlite.org/fileformat2.html), row by row in rowid order or
// one row by rowid. It is what the Nsight Systems importer needs of an
// export, in a few hundred lines where an SQL engine would be most of the
// replay binary's build.
//
// Read: the schema table (tables, their root pages and CREATE TABLE
// statements, from which column names, declared types, DEFAULT values
// and generated columns come), table B-trees of any depth, overflow
// pages, every record serial type, UTF-8 and UTF-16 text, an INTEGER
// PRIMARY KEY column as the rowid, columns added by ALTER TABLE that a
// row predates (their DEFAULT literal, with the column's affinity),
// STORED generated columns, REAL affinity (an integer stored in a REAL
// column reads as a float, as SQLite returns it), a hot rollback journal
// (rolled back in memory) and a write-ahead log (its committed frames
// applied in memory): see Logs. Not read, and errors naming the table or
// column: WITHOUT ROWID and virtual tables, the values of VIRTUAL
// generated columns (computed from SQL; Scan gives nil), a DEFAULT that
// is an expression rather than a literal, and a journal naming a
// super-journal. Views and indexes are never needed: a scan reads the
// table.
//
// Corrupt files are errors (*Error, naming the page and byte offset),
// never panics or endless loops: each B-tree page is read once per scan,
// and each overflow page belongs to one row (a page two rows' chains
// share is an error), so a scan reads no more than the file holds.
package sqlite

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
)

// Magic is the 16 bytes every SQLite 3 database file starts with.
const Magic = "SQLite format 3\x00"

// Error is a problem with the file's content at a page (1-based; 0 for
// the header) and byte offset in the file; Page 0 with Offset -1 is one
// with no place in the file (a table this reader does not read).
type Error struct {
	Page   uint32
	Offset int64
	Msg    string
}

func (e *Error) Error() string {
	if e.Page == 0 && e.Offset < 0 {
		return "sqlite: " + e.Msg
	}
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
	owners   map[uint32]owner // overflow page → the row whose chain holds it
	reads    uint64           // overflow chains read so far
}

// Table is a table of the database.
type Table struct {
	Name    string
	Columns []Column
	db      *DB
	root    uint32
	rowid   int // the column that is the rowid (INTEGER PRIMARY KEY), or -1
	real    []bool
	stored  []int  // the columns a record holds, in its order: all but VIRTUAL ones
	err     string // why the table cannot be read, or ""
}

// Column is a column's name, declared type, DEFAULT value and whether it
// is generated, as CREATE TABLE gives them.
type Column struct {
	Name, Type string
	// Default is the DEFAULT value as written ("" for none): a row
	// written before ALTER TABLE added the column reads it.
	Default string
	// Generated is "VIRTUAL" or "STORED" for a generated column, else "".
	// A VIRTUAL column is computed by SQLite when read and is not in the
	// file: Scan and Row give it as nil, and Table.Need refuses it.
	Generated string
}

// Open reads the header and schema of the database file r of size
// bytes, as SQLite reads it with the journal or write-ahead log in logs:
// a hot rollback journal (a writer stopped mid-transaction) is rolled
// back and a log's committed frames applied, both in memory, the files
// left as they are.
func Open(r io.ReaderAt, size int64, logs Logs) (*DB, error) {
	pageSize, err := readHeader(r)
	if err != nil {
		return nil, err
	}
	if r, size, err = rollback(r, size, pageSize, logs.Journal, logs.JournalSize); err != nil {
		return nil, err
	}
	if r, size, err = wal(r, size, pageSize, logs.WAL, logs.WALSize); err != nil {
		return nil, err
	}
	// Page 1 may have come from the journal or the log.
	if p, err := readHeader(r); err != nil {
		return nil, err
	} else if p != pageSize {
		return nil, &Error{Offset: 16, Msg: fmt.Sprintf("the page size is %d in the file and %d after its journal or log", pageSize, p)}
	}
	var h [100]byte
	if _, err := r.ReadAt(h[:], 0); err != nil {
		return nil, &Error{Offset: 0, Msg: "no 100-byte header: " + err.Error()}
	}
	db := &DB{r: r, pageSize: pageSize, interior: map[uint32][]byte{}, owners: map[uint32]owner{}}
	// A write version above 2 makes SQLite open the file read-only; a
	// read version above 2 is one it cannot read (lockBtree).
	if h[19] > 2 {
		return nil, &Error{Offset: 19, Msg: fmt.Sprintf("file format read version %d is not one SQLite 3 reads", h[19])}
	}
	db.usable = db.pageSize - int(h[20])
	if db.usable < 480 {
		return nil, &Error{Offset: 20, Msg: fmt.Sprintf("%d reserved bytes leave %d of a page usable, below 480", h[20], db.usable)}
	}
	filePages := size / int64(db.pageSize)
	if filePages == 0 {
		return nil, &Error{Offset: 0, Msg: "the file is shorter than a page"}
	}
	if filePages > math.MaxUint32 {
		filePages = math.MaxUint32
	}
	db.pages = uint32(filePages)
	// The header's page count, where valid (non-zero and written by the
	// same transaction as the change counter), is the database's size, as
	// SQLite's lockBtree takes it; one past the file's end is corrupt.
	if n := binary.BigEndian.Uint32(h[28:]); n != 0 && string(h[24:28]) == string(h[92:96]) {
		if int64(n) > filePages {
			return nil, &Error{Offset: 28, Msg: fmt.Sprintf("the header gives %d pages, the file holds %d", n, filePages)}
		}
		db.pages = n
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

// readHeader checks the magic string and returns the page size.
func readHeader(r io.ReaderAt) (int, error) {
	var h [18]byte
	if _, err := r.ReadAt(h[:], 0); err != nil {
		return 0, &Error{Offset: 0, Msg: "no 100-byte header: " + err.Error()}
	}
	if string(h[:16]) != Magic {
		return 0, &Error{Offset: 0, Msg: "not an SQLite 3 database"}
	}
	pageSize := int(binary.BigEndian.Uint16(h[16:]))
	if pageSize == 1 {
		pageSize = 65536
	}
	if pageSize < 512 || pageSize&(pageSize-1) != 0 {
		return 0, &Error{Offset: 16, Msg: fmt.Sprintf("page size %d is not a power of two from 512 to 65536", pageSize)}
	}
	return pageSize, nil
}

// readSchema reads the schema table (page 1): its rows are type, name,
// tbl_name, rootpage, sql.
func (db *DB) readSchema() error {
	schema := &Table{Name: "sqlite_schema", db: db, root: 1, rowid: -1, real: make([]bool, 5), stored: []int{0, 1, 2, 3, 4}}
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
			t.err = fmt.Sprintf("table %s is a virtual table (CREATE VIRTUAL TABLE), which this reader does not read", name)
			db.tables = append(db.tables, t)
			return nil
		}
		if err := t.parse(sql); err != nil {
			// A table we cannot parse is listed without columns; reading
			// it is an error.
			t.Columns = nil
			t.err = fmt.Sprintf("table %s: its CREATE TABLE statement is not one this reader understands (%v)", name, err)
		}
		db.tables = append(db.tables, t)
		return nil
	})
}

// parse takes the column names, declared types and the columns' place
// in the record from a CREATE TABLE statement
// (https://www.sqlite.org/lang_createtable.html). A table this reader
// cannot read keeps its columns and the reason (t.err), which Scan and
// Row return.
func (t *Table) parse(sql string) error {
	sql = stripComments(sql)
	open := indexOutsideQuotes(sql, '(')
	closeAt := lastIndexOutsideQuotes(sql, ')')
	if open < 0 || closeAt < open {
		return errors.New("no column list")
	}
	var pk string
	for _, def := range splitTopLevel(sql[open+1 : closeAt]) {
		words := fields(def)
		if len(words) == 0 {
			continue
		}
		switch strings.ToUpper(words[0]) {
		case "CONSTRAINT", "PRIMARY", "UNIQUE", "CHECK", "FOREIGN":
			if i := keyword(words, "PRIMARY", "KEY"); i >= 0 && i+2 < len(words) && words[i+2][0] == '(' {
				if cols := splitTopLevel(words[i+2][1 : len(words[i+2])-1]); len(cols) == 1 {
					if w := fields(cols[0]); len(w) >= 1 {
						pk = unquote(w[0])
					}
				}
			}
			continue
		}
		c := Column{Name: unquote(words[0])}
		rest := words[1:]
		for len(rest) > 0 && !constraintWord(rest[0]) {
			rest = rest[1:]
		}
		c.Type = strings.Join(words[1:len(words)-len(rest)], " ")
		cons, def := constraints(rest)
		c.Default = def
		if i := keyword(cons, "PRIMARY", "KEY"); i >= 0 && strings.EqualFold(c.Type, "INTEGER") &&
			(i+2 >= len(cons) || !strings.EqualFold(cons[i+2], "DESC")) {
			t.rowid = len(t.Columns)
		}
		if i := keyword(cons, "AS"); i >= 0 {
			c.Generated = "VIRTUAL"
			if i+2 < len(cons) && strings.EqualFold(cons[i+2], "STORED") {
				c.Generated = "STORED"
			}
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
		if c.Generated != "VIRTUAL" {
			t.stored = append(t.stored, i)
		}
	}
	for _, opt := range strings.Split(sql[closeAt+1:], ",") {
		if w := fields(opt); len(w) == 2 && strings.EqualFold(w[0], "WITHOUT") && strings.EqualFold(w[1], "ROWID") {
			t.err = fmt.Sprintf("table %s is a WITHOUT ROWID table, which this reader does not read", t.Name)
		}
	}
	return nil
}

// constraintWord reports whether w starts a column constraint, ending
// the declared type before it.
func constraintWord(w string) bool {
	switch strings.ToUpper(w) {
	case "CONSTRAINT", "PRIMARY", "NOT", "NULL", "UNIQUE", "CHECK", "DEFAULT", "COLLATE", "REFERENCES", "GENERATED", "AS":
		return true
	}
	return false
}

// constraints returns a column's constraint words, upper-cased, with
// the name after CONSTRAINT, COLLATE or REFERENCES and the value after
// DEFAULT blanked, so that a name or a string ("DEFAULT ' PRIMARY KEY'")
// is never taken for a keyword; def is the DEFAULT value as written (a
// sign joined to its number).
func constraints(words []string) (cons []string, def string) {
	cons = make([]string, 0, len(words))
	for i := 0; i < len(words); i++ {
		w := strings.ToUpper(words[i])
		cons = append(cons, w)
		if i+1 >= len(words) {
			break
		}
		switch w {
		case "CONSTRAINT", "COLLATE", "REFERENCES":
			cons = append(cons, "")
			i++
		case "DEFAULT":
			cons = append(cons, "")
			i++
			def = words[i]
			if (def == "-" || def == "+") && i+1 < len(words) {
				cons = append(cons, "")
				i++
				def += words[i]
			}
		}
	}
	return cons, def
}

// keyword is the index in words of the first run of the keywords kw (any
// case), or -1. Quoted words and parenthesised groups are never
// keywords.
func keyword(words []string, kw ...string) int {
	for i := 0; i+len(kw) <= len(words); i++ {
		match := true
		for j, k := range kw {
			if !strings.EqualFold(words[i+j], k) {
				match = false
				break
			}
		}
		if match {
			return i
		}
	}
	return -1
}

// Err is why the table cannot be read (a WITHOUT ROWID or virtual
// table, or a CREATE TABLE statement this reader does not parse), or
// nil.
func (t *Table) Err() error {
	if t.err == "" {
		return nil
	}
	return &Error{Offset: -1, Msg: t.err}
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
	if err := t.Err(); err != nil {
		return err
	}
	s := scan{t: t, seen: map[uint32]bool{}, rec: make([]any, len(t.Columns))}
	return s.page(t.root, fn)
}

// Row reads the row with rowid id into rec (one value per column, as
// Scan gives them); ok is false when there is none. Rows read in
// about rowid order cost a page read per leaf page, not per row.
func (t *Table) Row(id int64, rec []any) (ok bool, err error) {
	if err := t.Err(); err != nil {
		return false, err
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
		if spill := size - keep; spill > int64(db.pages)*int64(db.usable-4) {
			return 0, nil, over, &Error{Page: pg, Offset: db.offset(pg) + int64(c), Msg: fmt.Sprintf("cell %d declares a payload of %d bytes, more than the file's %d pages hold", i, size, db.pages)}
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
		db.reads++
		for next := over.next; int64(len(s.buf)) < over.size; {
			if next == 0 {
				return &Error{Page: pg, Offset: db.offset(pg), Msg: fmt.Sprintf("row %d's overflow chain ends after %d of its %d bytes", rowid, len(s.buf), over.size)}
			}
			if err := db.claim(next, s.t.root, rowid, db.reads, pg); err != nil {
				return err
			}
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
	stored := s.t.stored
	k := 0 // values read
	for ; len(types) > 0; k++ {
		st, n := varint(types)
		if n == 0 {
			return bad("a serial type runs past the record header")
		}
		types = types[n:]
		size := serialSize(st)
		if size < 0 || size > int64(len(body)) {
			return bad(fmt.Sprintf("value %d (serial type %d) runs past the record", k+1, st))
		}
		v := body[:size]
		body = body[size:]
		if k >= len(stored) || stored[k] >= len(s.rec) {
			continue // more values than columns: ignored, as SQLite does
		}
		col := stored[k]
		s.rec[col] = db.value(st, v)
		if s.t.real[col] {
			if i, ok := s.rec[col].(int64); ok {
				s.rec[col] = float64(i)
			}
		}
	}
	// Columns added by ALTER TABLE after the row was written read their
	// DEFAULT value.
	for ; k < len(stored) && stored[k] < len(s.rec); k++ {
		col := stored[k]
		v, err := s.t.defaultValue(col)
		if err != nil {
			return bad(err.Error())
		}
		s.rec[col] = v
	}
	if s.t.rowid >= 0 && s.t.rowid < len(s.rec) {
		s.rec[s.t.rowid] = rowid
	}
	return nil
}

// owner is the row whose overflow chain holds a page, and the read of
// that chain (DB.reads) that last reached it.
type owner struct {
	root  uint32
	rowid int64
	read  uint64
}

// claim records that overflow page next belongs to the row rowid of the
// table at root (whose cell is on page pg), reached by the read numbered
// read. A page of another row's chain, or one reached twice by one read
// (a loop), is an error: in a sound file every page has one place, and
// without the check a file whose rows all share one long chain, or each
// loop through their own, would be read (and its value kept) once per
// row or per turn, an allocation no bound of the file's size holds.
func (db *DB) claim(next, root uint32, rowid int64, read uint64, pg uint32) error {
	if prev, ok := db.owners[next]; ok {
		switch {
		case prev.root != root || prev.rowid != rowid:
			return &Error{Page: pg, Offset: db.offset(pg), Msg: fmt.Sprintf("row %d's overflow chain goes on to page %d, which holds row %d's (a page in two places)", rowid, next, prev.rowid)}
		case prev.read == read:
			return &Error{Page: pg, Offset: db.offset(pg), Msg: fmt.Sprintf("row %d's overflow chain comes back to page %d (a loop)", rowid, next)}
		}
	}
	db.owners[next] = owner{root, rowid, read}
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
	return utf16Text(db.utf16, b)
}

// utf16Text converts UTF-16 text to UTF-8 as SQLite does
// (sqlite3VdbeMemTranslate, built without SQLITE_REPLACE_INVALID_UTF):
// any unit from 0xD800 to 0xDFFF takes the next unit with it, paired or
// not, and an odd last byte is dropped.
func utf16Text(order binary.ByteOrder, b []byte) string {
	out := make([]byte, 0, len(b)*3/2)
	for i := 0; i+1 < len(b); i += 2 {
		c := uint32(order.Uint16(b[i:]))
		if c >= 0xd800 && c < 0xe000 && i+3 < len(b) {
			i += 2
			c2 := uint32(order.Uint16(b[i:]))
			c = c2&0x3ff + (c&0x3f)<<10 + ((c&0x3c0)+0x40)<<10
		}
		// WRITE_UTF8: a lone surrogate at the end is written as its
		// three bytes, as SQLite writes it.
		switch {
		case c < 0x80:
			out = append(out, byte(c))
		case c < 0x800:
			out = append(out, 0xc0|byte(c>>6), 0x80|byte(c&0x3f))
		case c < 0x10000:
			out = append(out, 0xe0|byte(c>>12), 0x80|byte(c>>6&0x3f), 0x80|byte(c&0x3f))
		default:
			out = append(out, 0xf0|byte(c>>18), 0x80|byte(c>>12&0x3f), 0x80|byte(c>>6&0x3f), 0x80|byte(c&0x3f))
		}
	}
	return string(out)
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

// lastIndexOutsideQuotes is the index of the last c in s not inside
// quotes, or -1.
func lastIndexOutsideQuotes(s string, c byte) int {
	var q quotes
	last := -1
	for i := 0; i < len(s); i++ {
		if !q.in(s[i]) && s[i] == c {
			last = i
		}
	}
	return last
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
