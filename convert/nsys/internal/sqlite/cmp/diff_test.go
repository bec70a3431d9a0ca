package cmp_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	. "github.com/gpureplay/gpureplay/convert/nsys/internal/sqlite"
)

// TestDifferential compares the reader with SQLite over generated
// databases: random schemas (declared types of every affinity, quoted
// names, comments, DEFAULT literals that read like constraints, INTEGER
// PRIMARY KEY in its aliasing and non-aliasing forms, VIRTUAL and STORED
// generated columns, CHECK, COLLATE, REFERENCES, columns added by ALTER
// TABLE), random rows (every value type, values long enough to spill onto
// overflow pages, deletes), page sizes from 512 to 65536 bytes, UTF-8 and
// UTF-16, and three states of the files: committed, copied with a hot
// rollback journal while a transaction had spilled into the file, and in
// WAL mode with commits still in the log. Every row of every table must
// read as SQLite reads it (VIRTUAL columns, which SQLite computes, read
// as nil), or the reader must refuse the table with one of its errors
// for what it does not read.
func TestDifferential(t *testing.T) {
	n := 45
	if testing.Short() {
		n = 12
	}
	for seed := range n {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(seed), 75))
			g := genDB(rng)
			dir := t.TempDir()
			path := filepath.Join(dir, "g.sqlite")
			state := []string{"committed", "hot journal", "wal"}[seed%3]
			t.Cleanup(func() {
				if t.Failed() {
					t.Logf("%s; %.3000s", state, strings.Join(g.setup, "; "))
				}
			})
			copyDir := t.TempDir()
			in := filepath.Join(copyDir, "g.sqlite")
			run(t, path, nil, g.setup...)
			switch state {
			case "committed":
				run(t, path, func() { copyOut(t, path, in) })
			case "hot journal":
				run(t, path, func() { copyOut(t, path, in, "-journal") },
					append([]string{`PRAGMA cache_size = 10`, `BEGIN`}, g.tx...)...)
			case "wal":
				run(t, path, nil, `PRAGMA journal_mode = WAL`)
				run(t, path, func() { copyOut(t, path, in, "-wal") },
					append([]string{`PRAGMA wal_autocheckpoint = 0`}, g.tx...)...)
			}
			for suffix, st := range map[string]string{"-journal": "hot journal", "-wal": "wal"} {
				if fi, err := os.Stat(in + suffix); state == st && (err != nil || fi.Size() == 0) {
					t.Fatalf("%s: no %s file copied: %v", state, suffix, err)
				}
			}
			// SQLite reads a second copy: rolling back a hot journal or
			// recovering a log writes to the files.
			oracle := filepath.Join(t.TempDir(), "g.sqlite")
			copyOut(t, in, oracle, "-journal", "-wal")
			db := openWithLogs(t, in)
			for _, table := range g.tables {
				compareTable(t, db, oracle, table)
			}
		})
	}
}

// gen is a generated database: the statements that build it, those of a
// transaction over it, and its tables.
type gen struct {
	setup, tx []string
	tables    []string
}

