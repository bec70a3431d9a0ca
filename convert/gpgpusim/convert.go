package gpgpusim

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"

	"github.com/gpureplay/gpureplay/internal/tempfile"
	"github.com/gpureplay/gpureplay/trace"
)

// Convert converts the log at path (plain, or compressed with xz, gzip or
// zstd, told apart by content) into out. When o.Config is empty and a
// gpgpusim.config lies beside the log, it is read for any option the log
// does not print.
func Convert(path string, out trace.Sink, o Options) (Summary, error) {
	f, err := tempfile.Open(path)
	if err != nil {
		return Summary{}, &Error{File: path, Msg: "cannot open the log", Err: err}
	}
	defer f.Close()
	in, closeIn, err := decompress(path, f)
	if err != nil {
		return Summary{}, err
	}
	defer closeIn()
	if in, err = withForkParents(path, in); err != nil {
		return Summary{}, err
	}
	if o.Config == "" {
		if c := filepath.Join(filepath.Dir(path), "gpgpusim.config"); fileExists(c) {
			o.Config = c
		}
	}
	return Read(in, path, out, o)
}

// Read converts a log from in (name is for errors) into out.
func Read(in io.Reader, name string, out trace.Sink, o Options) (Summary, error) {
	r := NewReader(in, name, o)
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return r.Summary(), nil
		}
		if err != nil {
			return r.Summary(), err
		}
		if err := out.Write(rec); err != nil {
			return r.Summary(), err
		}
	}
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// decompress looks at the first bytes of f and wraps it in the matching
// decompressor.
func decompress(name string, f io.Reader) (io.Reader, func(), error) {
	br := bufio.NewReaderSize(f, 1<<16)
	magic, _ := br.Peek(6)
	fail := func(format string, err error) (io.Reader, func(), error) {
		return nil, func() {}, &Error{File: name, Msg: "not a valid " + format + " file", Err: err}
	}
	switch {
	case bytes.HasPrefix(magic, []byte{0xfd, '7', 'z', 'X', 'Z', 0}):
		zr, err := xz.NewReader(br)
		if err != nil {
			return fail("xz", err)
		}
		return zr, func() {}, nil
	case bytes.HasPrefix(magic, []byte{0x1f, 0x8b}):
		zr, err := gzip.NewReader(br)
		if err != nil {
			return fail("gzip", err)
		}
		return zr, func() { zr.Close() }, nil
	case bytes.HasPrefix(magic, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		zr, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1))
		if err != nil {
			return fail("zstd", err)
		}
		return zr, zr.Close, nil
	}
	return br, func() {}, nil
}

// ReadGPU reads only the simulator options of a GPGPU-Sim (or Accel-Sim)
// log or gpgpusim.config and returns the header a conversion would
// write: the simulated GPU and, in meta, its latencies as model settings
// (model.FromHeader applies them). It lets a replay of another trace be
// matched to the GPU a simulator ran.
func ReadGPU(path string, o Options) (*trace.Header, error) {
	f, err := tempfile.Open(path)
	if err != nil {
		return nil, &Error{File: path, Msg: "cannot open", Err: err}
	}
	defer f.Close()
	in, closeIn, err := decompress(path, f)
	if err != nil {
		return nil, err
	}
	defer closeIn()
	r := NewReader(in, path, o)
	sc := bufio.NewScanner(newDialect322(in))
	sc.Buffer(make([]byte, 64<<10), maxLine)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if bytes.HasPrefix(line, prefixCycle) {
			break // the options come before the run
		}
		if bytes.HasPrefix(line, prefixVersion) {
			r.version = strings.TrimSpace(strings.TrimSuffix(string(line[len(prefixVersion):]), "***"))
		}
		r.opt.parseOption(string(line))
	}
	if err := sc.Err(); err != nil {
		return nil, &Error{File: path, Msg: "reading", Err: err}
	}
	if err := r.start(); err != nil {
		return nil, err
	}
	return r.out[0].(*trace.Header), nil
}

// OpenLog opens a log for reading, plain or compressed with xz, gzip or
// zstd (told apart by content), as Convert reads it.
func OpenLog(path string) (io.ReadCloser, error) {
	f, err := tempfile.Open(path)
	if err != nil {
		return nil, &Error{File: path, Msg: "cannot open", Err: err}
	}
	in, closeIn, err := decompress(path, f)
	if err != nil {
		f.Close()
		return nil, err
	}
	return struct {
		io.Reader
		io.Closer
	}{in, closer(func() error { closeIn(); return f.Close() })}, nil
}

type closer func() error

func (c closer) Close() error { return c() }
