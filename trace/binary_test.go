package trace

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// exoticRecords has every record kind with awkward values: extremes of every
// integer type, negative numbers, non-ASCII and control characters, unsorted
// lists, unknown enum strings. Not a valid trace, but every encoding must
// carry it exactly.
func exoticRecords() []Record {
	return []Record{
		&Header{Version: 1, ClockMHz: 1400.25, PageBytes: 65536, Source: "gen:bfs", GPU: "k20c",
			GPUSpec: &GPUSpec{SMs: 13, ClockMHz: 706, MaxCTAsPerSM: 16, MaxThreadsPerSM: 2048,
				RegsPerSM: 65536, SmemPerSM: 48 << 10, MaxKernels: 32},
			Meta: map[string]string{"b": "x\"y\n\\", "a": "ünïcode ✓", "\x00ctl\x7f": "\x1f", "": ""}},
		&Header{Version: -3, ClockMHz: 1e-7, GPUSpec: &GPUSpec{}, OrderedTrees: true},
		&Header{Version: 1, ClockMHz: 706, OrderedTrees: true},
		&Header{ClockMHz: -1e300, PageBytes: math.MinInt64},
		&Buffer{ID: math.MaxUint64, Base: 1 << 63, Bytes: -5, Role: "custom"},
		&Buffer{Name: "in", Bytes: 1 << 40, Role: RoleInOut},
		&Memcpy{Dir: DirD2H, Buffer: 7, Bytes: math.MaxInt64, Stream: 3, T: math.MinInt64},
		&Memcpy{Dir: "sideways"},
		&Kernel{ID: 42, Name: "k<T>::run", Grid: [3]uint32{math.MaxUint32, 2, 1}, Block: [3]uint32{32, 4, 2}, Regs: -1, Smem: 48 << 10},
		&Kernel{ID: 43, Name: strings.Repeat("long", 1000)},
		&Launch{Kernel: 42, T: 10, Stream: 2, After: []uint64{1, 0, math.MaxUint64}},
		&Launch{Kernel: 0, Parent: &Parent{Kernel: 42, CTA: 5, Warp: 3, Lane: 31, At: -1}, Workload: 9, InlineCycles: 77},
		&Launch{Kernel: 1, Parent: &Parent{Kernel: 42, CTA: 5, Warp: math.MinInt64, Lane: math.MaxInt64, At: math.MaxInt64}},
		&Launch{Kernel: 43, T: 5, Stream: 1, Parent: &Parent{Kernel: 3, CTA: math.MaxUint64}, InlineCycles: 1},
		&Launch{Kernel: math.MaxUint64},
		&Launch{Kernel: 45, Parent: &Parent{}, Workload: -1, After: []uint64{7}},
		&Launch{Kernel: 46, Stream: math.MaxUint64, Parent: &Parent{Kernel: 45}, DeviceStream: CreatedStream, CreatesStream: true},
		&Launch{Kernel: 47, Parent: &Parent{Kernel: 45}, DeviceStream: CTAStream, After: []uint64{1}},
		&Launch{Kernel: 48, Parent: &Parent{Kernel: 45}, DeviceStream: TailStream},
		&Launch{Kernel: 49, Parent: &Parent{Kernel: 45}, DeviceStream: FireAndForgetStream, Workload: 3},
		&Launch{Kernel: 50, T: 1, CreatesStream: true},
		&CTA{Kernel: 42, CTA: 0, Cycles: 100},
		&CTA{Kernel: 42, CTA: 1, Cycles: 100, WarpCycles: []int64{100, -4, math.MaxInt64, math.MinInt64}},
		&CTA{Kernel: 42, CTA: math.MaxUint64, Cycles: -1},
		&CTA{Kernel: 42, CTA: 0, Cycles: math.MinInt64},
		&CTA{Kernel: 7},
		&CTA{Kernel: 7, CTA: 2, Cycles: 9, Insts: 1 << 40, DRAMBytes: math.MaxUint64},
		&CTA{Kernel: 7, CTA: 3, Cycles: 9, WarpCycles: []int64{9, 4}, DRAMBytes: 1},
		&CTA{Kernel: 7, CTA: 4, Cycles: 9, Insts: 3},
		&CTA{Kernel: 7, CTA: 1, Cycles: 3, WarpCycles: make([]int64, 40)}, // more warps than the fast path takes
		&Access{Kernel: 7, Buffer: 1, Lo: 10, Hi: 5, Mode: ModeReadWrite},
		&Access{Kernel: 7, CTA: 3, Buffer: 1, Lo: math.MaxUint64, Mode: "x"},
		&Access{Kernel: 7, CTA: 3, Buffer: 1, Hi: math.MaxUint64, Mode: ModeRead},
		&Pages{Kernel: 7, CTA: 3, Buffer: 2, R: []uint64{5, 1, math.MaxUint64, 0}},
		&Pages{Kernel: 8, Buffer: 2, W: []uint64{3}},
		&Pages{},
		&Access{Kernel: 7, CTA: 3, Buffer: 1, Lo: 4, Hi: 9, Mode: ModeWrite, At: 1},
		&Access{Kernel: 7, CTA: 3, Buffer: 1, Mode: "y", At: math.MinInt64},
		&Pages{Kernel: 8, Buffer: 2, R: []uint64{9, 2}, At: math.MaxInt64},
		&Pages{At: -1},
		&Memcpy{Dir: DirD2H, Buffer: 1, Bytes: 4, T: 50, Blocking: true, Ret: 80},
		&Memcpy{Dir: "up", Pageable: true},
		&Memcpy{Dir: DirH2D, T: 7, Ret: -3},
		&Memcpy{Blocking: true, Pageable: true, T: 5, Ret: 5 + math.MinInt64}, // ret - t is -2^63
		&Sync{Op: SyncDevice, T: 1000, Ret: 5000},
		&Sync{Op: SyncStream, Stream: math.MaxUint64, T: math.MinInt64, Ret: -1},
		&Sync{Op: SyncEvent, Event: math.MaxUint64, T: 5, Ret: 5 + math.MinInt64},
		&Sync{Op: EventRecord, Stream: 7, Event: 3, T: 12},
		&Sync{Op: StreamWait, Stream: 8, Event: 3, T: math.MaxInt64, Ret: math.MaxInt64},
		&Sync{Op: SyncDevice, T: math.MinInt64, Ret: math.MaxInt64},
		&Sync{Op: SyncDevice, T: -4, Ret: 4},
	}
}