func genDB(rng *rand.Rand) gen {
	var g gen
	pick := func(s ...string) string { return s[rng.IntN(len(s))] }
	g.setup = append(g.setup, "PRAGMA page_size = "+pick("512", "1024", "4096", "65536"))
	if rng.IntN(4) == 0 {
		g.setup = append(g.setup, "PRAGMA encoding = '"+pick("UTF-16le", "UTF-16be")+"'")
	}
	g.setup = append(g.setup, "PRAGMA journal_mode = DELETE")
	for ti := range 1 + rng.IntN(2) {
		name := fmt.Sprintf("t%d", ti)
		g.tables = append(g.tables, name)
		var defs, base []string
		pk := -1
		ncols := 1 + rng.IntN(6)
		if rng.IntN(2) == 0 {
			pk = rng.IntN(ncols)
		}
		for c := range ncols {
			col := fmt.Sprintf("c%d", c)
			quoted := pick(col, `"`+col+`"`, "["+col+"]", "`"+col+"`")
			typ := pick("INTEGER", "INT", "BIGINT", "REAL", "DOUBLE", "FLOAT", "TEXT", "VARCHAR(20)", "CLOB", "BLOB", "", "NUMERIC", "DECIMAL(10,2)", "UNSIGNED BIG INT")
			var cons []string
			if c == pk {
				typ = pick("INTEGER", "integer", "INT", "INTEGER")
				cons = append(cons, pick("PRIMARY KEY", "PRIMARY KEY ASC", "PRIMARY KEY DESC", "CONSTRAINT pk PRIMARY KEY", "/* key */ PRIMARY KEY"))
			}
			if rng.IntN(3) == 0 {
				cons = append(cons, "DEFAULT "+pick("' PRIMARY KEY'", "'INTEGER PRIMARY KEY'", "-5", "+7", "0x1F", "1.5", "NULL", "TRUE", "x'00ff'", "'12'", "' 7 '", "(4)", "'x''y'", "-0.0", "1e3"))
			}
			if rng.IntN(4) == 0 {
				cons = append(cons, pick("COLLATE NOCASE", "CHECK ('PRIMARY KEY' <> '')", "REFERENCES other(x)", "CONSTRAINT \"primary key\" CHECK (1)", "NULL"))
			}
			def := quoted + " " + typ + " " + strings.Join(cons, " ")
			if c != pk && len(base) > 0 && rng.IntN(4) == 0 {
				def = quoted + " " + typ + " GENERATED ALWAYS AS (" + base[rng.IntN(len(base))] + " || 'g') " + pick("VIRTUAL", "STORED", "")
			} else {
				base = append(base, col)
			}
			if rng.IntN(3) == 0 {
				def += " -- a comment, (with) 'quotes'\n"
			}
			defs = append(defs, def)
		}
		g.setup = append(g.setup, "CREATE TABLE "+name+" ("+strings.Join(defs, ", ")+")")
		g.setup = append(g.setup, inserts(rng, name, base, pk, 0, rng.IntN(200))...)
		if rng.IntN(2) == 0 {
			col := fmt.Sprintf("late%d", ti)
			g.setup = append(g.setup, "ALTER TABLE "+name+" ADD COLUMN "+col+" "+
				pick("INTEGER", "TEXT", "REAL", "", "NUMERIC")+" DEFAULT "+pick("' PRIMARY KEY'", "-5", "0x1F", "1.5", "NULL", "x'00ff'", "'12'", "' 7 '", "(4)", "'x''y'", "TRUE"))
			base = append(base, col)
			g.setup = append(g.setup, inserts(rng, name, base, pk, 1000, rng.IntN(50))...)
		}
		if rng.IntN(2) == 0 {
			g.setup = append(g.setup, fmt.Sprintf("DELETE FROM %s WHERE rowid %% %d = 0", name, 2+rng.IntN(5)))
		}
		// The transaction a state leaves pending or in the log: changes,
		// and enough new rows to spill pages out of a 10-page cache.
		if c := base[rng.IntN(len(base))]; c != fmt.Sprintf("c%d", pk) {
			g.tx = append(g.tx, fmt.Sprintf("UPDATE %s SET %s = NULL", name, c))
		}
		g.tx = append(g.tx, inserts(rng, name, base, pk, 5000, 100+rng.IntN(200))...)
	}
	return g
}

// inserts makes n rows of random values for cols, in one statement; the
// pk column gets first+i.
func inserts(rng *rand.Rand, table string, cols []string, pk, first, n int) []string {
	if n == 0 {
		return nil
	}
	var rows []string
	for i := range n {
		vals := make([]string, len(cols))
		for c := range cols {
			if fmt.Sprintf("c%d", pk) == cols[c] {
				vals[c] = fmt.Sprint(first + i + 1)
				continue
			}
			switch rng.IntN(9) {
			case 0:
				vals[c] = "NULL"
			case 1:
				vals[c] = fmt.Sprint(rng.Int64() >> rng.IntN(64))
			case 2:
				vals[c] = fmt.Sprint(-rng.IntN(1000))
			case 3:
				vals[c] = fmt.Sprintf("%g", rng.NormFloat64()*1e6)
			case 4:
				vals[c] = fmt.Sprintf("'%d'", rng.IntN(100))
			case 5:
				vals[c] = fmt.Sprintf("printf('%%.%dc', 'é')", rng.IntN(6000))
			case 6:
				b := make([]byte, rng.IntN(3000))
				for k := range b {
					b[k] = byte(rng.Uint32())
				}
				vals[c] = fmt.Sprintf("x'%x'", b)
			case 7:
				vals[c] = "'PRIMARY KEY'"
			default:
				vals[c] = fmt.Sprintf("%d.5", rng.IntN(100))
			}
		}
		rows = append(rows, "("+strings.Join(vals, ", ")+")")
	}
	return []string{"INSERT INTO " + table + " (" + strings.Join(cols, ", ") + ") VALUES " + strings.Join(rows, ", ")}
}

