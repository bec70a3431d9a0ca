package trace

import (
	"bufio"
	"errors"
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

// Create creates (or truncates) a trace file, in JSONL when path ends in
// ".jsonl" and in the binary encoding otherwise.
func Create(path string) (SinkCloser, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if strings.HasSuffix(path, ".jsonl") {
		return &fileSink{NewJSONLWriter(f), f}, nil
	}
	return &fileSink{NewWriter(f), f}, nil
}

// fileSink closes its encoder, then its file, reporting the first error.
type fileSink struct {
	w interface {
		Sink
		io.Closer
	}
	f *os.File
}

func (s *fileSink) Write(rec Record) error { return s.w.Write(rec) }

func (s *fileSink) Close() error {
	return errors.Join(s.w.Close(), s.f.Close())
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
