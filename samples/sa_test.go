package samples

import (
	"reflect"
	"slices"
	"strconv"
	"testing"

	"github.com/gpureplay/gpureplay/trace"
)

// saSeq turns "ACGT" text into base codes.
func saSeq(s string) []byte {
	b := make([]byte, len(s))
	for i, c := range s {
		b[i] = byte(slices.Index([]rune("ACGT"), c))
	}
	return b
}

// saNaiveDistance is the textbook full edit-distance table, minimised over
// the text prefixes whose length is within e of the read's.
func saNaiveDistance(read, text []byte, e int) int {
	d := make([][]int, len(read)+1)
	for i := range d {
		d[i] = make([]int, len(text)+1)
		for j := range d[i] {
			switch {
			case i == 0:
				d[i][j] = j
			case j == 0:
				d[i][j] = i
			default:
				d[i][j] = min(d[i-1][j-1]+saMismatch(read[i-1], text[j-1]), d[i-1][j]+1, d[i][j-1]+1)
			}
		}
	}
	best := saInf
	for j := max(len(read)-e, 0); j <= min(len(read)+e, len(text)); j++ {
		best = min(best, d[len(read)][j])
	}
	return best
}

func TestSABandDistance(t *testing.T) {
	var b saBand
	for _, tc := range []struct {
		read, text string
		e          int
		dist, rows int
	}{
		{"ACGTACGT", "ACGTACGTAA", 2, 0, 8},
		{"ACGTACGT", "ACTACGTAA", 2, 1, 8},  // one base deleted from the text
		{"ACGTACGT", "ACGGTACGT", 2, 1, 8},  // one inserted
		{"ACGTACGT", "TCGTACGA", 2, 2, 8},   // two substitutions
		{"AAAAAAAA", "CCCCCCCCCC", 2, 3, 3}, // D[i][j] = max(i, j): row 3 is all over 2
		{"AAAAAAAA", "CCCCCCCCCC", 0, 1, 1}, // no edits allowed: the first base decides
		{"ACGTACGT", "ACGTAC", 2, 2, 8},     // text ends early: two read bases deleted
		{"ACGTACGTACGT", "ACG", 1, 2, 5},    // row 5 lies past the text: over e
	} {
		dist, rows := b.distance(saSeq(tc.read), saSeq(tc.text), tc.e)
		if dist != tc.dist || rows != tc.rows {
			t.Errorf("distance(%s, %s, e=%d) = %d after %d rows, want %d after %d", tc.read, tc.text, tc.e, dist, rows, tc.dist, tc.rows)
		}
	}
	// Random pairs against the full table: reads with edits of every kind.
	rng := newRand(8)
	for n := 0; n < 300; n++ {
		text := saRandomSeq(rng, 30+rng.IntN(20))
		read := slices.Clone(text[:20+rng.IntN(10)])
		for k := rng.IntN(5); k > 0; k-- {
			p := rng.IntN(len(read))
			switch rng.IntN(3) {
			case 0:
				read[p] = (read[p] + 1) & 3
			case 1:
				read = slices.Delete(read, p, p+1)
			case 2:
				read = slices.Insert(read, p, byte(rng.IntN(4)))
			}
		}
		e := rng.IntN(5)
		dist, rows := b.distance(read, text, e)
		want := min(saNaiveDistance(read, text, e), e+1)
		if dist != want || (dist <= e && rows != len(read)) || rows > len(read) {
			t.Fatalf("distance(%v, %v, e=%d) = %d after %d rows, want %d", read, text, e, dist, rows, want)
		}
	}
}

func TestSAIndex(t *testing.T) {
	ix := newSAIndex(saSeq("ACGTACGTTT"), 4)
	for _, tc := range []struct {
		kmer string
		want []int
	}{
		{"ACGT", []int{0, 4}}, {"CGTA", []int{1}}, {"GTTT", []int{6}}, {"TTTT", nil}, {"ACGA", nil},
	} {
		var got []int
		for _, e := range ix.occurrences(saSeq(tc.kmer)) {
			got = append(got, int(uint32(e)))
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("occurrences(%s) = %v, want %v", tc.kmer, got, tc.want)
		}
	}
}

