package trace

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// readChildren reads a binary trace through a Validator with Next, and,
// where pairs, with Child before each Next, as the replay's tree reader
// does. It lists each record with the position Pos gives (those Child
// reads before its last with their numbers alone: Pos gives the last's),
// and the error the read ends at, and counts the pairs and the first cta
// records read with them. It fails t where Child says a kernel record is
// declared as the kernel record before it (Alike) and it is not.
func readChildren(t testing.TB, data []byte, pairs bool) (recs []string, n, ctas int, err error) {
	t.Helper()
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, 0, 0, err
	}
	v := NewValidator(r)
	var c Child
	var prev Kernel // the kernel record read last
	var run [4]CTA
	var warps [len(run) * RunWarps]int64
	for {
		for pairs {
			before, _ := r.Pos()
			if !v.Child(&c) {
				break
			}
			n++
			h := c.Head()
			if k := &h.Kernel; h.Alike && (k.Name != prev.Name || k.Block != prev.Block || k.Regs != prev.Regs || k.Smem != prev.Smem) {
				t.Errorf("record %d: Child said %s is declared as %s", before+1, show(k), show(&prev))
			}
			prev = h.Kernel
			recs = append(recs, fmt.Sprintf("%d %s", before+1, show(&h.Kernel)))
			rn, off := r.Pos()
			switch {
			case len(c.Records()) > 0:
				recs = append(recs, fmt.Sprintf("%d %s", before+2, show(&h.Launch)))
				last := len(c.Records()) - 1
				if h.Err != nil { // Pos is the record that broke a rule
					for i := range c.Records() {
						recs = append(recs, fmt.Sprintf("%d %s", before+3+int64(i), show(&c.Records()[i])))
					}
				} else {
					checkSame(t, before+3, c.Records(), h.Same)
					for i := range c.Records()[:last] {
						recs = append(recs, fmt.Sprintf("%d %s", before+3+int64(i), show(&c.Records()[i])))
					}
					recs = append(recs, fmt.Sprintf("%d@%d %s", rn, off, show(&c.Records()[last])))
				}
				if h.Err != nil {
					last++
				}
				if rn != before+3+int64(last) {
					t.Errorf("record %d: Child read %d cta records to record %d", before+3, len(c.Records()), rn)
				}
				ctas++
				if h.Err != nil {
					break // Next returns it
				}
				if n, _ := v.CTAs(h.Kernel.ID, run[:], warps[:]); !h.More && n > 0 {
					t.Errorf("record %d: Child said no run follows, CTAs read %d records", rn, n)
				} else {
					for i := range run[:n] {
						recs = append(recs, "run "+show(&run[i]))
					}
				}
			case rn > before+2: // a cta record that broke a rule: Next says so
				recs = append(recs, fmt.Sprintf("%d %s", before+2, show(&h.Launch)))
			default:
				recs = append(recs, fmt.Sprintf("%d@%d %s", rn, off, show(&h.Launch)))
			}
		}
		rec, err := v.Next()
		if err == io.EOF {
			return recs, n, ctas, nil
		}
		if err != nil {
			return recs, n, ctas, err
		}
		if k, ok := rec.(*Kernel); ok {
			prev = *k
		}
		rn, off := r.Pos()
		recs = append(recs, fmt.Sprintf("%d@%d %s", rn, off, show(rec)))
	}
}

