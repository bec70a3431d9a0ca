// Package parquet writes and reads the Parquet files of the replay's
// tables: flat columns of four types (int32, int64, double, string),
// required or optional, in one fixed layout (Writer). The reader takes
// that layout and what arrow-go's writer gave the same tables before
// (its v1 data pages, dictionary or plain strings, PLAIN or
// DELTA_BINARY_PACKED integers, uncompressed, snappy, gzip or zstd
// pages); any other file is refused with an error, never a panic.
//
// Why not arrow-go's parquet packages, which wrote these files before:
// they import arrow/compute (for a cast the tables never need), whose
// kernels were 28 MB of the 59 MB replay binary and the largest part of
// a cold build. The format is the public parquet-format specification
// (its parquet.thrift and Encodings.md); the package's tests read every
// file it writes with arrow-go's reader, and CI reads the tables with
// pyarrow, polars and DuckDB.
package parquet
