package trace

import (
	"bytes"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"
)

// A Reader told to skip kinds returns exactly the other records, unchanged,
// and keeps counting records for its positions.
func TestSkip(t *testing.T) {
	all := readValidFixture(t)
	r := binaryReader(t, all)
	r.SetOptions(ReadOptions{Skip: []Kind{KindCTA, KindKernel, KindAccess}})
	var want []Record
	var wantNums []int64
	for i, rec := range all {
		switch rec.Kind() {
		case KindCTA, KindKernel, KindAccess:
		default:
			want = append(want, rec)
			wantNums = append(wantNums, int64(i+1))
		}
	}
	for i := range want {
		got, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want[i]) {
			t.Errorf("record %d: got %#v, want %#v", i, got, want[i])
		}
		if n, _ := r.Pos(); n != wantNums[i] {
			t.Errorf("record %d: Pos says %d, want %d", i, n, wantNums[i])
		}
	}
	if _, err := r.Next(); err != io.EOF {
		t.Errorf("after the last record: %v, want io.EOF", err)
	}
}

// Skipping still detects a truncated stream.
func TestSkipTruncated(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	w.Write(&Header{Version: Version, ClockMHz: 706})
	w.Write(&Kernel{ID: 1, Name: "k", Grid: [3]uint32{1 << 16, 1, 1}, Block: [3]uint32{32, 1, 1}})
	w.Write(&Launch{Kernel: 1})
	for i := uint64(0); i < 1<<16; i++ {
		w.Write(&CTA{Kernel: 1, CTA: i, Cycles: int64(i * 7919 % 10007)})
	}
	w.Close()
	data := buf.Bytes()[:buf.Len()/2]
	r, err := NewReader(bytes.NewReader(data))
	if err == nil {
		r.SetOptions(ReadOptions{Skip: []Kind{KindCTA}})
		for err == nil {
			_, err = r.Next()
		}
	}
	if err == io.EOF || !strings.Contains(err.Error(), "truncated") {
		t.Fatalf("got %v, want a truncation error", err)
	}
}

// binaryReader writes recs in the binary form and returns a Reader over
// them.
func binaryReader(t *testing.T, recs []Record) *Reader {
	t.Helper()
	r, err := NewReader(bytes.NewReader(encodeBinary(t, recs)))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func readValidFixture(t *testing.T) []Record {
	t.Helper()
	f, err := os.Open("testdata/valid.jsonl")
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

// SkipDeviceLaunches drops device launches and keeps host launches and
// every other record, unchanged.
func TestSkipDeviceLaunches(t *testing.T) {
	all := readValidFixture(t)
	r := binaryReader(t, all)
	r.SetOptions(ReadOptions{SkipDeviceLaunches: true})
	got, err := ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	var want []Record
	devices := 0
	for _, rec := range all {
		if l, ok := rec.(*Launch); ok && !l.Host() {
			devices++
			continue
		}
		want = append(want, rec)
	}
	if devices == 0 {
		t.Fatal("the fixture has no device launch to skip")
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %d records, want %d (all but %d device launches)", len(got), len(want), devices)
	}
}

// With ReuseRecords, each record read is the same as without, copied
// before the next Next; launch and cta records share storage.
func TestReuseRecords(t *testing.T) {
	all := readValidFixture(t)
	r := binaryReader(t, all)
	r.SetOptions(ReadOptions{ReuseRecords: true})
	var prevCTA *CTA
	readEach(t, r, all, func(i int, got Record) {
		if c, ok := got.(*CTA); ok {
			if prevCTA != nil && c != prevCTA {
				t.Errorf("record %d: cta records are not reused", i+1)
			}
			prevCTA = c
		}
	})
}

// readEach reads len(want) records from r, each equal to its want (read
// before the next is), and hands each to check.
func readEach(t *testing.T, r *Reader, want []Record, check func(i int, got Record)) {
	t.Helper()
	for i, w := range want {
		got, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, w) {
			t.Fatalf("record %d: got %#v, want %#v", i+1, got, w)
		}
		check(i, got)
	}
}

// With ReuseWarpCycles, every cta record's warp_cycles are the same as
// without, decoded into one slice, on both the fast path and the general
// one (records with demand).
func TestReuseWarpCycles(t *testing.T) {
	const ctas = 200 // enough bytes ahead of the first records for the fast path
	all := []Record{
		&Header{Version: Version, ClockMHz: 1000},
		&Kernel{ID: 1, Name: "k", Grid: [3]uint32{ctas, 1, 1}, Block: [3]uint32{64, 1, 1}},
		&Launch{Kernel: 1},
	}
	for i := range int64(ctas) {
		c := &CTA{Kernel: 1, CTA: uint64(i), Cycles: 9 + i, WarpCycles: []int64{9 + i, 4}}
		switch i % 3 {
		case 1:
			c.Insts, c.DRAMBytes = 20, 64
		case 2:
			c.WarpCycles = nil
		}
		all = append(all, c)
	}
	r := binaryReader(t, all)
	r.SetOptions(ReadOptions{ReuseWarpCycles: true})
	var first *int64
	readEach(t, r, all, func(i int, got Record) {
		if c, ok := got.(*CTA); ok && len(c.WarpCycles) > 0 {
			if first == nil {
				first = &c.WarpCycles[0]
			} else if &c.WarpCycles[0] != first {
				t.Errorf("record %d: warp_cycles are not reused", i+1)
			}
		}
	})
	if first == nil {
		t.Fatal("no record had warp_cycles")
	}
}

// Skipped cta records keep the delta coding of the records after them, on
// the fast path (skipCTAFast, taken while the buffer surely holds a whole
// record) and the general one: a long tree trace whose cta records have
// warp_cycles and, every other one, a demand, read with the cta records
// skipped, yields every other record as a full read does, launches' parent
// refs included.
func TestSkipCTAsKeepsDeltas(t *testing.T) {
	all := treeTrace(20000)
	for i, rec := range all {
		if c, ok := rec.(*CTA); ok && i%2 == 0 {
			c.Insts, c.DRAMBytes = uint64(i)<<(i%40), uint64(c.Cycles)*7
		}
	}
	r := binaryReader(t, all)
	r.SetOptions(ReadOptions{Skip: []Kind{KindCTA}})
	wantKept(t, r, all, func(rec Record) bool { return rec.Kind() != KindCTA })
}

// wantKept reads r to its end and fails unless it yields exactly the
// records of all that keep accepts, in order.
func wantKept(t *testing.T, r *Reader, all []Record, keep func(Record) bool) {
	t.Helper()
	n := 0
	for _, want := range all {
		if !keep(want) {
			continue
		}
		got, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("record %d after skipping: got %#v, want %#v", n, got, want)
		}
		n++
	}
	if _, err := r.Next(); err != io.EOF {
		t.Errorf("after the last record: %v, want io.EOF", err)
	}
}

// Skipped kernel records and device launches keep the delta coding of the
// records after them on the fast paths too (skipKernelFast,
// skipDeviceLaunchFast): the cta records after each launch are coded
// against its parent ref, and the host launch after the trees against the
// last device launch's kernel.
func TestSkipLaunchesKeepsDeltas(t *testing.T) {
	all := append(treeTrace(20000), &Launch{Kernel: 20002, T: 30, Stream: 2})
	r := binaryReader(t, all)
	r.SetOptions(ReadOptions{Skip: []Kind{KindKernel}, SkipDeviceLaunches: true})
	wantKept(t, r, all, func(rec Record) bool {
		l, ok := rec.(*Launch)
		return rec.Kind() != KindKernel && !(ok && !l.Host())
	})
}
