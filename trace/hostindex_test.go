package trace

import (
	"bytes"
	"encoding/binary"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// hostOpsTrace is a trace whose host operations are of every shape the
// index carries: memcpys both ways, host launches on several streams, at
// several t, with `after`, between launch trees with device launches (whose
// delta coding in the stream the index's must not depend on), and sync
// records of every op, two among a tree's records.
func hostOpsTrace() []Record {
	recs := []Record{
		&Header{Version: Version, ClockMHz: 706, Source: "hostidx"},
		&Buffer{ID: 1, Name: "in", Base: 0, Bytes: 1 << 20, Role: RoleInput},
		&Memcpy{Dir: DirH2D, Buffer: 1, Bytes: 1 << 20, Stream: 1, T: 0},
	}
	for k := uint64(1); k <= 6; k++ {
		recs = append(recs,
			&Kernel{ID: k, Name: "host", Grid: [3]uint32{2, 1, 1}, Block: [3]uint32{64, 1, 1}, Regs: 16},
			&Launch{Kernel: k, T: int64(k) * 100, Stream: k % 3})
		if k > 2 {
			recs[len(recs)-1].(*Launch).After = []uint64{k - 2, k - 1}
		}
		child := 100 + k
		recs = append(recs,
			&CTA{Kernel: k, CTA: 0, Cycles: 500, WarpCycles: []int64{400, 500}})
		switch k {
		case 4:
			recs = append(recs, &Sync{Op: EventRecord, Stream: 1, Event: 9, T: 410})
		case 5:
			recs = append(recs, &Sync{Op: StreamWait, Stream: 2, Event: 9, T: 510})
		}
		recs = append(recs,
			&CTA{Kernel: k, CTA: 1, Cycles: 600},
			&Kernel{ID: child, Name: "child", Grid: [3]uint32{1, 1, 1}, Block: [3]uint32{32, 1, 1}},
			&Launch{Kernel: child, Parent: &Parent{Kernel: k, CTA: 1, Warp: 1, Lane: 3, At: 50}, Workload: 9, InlineCycles: 90},
			&CTA{Kernel: child, CTA: 0, Cycles: 70},
			&Memcpy{Dir: DirD2H, Buffer: 1, Bytes: int64(k) << 10, Stream: k % 3, T: int64(k)*100 + 50})
	}
	return append(recs,
		&Sync{Op: SyncEvent, Event: 9, T: 700, Ret: 800},
		&Sync{Op: SyncStream, Stream: 0, T: 800, Ret: 900},
		&Sync{Op: SyncDevice, T: 900, Ret: 1000},
		&Memcpy{Dir: DirD2H, Buffer: 1, Bytes: 4, T: 1000, Blocking: true, Ret: 1100})
}

// indexFrameLen is the size of data's host index frame, 0 if it has none.
func indexFrameLen(t testing.TB, data []byte) int {
	t.Helper()
	if !bytes.HasSuffix(data, []byte(hostIndexMagic)) {
		return 0
	}
	foot := data[len(data)-hostIndexFooter:]
	return 8 + int(binary.LittleEndian.Uint32(foot)) + hostIndexFooter
}

// skimHostOps is the host operations as the replay's host pass finds them
// without an index: skimming the stream.
func skimHostOps(t testing.TB, data []byte) []Record {
	t.Helper()
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	r.SetOptions(ReadOptions{Skip: []Kind{KindCTA, KindKernel, KindAccess, KindPages, KindBuffer}, SkipDeviceLaunches: true})
	recs, err := ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	var ops []Record
	for _, rec := range recs {
		if isHostOp(rec) {
			ops = append(ops, rec)
		}
	}
	return ops
}

// indexHostOps reads data's host index and every record it yields.
func indexHostOps(t testing.TB, data []byte) []Record {
	t.Helper()
	x, err := ReadHostIndex(bytes.NewReader(data), int64(len(data)))
	if err != nil || x == nil {
		t.Fatalf("ReadHostIndex: %v, %v", x, err)
	}
	ops, err := ReadAll(x.Source())
	if err != nil {
		t.Fatal(err)
	}
	if len(ops) != x.Len() {
		t.Errorf("the index yields %d records, Len says %d", len(ops), x.Len())
	}
	return ops
}

func TestHostIndexRoundTrip(t *testing.T) {
	for name, recs := range map[string][]Record{
		"host ops":      hostOpsTrace(),
		"valid.jsonl":   fixture(t, "valid.jsonl"),
		"no host ops":   {&Header{Version: Version, ClockMHz: 706}},
		"50,000 ctas":   append(fixture(t, "valid.jsonl"), syntheticCTAs(9, 50000)...),
		"exotic values": exoticHostOps(),
	} {
		data := encodeBinary(t, recs)
		got, want := indexHostOps(t, data), skimHostOps(t, data)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the index yields\n%v\nthe skim\n%v", name, got, want)
		}
		if name == "host ops" && len(got) != 19 {
			t.Errorf("%s: %d host operations, want 19", name, len(got))
		}
		// The stream reads as the same records with or without the index.
		end := len(data) - indexFrameLen(t, data)
		if end == len(data) {
			t.Fatalf("%s: no host index written", name)
		}
		if a, b := decodeBinary(t, data), decodeBinary(t, data[:end]); !reflect.DeepEqual(a, b) {
			t.Errorf("%s: the index changes the records the Reader yields", name)
		}
	}
}

