// Package results writes a replay's output tables (package tables) as
// Parquet, Arrow IPC or CSV. Rows stream in while a replay runs and are
// flushed in batches, so a table of millions of CTAs never sits in memory
// whole.
//
// It is apart from package tables, which holds the rows and the Sink a
// replay writes them to, because the file formats bring arrow-go and its
// dependencies (thrift, flatbuffers, compression): the replay engine
// links none of them, only the programs that write files do.
package results