// TestSACandidates maps reads against a reference with a two-copy repeat,
// where the candidates can be listed by hand.
func TestSACandidates(t *testing.T) {
	// GATTACAGGTACC at 4 and at 21; 42 bases in all.
	ref := saSeq("CCCCGATTACAGGTACCTTTTGATTACAGGTACCAAAAAAAA")
	m := &saMapper{ref: ref, ix: newSAIndex(ref, 4), maxEdits: 1, maxHit: 10}
	// Seeds GATT (at 4, 21), ACAG (8, 25), GTAC (12, 29): two candidates.
	read := saSeq("GATTACAGGTACCT")
	starts, seeds, hits := m.candidates(read)
	if !slices.Equal(starts, []int32{4, 21}) || seeds != 3 || hits != 6 {
		t.Errorf("candidates = %v, %d seeds, %d hits; want [4 21], 3, 6", starts, seeds, hits)
	}
	var b saBand
	r := m.mapRead(read, &b)
	// At 4 the read matches exactly; at 21 it ends CA for CT: one edit.
	if r.matches != 2 || r.seeds != 3 || r.hits != 6 || !slices.Equal(r.steps, []int32{14, 14}) {
		t.Errorf("mapRead = %+v", r)
	}
	m.maxHit = 1 // every seed is now too repetitive
	if starts, _, hits := m.candidates(read); len(starts) != 0 || hits != 0 {
		t.Errorf("with max_hits 1: %v, %d hits", starts, hits)
	}
}

// TestSAReadsMapHome checks the mapper on a generated reference: every
// error-free read finds its origin among its candidates and aligns there.
func TestSAReadsMapHome(t *testing.T) {
	rng := newRand(2)
	ref := saReference(rng, 1<<14, 0.4)
	reads, origins := saReads(rng, ref, 300, 60, 0)
	m := &saMapper{ref: ref, ix: newSAIndex(ref, 10), maxEdits: 2, maxHit: 1 << 16}
	var b saBand
	for i, read := range reads {
		starts, _, _ := m.candidates(read)
		if _, found := slices.BinarySearch(starts, int32(origins[i])); !found {
			t.Fatalf("read %d from %d: candidates %v", i, origins[i], starts)
		}
		if r := m.mapRead(read, &b); r.matches < 1 {
			t.Fatalf("read %d from %d: no alignment", i, origins[i])
		}
	}
}

// TestSAReferenceRepeats checks the reference's composition and that its
// repeats make k-mer multiplicities skewed, as in A. thaliana.
func TestSAReferenceRepeats(t *testing.T) {
	const n, k = 1 << 17, 12
	for _, tc := range []struct {
		repeats      float64
		minRepeated  float64 // least share of positions whose k-mer occurs ≥ 10 times
		maxRepeated  float64
		minMaxCopies int
	}{
		{0, 0, 0.001, 0},
		{0.3, 0.02, 0.3, 25},
	} {
		ref := saReference(newRand(4), n, tc.repeats)
		gc := 0
		for _, b := range ref {
			if b == 1 || b == 2 {
				gc++
			}
		}
		if f := float64(gc) / n; f < 0.33 || f > 0.40 {
			t.Errorf("repeat_frac %g: GC %.3f, want about 0.36", tc.repeats, f)
		}
		ix := newSAIndex(ref, k)
		repeated, most := 0, 0
		for p := 0; p+k <= n; p++ {
			c := len(ix.occurrences(ref[p:]))
			most = max(most, c)
			if c >= 10 {
				repeated++
			}
		}
		if f := float64(repeated) / n; f < tc.minRepeated || f > tc.maxRepeated || most < tc.minMaxCopies {
			t.Errorf("repeat_frac %g: %.3f of positions in k-mers occurring ≥10 times, most %d", tc.repeats, f, most)
		}
	}
}

