package cmp_test

import (
	"bytes"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	. "github.com/gpureplay/gpureplay/convert/nsys/internal/sqlite"

	_ "modernc.org/sqlite" // SQLite itself writes the test databases and reads them back
)

// Package cmp_test compares the reader with SQLite itself. It is a
// package of its own so that the reader's fuzz target is not linked with
// SQLite, whose size would slow every fuzzed run.

// build writes a database with SQLite from statements, and returns its
// path and bytes.
func build(t testing.TB, stmts ...string) (string, []byte) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "t.sqlite")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, b
}

// sqliteRows reads table with SQLite: each row's rowid, then its columns.
func sqliteRows(t *testing.T, path, table string) [][]any {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT rowid, * FROM "` + strings.ReplaceAll(table, `"`, `""`) + `" ORDER BY rowid`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out [][]any
	for rows.Next() {
		v := make([]any, len(cols))
		p := make([]any, len(cols))
		for i := range v {
			p[i] = &v[i]
		}
		if err := rows.Scan(p...); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

// ourRows reads table with this package, by Scan and by Row.
func ourRows(t *testing.T, b []byte, table string) [][]any {
	t.Helper()
	db, err := Open(bytes.NewReader(b), int64(len(b)), Logs{})
	if err != nil {
		t.Fatal(err)
	}
	tb := db.Table(table)
	if tb == nil {
		t.Fatalf("no table %s", table)
	}
	var out [][]any
	err = tb.Scan(func(id int64, rec []any) error {
		row := []any{id}
		for _, v := range rec {
			if bs, ok := v.([]byte); ok {
				v = append([]byte{}, bs...)
			}
			row = append(row, v)
		}
		out = append(out, row)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	rec := make([]any, len(tb.Columns))
	for _, want := range out {
		ok, err := tb.Row(want[0].(int64), rec)
		if err != nil || !ok {
			t.Fatalf("Row(%d): %v, %v", want[0], ok, err)
		}
		if !reflect.DeepEqual(rec, want[1:]) {
			t.Fatalf("Row(%d) = %v, Scan gave %v", want[0], rec, want[1:])
		}
	}
	if ok, err := tb.Row(-5, rec); ok || err != nil {
		t.Errorf("Row(-5): %v, %v; want no row", ok, err)
	}
	return out
}

// TestAgainstSQLite reads databases SQLite wrote — several page sizes,
// B-trees of several levels, rows spilling onto overflow pages, every
// serial type, an INTEGER PRIMARY KEY, a column added after rows were
// written, a REAL column holding integers, deleted rows, UTF-16 text —
// and compares every row with what SQLite reads.
func TestAgainstSQLite(t *testing.T) {
	rows := func(n int) string {
		var b strings.Builder
		b.WriteString("WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i < " + fmt.Sprint(n) + ") ")
		b.WriteString(`INSERT INTO t (k, a, b, c, d, e) SELECT i * 7, i, i * 1000003, i - 0.5, printf('text %d %s', i, substr(hex(randomblob(8)), 1, 0)), CASE WHEN i % 50 = 0 THEN zeroblob(i * 40) WHEN i % 3 = 0 THEN NULL ELSE x'00ff' END FROM c`)
		return b.String()
	}
	create := `CREATE TABLE t (k INTEGER NOT NULL PRIMARY KEY, a INTEGER, b BIGINT, c REAL, d TEXT, e BLOB)`
	extra := []string{
		`INSERT INTO t (k, a, b, c, d, e) VALUES (-9, 0, 1, 2.0, '', x'')`,
		`INSERT INTO t (k, a, b, c, d) VALUES (9000000, -1, -128, 1e300, replace(printf('%.5000c', 'x'), 'x', 'é'))`,
		`INSERT INTO t (k, a, b) VALUES (9000001, 127, 128), (9000002, 32767, 32768), (9000003, 8388607, 8388608),
			(9000004, 2147483647, 2147483648), (9000005, 140737488355327, 140737488355328), (9000006, 9223372036854775807, -9223372036854775808)`,
		`DELETE FROM t WHERE a % 17 = 0`,
		`ALTER TABLE t ADD COLUMN late INTEGER`,
		`INSERT INTO t (k, a, late) VALUES (9000010, 1, 42)`,
		`CREATE TABLE "Quoted ""Name""" (id INTEGER, [weird col] TEXT, x, PRIMARY KEY (id))`,
		`INSERT INTO "Quoted ""Name""" VALUES (5, 'five', 5.5), (6, NULL, 'six')`,
		`CREATE VIEW v AS SELECT * FROM t`,
		`CREATE INDEX ta ON t (a)`,
	}
	for _, tc := range []struct {
		name   string
		pragma []string
		n      int
	}{
		{"4 KiB pages", nil, 3000},
		{"512-byte pages", []string{"PRAGMA page_size = 512"}, 2000},
		{"64 KiB pages", []string{"PRAGMA page_size = 65536"}, 5000},
		{"UTF-16le", []string{"PRAGMA encoding = 'UTF-16le'"}, 500},
		{"UTF-16be", []string{"PRAGMA encoding = 'UTF-16be'"}, 500},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stmts := append(append([]string{}, tc.pragma...), create, rows(tc.n))
			path, b := build(t, append(stmts, extra...)...)
			for _, table := range []string{"t", `Quoted "Name"`} {
				want := sqliteRows(t, path, table)
				got := ourRows(t, b, table)
				if len(got) != len(want) {
					t.Fatalf("%s: %d rows, SQLite reads %d", table, len(got), len(want))
				}
				for i := range want {
					if !reflect.DeepEqual(got[i], want[i]) {
						t.Fatalf("%s row %d: %v, SQLite reads %v", table, i, got[i], want[i])
					}
				}
			}
			db, err := Open(bytes.NewReader(b), int64(len(b)), Logs{})
			if err != nil {
				t.Fatal(err)
			}
			q := db.Table(`quoted "name"`)
			if got := colString(q.Columns); got != "[{id INTEGER} {weird col TEXT} {x }]" {
				t.Errorf("columns %s", got)
			}
			if db.Table("v") != nil || db.Table("ta") != nil {
				t.Errorf("a view or index listed as a table")
			}
		})
	}
}

// TestComments reads a table declared as Nsight Systems declares its
// tables, a comment after each column whose commas, parentheses and
// apostrophe are no part of the column list, and a block comment.
// Without the comments stripped, every column after the first was called
// "--" and the table's one row had five of them.
func TestComments(t *testing.T) {
	checkTable(t, "k", "[{start INTEGER} {end INTEGER} {name INTEGER} {note TEXT DEFAULT '-- not a comment'}]", `CREATE TABLE k (
    start INTEGER NOT NULL,          -- Event start timestamp (ns).
    "end" INTEGER NOT NULL,          -- Event end timestamp (ns), the kernel's.
    /* a block, (comment) */ name INTEGER NOT NULL, -- REFERENCES StringIds(id)
    note TEXT DEFAULT '-- not a comment' -- the last column's comment
)`, `INSERT INTO k (start, "end", name) VALUES (1, 2, 3)`)
}

// TestQuotedNames reads column names in every quoting SQLite accepts,
// with doubled quotes standing for one inside the name, as SQLite does.
func TestQuotedNames(t *testing.T) {
	checkTable(t, "q", "[{b\"--x INTEGER} {c d TEXT} {e'f INTEGER} {g`h REAL}]",
		"CREATE TABLE q (\"b\"\"--x\" INTEGER, [c d] TEXT, 'e''f' INTEGER, `g``h` REAL)",
		`INSERT INTO q VALUES (1, 'two', 3, 4.5)`)
}

// colString prints columns as [{name type} ...], with " DEFAULT v" and
// the generated kind where a column has them.
func colString(cols []Column) string {
	var parts []string
	for _, c := range cols {
		p := c.Name + " " + c.Type
		if c.Default != "" {
			p += " DEFAULT " + c.Default
		}
		if c.Generated != "" {
			p += " " + c.Generated
		}
		parts = append(parts, "{"+p+"}")
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// checkTable builds a database with SQLite from stmts and checks that
// table's columns print as cols and that its rows read as SQLite reads
// them.
func checkTable(t *testing.T, table, cols string, stmts ...string) {
	t.Helper()
	path, b := build(t, stmts...)
	db, err := Open(bytes.NewReader(b), int64(len(b)), Logs{})
	if err != nil {
		t.Fatal(err)
	}
	if got := colString(db.Table(table).Columns); got != cols {
		t.Errorf("columns %s, want %s", got, cols)
	}
	if got, want := ourRows(t, b, table), sqliteRows(t, path, table); !reflect.DeepEqual(got, want) {
		t.Errorf("rows %v, SQLite reads %v", got, want)
	}
}

// TestCorrupt: damaged files are *Error, naming the page, and a
// database whose write-ahead log holds writes is refused.
func TestCorrupt(t *testing.T) {
	_, b := build(t, `CREATE TABLE t (a INTEGER, b TEXT)`,
		`WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i < 2000) INSERT INTO t SELECT i, printf('%0300d', i) FROM c`)
	scanAll := func(b []byte) error {
		db, err := Open(bytes.NewReader(b), int64(len(b)), Logs{})
		if err != nil {
			return err
		}
		for _, tb := range db.Tables() {
			if err := tb.Scan(func(int64, []any) error { return nil }); err != nil {
				return err
			}
		}
		return nil
	}
	if err := scanAll(b); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		edit func(b []byte)
		want string
	}{
		{"magic", func(b []byte) { b[0] = 'X' }, "not an SQLite 3 database"},
		{"page size", func(b []byte) { b[16], b[17] = 0, 100 }, "page size 100"},
		{"page type", func(b []byte) { b[4096] = 0x07 }, "page 2 (byte 4096): page type 0x7"},
		{"cell count", func(b []byte) { b[4096+3], b[4096+4] = 0xff, 0xff }, "page 2 (byte 4099): 65535 cells do not fit"},
		{"child cycle", func(b []byte) { copy(b[4096+8:], []byte{0, 0, 0, 2}) }, "page 2"},
		{"truncated", nil, "the header gives 156 pages, the file holds 78"},
		{"read version", func(b []byte) { b[19] = 3 }, "header (byte 19): file format read version 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := append([]byte{}, b...)
			if tc.edit != nil {
				tc.edit(c)
			} else {
				c = c[:len(c)/2]
			}
			err := scanAll(c)
			var e *Error
			if !errors.As(err, &e) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want an *Error containing %q", err, tc.want)
			}
		})
	}
}

// TestWriteVersion: a write version above 2 is readable (SQLite opens
// such a file read-only).
func TestWriteVersion(t *testing.T) {
	_, b := build(t, `CREATE TABLE t (a INTEGER)`, `INSERT INTO t VALUES (7)`)
	b[18] = 3
	got := ourRows(t, b, "t")
	if !reflect.DeepEqual(got, [][]any{{int64(1), int64(7)}}) {
		t.Errorf("rows %v", got)
	}
}

// TestWriteSeed writes the fuzz target's seed corpus (database,
// journal, log) when SQLITE_WRITE_SEED is set: a small database of
// 512-byte pages with an overflowing row; one in UTF-16 with generated
// columns, DEFAULTs, a column added later and a WITHOUT ROWID table; a hot
// journal; a write-ahead log; and rows sharing an overflow chain.
func TestWriteSeed(t *testing.T) {
	if os.Getenv("SQLITE_WRITE_SEED") == "" {
		t.Skip("set SQLITE_WRITE_SEED=1 to rewrite ../testdata/fuzz/FuzzScan")
	}
	dir := filepath.Join("..", "testdata", "fuzz", "FuzzScan")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name string, b, journal, wal []byte) {
		entry := "go test fuzz v1\n"
		for _, v := range [][]byte{b, journal, wal} {
			entry += "[]byte(" + strconv.Quote(string(v)) + ")\n"
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(entry), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rows := `WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i < 40) INSERT INTO t SELECT i, i*i, printf('%0*d', i, i), i/3.0, CASE WHEN i = 20 THEN zeroblob(1200) ELSE x'01' END FROM c`
	create := `CREATE TABLE t (
    k INTEGER PRIMARY KEY, -- commented as Nsight Systems comments its columns (stripComments)
    a INTEGER, /* a block, (comment) */ b TEXT, c REAL, d BLOB)`
	_, b := build(t, `PRAGMA page_size = 512`, create, rows)
	write("seed", b, nil, nil)

	_, b = build(t, `PRAGMA page_size = 512`, `PRAGMA encoding = 'UTF-16le'`, `CREATE TABLE g (
    start INTEGER DEFAULT ' PRIMARY KEY' NOT NULL,
    v INTEGER GENERATED ALWAYS AS (start * 2) VIRTUAL,
    s TEXT AS (start || 'x') STORED,
    smem INTEGER CHECK (smem <> 'INTEGER PRIMARY KEY'))`,
		`WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i < 30) INSERT INTO g (start, smem) SELECT i * 1000, 8192 FROM c`,
		`ALTER TABLE g ADD COLUMN late REAL DEFAULT -5`,
		`CREATE TABLE w (a INTEGER PRIMARY KEY, b TEXT) WITHOUT ROWID`, `INSERT INTO w VALUES (1, 'one')`)
	write("schema", b, nil, nil)

	path, _ := build(t, `PRAGMA page_size = 512`, create, rows)
	in := filepath.Join(t.TempDir(), "j.sqlite")
	run(t, path, func() { copyOut(t, path, in, "-journal") }, `PRAGMA cache_size = 10`, `BEGIN`,
		`UPDATE t SET a = -a, b = b || b`, `DELETE FROM t WHERE k % 3 = 0`)
	b, journal := readFile(t, in), readFile(t, in+"-journal")
	if len(journal) == 0 {
		t.Fatal("no journal")
	}
	write("journal", b, journal, nil)

	path, _ = build(t, `PRAGMA page_size = 512`, create, rows, `PRAGMA journal_mode = WAL`)
	in = filepath.Join(t.TempDir(), "w.sqlite")
	run(t, path, func() { copyOut(t, path, in, "-wal") }, `PRAGMA wal_autocheckpoint = 0`,
		`UPDATE t SET a = -a WHERE k < 20`, `INSERT INTO t (k, b) VALUES (100, 'late')`)
	write("wal", readFile(t, in), nil, readFile(t, in+"-wal"))

	write("shared", shareChains(t, 20), nil, nil)
}

// readFile reads path.
func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSharedOverflow reads a table whose rows' overflow chains all start
// at the first row's overflow page, as a hostile file can have them
// (issue 75: 18,000 StringIds rows sharing one chain ran out of memory,
// the chain read and its value kept once per row). SQLite reads each row
// (PRAGMA integrity_check reports "2nd reference to page"); the reader
// refuses the file at the second row, by Scan and by Row, having read no
// more than the file holds.
func TestSharedOverflow(t *testing.T) {
	b := shareChains(t, 300)
	loop := shareChains(t, 0)
	cr := &countingReader{r: bytes.NewReader(b)}
	db, err := Open(cr, int64(len(b)), Logs{})
	if err != nil {
		t.Fatal(err)
	}
	tb := db.Table("s")
	rows := 0
	err = tb.Scan(func(int64, []any) error { rows++; return nil })
	const want = "row 2's overflow chain goes on to page"
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "which holds row 1's (a page in two places)") {
		t.Fatalf("Scan read %d rows: %v; want an error containing %q", rows, err, want)
	}
	if cr.n > int64(len(b)) {
		t.Errorf("read %d bytes of a %d-byte file", cr.n, len(b))
	}
	if _, err := tb.Row(3, make([]any, 2)); err == nil || !strings.Contains(err.Error(), "row 3's overflow chain goes on to page") {
		t.Errorf("Row(3): %v", err)
	}

	// Row 1 declares three overflow pages' worth (1563 bytes, text of
	// 1559) and its one page names itself as the next: a loop, which
	// would otherwise be read round until the declared size is reached.
	for pg := 2; pg*512 <= len(loop); pg++ {
		p := loop[(pg-1)*512 : pg*512]
		if p[0] != 0x0d {
			continue
		}
		c := int(p[8])<<8 | int(p[9])
		if p[c+2] != 1 { // rowid 1
			continue
		}
		copy(p[c:], []byte{0x8c, 0x1b})     // payload 1563
		copy(p[c+3+2:], []byte{0x98, 0x3b}) // serial type of 1559 bytes of text
		o := p[c+3+39:]
		next := int(o[0])<<24 | int(o[1])<<16 | int(o[2])<<8 | int(o[3])
		copy(loop[(next-1)*512:], o[:4])
		break
	}
	db, err = Open(bytes.NewReader(loop), int64(len(loop)), Logs{})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Table("s").Scan(func(int64, []any) error { return nil }); err == nil || !strings.Contains(err.Error(), "row 1's overflow chain comes back to page") {
		t.Errorf("a chain that loops: %v", err)
	}
}

// shareChains builds a table s of n rows (id, text) in 512-byte pages,
// each row's text filling one overflow page, then points every row's
// overflow pointer at the first row's page (n = 0: the file as built,
// 300 rows, unchanged).
func shareChains(t *testing.T, n int) []byte {
	t.Helper()
	rows := n
	if n == 0 {
		rows = 300
	}
	// 512-byte pages: a 547-byte payload keeps 39 bytes on the leaf and
	// fills one overflow page (the file format's M and U-4).
	_, b := build(t, `PRAGMA page_size = 512`, `CREATE TABLE s (id INTEGER PRIMARY KEY, value TEXT)`,
		fmt.Sprintf(`WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i < %d) INSERT INTO s SELECT i, printf('%%0543d', i) FROM c`, rows))
	if n == 0 {
		return b
	}
	first := uint32(0)
	cells := 0
	// Point every leaf cell's overflow pointer at the first one's page.
	for pg := 2; pg*512 <= len(b); pg++ {
		p := b[(pg-1)*512 : pg*512]
		if p[0] != 0x0d {
			continue
		}
		k := int(p[3])<<8 | int(p[4])
		for i := 0; i < k; i++ {
			c := int(p[8+2*i])<<8 | int(p[9+2*i])
			// payload size (2-byte varint 547), rowid (1 or 2 bytes), 39
			// bytes, the pointer.
			at := c + 2 + 1
			if p[c+2]&0x80 != 0 {
				at++
			}
			at += 39
			if first == 0 {
				first = uint32(p[at])<<24 | uint32(p[at+1])<<16 | uint32(p[at+2])<<8 | uint32(p[at+3])
			}
			p[at], p[at+1], p[at+2], p[at+3] = byte(first>>24), byte(first>>16), byte(first>>8), byte(first)
			cells++
		}
	}
	if cells != n {
		t.Fatalf("patched %d cells, want %d", cells, n)
	}
	return b
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r *bytes.Reader
	n int64
}

func (c *countingReader) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.n += int64(n)
	return n, err
}
