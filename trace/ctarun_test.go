package trace

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// readRuns reads a binary trace through a Validator as a replay does:
// Next, and after each cta record CTAs for the run after it (batch
// records at a time; 0: Next alone), and with plain PlainCTAs first,
// for the CTAs after the last record's. It lists each record with the
// position Pos gives, and the error the read ends at.
func readRuns(t testing.TB, data []byte, batch int, plain bool) (recs []string, err error) {
	t.Helper()
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	v := NewValidator(r)
	dst := make([]CTA, batch)
	plains := make([]PlainCTA, batch)
	warps := make([]int64, batch*maxFastWarps)
	for {
		rec, err := v.Next()
		if err == io.EOF {
			return recs, nil
		}
		if err != nil {
			return recs, err
		}
		rn, off := r.Pos()
		recs = append(recs, fmt.Sprintf("%d@%d %s", rn, off, show(rec)))
		c, ok := rec.(*CTA)
		kernel, last := c.kernelAndCTA(ok)
		for ok && batch > 0 {
			if plain {
				n := v.PlainCTAs(kernel, last+1, plains)
				for i, p := range plains[:n] {
					c := CTA{Kernel: kernel, CTA: last + 1 + uint64(i), Cycles: p.Cycles, Insts: p.Insts, DRAMBytes: p.DRAMBytes}
					recs = append(recs, "plain "+show(&c))
				}
				if last += uint64(n); n > 0 {
					continue
				}
			}
			n, err := v.CTAs(kernel, dst, warps)
			for i := range dst[:n] {
				c := dst[i]
				if len(c.WarpCycles) == 0 {
					c.WarpCycles = nil // as Next decodes none
				}
				recs = append(recs, "run "+show(&c))
				last = c.CTA
			}
			if err != nil {
				return recs, err
			}
			if n == 0 {
				break
			}
		}
	}
}

// kernelAndCTA is c's kernel and CTA where ok, as a type assertion that
// gave c reports.
func (c *CTA) kernelAndCTA(ok bool) (kernel, cta uint64) {
	if !ok {
		return 0, 0
	}
	return c.Kernel, c.CTA
}

// inRun is a record readRuns listed, without the mark of the way it was
// read in a run ("run" or "plain", "" for Next's).
func inRun(rec string) (string, string) {
	for _, how := range []string{"run", "plain"} {
		if r, ok := strings.CutPrefix(rec, how+" "); ok {
			return r, how
		}
	}
	return rec, ""
}

// show is rec's type and fields in JSON.
func show(rec Record) string {
	b, err := json.Marshal(rec)
	if err != nil {
		panic(err)
	}
	return fmt.Sprintf("%T %s", rec, b)
}

// runTrace is a host kernel of n CTAs, each with two warps, and its cta
// records; edit changes them before they are written.
func runTrace(n int, edit func([]Record) []Record) []Record {
	recs := []Record{
		&Header{Version: 1, ClockMHz: 706},
		&Kernel{ID: 1, Name: "k", Grid: [3]uint32{uint32(n), 1, 1}, Block: [3]uint32{64, 1, 1}},
		&Launch{Kernel: 1, T: 10},
	}
	for i := range n {
		c := int64(1000 + i%300)
		recs = append(recs, &CTA{Kernel: 1, CTA: uint64(i), Cycles: c, WarpCycles: []int64{c - 7, c}})
	}
	if edit != nil {
		recs = edit(recs)
	}
	return recs
}

// plainTrace is runTrace's with no warp_cycles and a demand: plain
// records (PlainCTAs).
func plainTrace(n int, edit func([]Record) []Record) []Record {
	return runTrace(n, func(r []Record) []Record {
		for _, rec := range r[3:] {
			c := rec.(*CTA)
			c.WarpCycles, c.Insts, c.DRAMBytes = nil, uint64(c.Cycles), 8*uint64(c.Cycles)
		}
		if edit != nil {
			r = edit(r)
		}
		return r
	})
}

// changingSizes gives plainTrace's records numbers of one to three bytes,
// changing from record to record, and no demand to every seventh: plain
// records of many shapes (plainShape).
func changingSizes(r []Record) []Record {
	for i, rec := range r[3:] {
		c := rec.(*CTA)
		c.Cycles = []int64{30, 3000, 300000}[i%3] // zigzag: one to three bytes
		c.Insts = min([]uint64{1, 200, 20000}[i/3%3], 4*uint64(c.Cycles))
		c.DRAMBytes = min([]uint64{5, 5000, 500000}[i/9%3], 2048*uint64(c.Cycles))
		if i%7 == 0 {
			c.Insts, c.DRAMBytes = 0, 0
		}
	}
	return r
}

