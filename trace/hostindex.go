package trace

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"slices"
)

// The host index: a second copy of a binary trace's host operations (host
// launches, memcpys and syncs) after its records, so that a reader that wants
// only those (the replay's host pass) reads a few bytes at the end of the
// file instead of decompressing and skimming every record for them. It
// sits in a zstd skippable frame (RFC 8878 §3.1.2), which every zstd
// decoder passes over, so the file decompresses to the same record stream
// with or without it:
//
//	index   = u32(hostIndexFrameMagic) u32(n + hostIndexFooter) records footer
//	records = record*                  n bytes; host launch, memcpy and sync records
//	                                   encoded as in the stream, delta-coded
//	                                   among themselves (a fresh deltaState)
//	footer  = u32(n) u32(count) u32(crc) hostIndexMagic
//
// where u32 is 4 little-endian bytes, count is the number of records and
// crc is the CRC-32C (Castagnoli) of records and then footer's first 8
// bytes. The footer ends the file, so a reader finds the index from the
// end; a file whose last bytes are not hostIndexMagic has no index. The
// index is optional and checked: a damaged one is an error, never read as
// host operations, and the replay holds every record it yields against
// the record in the stream (Check).
//
// A Writer writes one only where it pays (hostIndexWorth): where host
// operations are sparse in the stream, as in a DP trace (BFS scale 20: 7
// host launches in 12.5 MB; the skim takes ~60 ms to find the 7th, the
// index ~2 ms), not where they are much of it, as in a trace of
// tasks (32,768 launches and 57,344 copies, 38% of the stream's bytes): a
// skim finds those as fast as the index, and the index, which repeats
// them uncompressed, would nearly triple the file.

const (
	// hostIndexFrameMagic is the skippable frame's magic, one of the
	// sixteen RFC 8878 sets aside (0x184D2A50–0x184D2A5F; 0x184D2A5E is
	// zstd's seekable format's, so not that one).
	hostIndexFrameMagic = 0x184D2A5B
	// hostIndexMagic ends the index and so the file.
	hostIndexMagic = "GPUHOSTS"
	// hostIndexFooter is the footer's size.
	hostIndexFooter = 4 + 4 + 4 + 8 // n, count, crc, hostIndexMagic
	// maxHostIndex bounds the index's records, in bytes: a Writer holds
	// them until Close, so a trace with more host operations than fit
	// (about 300,000 launches) gets no index and its writer's memory stays
	// bounded whatever its length; a reader refuses a larger one before
	// allocating it.
	maxHostIndex = 4 << 20
	// hostIndexFree is the size of an index small enough to be written
	// whatever the stream: it adds at most that to any file.
	hostIndexFree = 4 << 10
	// hostIndexSparsity is how many decompressed stream bytes per index
	// byte a larger index needs to be written: it then adds at most 1/64
	// of the stream's bytes, under 7% of a file whose stream compresses
	// 4–6 fold (the generators' do), and spares a skim of at least 64
	// times its bytes.
	hostIndexSparsity = 64
)

// hostIndexWorth reports whether an index of n bytes is written after a
// stream of stream decompressed bytes (see above).
func hostIndexWorth(n int, stream int64) bool {
	return n <= hostIndexFree || int64(n)*hostIndexSparsity <= stream
}

// crcTable is CRC-32C's: the index's checksum.
var crcTable = crc32.MakeTable(crc32.Castagnoli)

// isHostOp reports whether rec is what the host index lists: a host
// launch, a memcpy or a sync.
func isHostOp(rec Record) bool {
	switch r := rec.(type) {
	case *Launch:
		return r.Parent == nil
	case *Memcpy, *Sync:
		return true
	}
	return false
}

// hostIndexWriter gathers a Writer's host operations for the index.
type hostIndexWriter struct {
	buf   []byte
	delta deltaState
	count uint32
	full  bool // past maxHostIndex: no index is written
}

func newHostIndexWriter() hostIndexWriter {
	return hostIndexWriter{delta: newDeltaState()}
}

// add appends rec to the index if it is a host operation. rec has been
// encoded into the stream already, so it encodes here too. Once the index
// would outgrow maxHostIndex it is dropped for good.
func (x *hostIndexWriter) add(rec Record) {
	if x.full || !isHostOp(rec) {
		return
	}
	// No kernel record is a host operation: the index writes every
	// one it could hold in full (a shortState of its own, fresh).
	e := encoder{buf: x.buf, delta: &x.delta, short: &shortState{}}
	e.record(rec)
	if e.err != nil || len(e.buf) > maxHostIndex {
		x.full, x.buf = true, nil
		return
	}
	x.buf = e.buf
	x.count++
}