// childTrace is a BFS-like trace under ordered_trees: a host kernel of
// hosts CTAs, each of which launches kids children of two CTAs, each
// child declared right before its launch; edit changes the records
// before they are written.
func childTrace(hosts, kids int, edit func([]Record) []Record) []Record {
	recs := []Record{
		&Header{Version: 1, ClockMHz: 706, OrderedTrees: true},
		&Kernel{ID: 1, Name: "level", Grid: [3]uint32{uint32(hosts), 1, 1}, Block: [3]uint32{256, 1, 1}, Regs: 32},
		&Launch{Kernel: 1, T: 10},
	}
	id := uint64(2)
	for h := range hosts {
		recs = append(recs, &CTA{Kernel: 1, CTA: uint64(h), Cycles: 5000})
		for k := range kids {
			recs = append(recs,
				&Kernel{ID: id, Name: "expand", Grid: [3]uint32{2, 1, 1}, Block: [3]uint32{64, 1, 1}, Regs: 16},
				&Launch{Kernel: id, Parent: &Parent{Kernel: 1, CTA: uint64(h), Warp: k % 8, Lane: k % 32, At: int64(200 + k)},
					Workload: int64(250 + k), InlineCycles: int64(10000 + k)},
				&CTA{Kernel: id, CTA: 0, Cycles: 224, WarpCycles: []int64{224, 200}},
				&CTA{Kernel: id, CTA: 1, Cycles: 224, WarpCycles: []int64{224, 224}})
			id++
		}
	}
	if edit != nil {
		recs = edit(recs)
	}
	return recs
}

// widen gives the child whose kernel record is r[at] a grid of ctas
// CTAs, with a record each in CTA order, that of CTA bad (if any) with
// a negative warp.
func widen(r []Record, at, ctas, bad int) []Record {
	r[at].(*Kernel).Grid[0] = uint32(ctas)
	var more []Record
	for i := 2; i < ctas; i++ {
		more = append(more, &CTA{Kernel: r[at].(*Kernel).ID, CTA: uint64(i), Cycles: 224, WarpCycles: []int64{224, 224}})
	}
	r = slices.Insert(r, at+4, more...)
	if bad >= 0 {
		r[at+2+bad].(*CTA).WarpCycles[1] = -3
	}
	return r
}

// kidAt is the index in childTrace's records of the kernel record of
// host CTA h's k-th child.
func kidAt(kids, h, k int) int { return 3 + h*(1+4*kids) + 1 + 4*k }

