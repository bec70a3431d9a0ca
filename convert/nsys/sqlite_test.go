package nsys

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gpureplay/gpureplay/trace"
)

// convertPath converts the export at path and returns its records'
// outline, or the error.
func convertPath(t *testing.T, path string) ([]string, error) {
	t.Helper()
	var buf bytes.Buffer
	jw := trace.NewJSONLWriter(&buf)
	if _, err := Convert(path, jw, DefaultOptions()); err != nil {
		return nil, err
	}
	if err := jw.Close(); err != nil {
		t.Fatal(err)
	}
	return outline(validated(t, buf.String())), nil
}

// exec runs statements on the database at path with SQLite, on one
// connection, and calls then (if not nil) before closing it.
func exec(t *testing.T, path string, then func(), stmts ...string) {
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

// redeclareKernels rebuilds the fixture's kernel table at path with each
// column declared by decl (given the column's fixture declaration) and
// the table options after the column list; a column decl makes
// generated keeps no values.
func redeclareKernels(t *testing.T, path string, decl func(col string) string, options string) {
	t.Helper()
	var defs, names []string
	for _, c := range baseFixture()[tabKernel].cols {
		d, name := decl(c), strings.Fields(c)[0]
		defs = append(defs, d)
		if !strings.HasPrefix(d, name+" ") || !strings.Contains(d, " AS (") {
			names = append(names, name) // not made a generated column
		}
	}
	cols := strings.Join(names, ", ")
	exec(t, path, nil, `ALTER TABLE `+tabKernel+` RENAME TO k_old`,
		`CREATE TABLE `+tabKernel+` (`+strings.Join(defs, ", ")+`)`+options,
		`INSERT INTO `+tabKernel+` (`+cols+`) SELECT `+cols+` FROM k_old`,
		`DROP TABLE k_old`)
}

// TestSchemaForms converts the base fixture with its kernel table
// declared in forms the reader once misread (issue 75): each converts as
// the plain fixture does, or is refused naming what is not supported.
func TestSchemaForms(t *testing.T) {
	want, err := convertPath(t, baseFixture().write(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		decl    func(string) string
		options string
		err     string
	}{
		// A VIRTUAL generated column is not in the record: without that,
		// every later column read its left neighbour's value (smem 3072,
		// the dynamic shared memory, instead of 1024 + 3072).
		{name: "virtual column", decl: func(c string) string {
			if strings.HasPrefix(c, "staticSharedMemory") {
				return "smemTwice INTEGER GENERATED ALWAYS AS (staticSharedMemory * 2) VIRTUAL, " + c
			}
			return c
		}},
		// A STORED one is.
		{name: "stored column", decl: func(c string) string {
			if strings.HasPrefix(c, "staticSharedMemory") {
				return "smemTwice INTEGER AS (staticSharedMemory * 2) STORED, " + c
			}
			return c
		}},
		// A DEFAULT string is not a constraint: start stays a column of
		// its own, not the rowid.
		{name: "default says primary key", decl: func(c string) string {
			if strings.HasPrefix(c, "start ") {
				return "start INTEGER DEFAULT ' PRIMARY KEY' NOT NULL CHECK (start <> 'INTEGER PRIMARY KEY')"
			}
			return c
		}},
		{name: "column the importer reads is virtual", decl: func(c string) string {
			if strings.HasPrefix(c, "staticSharedMemory") {
				return "staticSharedMemory INTEGER AS (1024), smemStored INTEGER"
			}
			return c
		}, err: "report.sqlite: CUPTI_ACTIVITY_KIND_KERNEL: column staticSharedMemory is a VIRTUAL generated column, computed by SQLite when read; this reader does not compute it"},
		// Once reported as "no column start".
		{name: "without rowid", decl: func(c string) string {
			if strings.HasPrefix(c, "start ") {
				return c + " PRIMARY KEY"
			}
			return c
		}, options: " WITHOUT ROWID", err: "report.sqlite: CUPTI_ACTIVITY_KIND_KERNEL: reading the table: sqlite: table CUPTI_ACTIVITY_KIND_KERNEL is a WITHOUT ROWID table, which this reader does not read"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := baseFixture().write(t)
			redeclareKernels(t, path, tc.decl, tc.options)
			got, err := convertPath(t, path)
			if tc.err != "" {
				var e *Error
				if !errors.As(err, &e) || !strings.HasSuffix(err.Error(), tc.err) {
					t.Fatalf("err = %v, want an *Error ending %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// copyFiles copies path and the files beside it named path+suffix (where
// they exist) into dir, as they are now.
func copyFiles(t *testing.T, path, dir string, suffixes ...string) string {
	t.Helper()
	to := filepath.Join(dir, filepath.Base(path))
	for _, s := range append([]string{""}, suffixes...) {
		b, err := os.ReadFile(path + s)
		if errors.Is(err, os.ErrNotExist) && s != "" {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to+s, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return to
}

// TestHotJournal converts a copy of an export taken while a writer was in
// the middle of a transaction whose changes had already spilled into the
// file (as when the writer is killed): SQLite rolls the hot journal back,
// and so does the reader. The copy without its journal shows the
// uncommitted rows, so the test sees the difference.
func TestHotJournal(t *testing.T) {
	want, err := convertPath(t, baseFixture().write(t))
	if err != nil {
		t.Fatal(err)
	}
	path := baseFixture().write(t)
	dir := t.TempDir()
	var hot string
	exec(t, path, func() { hot = copyFiles(t, path, dir, "-journal") },
		`PRAGMA journal_mode = DELETE`, `PRAGMA cache_size = 10`, `BEGIN`,
		`UPDATE `+tabKernel+` SET gridX = gridX * 10`,
		`CREATE TABLE filler (b BLOB)`,
		`WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i < 400) INSERT INTO filler SELECT zeroblob(3000) FROM c`)
	if st, err := os.Stat(hot + "-journal"); err != nil || st.Size() == 0 {
		t.Fatalf("no journal copied: %v", err)
	}
	got, err := convertPath(t, hot)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("with the hot journal: got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if err := os.Remove(hot + "-journal"); err != nil {
		t.Fatal(err)
	}
	if got, _ := convertPath(t, hot); reflect.DeepEqual(got, want) {
		t.Errorf("the copy without its journal converts as the committed export: the writer's changes never reached the file, and this test checks nothing")
	}
}

// TestWALThroughLink converts an export in WAL mode whose last commit is
// still in its write-ahead log, through a symbolic link in another
// directory: SQLite finds the log beside the file the link resolves to,
// and so does the reader (it once looked beside the link, found nothing
// and converted the stale pages).
func TestWALThroughLink(t *testing.T) {
	f := baseFixture()
	for _, r := range f[tabKernel].rows {
		r["gridX"] = r["gridX"].(int64) * 3
	}
	want, err := convertPath(t, f.write(t))
	if err != nil {
		t.Fatal(err)
	}
	path := baseFixture().write(t)
	exec(t, path, nil, `PRAGMA journal_mode = WAL`)
	dir := t.TempDir()
	var in string
	exec(t, path, func() { in = copyFiles(t, path, dir, "-wal") },
		`PRAGMA wal_autocheckpoint = 0`, `UPDATE `+tabKernel+` SET gridX = gridX * 3`)
	if st, err := os.Stat(in + "-wal"); err != nil || st.Size() == 0 {
		t.Fatalf("no log copied: %v", err)
	}
	link := filepath.Join(t.TempDir(), "link.sqlite")
	if err := os.Symlink(in, link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	got, err := convertPath(t, link)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