// fixture reads a JSONL file under testdata.
func fixture(t testing.TB, name string) []Record {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := ReadAll(NewJSONLReader(f))
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

func encodeBinary(t testing.TB, recs []Record) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := NewWriter(&buf)
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatalf("Write(%#v): %v", r, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func decodeBinary(t testing.TB, data []byte) []Record {
	t.Helper()
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// testEncoder compresses hand-made streams; EncodeAll is safe for
// concurrent use, as fuzzing needs.
var testEncoder, _ = zstd.NewWriter(nil, zstd.WithEncoderCRC(true), zstd.WithEncoderConcurrency(1))

// compress wraps a hand-made decompressed stream in zstd, for tests of what
// the Writer would never produce.
func compress(payload []byte) []byte {
	return testEncoder.EncodeAll(payload, nil)
}

// decompress undoes compress.
func decompress(t testing.TB, data []byte) []byte {
	dec, err := zstd.NewReader(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	raw, err := dec.DecodeAll(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// roundTrip checks that recs come back from the binary format as they
// went in.
func roundTrip(t *testing.T, recs []Record) {
	t.Helper()
	got := decodeBinary(t, encodeBinary(t, recs))
	if len(got) != len(recs) {
		t.Fatalf("got %d records, want %d", len(got), len(recs))
	}
	for i := range recs {
		if !reflect.DeepEqual(got[i], recs[i]) {
			t.Errorf("record %d:\n got %#v\nwant %#v", i+1, got[i], recs[i])
		}
	}
}

// preamble is the start of every decompressed stream.
func preamble() []byte {
	return binary.AppendUvarint([]byte(binaryMagic), Version)
}

func TestBinaryRoundTrip(t *testing.T) {
	for _, recs := range [][]Record{exoticRecords(), fixture(t, "valid.jsonl")} {
		roundTrip(t, recs)
	}
}

// An access or pages record at 0 keeps the tag and body it had before at
// existed, byte for byte, so old traces are unchanged; one with an at has
// the extended tag and at after the old body.
func TestBinaryAtEncoding(t *testing.T) {
	recs := []Record{
		&Access{Kernel: 1, Buffer: 1, Lo: 4, Hi: 9, Mode: ModeWrite},
		&Access{Kernel: 1, Buffer: 1, Lo: 4, Hi: 9, Mode: ModeWrite, At: 300},
		&Pages{Kernel: 1, Buffer: 2, R: []uint64{3}},
		&Pages{Kernel: 1, Buffer: 2, W: []uint64{3}, At: -2},
	}
	want := append(preamble(),
		// tag, ref (kernel +1, CTA 0 of a new kernel), buffer, lo, hi-lo, mode w
		byte(KindAccess), 2, 0, 1, 4, 5, 2,
		// the same CTA again (ref 0, 0), then at: zigzag 600 = 0xd8 0x04
		tagAccessAt, 0, 0, 1, 4, 5, 2, 0xd8, 0x04,
		// buffer, r = [3] (length 1, delta zigzag 6), w = []
		byte(KindPages), 0, 0, 2, 1, 6, 0,
		// r = [], w = [3], at -2 (zigzag 3)
		tagPagesAt, 0, 0, 2, 0, 1, 6, 3)
	data := encodeBinary(t, recs)
	if got := decompress(t, data); !bytes.Equal(got, want) {
		t.Errorf("encoded\n% x\nwant\n% x", got, want)
	}
	if got := decodeBinary(t, data); !reflect.DeepEqual(got, recs) {
		t.Errorf("decoded %#v, want %#v", got, recs)
	}
}

// The short forms of a launch tree's records (binary.go), byte by byte:
// a child declared as the kernel before it (kernelalike), a device
// launch from the parent of the device launch before it (launchalike),
// a child's first record after its launch (ctalaunched); and the long
// forms where they do not apply. Each decodes to the record written.
func TestShortForms(t *testing.T) {
	parent := func(warp, lane int, at int64) *Parent {
		return &Parent{Kernel: 1, CTA: 0, Warp: warp, Lane: lane, At: at}
	}
	child := func(id uint64, gx, bx uint32) *Kernel {
		return &Kernel{ID: id, Name: "c", Grid: [3]uint32{gx, 1, 1}, Block: [3]uint32{bx, 1, 1}, Regs: 8}
	}
	recs := []Record{
		&Kernel{ID: 1, Name: "p", Grid: [3]uint32{1, 1, 1}, Block: [3]uint32{32, 1, 1}, Regs: 8},
		&Launch{Kernel: 1},
		&CTA{Kernel: 1, Cycles: 100},
		child(2, 2, 32),
		&Launch{Kernel: 2, Parent: parent(0, 1, 10), Workload: 5},
		&CTA{Kernel: 2, CTA: 0, Cycles: 50},
		&CTA{Kernel: 2, CTA: 1, Cycles: 50},
		child(3, 1, 32),
		&Launch{Kernel: 3, Parent: parent(0, 2, 10)},
		&CTA{Kernel: 3, Cycles: 50, Insts: 20, DRAMBytes: 64},
		child(5, 1, 64),
		&Launch{Kernel: 5, Parent: parent(1, 0, 30)},
		&CTA{Kernel: 5, Cycles: 7},
	}
	want := append(preamble(),
		// the host kernel, its launch (flags 0, kernel 1 after none:
		// zigzag 2) and its CTA (ref +1, 0; cycles zigzag 200; no warps)
		byte(KindKernel), 1, 1, 'p', 1, 1, 1, 32, 1, 1, 16, 0,
		byte(KindLaunch), 0, 2,
		byte(KindCTA), 2, 0, 0xc8, 0x01, 0,
		// the first child: a host kernel's declaration before it, no
		// device launch before its launch (flags parent|workload, kernel
		// +0, parent ref 0 0, warp 0, lane 1, at 10, workload 5)
		byte(KindKernel), 2, 1, 'c', 2, 1, 1, 32, 1, 1, 16, 0,
		byte(KindLaunch), 9, 0, 0, 0, 0, 2, 20, 10,
		// its first CTA coded against the launch: ref 0 0 (CTA 0 of
		// kernel 2), cycles 50; its second as ever
		tagCTALaunched, 0, 0, 100, 0,
		byte(KindCTA), 0, 0, 100, 0,
		// the second child: alike (id +0, grid x 1), its launch from the
		// same parent (ref 0 0 against it, lane 2), its CTA with demand
		tagKernelAlike, 0, 1,
		tagLaunchAlike, 1, 0, 0, 0, 0, 4, 20,
		tagCTADLaunched, 0, 0, 100, 0, 20, 64,
		// the third: another block, so declared in full; its launch from
		// the same parent CTA's warp 1 (kernel +1: id 5 after 3)
		byte(KindKernel), 5, 1, 'c', 1, 1, 1, 64, 1, 1, 16, 0,
		tagLaunchAlike, 1, 2, 0, 0, 2, 0, 60,
		tagCTALaunched, 0, 0, 14, 0)
	data := encodeBinary(t, recs)
	if got := decompress(t, data); !bytes.Equal(got, want) {
		t.Errorf("encoded\n% x\nwant\n% x", got, want)
	}
	if got := decodeBinary(t, data); !reflect.DeepEqual(got, recs) {
		t.Errorf("decoded %v, want %v", got, recs)
	}
	// Read under every Skip of one kind, and with the kernels skipped
	// until the third child: the rest come back as written (a skipped
	// declaration is still the one a kernelalike record is read
	// against; a skipped launch still the parent a launchalike one is).
	for _, k := range []Kind{KindKernel, KindLaunch, KindCTA} {
		r, err := NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		r.SetOptions(ReadOptions{Skip: []Kind{k}})
		var got, kept []Record
		for i, rec := range recs {
			if rec.Kind() != k || i >= 7 && k == KindKernel {
				kept = append(kept, rec)
			}
		}
		for {
			rec, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("skipping %s: %v", k, err)
			}
			got = append(got, rec)
			if n, _ := r.Pos(); n == 7 && k == KindKernel {
				r.SetOptions(ReadOptions{})
			}
		}
		if !reflect.DeepEqual(got, kept) {
			t.Errorf("skipping %s:\n got %v\nwant %v", k, got, kept)
		}
	}
}

// A trace with no device launch is written in the long forms, as before
// the short ones existed: a kernel declared as the one before it, a
// launch of it, its first CTA.
func TestNoShortFormsWithoutDeviceLaunches(t *testing.T) {
	k := func(id uint64) *Kernel {
		return &Kernel{ID: id, Name: "k", Grid: [3]uint32{1, 1, 1}, Block: [3]uint32{32, 1, 1}}
	}
	recs := []Record{k(1), &Launch{Kernel: 1}, &CTA{Kernel: 1}, k(2), &Launch{Kernel: 2}, &CTA{Kernel: 2}}
	want := append(preamble(),
		byte(KindKernel), 1, 1, 'k', 1, 1, 1, 32, 1, 1, 0, 0,
		byte(KindLaunch), 0, 2, // kernel 1 after none
		byte(KindCTA), 2, 0, 0, 0, // kernel +1, CTA 0, cycles 0, no warps
		byte(KindKernel), 2, 1, 'k', 1, 1, 1, 32, 1, 1, 0, 0,
		byte(KindLaunch), 0, 0, // kernel 2 after 1
		byte(KindCTA), 2, 0, 0, 0)
	if got := decompress(t, encodeBinary(t, recs)); !bytes.Equal(got, want) {
		t.Errorf("encoded\n% x\nwant\n% x", got, want)
	}
}

// A memcpy without blocking, pageable or ret keeps the tag and body it had
// before they existed; one with them has tagMemcpyCall and the flags and
// ret after the old body; a sync record is tag 9 and its fields.
func TestBinarySyncEncoding(t *testing.T) {
	recs := []Record{
		&Memcpy{Dir: DirH2D, Buffer: 1, Bytes: 4, T: 50},
		&Memcpy{Dir: DirD2H, Buffer: 1, Bytes: 4, T: 50, Blocking: true, Ret: 80},
		&Memcpy{Dir: DirD2H, Buffer: 1, Bytes: 4, T: 50, Pageable: true},
		&Sync{Op: SyncDevice, T: 1000, Ret: 5000},
		&Sync{Op: EventRecord, Stream: 7, Event: 3, T: 12},
		&Sync{Op: SyncStream, Stream: 7, T: 20, Ret: 20},
		&Sync{Op: SyncEvent, Event: 3, T: 20, Ret: 19},
	}
	want := append(preamble(),
		// tag, dir h2d, buffer, bytes (zigzag 8), stream, t (zigzag 100)
		byte(KindMemcpy), 1, 1, 8, 0, 100,
		// the same, d2h, then flags (blocking) and ret: zigzag(80-50)+1
		tagMemcpyCall, 2, 1, 8, 0, 100, 1, 61,
		// flags pageable, no ret
		tagMemcpyCall, 2, 1, 8, 0, 100, 2, 0,
		// op device, stream, event, t (zigzag 2000 = 0xd0 0x0f),
		// ret: zigzag(4000)+1 = 8001 = 0xc1 0x3e
		byte(KindSync), 1, 0, 0, 0xd0, 0x0f, 0xc1, 0x3e,
		// op record, stream 7, event 3, t 12, no ret
		byte(KindSync), 4, 7, 3, 24, 0,
		// op stream, ret at t: zigzag(0)+1
		byte(KindSync), 2, 7, 0, 40, 1,
		// op event, ret one before t: zigzag(-1)+1
		byte(KindSync), 3, 0, 3, 40, 2)
	data := encodeBinary(t, recs)
	if got := decompress(t, data); !bytes.Equal(got, want) {
		t.Errorf("encoded\n% x\nwant\n% x", got, want)
	}
	if got := decodeBinary(t, data); !reflect.DeepEqual(got, recs) {
		t.Errorf("decoded %#v, want %#v", got, recs)
	}
}

// ret's code is a bijection: every code decodes to a ret that encodes
// back to it, at any t, including the one swapped with ret 0's.
func TestRetCode(t *testing.T) {
	for _, tt := range []int64{0, 1, -1, 5, 1 << 40, math.MaxInt64, math.MinInt64, math.MinInt64 + 1} {
		for _, c := range []uint64{0, 1, 2, 3, zigzagOf(-tt), zigzagOf(-tt) + 1, zigzagOf(-tt) + 2, math.MaxUint64, math.MaxUint64 - 1} {
			if got := retCode(tt, retOf(tt, c)); got != c {
				t.Errorf("t %d: code %d decodes to %d, which encodes as %d", tt, c, retOf(tt, c), got)
			}
		}
		for _, ret := range []int64{0, tt, tt + 1, tt - 1, tt + math.MinInt64, math.MaxInt64, math.MinInt64} {
			if got := retOf(tt, retCode(tt, ret)); got != ret {
				t.Errorf("t %d: ret %d encodes as %d, which decodes to %d", tt, ret, retCode(tt, ret), got)
			}
		}
	}
}

func TestBinaryEmptyListsReadAsNil(t *testing.T) {
	in := []Record{
		&Header{Version: 1, ClockMHz: 1, Meta: map[string]string{}},
		&CTA{WarpCycles: []int64{}},
		&Pages{R: []uint64{}, W: []uint64{}},
		&Launch{After: []uint64{}},
	}
	want := []Record{&Header{Version: 1, ClockMHz: 1}, &CTA{}, &Pages{}, &Launch{}}
	if got := decodeBinary(t, encodeBinary(t, in)); !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v, want %#v", got, want)
	}
}

func TestBinaryDeterministic(t *testing.T) {
	recs := append(exoticRecords(), syntheticCTAs(1, 20000)...)
	a, b := encodeBinary(t, recs), encodeBinary(t, recs)
	if !bytes.Equal(a, b) {
		t.Fatal("two encodings of the same records differ")
	}
	if !bytes.HasPrefix(a, []byte(zstdMagic)) {
		t.Fatalf("output starts % x, not the zstd magic", a[:4])
	}
}

func TestBinaryPos(t *testing.T) {
	data := encodeBinary(t, []Record{&CTA{}, &CTA{CTA: 1}, &Memcpy{}})
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	// Preamble: 8 magic bytes and a 1-byte version; a CTA 0 of kernel 0
	// and the CTA after it are tag + 2 one-byte refs + cycles + list length.
	want := [][2]int64{{0, 9}, {1, 9}, {2, 14}, {3, 19}}
	for i, w := range want {
		if i > 0 {
			if _, err := r.Next(); err != nil {
				t.Fatal(err)
			}
		}
		if rec, off := r.Pos(); rec != w[0] || off != w[1] {
			t.Errorf("after %d records Pos() = %d, %d; want %d, %d", i, rec, off, w[0], w[1])
		}
	}
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("Next at end = %v, want io.EOF", err)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("Next after end = %v, want io.EOF again", err)
	}
}

// readToError reads data to its end and returns the error that stopped it,
// which must be a *Error, and the records before it.
func readToError(t *testing.T, data []byte) (*Error, int) {
	t.Helper()
	r, err := NewReader(bytes.NewReader(data))
	n := 0
	if err == nil {
		var recs []Record
		recs, err = ReadAll(r)
		n = len(recs)
		if err == nil {
			t.Fatalf("read %d records without error", n)
		}
		if _, again := r.Next(); again != err {
			t.Errorf("error is not sticky: then %v, now %v", err, again)
		}
	}
	var te *Error
	if !errors.As(err, &te) {
		t.Fatalf("error %v (%T) is not a *trace.Error", err, err)
	}
	return te, n
}

func TestBinaryTruncated(t *testing.T) {
	recs := append(fixture(t, "valid.jsonl"), syntheticCTAs(9, 50000)...)
	data := encodeBinary(t, recs)
	for _, cut := range []int{0, 2, 4, 10, 20, len(data) / 3, len(data) / 2, len(data) - 5, len(data) - 1} {
		e, n := readToError(t, data[:cut])
		// A cut in the first zstd block fails before the first record.
		if e.Record != int64(n)+1 && !(n == 0 && e.Record == 0) {
			t.Errorf("cut at %d: error %q at record %d offset %d after %d records", cut, e, e.Record, e.Offset, n)
		}
		if !strings.Contains(e.Msg, "truncated") && !strings.Contains(e.Msg, "bad magic") {
			t.Errorf("cut at %d: %q does not say truncated", cut, e)
		}
	}
}

func TestBinaryTruncatedInsideRecord(t *testing.T) {
	payload := append(preamble(), byte(KindKernel), 5, 10, 'a', 'b')
	e, n := readToError(t, compress(payload))
	if n != 0 || e.Record != 1 || e.Offset != 9 || e.Kind != KindKernel || !strings.Contains(e.Msg, "ends inside a record") {
		t.Errorf("got %q (record %d, offset %d, kind %v) after %d records", e, e.Record, e.Offset, e.Kind, n)
	}
}

func TestBinaryCorrupt(t *testing.T) {
	data := encodeBinary(t, append(fixture(t, "valid.jsonl"), syntheticCTAs(9, 50000)...))
	// The last bytes of the zstd stream, before the host index (whose
	// damage ReadHostIndex reports: TestHostIndexDamaged).
	end := len(data) - indexFrameLen(t, data)
	for _, pos := range []int{len(data) / 4, len(data) / 2, end - 2} {
		bad := bytes.Clone(data)
		bad[pos] ^= 0x40
		e, n := readToError(t, bad)
		// A flip in the first zstd block fails before the first record.
		if e.Record != int64(n)+1 && !(n == 0 && e.Record == 0) {
			t.Errorf("flip at %d: %q at record %d offset %d after %d records", pos, e, e.Record, e.Offset, n)
		}
	}
	// Data after the end of the stream is not silently ignored.
	e, _ := readToError(t, append(bytes.Clone(data), "junk"...))
	if !strings.Contains(e.Msg, "corrupt") {
		t.Errorf("trailing junk: %q does not say corrupt", e)
	}
}

func TestBinaryBadInput(t *testing.T) {
	// A zstd frame claiming a window beyond the reader's limit: the frame
	// header's window descriptor is its sixth byte, 2^(10+(b>>3)) bytes.
	hugeWindow := encodeBinary(t, []Record{&CTA{}})
	hugeWindow[5] = (26 - 10) << 3

	tests := []struct {
		name   string
		data   []byte
		want   string
		record int64
		offset int64
	}{
		{"huge window", hugeWindow, "zstd window is larger than the 32 MiB this reader allows", 0, 0},
		{"empty", nil, "bad magic", 0, 0},
		{"not zstd", []byte(`{"type":"header"}`), "bad magic", 0, 0},
		{"other zstd content", compress([]byte("NOTATRACE, just text")), "bad magic", 0, 0},
		{"short stream", compress([]byte("GPU")), "bad magic", 0, 0},
		{"unknown version", compress(binary.AppendUvarint([]byte(binaryMagic), 2)), "unknown format version 2", 0, 0},
		{"unknown tag", compress(append(preamble(), byte(KindMemcpy), 1, 0, 0, 0, 0, 0x7f)), "unknown record tag 127", 2, 15},
		{"zero tag", compress(append(preamble(), 0)), "unknown record tag 0", 1, 9},
		{"unknown extended tag", compress(append(preamble(), tagExtended|byte(KindBuffer), 0)), "unknown record tag 130", 1, 9},
		{"access at 0 under tagAccessAt", compress(append(preamble(), tagAccessAt, 2, 0, 1, 4, 5, 2, 0)), "at is 0 in a record whose tag says it is not", 1, 9},
		{"pages at 0 under tagPagesAt", compress(append(preamble(), tagPagesAt, 2, 0, 1, 0, 0, 0)), "at is 0 in a record whose tag says it is not", 1, 9},
		{"pages at cut short", compress(append(preamble(), tagPagesAt, 2, 0, 1, 0, 0)), "ends inside a record", 1, 9},
		{"huge string", compress(binary.AppendUvarint(append(preamble(), byte(KindKernel), 1), 1<<40)), "string length 1099511627776 exceeds", 1, 9},
		{"huge list", compress(binary.AppendUvarint(append(preamble(), byte(KindCTA), 0, 0, 0), 1<<40)), "list length 1099511627776 exceeds", 1, 9},
		{"long list cut short", compress(binary.AppendUvarint(append(preamble(), byte(KindCTA), 0, 0, 0), 1<<20)), "truncated", 1, 9},
		{"grid beyond 32 bits", compress(binary.AppendUvarint(append(preamble(), byte(KindKernel), 1, 0), 1<<32)), "grid dimension 4294967296 does not fit", 1, 9},
		{"varint overflow", compress(append(preamble(), byte(KindBuffer), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01)), "varint longer than 64 bits", 1, 9},
		{"bad enum", compress(append(preamble(), byte(KindMemcpy), 9)), "enum value 9 is out of range", 1, 9},
		{"bad utf-8", compress(append(preamble(), byte(KindKernel), 1, 2, 0xff, 0xfe)), "not valid UTF-8", 1, 9},
		{"bad launch flags", compress(append(preamble(), byte(KindLaunch), 0x80, 1, 0)), "unknown bits", 1, 9},
		{"bad flags byte", compress(append(preamble(), byte(KindHeader), 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7)), "flags byte 0x7 has unknown bits", 1, 9},
		{"memcpy call without its fields", compress(append(preamble(), tagMemcpyCall, 1, 1, 8, 0, 100, 0, 0)), "memcpy record under tag 0x83 without blocking, pageable or ret", 1, 9},
		{"memcpy call flags", compress(append(preamble(), tagMemcpyCall, 1, 1, 8, 0, 100, 4, 0)), "memcpy flags 0x4 have unknown bits", 1, 9},
		{"memcpy call cut short", compress(append(preamble(), tagMemcpyCall, 1, 1, 8, 0, 100, 1)), "ends inside a record", 1, 9},
		{"sync op 0", compress(append(preamble(), byte(KindSync), 0, 0, 0, 0, 0)), "sync op 0 is not one this reader knows (1 to 5)", 1, 9},
		{"sync op 6", compress(append(preamble(), byte(KindSync), 6, 0, 0, 0, 0)), "sync op 6 is not one this reader knows", 1, 9},
		{"sync op huge", compress(append(preamble(), byte(KindSync), 0x80, 0x02, 0, 0, 0, 0)), "sync op 256 is not one", 1, 9},
		{"sync cut short", compress(append(preamble(), byte(KindSync), 1, 0, 0, 0)), "ends inside a record", 1, 9},
		{"sync extended", compress(append(preamble(), tagExtended|byte(KindSync), 1, 0, 0, 0, 0)), "unknown record tag 137", 1, 9},
		{"kernelalike first", compress(append(preamble(), tagKernelAlike, 0, 1)), "declared alike the one before it, but none is before it", 1, 9},
		{"launchalike with no parent before it", compress(append(preamble(), tagLaunchAlike, 1, 0, 0, 0, 0, 0, 0)), "coded against the last device launch's parent, but no launch before it has one", 1, 9},
		{"launched tag of another kind", compress(append(preamble(), tagLaunched|byte(KindKernel), 1)), "unknown record tag 68", 1, 9},
		{"meta out of order", compress(append(preamble(), byte(KindHeader), 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 1, 'b', 0, 1, 'a', 0)), "not in ascending order", 1, 9},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, _ := readToError(t, tt.data)
			if !strings.Contains(e.Msg, tt.want) || e.Record != tt.record || e.Offset != tt.offset {
				t.Errorf("got %q (record %d, offset %d), want %q at record %d, offset %d", e, e.Record, e.Offset, tt.want, tt.record, tt.offset)
			}
		})
	}
}

// failingReader returns data and then an I/O error.
type failingReader struct {
	data []byte
	err  error
}

func (f *failingReader) Read(p []byte) (int, error) {
	if len(f.data) == 0 {
		return 0, f.err
	}
	n := copy(p, f.data)
	f.data = f.data[n:]
	return n, nil
}

func TestBinaryReadError(t *testing.T) {
	data := encodeBinary(t, syntheticCTAs(1, 100000))
	r, err := NewReader(&failingReader{data: data[:len(data)/2], err: errors.New("disk on fire")})
	if err != nil {
		t.Fatal(err)
	}
	_, err = ReadAll(r)
	var te *Error
	if !errors.As(err, &te) || !strings.Contains(te.Msg, "read error: disk on fire") {
		t.Fatalf("got %v, want a *Error saying read error: disk on fire", err)
	}
}

func TestWriterRefusesUnencodable(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	refused := []Record{
		nil,
		(*CTA)(nil),
		&Kernel{Name: "bad\xff"},
		&Buffer{Name: strings.Repeat("x", maxStringLen+1)},
		&Pages{R: make([]uint64, maxListLen+1)},
		&Sync{T: 5},
		&Sync{Op: numSyncOps},
		(*Sync)(nil),
	}
	for _, rec := range refused {
		err := w.Write(rec)
		var te *Error
		if !errors.As(err, &te) || te.Record != 1 {
			t.Errorf("Write(%T) = %v, want a *Error for record 1", rec, err)
		}
	}
	good := &CTA{Kernel: 3, CTA: 9, Cycles: 5}
	if err := w.Write(good); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(good); err == nil {
		t.Error("Write after Close succeeded")
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
	if got := decodeBinary(t, buf.Bytes()); !reflect.DeepEqual(got, []Record{good}) {
		t.Errorf("stream holds %#v, want only the good record", got)
	}
}

// failingWriter accepts n bytes and then fails.
type failingWriter struct{ n int }

func (f *failingWriter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		return 0, errors.New("disk full")
	}
	f.n -= len(p)
	return len(p), nil
}

func TestWriterIOErrorIsSticky(t *testing.T) {
	w := NewWriter(&failingWriter{n: 10})
	var err error
	for _, rec := range syntheticCTAs(1, 200000) {
		if err = w.Write(rec); err != nil {
			break
		}
	}
	if err == nil {
		err = w.Close()
	}
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("got %v, want disk full", err)
	}
	if again := w.Close(); again == nil {
		t.Error("Close after an I/O error succeeded")
	}
}