// frame is the index's skippable frame after a stream of stream
// decompressed bytes, or nil when none is written there.
func (x *hostIndexWriter) frame(stream int64) []byte {
	if x.full || !hostIndexWorth(len(x.buf), stream) {
		return nil
	}
	return x.encode()
}

// encode is the index's skippable frame.
func (x *hostIndexWriter) encode() []byte {
	n := len(x.buf)
	out := make([]byte, 0, 8+n+hostIndexFooter)
	out = binary.LittleEndian.AppendUint32(out, hostIndexFrameMagic)
	out = binary.LittleEndian.AppendUint32(out, uint32(n+hostIndexFooter))
	out = append(out, x.buf...)
	out = binary.LittleEndian.AppendUint32(out, uint32(n))
	out = binary.LittleEndian.AppendUint32(out, x.count)
	crc := crc32.Checksum(out[8:], crcTable)
	out = binary.LittleEndian.AppendUint32(out, crc)
	return append(out, hostIndexMagic...)
}

// HostIndex is a binary trace's host index (see above): its host launches,
// memcpys and syncs, in trace order.
type HostIndex struct {
	records []byte // checked: count host operations that decode cleanly
	count   int
}

// Len is the number of host operations the index lists.
func (x *HostIndex) Len() int { return x.count }

// ReadHostIndex reads the host index of the binary trace r holds (size
// bytes). A trace without one gives nil and no error; a damaged index (a
// checksum mismatch, a frame cut short, a record that does not decode or
// is not a host operation) gives a *Error saying what was wrong.
func ReadHostIndex(r io.ReaderAt, size int64) (*HostIndex, error) {
	if size < int64(len(zstdMagic)+8+hostIndexFooter) {
		return nil, nil
	}
	var foot [hostIndexFooter]byte
	if _, err := r.ReadAt(foot[:], size-hostIndexFooter); err != nil {
		return nil, hostIndexError("reading its footer: %v", err)
	}
	if string(foot[hostIndexFooter-len(hostIndexMagic):]) != hostIndexMagic {
		return nil, nil
	}
	n := int64(binary.LittleEndian.Uint32(foot[0:]))
	count := binary.LittleEndian.Uint32(foot[4:])
	if n > maxHostIndex {
		return nil, hostIndexError("its footer says it holds %d bytes, more than the format's %d", n, maxHostIndex)
	}
	start := size - hostIndexFooter - n - 8
	if start < int64(len(zstdMagic)) {
		return nil, hostIndexError("its footer says it holds %d bytes, more than the file has before it", n)
	}
	frame := make([]byte, 8+n+hostIndexFooter)
	if _, err := r.ReadAt(frame, start); err != nil {
		return nil, hostIndexError("reading it: %v", err)
	}
	if binary.LittleEndian.Uint32(frame) != hostIndexFrameMagic || int64(binary.LittleEndian.Uint32(frame[4:])) != n+hostIndexFooter {
		return nil, hostIndexError("its skippable frame's header is damaged")
	}
	if crc32.Checksum(frame[8:8+n+8], crcTable) != binary.LittleEndian.Uint32(foot[8:]) {
		return nil, hostIndexError("checksum mismatch")
	}
	x := &HostIndex{records: frame[8 : 8+n], count: int(count)}
	if err := x.check(); err != nil {
		return nil, err
	}
	return x, nil
}

// check decodes every record once, so that a Source over the index never
// fails: each must be a host operation, and there must be count of them.
func (x *HostIndex) check() error {
	r := x.reader()
	for i := 0; ; i++ {
		rec, err := r.Next()
		if err == io.EOF {
			if i != x.count {
				return hostIndexError("it holds %d records, its footer says %d", i, x.count)
			}
			return nil
		}
		if err != nil {
			return indexRecordError(err)
		}
		if !isHostOp(rec) {
			return hostIndexError("its record %d is a %s record, not a host launch, memcpy or sync", i+1, kindOf(rec))
		}
	}
}

// reader decodes the index's records.
func (x *HostIndex) reader() *Reader {
	src := &sourceReader{r: bytes.NewReader(x.records)}
	return &Reader{in: newInbuf(src), src: src, delta: newDeltaState()}
}

func hostIndexError(format string, args ...any) *Error {
	return &Error{Offset: -1, Msg: "host index: " + fmt.Sprintf(format, args...)}
}

// indexRecordError is the index's reader's error as the index's: its
// record numbers and offsets are the index's, not the stream's.
func indexRecordError(err error) *Error {
	if e, ok := err.(*Error); ok {
		return hostIndexError("its record %d (byte %d of its records): %s", e.Record, e.Offset, e.Msg)
	}
	return hostIndexError("%v", err)
}

