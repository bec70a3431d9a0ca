package sqlite

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzScan reads arbitrary files, with an arbitrary rollback journal and
// write-ahead log beside them: never a panic or a hang, every failure an
// *Error, and no scan reading more of the three inputs than a few times
// what they hold (each page of a scan is read once; a page of a chain
// that loops, or that two rows share, is an error). Its seed corpus is
// testdata/fuzz/FuzzScan: small databases SQLite wrote
// (cmp.TestWriteSeed) with generated columns, DEFAULTs, a WITHOUT ROWID
// table, a hot journal, a log, and rows sharing an overflow chain.
//
//	go test ./convert/nsys/internal/sqlite -fuzz FuzzScan
func FuzzScan(f *testing.F) {
	f.Add([]byte(Magic), []byte(nil), []byte(nil))
	f.Fuzz(func(t *testing.T, b, journal, wal []byte) {
		var read int64
		in := func(b []byte) *counting { return &counting{r: bytes.NewReader(b), n: &read} }
		logs := Logs{Journal: in(journal), JournalSize: int64(len(journal)), WAL: in(wal), WALSize: int64(len(wal))}
		db, err := Open(in(b), int64(len(b)), logs)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("%v is a %T", err, err)
			}
			return
		}
		// A scan reads each page once and each row's chain once; Row
		// reads three rows again.
		limit := 5*int64(len(b)+len(journal)+len(wal)) + 1<<16
		for _, tb := range db.Tables() {
			read = 0
			n := 0
			err := tb.Scan(func(id int64, rec []any) error {
				n++
				if n <= 3 {
					if _, err := tb.Row(id, make([]any, len(tb.Columns))); err != nil {
						var e *Error
						if !errors.As(err, &e) {
							t.Fatalf("Row: %v is a %T", err, err)
						}
					}
				}
				return nil
			})
			var e *Error
			if err != nil && !errors.As(err, &e) {
				t.Fatalf("%v is a %T", err, err)
			}
			if read > limit {
				t.Fatalf("table %s: a scan read %d bytes of inputs of %d", tb.Name, read, len(b)+len(journal)+len(wal))
			}
		}
	})
}

// counting is a reader that adds the bytes read through it to *n.
type counting struct {
	r *bytes.Reader
	n *int64
}

func (c *counting) ReadAt(p []byte, off int64) (int, error) {
	k, err := c.r.ReadAt(p, off)
	*c.n += int64(k)
	return k, err
}