// Demand cta records (insts, dram_bytes) decode to what was written on the
// reader's fast path too (ctaFast, taken while the buffer surely holds a
// whole record) and on the general one near the buffer's end: values of
// one to ten bytes, with and without warp_cycles.
func TestBinaryDemandCTAsRoundTrip(t *testing.T) {
	const n = 20000
	recs := []Record{
		&Header{Version: Version, ClockMHz: 706, Source: "demand"},
		&Kernel{ID: 1, Name: "k", Grid: [3]uint32{n, 1, 1}, Block: [3]uint32{96, 1, 1}},
		&Launch{Kernel: 1},
	}
	for i := 0; i < n; i++ {
		c := &CTA{Kernel: 1, CTA: uint64(i), Cycles: int64(100 + i), Insts: uint64(i) << (i % 50), DRAMBytes: uint64(n-i) << (i % 40)}
		if i%3 != 0 {
			c.WarpCycles = []int64{c.Cycles, c.Cycles - int64(i%7), int64(i % 5)}
		}
		recs = append(recs, c)
	}
	roundTrip(t, recs)
}

// Kernel records of the name read last, with the buffer holding enough
// after them, take kernelFast: they decode as the general path does,
// fields at their limits included, and one with a field out of range is
// refused with the general path's error at its record.
func TestKernelFast(t *testing.T) {
	var recs []Record
	for i, g := range []uint32{1, 127, 128, 16383, 16384, 1<<21 - 1, 1 << 21, math.MaxUint32} {
		recs = append(recs, &Kernel{ID: uint64(i) << (7 * i), Name: "child", Grid: [3]uint32{g, 1, g}, Block: [3]uint32{32, uint32(i + 1), 1}, Regs: 255 - i, Smem: int64(i)*-1000 + 1})
	}
	recs = append(recs, &Kernel{ID: 1<<64 - 1, Name: "other", Grid: [3]uint32{1, 1, 1}, Block: [3]uint32{1, 1, 1}})
	// Names of 7, 8, 15 and 16 bytes and longer, each twice in a row
	// (the second from kernelFast), and names that differ from the one
	// before only in their last byte.
	for _, name := range []string{"seven_7", "eight_88", "fifteen_bytes15", "fifteen_bytes1x", "sixteen_bytes_16", "sixteen_bytes_1x", strings.Repeat("long", 40)} {
		for range 2 {
			recs = append(recs, &Kernel{ID: uint64(len(recs)), Name: name, Grid: [3]uint32{1, 2, 3}, Block: [3]uint32{4, 5, 6}})
		}
	}
	recs = append(recs, recs...) // a name read last for the first ones again
	roundTrip(t, recs)

	kernel := func(name string, fields ...uint64) []byte {
		p := binary.AppendUvarint([]byte{byte(KindKernel), 7}, uint64(len(name)))
		p = append(p, name...)
		for _, f := range fields {
			p = binary.AppendUvarint(p, f)
		}
		return p
	}
	first := kernel("k", 1, 1, 1, 1, 1, 1, 0, 0)
	pad := bytes.Repeat([]byte{0}, 200)
	for _, tt := range []struct {
		name, want string
		second     []byte
	}{
		{"grid", "grid dimension 4294967296 does not fit", kernel("k", 1, 1<<32, 1, 1, 1, 1, 0, 0)},
		{"block", "block dimension 4294967296 does not fit", kernel("k", 1, 1, 1, 1, 1, 1<<32, 0, 0)},
		{"overflow", "varint longer than 64 bits", append(kernel("k", 1, 1, 1, 1, 1, 1, 0), bytes.Repeat([]byte{0xff}, 10)...)},
	} {
		data := append(append(preamble(), first...), tt.second...)
		e, _ := readToError(t, compress(append(data, pad...)))
		if !strings.Contains(e.Msg, tt.want) || e.Record != 2 || e.Offset != int64(len(preamble())+len(first)) {
			t.Errorf("%s: got %q (record %d, offset %d), want %q at record 2, offset %d", tt.name, e, e.Record, e.Offset, tt.want, len(preamble())+len(first))
		}
	}
}