// Child gives the records, positions and errors Next alone gives: for
// pairs that keep to the rules, and for pairs that break one (reported
// by Next, at the record that breaks it), or that Child leaves to Next.
func TestChildReadAsNext(t *testing.T) {
	const hosts, kids = 20, 30
	at := kidAt(kids, 7, 11)
	cases := map[string][]Record{
		"valid": childTrace(hosts, kids, nil),
		"declared twice": childTrace(hosts, kids, func(r []Record) []Record {
			r[at].(*Kernel).ID = 5
			return r
		}),
		"launch of another kernel": childTrace(hosts, kids, func(r []Record) []Record {
			r[at+1].(*Launch).Kernel = r[at+5].(*Launch).Kernel
			return r
		}),
		"no name": childTrace(hosts, kids, func(r []Record) []Record {
			r[at].(*Kernel).Name = ""
			return r
		}),
		"block too large": childTrace(hosts, kids, func(r []Record) []Record {
			r[at].(*Kernel).Block = [3]uint32{64, 32, 1}
			return r
		}),
		"empty grid, declared as the kernel before": childTrace(hosts, kids, func(r []Record) []Record {
			r[at].(*Kernel).Grid[0] = 0
			return r
		}),
		"registers": childTrace(hosts, kids, func(r []Record) []Record {
			r[at].(*Kernel).Regs = 300
			return r
		}),
		"negative workload": childTrace(hosts, kids, func(r []Record) []Record {
			r[at+1].(*Launch).Workload = -1
			return r
		}),
		"parent warp": childTrace(hosts, kids, func(r []Record) []Record {
			r[at+1].(*Launch).Parent.Warp = 8
			return r
		}),
		"parent CTA outside the grid": childTrace(hosts, kids, func(r []Record) []Record {
			r[at+1].(*Launch).Parent.CTA = hosts
			return r
		}),
		"an earlier host CTA's tree": childTrace(hosts, kids, func(r []Record) []Record {
			r[at+1].(*Launch).Parent.CTA = 3
			return r
		}),
		"before its host CTA's record": childTrace(hosts, kids, func(r []Record) []Record {
			r[at+1].(*Launch).Parent.CTA = 8
			return r
		}),
		"a child's child": childTrace(hosts, kids, func(r []Record) []Record {
			r[at+1].(*Launch).Parent = &Parent{Kernel: r[at-4].(*Kernel).ID, CTA: 1, Warp: 1, Lane: 3, At: 40}
			return r
		}),
		"tail stream": childTrace(hosts, kids, func(r []Record) []Record {
			r[at+1].(*Launch).DeviceStream = TailStream
			return r
		}),
		"a created stream": childTrace(hosts, kids, func(r []Record) []Record {
			l := r[at+1].(*Launch)
			l.DeviceStream, l.CreatesStream, l.Stream = CreatedStream, true, 4
			return r
		}),
		"created stream without creating it": childTrace(hosts, kids, func(r []Record) []Record {
			l := r[at+1].(*Launch)
			l.DeviceStream, l.Stream = OwnStream, 4
			l.CreatesStream = true
			return r
		}),
		"long fields": childTrace(hosts, kids, func(r []Record) []Record {
			r[at].(*Kernel).Smem = 1 << 30
			r[at+5].(*Launch).InlineCycles = 1 << 30
			return r
		}),
		"first CTA outside the grid": childTrace(hosts, kids, func(r []Record) []Record {
			r[at+2].(*CTA).CTA = 2
			return r
		}),
		"first CTA's cycles not its longest warp's": childTrace(hosts, kids, func(r []Record) []Record {
			r[at+2].(*CTA).Cycles++
			return r
		}),
		"first CTA with a negative warp": childTrace(hosts, kids, func(r []Record) []Record {
			r[at+2].(*CTA).WarpCycles[1] = -1
			return r
		}),
		// A second warp's delta of one byte (above), two and three.
		"second warps two bytes from the first": childTrace(hosts, kids, func(r []Record) []Record {
			for i := at; i < at+4*10; i += 4 {
				r[i+2].(*CTA).WarpCycles[1], r[i+3].(*CTA).WarpCycles[1] = 20, 150
			}
			return r
		}),
		"second warps three bytes from the first": childTrace(hosts, kids, func(r []Record) []Record {
			for i := at; i < at+4*10; i += 4 {
				r[i+2].(*CTA).Cycles, r[i+2].(*CTA).WarpCycles = 20000, []int64{20000, 20}
			}
			return r
		}),
		"first CTA with a negative warp two bytes from the first": childTrace(hosts, kids, func(r []Record) []Record {
			r[at+2].(*CTA).WarpCycles[1] = -100
			return r
		}),
		"second CTA with a negative warp": childTrace(hosts, kids, func(r []Record) []Record {
			r[at+3].(*CTA).WarpCycles[0] = -224
			return r
		}),
		"first CTA another kernel's": childTrace(hosts, kids, func(r []Record) []Record {
			r[at+2], r[at+6] = r[at+6], r[at+2]
			return r
		}),
		"first CTA of many warps": childTrace(hosts, kids, func(r []Record) []Record {
			k, c := r[at].(*Kernel), r[at+2].(*CTA)
			k.Block = [3]uint32{1024, 1, 1}
			c.WarpCycles = make([]int64, 32)
			for w := range c.WarpCycles {
				c.WarpCycles[w] = c.Cycles
			}
			return r
		}),
		"missing child CTA": childTrace(hosts, kids, func(r []Record) []Record {
			return append(r[:at+3], r[at+4:]...)
		}),
		"a child of more CTAs than ChildRun": childTrace(hosts, kids, func(r []Record) []Record { return widen(r, at, ChildRun+24, -1) }),
		"a child of ChildRun CTAs":           childTrace(hosts, kids, func(r []Record) []Record { return widen(r, at, ChildRun, -1) }),
		"a bad CTA in Child's run":           childTrace(hosts, kids, func(r []Record) []Record { return widen(r, at, ChildRun+24, ChildRun-1) }),
		"a bad CTA in the run after Child's": childTrace(hosts, kids, func(r []Record) []Record { return widen(r, at, ChildRun+24, ChildRun+3) }),
		"a bad CTA right after Child's run":  childTrace(hosts, kids, func(r []Record) []Record { return widen(r, at, ChildRun+24, ChildRun) }),
		"fixture":                            fixture(t, "valid.jsonl"),
	}
	for name, recs := range cases {
		data := encodeBinary(t, recs)
		want, _, _, wantErr := readChildren(t, data, false)
		got, n, ctas, gotErr := readChildren(t, data, true)
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			t.Errorf("%s: error %v, Next alone %v", name, gotErr, wantErr)
		}
		if name != "fixture" && (n < 200 || ctas < n*9/10) {
			t.Errorf("%s: %d pairs read by Child, %d with their first cta record", name, n, ctas)
		}
		if len(got) != len(want) {
			t.Errorf("%s: %d records, Next alone %d", name, len(got), len(want))
		} else if i := firstDiff(got, want); i >= 0 {
			t.Errorf("%s: record %d\n got %s\nwant %s", name, i, got[i], want[i])
		}
		valid := map[string]bool{"valid": true, "fixture": true, "first CTA of many warps": true, "a created stream": true, "long fields": true, "a child's child": true, "tail stream": true, "a child of more CTAs than ChildRun": true, "a child of ChildRun CTAs": true, "second warps two bytes from the first": true, "second warps three bytes from the first": true}
		if !valid[name] && wantErr == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// FuzzChild reads arbitrary input with Next alone and with Child before
// each Next: the records, positions and error must be the same. Input
// without the zstd magic is compressed first, as in FuzzBinaryReader, and
// read a second time with padding after it (fuzzStreams). The seeds are
// small (two host CTAs of two children each) for the reason FuzzCTARuns's
// are.
func FuzzChild(f *testing.F) {
	for _, recs := range [][]Record{
		childTrace(2, 2, nil),
		childTrace(2, 2, func(r []Record) []Record { r[kidAt(2, 1, 1)+1].(*Launch).Parent.CTA = 0; return r }),
		repeatTrace(rand.New(rand.NewPCG(3, 76)), 2, 2, false), // records that repeat the one before (repeat.go)
		fixture(f, "valid.jsonl"),
	} {
		f.Add(decompress(f, encodeBinary(f, recs)))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, data := range fuzzStreams(data) {
			want, _, _, wantErr := readChildren(t, data, false)
			got, _, _, gotErr := readChildren(t, data, true)
			if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
				t.Fatalf("error %v, Next alone %v", gotErr, wantErr)
			}
			if len(got) != len(want) {
				t.Fatalf("%d records, Next alone %d", len(got), len(want))
			}
			if i := firstDiff(got, want); i >= 0 {
				t.Fatalf("record %d\n got %s\nwant %s", i, got[i], want[i])
			}
		}
	})
}