// exoticHostOps are host operations with values at the format's edges:
// wrapping kernel deltas, negative times, strings outside the enums.
func exoticHostOps() []Record {
	return []Record{
		&Launch{Kernel: ^uint64(0), T: -1, Stream: ^uint64(0), After: []uint64{^uint64(0), 0}},
		&Launch{Kernel: 0, Workload: 5, InlineCycles: -7},
		&Memcpy{Dir: "sideways", Buffer: ^uint64(0), Bytes: -1, Stream: 1 << 40, T: 1 << 62},
		&Launch{Kernel: 1 << 63},
		&Sync{Op: SyncEvent, Event: ^uint64(0), T: -5, Ret: math.MaxInt64 - 4}, // ret - t is -2^63,
		&Memcpy{Dir: DirD2H, T: 1 << 62, Pageable: true, Ret: -1},
		&Sync{Op: StreamWait, Stream: 1 << 63, Event: 1, T: math.MaxInt64},
	}
}

// The zstd CLI, another decoder, reads a file with an index as the same
// stream: the index is a skippable frame.
func TestHostIndexZstdCLI(t *testing.T) {
	zstd, err := exec.LookPath("zstd")
	if err != nil {
		t.Skip("no zstd command")
	}
	data := encodeBinary(t, hostOpsTrace())
	path := filepath.Join(t.TempDir(), "t.trace.zst")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(zstd, "-dc", path).Output()
	if err != nil {
		t.Fatalf("zstd -dc: %v", err)
	}
	end := len(data) - indexFrameLen(t, data)
	if want := decompress(t, data[:end]); !bytes.Equal(out, want) {
		t.Errorf("zstd -dc gives %d bytes, the stream without the index %d", len(out), len(want))
	}
}

