// Package parquet writes and reads the Parquet files of the replay's
// tables: flat columns of four types (int32, int64, double, string),
// required or optional, in one fixed layout (Writer). The reader takes
// that layout and what other writers give the same flat columns, since
// users rewrite tables with DuckDB, pyarrow or arrow-go (which wrote them
// before): data pages v1 and v2; PLAIN, dictionary (RLE_DICTIONARY,
// PLAIN_DICTIONARY) and DELTA_BINARY_PACKED integers; PLAIN,
// dictionary, DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY strings;
// PLAIN, dictionary and BYTE_STREAM_SPLIT doubles and integers;
// uncompressed, snappy, gzip or zstd pages. Any other file is refused
// with an error that names the row group, column and page, never a
// panic.
//
// What a file makes the reader do is bounded by what the file and the
// tables can hold (reader.go): a string by MaxString, a page's declared
// uncompressed size by its values and the column's type before it is
// inflated, and what no one page bounds by budgets: the strings a row
// group's columns hold, and the bytes a file's pages inflate to and its
// rows' strings copy.
//
// Why not arrow-go's parquet packages, which wrote these files before:
// they import arrow/compute (for a cast the tables never need), whose
// kernels were 28 MB of the 59 MB replay binary and the largest part of
// a cold build. The format is the public parquet-format specification
// (its parquet.thrift and Encodings.md); the package's tests read every
// file it writes with arrow-go's reader, and CI reads the tables with
// pyarrow, polars and DuckDB.
package parquet