// Source returns a Source yielding the index's host operations, fresh
// records in trace order, as a Reader under ReadOptions'
// SkipDeviceLaunches and Skip of every other kind yields them from the
// stream.
func (x *HostIndex) Source() Source { return hostIndexSource{x.reader()} }

type hostIndexSource struct{ r *Reader }

func (s hostIndexSource) Next() (Record, error) {
	rec, err := s.r.Next()
	if err != nil && err != io.EOF {
		// check decoded every record: only a bug gets here.
		return nil, indexRecordError(err)
	}
	return rec, err
}

// Check returns a Source that yields src's records, failing at the first
// host operation that differs from the one the index lists in its place,
// and at the end if the two list different numbers of them. A reader
// that takes the host operations from the index and everything else from
// the stream (the replay) reads the stream through it: the index is a
// second copy, and a copy that disagrees (a file spliced together, a
// writer's bug) must stop the reader rather than be believed. Its Pos is
// src's, where src has one.
func (x *HostIndex) Check(src Source) Source {
	return &hostCheck{src: src, ops: x.Source(), want: x.count}
}

type hostCheck struct {
	src    Source
	ops    Source
	want   int   // host operations the index lists
	seen   int   // host operations read from src
	record int64 // records read from src, for Pos where src has none
	err    error
}

func (c *hostCheck) Next() (Record, error) {
	if c.err != nil {
		return nil, c.err
	}
	rec, err := c.src.Next()
	if err == nil {
		c.record++
		if !isHostOp(rec) {
			return rec, nil
		}
	}
	if err := c.check(rec, err, c.record); err != nil {
		return nil, err
	}
	return rec, nil
}

// check is Next's work for what src's Next returned when it is not a
// record other than a host operation (those pass unchecked): a host
// operation, the record-th read, against the index's, or src's error,
// io.EOF against the number of host operations the index lists. It says
// what to return in err's place. A Validator over the check calls it
// itself (NewValidator), which saves every record a call through the
// Source interface and a layer of returns.
func (c *hostCheck) check(rec Record, err error, record int64) error {
	switch {
	case err == io.EOF:
		if c.seen < c.want {
			c.err = &Error{Offset: -1, Msg: fmt.Sprintf("at end of trace: the host index lists %d host operations, the trace has %d", c.want, c.seen)}
			return c.err
		}
		return err
	case err != nil:
		return err
	}
	c.seen++
	want, err := c.ops.Next()
	switch {
	case err == io.EOF:
		c.err = c.errorAt(rec, record, fmt.Sprintf("the host index lists %d host operations, the trace has more", c.want))
	case err != nil:
		c.err = err
	case !sameHostOp(want, rec):
		c.err = c.errorAt(rec, record, fmt.Sprintf("differs from its host index's copy: the trace has %s, the index %s", jsonText(rec), jsonText(want)))
	}
	return c.err
}

// decodeInto passes a Prefetcher's storage on to src (see slab): the
// check keeps no record past the next.
func (c *hostCheck) decodeInto(s *slab) bool { return decodeInto(c.src, s) }

// Pos is src's position, or the number of records read where src reports
// none.
func (c *hostCheck) Pos() (record, offset int64) { return c.posOf(c.record) }

// posOf is src's position of the record-th record read, its last, or
// record itself where src reports none.
func (c *hostCheck) posOf(record int64) (int64, int64) {
	if p, ok := c.src.(interface{ Pos() (int64, int64) }); ok {
		return p.Pos()
	}
	return record, -1
}

// errorAt places msg at rec, the record-th read.
func (c *hostCheck) errorAt(rec Record, record int64, msg string) *Error {
	n, off := c.posOf(record)
	return &Error{Record: n, Offset: off, Kind: rec.Kind(), Msg: msg}
}

// sameHostOp reports whether two host operations are the same record,
// field by field.
func sameHostOp(a, b Record) bool {
	switch a := a.(type) {
	case *Launch:
		b, ok := b.(*Launch)
		return ok && a.Parent == nil && b.Parent == nil && a.Kernel == b.Kernel && a.T == b.T &&
			a.Stream == b.Stream && a.Workload == b.Workload && a.InlineCycles == b.InlineCycles &&
			slices.Equal(a.After, b.After)
	case *Memcpy:
		b, ok := b.(*Memcpy)
		return ok && *a == *b
	case *Sync:
		b, ok := b.(*Sync)
		return ok && *a == *b
	}
	return false
}

// jsonText is rec as its JSONL line, for messages.
func jsonText(rec Record) string {
	e := jsonEncoder{}
	e.record(rec)
	return string(e.b)
}