// firstDiff is the first of readChildren's records got, as many as want,
// that is not want's, or -1: a pair's kernel record is listed with no
// offset, and compared without want's.
func firstDiff(got, want []string) int {
	for i := range got {
		w := want[i]
		if g, ok := strings.CutPrefix(got[i], "run "); ok {
			if w[strings.IndexByte(w, ' ')+1:] != g {
				return i
			}
			continue
		}
		if !strings.Contains(got[i], "@") {
			if at := strings.IndexByte(w, '@'); at >= 0 {
				w = w[:at] + w[strings.IndexByte(w, ' '):]
			}
		}
		if got[i] != w {
			return i
		}
	}
	return -1
}

// Kernel records declared alike but for grid x, and some not, read back
// as written: those whose tail (kernelTail) is the one before's, those
// whose tail differs in a byte, and those with a field of more bytes.
func TestKernelTail(t *testing.T) {
	recs := []Record{&Header{Version: 1, ClockMHz: 706}}
	for i := range 3000 {
		// Runs of 50 alike, each run's tail another.
		run := i / 50
		k := &Kernel{ID: uint64(i + 1), Name: "expand", Grid: [3]uint32{uint32(1 + i%300), 1, uint32(1 + run%2)},
			Block: [3]uint32{uint32(32 * (1 + run%2)), 1, 1}, Regs: 16 + run%4, Smem: int64(run % 3)}
		switch i % 17 {
		case 3:
			k.Block[0] = 256 // two bytes
		case 5:
			k.Regs = 20
		case 7:
			k.Smem = 1 << 12
		case 11:
			k.Grid[1], k.Grid[2] = 2, 3
		case 13:
			k.Grid[0] = 1 << 22 // more than three bytes
		case 16:
			k.Grid[2] = 0
		}
		recs = append(recs, k)
	}
	got := decodeBinary(t, encodeBinary(t, recs))
	if len(got) != len(recs) {
		t.Fatalf("%d records, wrote %d", len(got), len(recs))
	}
	for i := range recs {
		if g, w := show(got[i]), show(recs[i]); g != w {
			t.Fatalf("record %d\n got %s\nwant %s", i, g, w)
		}
	}
}

