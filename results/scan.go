package results

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	arrowcsv "github.com/apache/arrow-go/v18/arrow/csv"
	"github.com/apache/arrow-go/v18/arrow/ipc"

	"github.com/gpureplay/gpureplay/internal/tempfile"
)

// ErrNoTable says a directory holds no file of the table in a format
// Scan reads (Parquet, Arrow IPC or CSV).
var ErrNoTable = errors.New("no such table")

// ErrMixedFormats says a directory holds a table in more than one format:
// the tables of two runs written with different --format into one --out,
// which a reader cannot tell apart (each run replaces only its own
// format's files).
var ErrMixedFormats = errors.New("a table in more than one format")

// Scan reads the named table from dir (NAME.parquet, NAME.arrow or
// NAME.csv) batch by batch, calling fn with each record batch; memory holds one
// batch at a time. The batch is valid only during the call. A table whose
// columns are not this version's (Schema) is refused with an error that
// names the first difference, so readers can index columns by position.
// A table found in two formats is refused too (ErrMixedFormats): read
// by a fixed preference, a report over a directory that a CSV run had
// written over a Parquet one showed the Parquet run's rows, silently.
func Scan(dir, table string, fn func(arrow.Record) error) error {
	want := Schema(table)
	if want == nil {
		return fmt.Errorf("unknown table %q", table)
	}
	found := formatsOf(dir, table, formats)
	switch {
	case len(found) == 0:
		return fmt.Errorf("%s: %w (%s.parquet, %s.arrow or %s.csv)", dir, ErrNoTable, table, table, table)
	case len(found) > 1:
		return fmt.Errorf("%s holds %w (%s), written by different runs perhaps, which a reader cannot tell apart: move all but one format's tables away, or write each run to a directory of its own", dir, ErrMixedFormats, strings.Join(fileNames(table, found), ", "))
	}
	path := filepath.Join(dir, table+"."+string(found[0]))
	switch found[0] {
	case Parquet:
		return scanParquet(path, want, fn)
	case Arrow:
		return scanIPC(path, want, fn)
	}
	return scanCSV(path, want, fn)
}

// formatsOf is the formats of fs that dir holds table in.
func formatsOf(dir, table string, fs []Format) []Format {
	var found []Format
	for _, f := range fs {
		if _, err := os.Stat(filepath.Join(dir, table+"."+string(f))); err == nil {
			found = append(found, f)
		}
	}
	return found
}

// fileNames is table's file in each of fs: summary.parquet, ...
func fileNames(table string, fs []Format) []string {
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = table + "." + string(f)
	}
	return names
}

// OtherFormats is the files of tables that dir holds in a format other
// than f, by name: what a run writing f there leaves beside its own
// tables (Scan then refuses the tables found in both).
func OtherFormats(dir string, f Format) []string {
	others := slices.DeleteFunc(slices.Clone(formats), func(g Format) bool { return g == f })
	var found []string
	for _, t := range Tables() {
		found = append(found, fileNames(t, formatsOf(dir, t, others))...)
	}
	return found
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
