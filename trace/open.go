package trace

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/gpureplay/gpureplay/internal/tempfile"
)

// SourceCloser is a Source backed by an open file.
type SourceCloser interface {
	Source
	io.Closer
}

// SinkCloser is a Sink backed by an open file; Close finishes the encoding
// and closes the file.
type SinkCloser interface {
	Sink
	io.Closer
}

// Open opens a trace file in either encoding, telling them apart by content
// (a zstd stream is the binary encoding, anything else is read as JSONL), so
// a user never has to say which one a file is. The Source it returns is the
// raw reader, with Pos (and for JSONL Line); wrap it in NewValidator to check
// the trace. A binary file's Source also has a HostIndex method that reads
// the file's host index (nil where it has none).
func Open(path string) (SourceCloser, error) {
	f, err := tempfile.Open(path)
	if err != nil {
		return nil, err
	}
	in := bufio.NewReaderSize(f, 64<<10)
	magic, err := in.Peek(len(zstdMagic))
	if err != nil && err != io.EOF {
		f.Close()
		return nil, err
	}
	if string(magic) != zstdMagic {
		if strings.HasSuffix(path, ".zst") {
			f.Close()
			return nil, &Error{Record: 1, Offset: 0, Msg: "not a zstd stream: the file's first bytes are not the zstd magic (damaged, or not a *.trace.zst)"}
		}
		return &jsonlFile{NewJSONLReader(in), f}, nil
	}
	r, err := NewReader(in)
	if err != nil {
		f.Close()
		return nil, err
	}
	return &binaryFile{r, f}, nil
}

type binaryFile struct {
	*Reader
	f *os.File
}

func (b *binaryFile) Close() error { return b.f.Close() }

// HostIndexOf is the host index of the trace src reads, where src offers
// one (Open's binary files: HostIndex); nil for any other source (JSONL,
// a pipe, a Reader over bytes) or a file without one.
func HostIndexOf(src Source) (*HostIndex, error) {
	f, ok := src.(interface {
		HostIndex() (*HostIndex, error)
	})
	if !ok {
		return nil, nil
	}
	return f.HostIndex()
}

// HostIndex reads the file's host index (ReadHostIndex): nil where it has
// none. It reads the file's end without moving the Reader.
func (b *binaryFile) HostIndex() (*HostIndex, error) {
	st, err := b.f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, nil // a pipe: no end to read first
	}
	return ReadHostIndex(b.f, st.Size())
}

type jsonlFile struct {
	*JSONLReader
	f *os.File
}

func (j *jsonlFile) Close() error { return j.f.Close() }

// Create starts a trace file at path, in JSONL when path ends in ".jsonl"
// and in the binary encoding otherwise. The records go to a temporary file
// beside path (internal/tempfile), which Close renames into place once
// the encoding is whole; Abort, a failed Close and a signal handler's
// tempfile.Exit remove it. So a writer that fails or is stopped never
// leaves a half-written trace under path, and a trace already there stays
// as it was until the new one is complete. As every output of the
// project's commands, path may not be a file this process has read
// (tempfile.Open, which Open uses): that is refused, not destroyed.
// Errors name path.
func Create(path string) (*File, error) {
	tmp, err := tempfile.Create(path)
	if err != nil {
		return nil, err
	}
	f := &File{tmp: tmp, buf: bufio.NewWriterSize(tmp, 64<<10)}
	if strings.HasSuffix(path, ".jsonl") {
		f.enc = NewJSONLWriter(f.buf)
	} else {
		f.enc = NewWriter(f.buf)
	}
	return f, nil
}

// File is a trace on its way to a path (Create).
type File struct {
	enc interface {
		Sink
		io.Closer
	}
	buf  *bufio.Writer
	tmp  *tempfile.File
	done bool // closed or aborted
}

// Write encodes one record.
func (f *File) Write(rec Record) error { return f.enc.Write(rec) }

// Close finishes the encoding and puts the trace under its path. Where
// either fails, the unfinished trace is removed and the path left as it
// was. A second Close does nothing.
func (f *File) Close() error {
	if f.done {
		return nil
	}
	f.done = true
	if err := errors.Join(f.enc.Close(), f.buf.Flush()); err != nil {
		f.tmp.Discard()
		return fmt.Errorf("writing %s: %w", f.tmp.Final(), err)
	}
	return f.tmp.Commit()
}

// Abort removes the unfinished trace, leaving the path as it was: the
// way out of a writer that failed. After Close it does nothing.
func (f *File) Abort() {
	if !f.done {
		f.done = true
		f.tmp.Discard()
	}
}

// ReadAll reads src to the end and returns its records. On error it returns
// the records read before it. Meant for tests and small traces: a real
// trace should be streamed.
func ReadAll(src Source) ([]Record, error) {
	var recs []Record
	for {
		rec, err := src.Next()
		if err == io.EOF {
			return recs, nil
		}
		if err != nil {
			return recs, err
		}
		recs = append(recs, rec)
	}
}
