package results

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"os"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
)

// Check reads what a finished file of the named table in format f ends
// and starts with, without reading its rows: a Parquet file's footer
// (its metadata and schema), an Arrow IPC file's footer and schema, a
// CSV file's header line and its final newline. The columns must be this
// version's. A file cut short or overwritten fails, so a study's status
// can tell a part that was written whole from one that was not; rows
// damaged between a sound header and footer are not detected.
func Check(path, table string, f Format) error {
	want := Schema(table)
	if want == nil {
		return fmt.Errorf("unknown table %q", table)
	}
	switch f {
	case Parquet:
		fh, _, err := openParquet(path, want)
		if err != nil {
			return err
		}
		return fh.Close()
	case Arrow:
		fh, err := os.Open(path)
		if err != nil {
			return err
		}
		defer fh.Close()
		r, err := ipc.NewFileReader(fh)
		if err != nil {
			return fmt.Errorf("%s: not a whole Arrow IPC file: %w", path, err)
		}
		defer r.Close()
		return sameColumns(path, r.Schema(), want)
	case CSV:
		return checkCSV(path, want)
	}
	return fmt.Errorf("results: unknown format %q (valid formats: %s)", f, formatList())
}

// checkCSV checks a CSV file's header line against the columns and that
// the file ends with a newline, as every file the CSV encoder finishes
// does.
func checkCSV(path string, want *arrow.Schema) error {
	fh, err := os.Open(path)
	if err != nil {
		return err
	}
	defer fh.Close()
	header, err := csv.NewReader(bufio.NewReader(fh)).Read()
	if err != nil {
		return fmt.Errorf("%s: no CSV header line: %w", path, err)
	}
	for i, f := range want.Fields() {
		if i >= len(header) || header[i] != f.Name {
			return &OldTableError{path, fmt.Sprintf("header %q, want the columns of %s", strings.Join(header, ","), strings.Join(columnNames(want), ","))}
		}
	}
	if len(header) != want.NumFields() {
		return &OldTableError{path, fmt.Sprintf("%d columns, want %d", len(header), want.NumFields())}
	}
	st, err := fh.Stat()
	if err != nil {
		return err
	}
	last := make([]byte, 1)
	if _, err := fh.ReadAt(last, st.Size()-1); err != nil || last[0] != '\n' {
		return fmt.Errorf("%s: cut short: the last row does not end with a newline", path)
	}
	return nil
}

// columnNames lists a schema's column names in order.
func columnNames(s *arrow.Schema) []string {
	var out []string
	for _, f := range s.Fields() {
		out = append(out, f.Name)
	}
	return out
}
