package results

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow"
	arrowcsv "github.com/apache/arrow-go/v18/arrow/csv"
	"github.com/apache/arrow-go/v18/arrow/ipc"

	"github.com/gpureplay/gpureplay/internal/tempfile"
)

// ErrNoTable says a directory holds no file of the table in a format
// Scan reads (Parquet, Arrow IPC or CSV).
var ErrNoTable = errors.New("no such table")

// Scan reads the named table from dir (NAME.parquet, else NAME.arrow,
// else NAME.csv) batch by batch, calling fn with each record batch; memory holds one
// batch at a time. The batch is valid only during the call. A table whose
// columns are not this version's (Schema) is refused with an error that
// names the first difference, so readers can index columns by position.
func Scan(dir, table string, fn func(arrow.Record) error) error {
	want := Schema(table)
	if want == nil {
		return fmt.Errorf("unknown table %q", table)
	}
	pq := filepath.Join(dir, table+".parquet")
	if _, err := os.Stat(pq); err == nil {
		return scanParquet(pq, want, fn)
	}
	ar := filepath.Join(dir, table+".arrow")
	if _, err := os.Stat(ar); err == nil {
		return scanIPC(ar, want, fn)
	}
	cs := filepath.Join(dir, table+".csv")
	if _, err := os.Stat(cs); err == nil {
		return scanCSV(cs, want, fn)
	}
	return fmt.Errorf("%s: %w (%s.parquet, %s.arrow or %s.csv)", dir, ErrNoTable, table, table, table)
}

func scanIPC(path string, want *arrow.Schema, fn func(arrow.Record) error) error {
	f, err := tempfile.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r, err := ipc.NewFileReader(f)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	defer r.Close()
	if err := sameColumns(path, r.Schema(), want); err != nil {
		return err
	}
	for i := 0; i < r.NumRecords(); i++ {
		rec, err := r.Record(i)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if err := fn(rec); err != nil {
			return err
		}
	}
	return nil
}

// scanCSV reads a CSV table as the CSV encoder writes it: a header line
// of the schema's column names, an empty field for a null (a string
// column's empty field is the empty string).
func scanCSV(path string, want *arrow.Schema, fn func(arrow.Record) error) error {
	f, err := tempfile.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	header, err := csv.NewReader(f).Read()
	if err != nil {
		return fmt.Errorf("%s: reading the header line: %w", path, err)
	}
	if len(header) != want.NumFields() {
		return &OldTableError{path, fmt.Sprintf("%d columns, want %d", len(header), want.NumFields())}
	}
	for i, f := range want.Fields() {
		if header[i] != f.Name {
			return &OldTableError{path, fmt.Sprintf("column %d is %s, want %s", i+1, header[i], f.Name)}
		}
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	r := arrowcsv.NewReader(f, want, arrowcsv.WithHeader(true), arrowcsv.WithNullReader(false, ""), arrowcsv.WithChunk(1<<14))
	defer r.Release()
	for r.Next() {
		if err := fn(r.Record()); err != nil {
			return err
		}
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// OldTableError is a table written by another version of the replay.
type OldTableError struct {
	Path, Msg string
}

func (e *OldTableError) Error() string {
	return fmt.Sprintf("%s: %s; it was written by another version of replay: rerun the replay with --out", e.Path, e.Msg)
}

func sameColumns(path string, got, want *arrow.Schema) error {
	if got.NumFields() != want.NumFields() {
		return &OldTableError{path, fmt.Sprintf("%d columns, want %d", got.NumFields(), want.NumFields())}
	}
	for i, f := range want.Fields() {
		g := got.Field(i)
		if g.Name != f.Name || !arrow.TypeEqual(g.Type, f.Type) {
			return &OldTableError{path, fmt.Sprintf("column %d is %s %s, want %s %s", i+1, g.Name, g.Type, f.Name, f.Type)}
		}
	}
	return nil
}