// Child says a child is declared as the kernel record before it (Alike)
// only where it is: children declared alike, and after one whose
// declaration differs in a byte or takes more bytes (read in full, with no
// tail kept) or has a field of more than three bytes (read by the
// general path), readChildren checks each.
func TestChildAlike(t *testing.T) {
	const hosts, kids = 4, 60
	recs := childTrace(hosts, kids, func(r []Record) []Record {
		for h := range hosts {
			for k := range kids {
				d := r[kidAt(kids, h, k)].(*Kernel)
				switch k % 13 {
				case 3:
					d.Block[0] = 48 // still two warps
				case 5:
					d.Regs = 20
				case 7:
					d.Smem = 1 << 12
				case 9:
					d.Smem = 1 << 22 // more than three bytes
				case 11:
					d.Name = "other"
				}
			}
		}
		return r
	})
	_, n, _, err := readChildren(t, encodeBinary(t, recs), true)
	if err != nil || n < hosts*kids/2 {
		t.Fatalf("read %d pairs, error %v", n, err)
	}
}

// checkSame fails t where a record of cs, read by Child from record at
// on, has its bit in same (ChildHead.Same) and is not the record before
// it of the next CTA, and reports how many bits are set.
func checkSame(t testing.TB, at int64, cs []CTA, same uint64) int {
	t.Helper()
	if same&1 != 0 || len(cs) < 64 && same>>len(cs) != 0 {
		t.Errorf("record %d: Same %b for %d records", at, same, len(cs))
	}
	n := 0
	for i := 1; i < len(cs); i++ {
		if same>>i&1 == 0 {
			continue
		}
		n++
		p, c := cs[i-1], cs[i]
		if c.Kernel != p.Kernel || c.CTA != p.CTA+1 || c.Cycles != p.Cycles || c.Insts != p.Insts || c.DRAMBytes != p.DRAMBytes || !slices.Equal(c.WarpCycles, p.WarpCycles) {
			t.Errorf("record %d: Child said %s repeats %s", at+int64(i), show(&c), show(&p))
		}
	}
	return n
}

// Child marks the records that repeat the one before them (Same), those
// alone: in a trace of children whose records mostly repeat, some of
// them mixed with others of another length, warps or demand.
func TestChildSame(t *testing.T) {
	data := encodeBinary(t, repeatTrace(rand.New(rand.NewPCG(5, 76)), 4, 40, false))
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	v := NewValidator(r)
	var c Child
	kids, same := 0, 0
	for {
		for v.Child(&c) {
			kids++
			if h := c.Head(); h.Err == nil {
				same += checkSame(t, 0, c.Records(), h.Same)
			}
		}
		if _, err := v.Next(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
	}
	if kids < 100 || same < kids/2 {
		t.Errorf("%d children read with their records, %d records marked as repeats", kids, same)
	}
}

// A cta record of two warps reads back as written where the second's
// delta takes one, two or three bytes, or more (ctaFastInto reads it
// with no loop where it takes one or two). The trace is long enough for
// the fast path (ctaRoom) at the records changed.
func TestTwoWarpsRoundTrip(t *testing.T) {
	recs := childTrace(4, 30, func(r []Record) []Record {
		for i, w := range []int64{200, 20, -100, 160, -20000, 1 << 40} {
			r[kidAt(30, 0, i)+2].(*CTA).WarpCycles[1] = w
			r[kidAt(30, 0, i)+3].(*CTA).WarpCycles[0] = w
		}
		return r
	})
	roundTrip(t, recs)
}