// CTAs (and PlainCTAs before it, runs of -64) gives the records,
// positions and errors Next alone gives: for long
// runs across the read buffer's end, runs that stop at another kind of
// record or another kernel, and runs broken by a record that breaks a
// rule (reported at that record's position).
func TestCTARunsReadAsNext(t *testing.T) {
	cases := map[string][]Record{
		"long run": runTrace(5000, nil),
		"demand": runTrace(300, func(r []Record) []Record {
			for _, rec := range r[3:] {
				rec.(*CTA).Insts, rec.(*CTA).DRAMBytes = 4000, 1<<16
			}
			return r
		}),
		"demand over the bound": runTrace(300, func(r []Record) []Record {
			r[150].(*CTA).Insts = 1 << 20
			return r
		}),
		// More than three bytes, and 2^53 (keeps leaves both to Next).
		"demand of more than three bytes": runTrace(300, func(r []Record) []Record {
			r[150].(*CTA).Insts, r[150].(*CTA).DRAMBytes = 1<<53+1, 1<<60
			return r
		}),
		"no warps": runTrace(200, func(r []Record) []Record {
			for _, rec := range r[3:] {
				rec.(*CTA).WarpCycles = nil
			}
			return r
		}),
		"a second cta record": runTrace(400, func(r []Record) []Record {
			r[250].(*CTA).CTA = 100
			return r
		}),
		"cycles not the longest warp": runTrace(400, func(r []Record) []Record {
			r[123].(*CTA).Cycles++
			return r
		}),
		"a negative warp": runTrace(400, func(r []Record) []Record {
			r[123].(*CTA).WarpCycles[0] = -1
			return r
		}),
		"outside the grid": runTrace(400, func(r []Record) []Record {
			r[402].(*CTA).CTA = 400
			return r
		}),
		"warp count": runTrace(400, func(r []Record) []Record {
			r[77].(*CTA).WarpCycles = []int64{r[77].(*CTA).Cycles}
			return r
		}),
		"missing CTA": runTrace(400, func(r []Record) []Record {
			return append(r[:200], r[201:]...)
		}),
		"page records between": runTrace(400, func(r []Record) []Record {
			out := append([]Record{r[0], &Buffer{ID: 1, Bytes: 1 << 20, Role: RoleInput}}, r[1:100]...)
			out = append(out, &Pages{Kernel: 1, CTA: 96, Buffer: 1, R: []uint64{1}, At: 5000})
			return append(out, r[100:]...)
		}),
		"plain": plainTrace(5000, nil),
		"plain, negative cycles": plainTrace(400, func(r []Record) []Record {
			r[300].(*CTA).Cycles = -3
			return r
		}),
		"plain, demand over the bound": plainTrace(400, func(r []Record) []Record {
			r[150].(*CTA).Insts = 1 << 20
			return r
		}),
		"plain, a second cta record": plainTrace(400, func(r []Record) []Record {
			r[250].(*CTA).CTA = 100
			return r
		}),
		"plain, outside the grid": plainTrace(400, func(r []Record) []Record {
			r[402].(*CTA).CTA = 400
			return r
		}),
		"plain, missing CTA": plainTrace(400, func(r []Record) []Record {
			return append(r[:200], r[201:]...)
		}),
		"plain, among others": plainTrace(600, func(r []Record) []Record {
			r[100].(*CTA).Cycles = 1 << 22 // more than three bytes
			r[200].(*CTA).WarpCycles = []int64{1, r[200].(*CTA).Cycles}
			r[300].(*CTA).Insts, r[300].(*CTA).DRAMBytes = 0, 0
			return r
		}),
		"plain, of changing sizes": plainTrace(600, changingSizes),
		"two kernels": append(runTrace(300, nil),
			&Kernel{ID: 2, Name: "k2", Grid: [3]uint32{300, 1, 1}, Block: [3]uint32{32, 1, 1}},
			&Launch{Kernel: 2, T: 20, Stream: 1},
			&CTA{Kernel: 2, CTA: 0, Cycles: 5}, &CTA{Kernel: 2, CTA: 1, Cycles: 7}),
		"fixture": fixture(t, "valid.jsonl"),
	}
	for name, recs := range cases {
		data := encodeBinary(t, recs)
		want, wantErr := readRuns(t, data, 0, false)
		for _, batch := range []int{1, 3, 64, -64} {
			got, gotErr := readRuns(t, data, max(batch, -batch), batch < 0)
			if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
				t.Errorf("%s, runs of %d: error %v, Next alone %v", name, batch, gotErr, wantErr)
			}
			if len(got) != len(want) {
				t.Errorf("%s, runs of %d: %d records, Next alone %d", name, batch, len(got), len(want))
				continue
			}
			runs, plains := 0, 0
			for i := range got {
				g, how := inRun(got[i])
				w := want[i]
				if how != "" {
					runs++
					w = w[bytes.IndexByte([]byte(w), ' ')+1:]
				}
				if how == "plain" {
					plains++
				}
				if g != w {
					t.Errorf("%s, runs of %d: record %d\n got %s\nwant %s", name, batch, i, got[i], want[i])
					break
				}
			}
			if runs == 0 && name != "fixture" {
				t.Errorf("%s, runs of %d: no record came in a run", name, batch)
			}
			if strings.HasPrefix(name, "plain") && batch < 0 && plains < len(got)/3 {
				t.Errorf("%s, runs of %d: %d of %d records plain", name, batch, plains, len(got))
			}
		}
		valid := map[string]bool{"fixture": true, "page records between": true, "two kernels": true, "long run": true,
			"demand": true, "no warps": true, "plain": true, "plain, among others": true, "plain, of changing sizes": true}
		if !valid[name] && wantErr == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// The run's records are those Next decodes, field for field, and all
// but the last few hundred bytes' come in runs.
func TestCTARunFields(t *testing.T) {
	want := runTrace(2000, nil)
	r, err := NewReader(bytes.NewReader(encodeBinary(t, want)))
	if err != nil {
		t.Fatal(err)
	}
	v := NewValidator(r)
	dst := make([]CTA, 100)
	warps := make([]int64, 100*maxFastWarps)
	var got []Record
	inRuns := 0
	for {
		rec, err := v.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, rec)
		for c, ok := rec.(*CTA); ok; {
			n, err := v.CTAs(c.Kernel, dst, warps)
			if err != nil {
				t.Fatal(err)
			}
			for i := range dst[:n] {
				c := dst[i]
				c.WarpCycles = slices.Clone(c.WarpCycles)
				got = append(got, &c)
			}
			inRuns += n
			if n == 0 {
				break
			}
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("records differ from those written")
	}
	if inRuns < 1950 {
		t.Errorf("%d of 2000 cta records in runs, want all but the last few", inRuns)
	}
}

// TestCTARunRepeatsShareWarps holds a run's records that repeat the one
// before them byte for byte to that one's warp_cycles, the same slice,
// which takes no room of warps: with RunWarps of room past the first
// record's two, a run of nine reads all nine (where each took room of
// its own, it read two).
func TestCTARunRepeatsShareWarps(t *testing.T) {
	recs := runTrace(200, func(recs []Record) []Record {
		for _, r := range recs[3:] {
			r.(*CTA).Cycles, r.(*CTA).WarpCycles = 500, []int64{493, 500}
		}
		return recs
	})
	r, err := NewReader(bytes.NewReader(encodeBinary(t, recs)))
	if err != nil {
		t.Fatal(err)
	}
	v := NewValidator(r)
	for range 4 { // the header, kernel, launch and CTA 0
		if _, err := v.Next(); err != nil {
			t.Fatal(err)
		}
	}
	dst, warps := make([]CTA, 9), make([]int64, RunWarps+2)
	n, err := v.CTAs(1, dst, warps)
	if err != nil || n != 9 {
		t.Fatalf("CTAs = %d, %v; want all 9 records after CTA 0", n, err)
	}
	for i, c := range dst[:n] {
		if c.CTA != uint64(i+1) || c.Cycles != 500 || !slices.Equal(c.WarpCycles, []int64{493, 500}) {
			t.Fatalf("record %d = %+v, want CTA %d of 500 cycles, warps [493 500]", i, c, i+1)
		}
		if &c.WarpCycles[0] != &warps[0] {
			t.Errorf("record %d's warp_cycles are not the first record's, in warps", i)
		}
	}
	if got := usedWarps(dst[:n]); got != 2 {
		t.Errorf("usedWarps = %d, want 2: the first record's alone", got)
	}
}

// FuzzCTARuns reads arbitrary input with Next alone and with CTAs after
// each cta record, as TestCTARunsReadAsNext does: the records, positions
// and error must be the same. Input without the zstd magic is compressed
// first, as in FuzzBinaryReader, and read a second time with padding after
// it (fuzzStreams), so that its cta records come in runs up to its end.
//
// The seeds are small (a run of 12 records, 136 bytes) because the fuzz
// engine minimises each input that finds new coverage, in a number of
// executions quadratic in its length and for up to a minute: seeds of 600
// records (5 KB) kept both workers minimising, at about one input a second.
// Long runs are TestCTARunsReadAsNext's.
func FuzzCTARuns(f *testing.F) {
	for _, recs := range [][]Record{
		runTrace(12, nil),
		runTrace(12, func(r []Record) []Record { r[10].(*CTA).CTA = 5; return r }),
		plainTrace(12, func(r []Record) []Record { r[10].(*CTA).Cycles = -5; return r }),
		plainTrace(12, changingSizes),
		fixture(f, "valid.jsonl"),
	} {
		f.Add(decompress(f, encodeBinary(f, recs)))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, data := range fuzzStreams(data) {
			want, wantErr := readRuns(t, data, 0, false)
			for _, batch := range []int{3, 64, -3, -64} {
				got, gotErr := readRuns(t, data, max(batch, -batch), batch < 0)
				if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
					t.Fatalf("runs of %d: error %v, Next alone %v", batch, gotErr, wantErr)
				}
				if len(got) != len(want) {
					t.Fatalf("runs of %d: %d records, Next alone %d", batch, len(got), len(want))
				}
				for i := range got {
					g, how := inRun(got[i])
					w := want[i]
					if how != "" {
						w = w[strings.IndexByte(w, ' ')+1:]
					}
					if g != w {
						t.Fatalf("runs of %d: record %d\n got %s\nwant %s", batch, i, got[i], want[i])
					}
				}
			}
		}
	})
}

