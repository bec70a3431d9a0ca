package sqlite

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzScan reads arbitrary files: never a panic or a hang, and every
// failure an *Error. Its seed corpus is testdata/fuzz/FuzzScan.
//
//	go test ./convert/nsys/internal/sqlite -fuzz FuzzScan
func FuzzScan(f *testing.F) {
	// testdata/fuzz/FuzzScan/seed is a small database SQLite wrote
	// (cmp.TestWriteSeed).
	f.Add([]byte(Magic))
	f.Fuzz(func(t *testing.T, b []byte) {
		db, err := Open(bytes.NewReader(b), int64(len(b)), Logs{})
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("%v is a %T", err, err)
			}
			return
		}
		for _, tb := range db.Tables() {
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
		}
	})
}
