package trace

import (
	"bytes"
	"io"
	"sync"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// benchKernelCTAs is the grid size of synthetic kernels: a mid-sized grid,
// so kernel changes are rare as in real traces.
const benchKernelCTAs = 4096

// cycleGen yields deterministic pseudo-random CTA costs (xorshift64).
type cycleGen uint64

func (g *cycleGen) next() int64 {
	x := uint64(*g)
	x ^= x << 13
	x ^= x >> 7
	x ^= x << 17
	*g = cycleGen(x)
	return 1000 + int64(x%4000)
}

// syntheticCTA is the i-th CTA record of a synthetic trace whose kernels are
// numbered from first; with warps > 0 it has that many warp_cycles.
func syntheticCTA(first uint64, i int, warps int, g *cycleGen) *CTA {
	c := &CTA{Kernel: first + uint64(i/benchKernelCTAs), CTA: uint64(i % benchKernelCTAs)}
	if warps == 0 {
		c.Cycles = g.next()
		return c
	}
	c.WarpCycles = make([]int64, warps)
	for w := range c.WarpCycles {
		c.WarpCycles[w] = g.next()
		c.Cycles = max(c.Cycles, c.WarpCycles[w])
	}
	return c
}

// syntheticCTAs returns n cta records of kernels numbered from first.
func syntheticCTAs(first uint64, n int) []Record {
	g := cycleGen(first + 1)
	recs := make([]Record, n)
	for i := range recs {
		recs[i] = syntheticCTA(first, i, 0, &g)
	}
	return recs
}

// syntheticTrace writes a valid trace of n CTAs to sink: a header, then for
// each kernel its declaration, a host launch and its cta records, with warps
// warp_cycles per CTA. It returns the number of records written.
func syntheticTrace(tb testing.TB, sink Sink, n, warps int) int {
	tb.Helper()
	write := func(r Record) {
		if err := sink.Write(r); err != nil {
			tb.Fatal(err)
		}
	}
	write(&Header{Version: Version, ClockMHz: 706, Source: "bench"})
	records := 1
	g := cycleGen(1)
	block := uint32(32 * max(warps, 1))
	for i := 0; i < n; i++ {
		if i%benchKernelCTAs == 0 {
			id := uint64(i / benchKernelCTAs)
			ctas := min(benchKernelCTAs, n-i)
			write(&Kernel{ID: id, Name: "bench", Grid: [3]uint32{uint32(ctas), 1, 1}, Block: [3]uint32{block, 1, 1}})
			write(&Launch{Kernel: id, T: int64(i)})
			records += 2
		}
		write(syntheticCTA(0, i, warps, &g))
		records++
	}
	return records
}

// sliceSink collects records.
type sliceSink struct{ recs []Record }

func (s *sliceSink) Write(r Record) error {
	s.recs = append(s.recs, r)
	return nil
}

// sliceSource yields a slice's records.
type sliceSource struct {
	recs []Record
	i    int
}

func (s *sliceSource) Next() (Record, error) {
	if s.i == len(s.recs) {
		return nil, io.EOF
	}
	s.i++
	return s.recs[s.i-1], nil
}

type benchTrace struct {
	data    []byte // compressed
	raw     int    // decompressed bytes
	records int
}

var benchTraces sync.Map // benchShape → *benchTrace

// benchShape is a bench trace's CTAs: warp_cycles each, and whether they
// record a demand (insts and dram_bytes, as the generators write).
type benchShape struct {
	warps  int
	demand bool
}

// demandSink gives every cta record a demand on its way to Sink.
type demandSink struct{ Sink }

func (d demandSink) Write(r Record) error {
	if c, ok := r.(*CTA); ok {
		c.Insts, c.DRAMBytes = uint64(c.Cycles)/3, uint64(c.Cycles)*5
	}
	return d.Sink.Write(r)
}

// binaryBenchTrace builds (once per shape) a binary trace of 1M CTAs.
func binaryBenchTrace(b *testing.B, shape benchShape) *benchTrace {
	if t, ok := benchTraces.Load(shape); ok {
		return t.(*benchTrace)
	}
	var buf bytes.Buffer
	w := NewWriter(&buf)
	var sink Sink = w
	if shape.demand {
		sink = demandSink{w}
	}
	n := syntheticTrace(b, sink, 1<<20, shape.warps)
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	dec, _ := zstd.NewReader(nil)
	raw, err := dec.DecodeAll(buf.Bytes(), nil)
	if err != nil {
		b.Fatal(err)
	}
	t := &benchTrace{data: buf.Bytes(), raw: len(raw), records: n}
	benchTraces.Store(shape, t)
	return t
}

// benchShapes are the cta-record traces the decode and skip benchmarks
// read: bare, with a warp list, and with demand.
var benchShapes = []struct {
	name  string
	shape benchShape
}{{"cta", benchShape{}}, {"cta+8warps", benchShape{warps: 8}}, {"cta+2warps+demand", benchShape{warps: 2, demand: true}}}

// benchRead reads the binary trace data to its end and returns how many
// records it yielded; hostPass skips what the replay's host pass skips
// (every record but host launches).
func benchRead(b *testing.B, data []byte, hostPass bool) int {
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		b.Fatal(err)
	}
	if hostPass {
		r.SetOptions(ReadOptions{Skip: []Kind{KindCTA, KindKernel, KindAccess, KindPages, KindBuffer}, SkipDeviceLaunches: true})
	}
	n := 0
	for ; ; n++ {
		if _, err := r.Next(); err == io.EOF {
			return n
		} else if err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeBinary(b *testing.B) {
	eachShape(b, func(b *testing.B, tr *benchTrace) {
		for i := 0; i < b.N; i++ {
			if n := benchRead(b, tr.data, false); n != tr.records {
				b.Fatalf("read %d records, want %d", n, tr.records)
			}
		}
		s := b.Elapsed().Seconds()
		b.ReportMetric(float64(tr.records)*float64(b.N)/s, "records/s")
		b.ReportMetric(float64(tr.raw)*float64(b.N)/s/1e6, "raw-MB/s")
		b.ReportMetric(float64(tr.raw)/float64(tr.records), "raw-B/record")
		b.ReportMetric(float64(len(tr.data))/float64(tr.records), "zst-B/record")
	})
}

// BenchmarkSkipBinary is the replay's host pass over the traces of
// BenchmarkDecodeBinary: every record but host launches skipped.
func BenchmarkSkipBinary(b *testing.B) {
	eachShape(b, func(b *testing.B, tr *benchTrace) {
		for i := 0; i < b.N; i++ {
			benchRead(b, tr.data, true)
		}
		b.ReportMetric(float64(tr.records)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
	})
}

// eachShape runs bench as a sub-benchmark over each of benchShapes'
// traces, its timer started once the trace is built.
func eachShape(b *testing.B, bench func(*testing.B, *benchTrace)) {
	for _, bc := range benchShapes {
		b.Run(bc.name, func(b *testing.B) {
			tr := binaryBenchTrace(b, bc.shape)
			b.SetBytes(int64(len(tr.data)))
			b.ReportAllocs()
			b.ResetTimer()
			bench(b, tr)
		})
	}
}

// BenchmarkSkipTree is the replay's host pass over a launch-heavy trace:
// 100K host CTAs, each launching a one-CTA child (treeTrace), so kernel
// declarations and device launches are two thirds of what it skips.
func BenchmarkSkipTree(b *testing.B) {
	recs := treeTrace(100000)
	data := encodeBinary(b, recs)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		benchRead(b, data, true)
	}
	b.ReportMetric(float64(len(recs))*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

func BenchmarkEncodeBinary(b *testing.B) {
	var sink sliceSink
	syntheticTrace(b, &sink, 1<<18, 0)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w := NewWriter(io.Discard)
		for _, r := range sink.recs {
			if err := w.Write(r); err != nil {
				b.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(sink.recs))*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

func BenchmarkDecodeJSONL(b *testing.B) {
	var buf bytes.Buffer
	w := NewJSONLWriter(&buf)
	n := syntheticTrace(b, w, 1<<16, 0)
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		recs, err := ReadAll(NewJSONLReader(bytes.NewReader(buf.Bytes())))
		if err != nil || len(recs) != n {
			b.Fatalf("read %d records, %v; want %d", len(recs), err, n)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

func BenchmarkValidate(b *testing.B) {
	benchValidate(b, func(s Source) Source { return s })
}

// BenchmarkPrefetchValidate is BenchmarkValidate through a Prefetcher:
// records/s is what the consumer sees with validation on another
// goroutine.
func BenchmarkPrefetchValidate(b *testing.B) {
	benchValidate(b, func(s Source) Source { return NewPrefetcher(s) })
}

// benchValidate validates a synthetic trace, read through wrap.
func benchValidate(b *testing.B, wrap func(Source) Source) {
	var sink sliceSink
	syntheticTrace(b, &sink, 1<<18, 8)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		src := wrap(NewValidator(&sliceSource{recs: sink.recs}))
		for {
			if _, err := src.Next(); err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
		if c, ok := src.(io.Closer); ok {
			c.Close()
		}
	}
	b.ReportMetric(float64(len(sink.recs))*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

// BenchmarkValidateBinary reads the traces of BenchmarkDecodeBinary
// through a Validator as the replay does (records reused), Next alone and with the runs of
// cta records taken by CTAs (runLen at a time, the tree reader's).
func BenchmarkValidateBinary(b *testing.B) {
	for _, runs := range []bool{false, true} {
		name := "next"
		if runs {
			name = "runs"
		}
		b.Run(name, func(b *testing.B) {
			eachShape(b, func(b *testing.B, tr *benchTrace) {
				dst, warps := make([]CTA, 64), make([]int64, 64*maxFastWarps)
				for i := 0; i < b.N; i++ {
					r, err := NewReader(bytes.NewReader(tr.data))
					if err != nil {
						b.Fatal(err)
					}
					r.SetOptions(ReadOptions{ReuseRecords: true, ReuseWarpCycles: true})
					v := NewValidator(r)
					n := 0
					for {
						rec, err := v.Next()
						if err == io.EOF {
							break
						} else if err != nil {
							b.Fatal(err)
						}
						n++
						for c, ok := rec.(*CTA); ok && runs; {
							k, err := v.CTAs(c.Kernel, dst, warps)
							if err != nil {
								b.Fatal(err)
							}
							if n += k; k == 0 {
								break
							}
						}
					}
					if n != tr.records {
						b.Fatalf("read %d records, want %d", n, tr.records)
					}
				}
				b.ReportMetric(float64(tr.records)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
			})
		})
	}
}
