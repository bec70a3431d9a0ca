package results

import (
	"fmt"
	"strings"
)

// Format is the file format the tables are written in. Its value is also the
// extension of the files (summary.parquet, summary.arrow, summary.csv).
type Format string

// The output formats. Parquet is the default: compressed, typed and read
// directly by DuckDB and pandas. Arrow writes uncompressed Arrow IPC files
// (the "Feather v2" format), the fastest to load. CSV is for tools that read
// nothing else; it has a header line, and a null is an empty field, so in
// CSV an empty string (summary.params without --sweep) and a null look the
// same.
const (
	Parquet Format = "parquet"
	Arrow   Format = "arrow"
	CSV     Format = "csv"
)

// formats lists the valid formats in the order error messages name them.
var formats = []Format{Parquet, Arrow, CSV}

// ParseFormat returns the Format named s, as given to --format. The error
// for an unknown name lists the valid ones.
func ParseFormat(s string) (Format, error) {
	for _, f := range formats {
		if s == string(f) {
			return f, nil
		}
	}
	return "", fmt.Errorf("results: unknown format %q (valid formats: %s)", s, formatList())
}

// valid reports whether f is one of the defined formats.
func (f Format) valid() bool {
	for _, g := range formats {
		if f == g {
			return true
		}
	}
	return false
}

func formatList() string {
	names := make([]string, len(formats))
	for i, f := range formats {
		names[i] = string(f)
	}
	return strings.Join(names, ", ")
}