// Open's binary files read their index; files without one have none.
func TestOpenHostIndex(t *testing.T) {
	dir := t.TempDir()
	data := encodeBinary(t, hostOpsTrace())
	end := len(data) - indexFrameLen(t, data)
	for _, c := range []struct {
		name  string
		data  []byte
		count int // -1: no index
	}{
		{"t.trace.zst", data, 19},
		{"old.trace.zst", data[:end], -1},
		{"t.jsonl", encodeJSONL(t, hostOpsTrace()), -1},
	} {
		path := filepath.Join(dir, c.name)
		if err := os.WriteFile(path, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		src, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		var x *HostIndex
		if h, ok := src.(interface{ HostIndex() (*HostIndex, error) }); ok {
			if x, err = h.HostIndex(); err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
		}
		switch {
		case c.count < 0 && x != nil:
			t.Errorf("%s: an index of %d records", c.name, x.Len())
		case c.count >= 0 && (x == nil || x.Len() != c.count):
			t.Errorf("%s: index %v, want %d records", c.name, x, c.count)
		}
		// Reading the index leaves the stream where it was.
		if recs, err := ReadAll(src); err != nil || len(recs) != len(hostOpsTrace()) {
			t.Errorf("%s: %d records, %v", c.name, len(recs), err)
		}
		src.Close()
	}
}

// Past maxHostIndex bytes of host operations a Writer drops the index (and
// its memory) and writes none; the stream is the same.
func TestHostIndexAboveCap(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	after := make([]uint64, 4096) // ~4 KiB a launch
	for i := range after {
		after[i] = uint64(i * 3)
	}
	recs := []Record{&Header{Version: Version, ClockMHz: 706}}
	for k := uint64(0); len(recs)*4096 < maxHostIndex+(64<<10); k++ {
		recs = append(recs, &Launch{Kernel: k, After: after})
	}
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if !w.index.full || w.index.buf != nil {
		t.Errorf("the Writer holds %d bytes of index past the cap", len(w.index.buf))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	if x, err := ReadHostIndex(bytes.NewReader(data), int64(len(data))); x != nil || err != nil {
		t.Errorf("ReadHostIndex: %v, %v; want no index", x, err)
	}
	if got := decodeBinary(t, data); len(got) != len(recs) {
		t.Errorf("%d records, want %d", len(got), len(recs))
	}
}

// An index over hostIndexFree bytes is written only where the stream
// holds hostIndexSparsity bytes per index byte: host operations that are
// much of the stream are found as fast by a skim.
func TestHostIndexOnlyWhereSparse(t *testing.T) {
	for _, c := range []struct {
		n      int
		stream int64
		want   bool
	}{
		{hostIndexFree, 0, true},
		{hostIndexFree + 1, (hostIndexFree + 1) * hostIndexSparsity, true},
		{hostIndexFree + 1, (hostIndexFree+1)*hostIndexSparsity - 1, false},
	} {
		if got := hostIndexWorth(c.n, c.stream); got != c.want {
			t.Errorf("an index of %d bytes after %d: %v", c.n, c.stream, got)
		}
	}
	// 2,000 host launches (about 8 KiB of index), with one CTA each and
	// with 64 of 8 warps each.
	trace := func(ctas uint64) []Record {
		recs := []Record{&Header{Version: Version, ClockMHz: 706}}
		g := cycleGen(1)
		for k := uint64(0); k < 2000; k++ {
			recs = append(recs, &Kernel{ID: k, Name: "k", Grid: [3]uint32{uint32(ctas), 1, 1}, Block: [3]uint32{256, 1, 1}},
				&Launch{Kernel: k, T: int64(k) * 1000, Stream: k % 4})
			for c := uint64(0); c < ctas; c++ {
				recs = append(recs, syntheticCTA(k, int(c), 8, &g))
			}
		}
		return recs
	}
	if data := encodeBinary(t, trace(1)); indexFrameLen(t, data) != 0 {
		t.Error("an index where host launches are most of the stream")
	}
	data := encodeBinary(t, trace(64))
	if indexFrameLen(t, data) == 0 {
		t.Fatal("no index where host launches are sparse")
	}
	if got, want := indexHostOps(t, data), skimHostOps(t, data); !reflect.DeepEqual(got, want) || len(got) != 2000 {
		t.Errorf("the index yields %d host launches, the skim %d", len(got), len(want))
	}
}

// A damaged index is an error or, where the damage hides the index
// itself (its last bytes), no index: never host operations it does not
// hold. Any byte flipped, any cut.
func TestHostIndexDamaged(t *testing.T) {
	data := encodeBinary(t, hostOpsTrace())
	frame := indexFrameLen(t, data)
	want := indexHostOps(t, data)
	for i := len(data) - frame; i < len(data); i++ {
		for _, bit := range []byte{0x01, 0x80} {
			bad := bytes.Clone(data)
			bad[i] ^= bit
			x, err := ReadHostIndex(bytes.NewReader(bad), int64(len(bad)))
			inMagic := i >= len(data)-len(hostIndexMagic)
			switch {
			case err != nil && !strings.HasPrefix(err.(*Error).Msg, "host index: "):
				t.Errorf("flip at %d: %v does not name the host index", i, err)
			case err == nil && !(x == nil && inMagic):
				t.Errorf("flip at %d of the index: read as %v", i, x)
			}
			if i >= len(data)-frame+8 && i < len(data)-hostIndexFooter && err != nil && err.(*Error).Msg != "host index: checksum mismatch" {
				t.Errorf("flip at %d, in the records: %v", i, err)
			}
		}
	}
	for cut := len(data) - frame + 1; cut < len(data); cut++ {
		bad := data[:cut]
		if x, err := ReadHostIndex(bytes.NewReader(bad), int64(len(bad))); x != nil {
			t.Errorf("cut at %d: read an index of %d records (%v)", cut, x.Len(), err)
		}
		// The stream's own reader reports the cut skippable frame.
		if e, n := readToError(t, bad); !strings.Contains(e.Msg, "truncated") || n != len(hostOpsTrace()) {
			t.Errorf("cut at %d: %v after %d records", cut, e, n)
		}
	}
	// A footer whose length runs before the file's start or past the cap.
	for _, n := range []uint32{uint32(len(data)), maxHostIndex + 1} {
		bad := bytes.Clone(data)
		binary.LittleEndian.PutUint32(bad[len(bad)-hostIndexFooter:], n)
		if _, err := ReadHostIndex(bytes.NewReader(bad), int64(len(bad))); err == nil || !strings.Contains(err.Error(), "more than") {
			t.Errorf("footer length %d: %v", n, err)
		}
	}
	if got := indexHostOps(t, data); !reflect.DeepEqual(got, want) {
		t.Error("reading damaged copies changed the original")
	}
}

// forgedIndex is a frame with a good checksum around records that are not
// what the index should hold, as a writer's bug would make.
func forgedIndex(records []Record, count uint32) []byte {
	x := newHostIndexWriter()
	for _, r := range records {
		e := encoder{buf: x.buf, delta: &x.delta, short: &shortState{}}
		e.record(r)
		x.buf = e.buf
	}
	x.count = count
	return x.encode()
}

func TestHostIndexForged(t *testing.T) {
	stream := encodeBinary(t, hostOpsTrace())
	stream = stream[:len(stream)-indexFrameLen(t, stream)]
	l := &Launch{Kernel: 1}
	for _, c := range []struct {
		name string
		recs []Record
		n    uint32
		msg  string
	}{
		{"a kernel record", []Record{l, &Kernel{ID: 2}}, 2, "host index: its record 2 is a kernel record, not a host launch, memcpy or sync"},
		{"a device launch", []Record{&Launch{Kernel: 2, Parent: &Parent{}}}, 1, "its record 1 is a launch record, not"},
		{"count too high", []Record{l}, 2, "host index: it holds 1 records, its footer says 2"},
		{"count too low", []Record{l, l}, 1, "it holds 2 records, its footer says 1"},
		{"a cut record", nil, 1, "host index: its record 1 (byte 0 of its records): truncated stream"},
	} {
		frame := forgedIndex(c.recs, c.n)
		if c.recs == nil {
			frame = forgedRaw([]byte{byte(KindLaunch), launchHasAfter, 0, 9}, c.n)
		}
		data := append(bytes.Clone(stream), frame...)
		_, err := ReadHostIndex(bytes.NewReader(data), int64(len(data)))
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v, want %q", c.name, err, c.msg)
		}
	}
}

// forgedRaw is a frame with a good checksum around any bytes.
func forgedRaw(records []byte, count uint32) []byte {
	x := hostIndexWriter{buf: records, count: count}
	return x.encode()
}

// Check passes a stream that agrees with its index through unchanged and
// stops at the first host operation that differs, naming its record.
func TestHostIndexCheck(t *testing.T) {
	recs := hostOpsTrace()
	index := func(recs []Record) *HostIndex {
		data := encodeBinary(t, recs)
		x, err := ReadHostIndex(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	stream := encodeBinary(t, recs)
	// The check alone; under a Validator, which takes it apart
	// (NewValidator); and so over a source that reports no position.
	ways := []struct {
		name string
		read func(*HostIndex, *Reader) Source
		pos  bool
	}{
		{"check", func(x *HostIndex, r *Reader) Source { return x.Check(r) }, true},
		{"validated", func(x *HostIndex, r *Reader) Source { return NewValidator(x.Check(r)) }, true},
		{"validated, no Pos", func(x *HostIndex, r *Reader) Source { return NewValidator(x.Check(sourceOnly{r})) }, false},
	}
	for _, way := range ways {
		read := func(x *HostIndex) ([]Record, error) {
			r, err := NewReader(bytes.NewReader(stream))
			if err != nil {
				t.Fatal(err)
			}
			return ReadAll(way.read(x, r))
		}
		got, err := read(index(recs))
		if err != nil || len(got) != len(recs) {
			t.Fatalf("%s: agreeing index: %d records, %v", way.name, len(got), err)
		}
		checkHostIndexErrors(t, way.name, way.pos, stream, recs, index, read)
	}
}

// sourceOnly hides its Source's other methods (Pos).
type sourceOnly struct{ Source }

// checkHostIndexErrors reads stream, recs encoded, against indexes that
// differ from it, each a way TestHostIndexCheck reads: every error names
// the record that differs (at its offset where pos says the source
// reports one).
func checkHostIndexErrors(t *testing.T, way string, pos bool, stream []byte, recs []Record, index func([]Record) *HostIndex, read func(*HostIndex) ([]Record, error)) {
	// recs[4] is the first host launch, recs[10] the memcpy after its
	// tree, recs[20] the first launch with after [1 2], recs[30] a
	// record and recs[39] a wait among their trees' records, the last
	// four a sync of each blocking op and a blocking copy.
	change := func(i int, f func(Record)) []Record {
		out := decodeBinary(t, stream)
		f(out[i])
		return out
	}
	dropped := append(append([]Record{}, recs[:3]...), recs[5:]...) // the first launch
	for _, c := range []struct {
		name   string
		index  []Record
		record int64
		msg    string
	}{
		{"kernel", change(4, func(r Record) { r.(*Launch).Kernel = 7 }), 5, `the trace has {"type":"launch","kernel":1,"t":100,"stream":1}, the index {"type":"launch","kernel":7,"t":100,"stream":1}`},
		{"t", change(4, func(r Record) { r.(*Launch).T = 99 }), 5, `"t":99`},
		{"stream", change(4, func(r Record) { r.(*Launch).Stream = 2 }), 5, `"stream":2`},
		{"after", change(20, func(r Record) { r.(*Launch).After = []uint64{2} }), 21, `"after":[1,2]}, the index {"type":"launch","kernel":3,"t":300,"stream":0,"after":[2]}`},
		{"memcpy bytes", change(10, func(r Record) { r.(*Memcpy).Bytes = 1 }), 11, `"bytes":1,`},
		{"memcpy dir", change(2, func(r Record) { r.(*Memcpy).Dir = DirD2H }), 3, `"dir":"d2h"`},
		{"memcpy for launch", dropped, 5, `the trace has {"type":"launch","kernel":1,"t":100,"stream":1}, the index {"type":"memcpy"`},
		{"record event", change(30, func(r Record) { r.(*Sync).Event = 8 }), 31, `the trace has {"type":"sync","op":"record","stream":1,"event":9,"t":410}, the index {"type":"sync","op":"record","stream":1,"event":8,"t":410}`},
		{"wait stream", change(39, func(r Record) { r.(*Sync).Stream = 1 }), 40, `"op":"wait","stream":1,`},
		{"sync op", change(len(recs)-2, func(r Record) { r.(*Sync).Op = SyncStream }), int64(len(recs) - 1), `the index {"type":"sync","op":"stream","t":900,"ret":1000}`},
		{"sync ret", change(len(recs)-3, func(r Record) { r.(*Sync).Ret = 0 }), int64(len(recs) - 2), `the index {"type":"sync","op":"stream","t":800}`},
		{"memcpy blocking", change(len(recs)-1, func(r Record) { r.(*Memcpy).Blocking = false }), int64(len(recs)), `"t":1000,"ret":1100}`},
		{"one fewer", recs[:len(recs)-1], int64(len(recs)), "the host index lists 18 host operations, the trace has more"},
		{"one more", append(append([]Record{}, recs...), &Memcpy{Dir: DirD2H}), 0, "at end of trace: the host index lists 20 host operations, the trace has 19"},
	} {
		got, err := read(index(c.index))
		e, ok := err.(*Error)
		if !ok || !strings.Contains(e.Msg, c.msg) || e.Record != c.record {
			t.Errorf("%s, %s: %v after %d records; want record %d: %q", way, c.name, err, len(got), c.record, c.msg)
			continue
		}
		placed := e.Offset > 0 || !pos && e.Offset == -1
		if c.record > 0 && (e.Kind != recs[c.record-1].Kind() || !placed || !strings.Contains(e.Msg, "differs from its host index's copy") && c.name != "one fewer") {
			t.Errorf("%s, %s: %#v does not place the record", way, c.name, e)
		}
		if _, again := read(index(c.index)); again == nil {
			t.Errorf("%s, %s: no error the second time", way, c.name)
		}
	}
}

// Decoding the index costs reading its frame: a trace's size does not
// enter, the index's does.
func BenchmarkHostIndex(b *testing.B) {
	var buf bytes.Buffer
	syntheticTrace(b, NewWriter(&buf), 200000, 8)
	data := buf.Bytes()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		x, err := ReadHostIndex(bytes.NewReader(data), int64(len(data)))
		if err != nil || x == nil {
			b.Fatal(err)
		}
		src := x.Source()
		for {
			if _, err := src.Next(); err == io.EOF {
				break
			}
		}
	}
}