// TestSASectionWarpCycles checks the parent cost model on hand-made reads:
// two lanes of two reads each and one lane of one.
func TestSASectionWarpCycles(t *testing.T) {
	few := saRead{seeds: 8, hits: 8, steps: []int32{100, 20}}
	many := saRead{seeds: 8, hits: 40, steps: make([]int32, 5)}
	lonely := saRead{seeds: 8, hits: 3, steps: []int32{7}}
	lanes := [][]saRead{{few, many}, {many, few}, {lonely}}
	cycles, sites := saSectionWarpCycles(lanes, 4)
	step0 := saLookupCycles(&many) + saInlineCycles(&few)
	step1 := saLookupCycles(&many) + saInlineCycles(&few)
	if cycles != step0+step1 {
		t.Errorf("cycles %d, want %d", cycles, step0+step1)
	}
	got := []int64{}
	for _, s := range sites {
		got = append(got, int64(s.at.Lane), s.at.At)
	}
	want := []int64{1, saLookupCycles(&many), 0, step0 + saLookupCycles(&many)}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("sites (lane, at) %v, want %v", got, want)
	}
	if c, s := saSectionWarpCycles([][]saRead{{}, {}}, 4); c != saIdleWarpCycles || s != nil {
		t.Errorf("idle warp: %d cycles, %v", c, s)
	}
	if saInlineCycles(&few) != 2*saCandidateCycles+120*saStepCycles {
		t.Errorf("inline cost %d", saInlineCycles(&few))
	}
}

// TestSATrace checks a generated trace's sites against the threshold and
// the cost model, and the meta's totals against the records.
func TestSATrace(t *testing.T) {
	const threshold = 16
	recs := generate(t, "sa", "genome=65536", "reads=1024", "section=3", "block=32", "site_threshold=16", "seed=6")
	h := recs[0].(*trace.Header)
	n, host, device := countKinds(recs)
	if host != 1 || strconv.Itoa(device) != h.Meta["sites"] || strconv.Itoa(n[trace.KindCTA]) != h.Meta["ctas"] ||
		strconv.Itoa(n[trace.KindKernel]) != h.Meta["kernels"] {
		t.Errorf("records %v, %d host, %d device launches; meta %v", n, host, device, h.Meta)
	}
	if device == 0 {
		t.Fatal("no launch sites")
	}
	grid := map[uint64]uint32{}
	for _, r := range recs {
		switch r := r.(type) {
		case *trace.Kernel:
			grid[r.ID] = r.Grid[0]
			if r.ID == 1 && (r.Name != "sa_section" || r.Grid[0] != uint32(ceilDiv(ceilDiv(1024, 3), 32))) ||
				r.ID > 1 && (r.Name != "sa_verify" || r.Block[0] != saVerifyBlock) {
				t.Errorf("kernel %+v", r)
			}
		case *trace.Launch:
			if !r.Host() && (r.Workload <= threshold ||
				grid[r.Kernel] != uint32(ceilDiv(int(r.Workload), saVerifyBlock))) {
				t.Errorf("site %+v at %+v", r, r.Parent)
			}
		}
	}
	ruleInlines(t, "sa", recs, workloadThreads)
}

func TestSABadParams(t *testing.T) {
	g, _ := Lookup("sa")
	for _, kv := range [][]string{
		{"genome=100"}, {"k=15"}, {"k=20", "read_len=18"}, {"read_len=16", "k=17"}, {"repeat_frac=1"}, {"error=0.6"}, {"section=0"},
	} {
		p, err := g.ParseParams(kv)
		if err == nil {
			err = g.Run(p, &sliceSink{})
		}
		if _, ok := err.(*ParamError); !ok {
			t.Errorf("%v: err %v, want a ParamError", kv, err)
		}
	}
}