// fuzzStreams is the binary traces a fuzz target reads for its input
// data: data itself if it starts with the zstd magic; else data
// compressed, and data and then ctaRoom+1 zero bytes (kind 0: an error
// there) compressed. A cta record is read in a run (CTAs, PlainCTAs,
// Child) only with more than ctaRoom bytes after its start in the read
// buffer, so without the padding a small input's records never are.
func fuzzStreams(data []byte) [][]byte {
	if bytes.HasPrefix(data, []byte(zstdMagic)) {
		return [][]byte{data}
	}
	padded := append(data[:len(data):len(data)], make([]byte, ctaRoom+1)...)
	return [][]byte{compress(data), compress(padded)}
}

// A Prefetcher over a Validator takes its runs of cta records the fast
// way into its batches: the records and the error are Next's.
func TestPrefetcherReadsRuns(t *testing.T) {
	for name, recs := range map[string][]Record{
		"long run": runTrace(5000, nil),
		"a second cta record": runTrace(3000, func(r []Record) []Record {
			r[2500].(*CTA).CTA = 100
			return r
		}),
	} {
		data := encodeBinary(t, recs)
		want, wantErr := readRuns(t, data, 0, false)
		r, err := NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		SetReadOptions(r, ReadOptions{ReuseRecords: true, ReuseWarpCycles: true})
		p := NewPrefetcher(NewValidator(r))
		var got []string
		for {
			rec, err := p.Next()
			if err != nil {
				if err != io.EOF || wantErr != nil {
					if fmt.Sprint(err) != fmt.Sprint(wantErr) {
						t.Errorf("%s: error %v, Next alone %v", name, err, wantErr)
					}
				}
				break
			}
			got = append(got, show(rec))
		}
		p.Close()
		if len(got) != len(want) {
			t.Fatalf("%s: %d records, Next alone %d", name, len(got), len(want))
		}
		for i := range got {
			if w := want[i][strings.IndexByte(want[i], ' ')+1:]; got[i] != w {
				t.Fatalf("%s: record %d\n got %s\nwant %s", name, i, got[i], w)
			}
		}
	}
}