// run executes statements with SQLite on one connection to path, calls
// then (if not nil) with the connection still open, and closes it.
func run(t *testing.T, path string, then func(), stmts ...string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	c, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, s := range stmts {
		if _, err := c.ExecContext(context.Background(), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	if then != nil {
		then()
	}
}

// copyOut copies the database at from, and the files beside it named
// from+suffix that exist, to to.
func copyOut(t *testing.T, from, to string, suffixes ...string) {
	t.Helper()
	for _, s := range append([]string{""}, suffixes...) {
		b, err := os.ReadFile(from + s)
		if os.IsNotExist(err) && s != "" {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to+s, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// openWithLogs opens the database at path with the reader, with its
// journal and log where they exist.
func openWithLogs(t *testing.T, path string) *DB {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var logs Logs
	if j, err := os.ReadFile(path + "-journal"); err == nil {
		logs.Journal, logs.JournalSize = bytes.NewReader(j), int64(len(j))
	}
	if w, err := os.ReadFile(path + "-wal"); err == nil {
		logs.WAL, logs.WALSize = bytes.NewReader(w), int64(len(w))
	}
	db, err := Open(bytes.NewReader(b), int64(len(b)), logs)
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// refusals are the reader's errors for what it does not read.
var refusals = []string{"is not a literal this reader evaluates", "is not one this reader converts"}

// compareTable compares every row of table as the reader reads it from
// db with SQLite's reading of the database at oracle.
func compareTable(t *testing.T, db *DB, oracle, table string) {
	t.Helper()
	want := sqliteRows(t, oracle, table)
	tb := db.Table(table)
	if tb == nil {
		t.Fatalf("no table %s", table)
	}
	var got [][]any
	err := tb.Scan(func(id int64, rec []any) error {
		row := []any{id}
		for _, v := range rec {
			if b, ok := v.([]byte); ok {
				v = append([]byte{}, b...)
			}
			row = append(row, v)
		}
		got = append(got, row)
		return nil
	})
	if err != nil {
		for _, r := range refusals {
			if strings.Contains(err.Error(), r) {
				t.Logf("%s refused: %v", table, err)
				return
			}
		}
		t.Fatalf("%s: %v", table, err)
	}
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows, SQLite reads %d", table, len(got), len(want))
	}
	for i := range want {
		for c, col := range tb.Columns {
			if col.Generated == "VIRTUAL" {
				if got[i][c+1] != nil {
					t.Fatalf("%s row %d: VIRTUAL column %s reads %v", table, i, col.Name, got[i][c+1])
				}
				want[i][c+1] = nil
			}
		}
		for c := range want[i] {
			gb, gok := got[i][c].([]byte)
			wb, wok := want[i][c].([]byte)
			if gok && wok && bytes.Equal(gb, wb) {
				continue // an empty blob may come back nil from SQLite
			}
			if !reflect.DeepEqual(got[i][c], want[i][c]) {
				if a, ok := got[i][c].(string); ok {
					if b, ok := want[i][c].(string); ok {
						ra, rb := []rune(a), []rune(b)
						t.Logf("bytes %d, %d; runes %d, %d; tails %q %q", len(a), len(b), len(ra), len(rb), a[max(0, len(a)-12):], b[max(0, len(b)-12):])
						for k := range min(len(ra), len(rb)) {
							if ra[k] != rb[k] {
								t.Logf("rune %d: %U, SQLite %U (lengths %d, %d)", k, ra[k], rb[k], len(ra), len(rb))
								break
							}
						}
					}
				}
				t.Fatalf("%s row %d (rowid %v) column %d: %s, SQLite reads %s (columns %s)", table, i, want[i][0], c, short(got[i][c]), short(want[i][c]), colString(tb.Columns))
			}
		}
	}
}

// short prints a value with its type, long ones cut.
func short(v any) string {
	s := fmt.Sprintf("%T %v", v, v)
	if len(s) > 80 {
		s = s[:80] + "..."
	}
	return s
}