// Kernel records alike (kernelFast's window: the name read last, the
// tail of the record before) decode as written with ids of one to four
// bytes, names of one to fifteen bytes (a nameKey's one or two words)
// and grid x of one to four bytes: those of more than three bytes, and
// the last records, with less than the window after them, take the
// general path.
func TestKernelFastWindow(t *testing.T) {
	var recs []Record
	id := uint64(1)
	for n := 1; n <= 15; n++ {
		name := strings.Repeat("k", n-1) + "x"
		for _, gx := range []uint32{1, 127, 128, 16383, 16384, 1<<21 - 1, 1 << 21} {
			for range 3 {
				recs = append(recs, &Kernel{ID: id, Name: name, Grid: [3]uint32{gx, 2, 1}, Block: [3]uint32{64, 1, 1}, Regs: 16, Smem: 8})
				id += id/3 + 1 // through one to four bytes
				if id >= 1<<28 {
					id = 1
				}
			}
		}
	}
	roundTrip(t, recs)
}

// Cta records with the buffer holding enough after them take ctaFast:
// they decode as the general path does with kernel and CTA deltas of one
// to ten bytes in every pairing (both of a byte are read together), with
// up to maxFastWarps warp_cycles or more, and with cycles, warp deltas,
// insts and DRAM bytes of one to six bytes (past three, or past
// maxFastWarps, the general path).
func TestCTAFast(t *testing.T) {
	var recs []Record
	ids := []uint64{0, 1, 63, 64, 65, 8192, 1 << 20, 1 << 40, 1<<64 - 1}
	for i, k := range ids {
		for j, c := range ids {
			rec := &CTA{Kernel: k, CTA: c, Cycles: int64(i*1000 + j)}
			if n := (i + j) % 5; n > 0 {
				rec.WarpCycles = make([]int64, []int{0, 1, 8, maxFastWarps, maxFastWarps + 1}[n])
				for w := range rec.WarpCycles {
					rec.WarpCycles[w] = rec.Cycles - int64(w)
				}
			}
			// The next CTA of the same kernel: deltas of zero.
			recs = append(recs, rec, &CTA{Kernel: k, CTA: c + 1, Cycles: 5, Insts: uint64(j) << (7 * i), DRAMBytes: 3})
		}
	}
	for i, cy := range []int64{1 << 6, 1 << 13, 1 << 20, 1 << 27, 1 << 34, 1 << 40} {
		rec := &CTA{Kernel: 7, CTA: uint64(i), Cycles: cy, Insts: uint64(cy), DRAMBytes: uint64(cy) << 10}
		if i%2 == 1 { // the first warp the longest, the second far shorter
			rec.WarpCycles = []int64{cy, cy / 2, cy / 2}
		}
		recs = append(recs, rec)
	}
	roundTrip(t, recs)
}

// Launch records with the buffer holding enough after them take
// launchFast: host and device launches decode as the general path does,
// with fields of one to ten bytes, and an after list takes the general
// path; one with unknown flags or a varint past 64 bits is refused with
// the general path's error at its record.
func TestLaunchFast(t *testing.T) {
	var recs []Record
	for i, v := range []int64{0, 1, -64, 63, 64, -8192, 8191, 8192, 1 << 20, -1 << 30, 1 << 40, math.MaxInt64, math.MinInt64} {
		host := &Launch{Kernel: uint64(2 * i), T: v, Stream: uint64(v), Workload: v, InlineCycles: -v}
		if i%4 == 3 {
			host.After = []uint64{uint64(i), 1 << 40}
		}
		recs = append(recs, host, &Launch{
			Kernel:   uint64(2*i+1) << (5 * i),
			Parent:   &Parent{Kernel: uint64(2 * i), CTA: uint64(v), Warp: int(v % 32), Lane: int(v), At: v},
			Workload: v / 3,
			// Every stream kind, with and without creation, by turns.
			DeviceStream: DeviceStream(i % int(numDeviceStreams)), CreatesStream: i%3 == 1,
			Stream: uint64(i % 2 * i),
		}, &Launch{Kernel: uint64(v)}, &Launch{Kernel: 1<<64 - 1, Parent: &Parent{Kernel: uint64(v), CTA: 1 << 63, At: -v}})
	}
	roundTrip(t, recs)

	launch := func(flags byte, fields ...uint64) []byte {
		p := []byte{byte(KindLaunch), flags}
		for _, f := range fields {
			p = binary.AppendUvarint(p, f)
		}
		return p
	}
	first := launch(launchHasT|launchHasStream, 0, 8, 1)
	pad := bytes.Repeat([]byte{0}, 200)
	for _, tt := range []struct {
		name, want string
		second     []byte
	}{
		{"flags", "launch flags 0x80 has unknown bits", launch(0x80, 1, 0)},
		{"overflow", "varint longer than 64 bits", append(launch(launchHasParent, 0, 0, 0, 0, 0), bytes.Repeat([]byte{0xff}, 10)...)},
	} {
		data := append(append(preamble(), first...), tt.second...)
		e, _ := readToError(t, compress(append(data, pad...)))
		if !strings.Contains(e.Msg, tt.want) || e.Record != 2 || e.Offset != int64(len(preamble())+len(first)) {
			t.Errorf("%s: got %q (record %d, offset %d), want %q at record 2, offset %d", tt.name, e, e.Record, e.Offset, tt.want, len(preamble())+len(first))
		}
	}
}

// The committed sample, read and written again, is the same file byte
// for byte (its stream, its host index): a change to how the Writer
// writes what it holds (BFS: the short forms of its children) shows
// here, and the sample is then written anew with its records unchanged
// (replay dump of both is the same).
func TestSampleRewritesUnchanged(t *testing.T) {
	const sample = "../samples/bfs-kron12.trace.zst"
	want, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	recs := decodeBinary(t, want)
	for _, r := range recs {
		if r.Kind() == KindSync {
			t.Fatalf("%s has a sync record", sample)
		}
	}
	if got := encodeBinary(t, recs); !bytes.Equal(got, want) {
		t.Errorf("%s rewritten is %d bytes, not the committed %d", sample, len(got), len(want))
	}
}
