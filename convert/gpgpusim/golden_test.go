package gpgpusim

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/gpureplay/gpureplay/trace"
)

// TestConvert runs the data-driven cases of testdata/convert.txt: each
// log must convert to exactly the records worked out by hand (or fail
// with the error given), and the records must pass the trace validator.
func TestConvert(t *testing.T) {
	runConvertCases(t, "testdata/convert.txt", func(_ *testing.T, log string, o Options) (string, error) {
		return convertString(log, o)
	})
}

// runConvertCases is the one runner of the importer's data-driven files:
// each case's options are set, its log converted by convert, and the
// result compared with the records (or the "error: " text) it expects.
func runConvertCases(t *testing.T, file string, convert func(*testing.T, string, Options) (string, error)) {
	for _, c := range readCases(t, file) {
		t.Run(c.name, func(t *testing.T) {
			o := DefaultOptions()
			for _, kv := range c.args {
				k, v, _ := strings.Cut(kv, "=")
				if err := o.Set(k, v); err != nil {
					t.Fatalf("line %d: %v", c.line, err)
				}
			}
			got, err := convert(t, c.input, o)
			if want, ok := strings.CutPrefix(c.want, "error: "); ok {
				if err == nil || !strings.Contains(err.Error(), strings.TrimSpace(want)) {
					t.Fatalf("line %d: want error containing %q, got %v", c.line, want, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("line %d: %v", c.line, err)
			}
			if got != c.want {
				t.Errorf("line %d: records differ\n got:\n%s\nwant:\n%s", c.line, got, c.want)
			}
		})
	}
}

// convertString converts a log given as text to validated JSONL.
func convertString(log string, o Options) (string, error) {
	var buf bytes.Buffer
	w := trace.NewJSONLWriter(&buf)
	checked := trace.NewCheckedSink(w)
	if _, err := Read(strings.NewReader(log), "test.log", checked, o); err != nil {
		return "", err
	}
	if err := checked.Finish(); err != nil {
		return "", err
	}
	if err := w.Close(); err != nil {
		return "", err
	}
	return buf.String(), nil
}

type dataCase struct {
	name, input, want string
	args              []string // the directive's options, key=value
	line              int
}

// readCases parses a data-driven file: comment lines (#) before a case,
// the directive line (a name, then options as key=value), the input, "----", the expected output, "====".
func readCases(t *testing.T, path string) []dataCase {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []dataCase
	var cur *dataCase
	var in, want strings.Builder
	part := 0 // 0 between cases, 1 input, 2 expected
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		switch {
		case part == 0 && (line == "" || strings.HasPrefix(line, "#")):
		case part == 0:
			f := strings.Fields(line)
			cur = &dataCase{name: f[0] + "@" + strconv.Itoa(n), args: f[1:], line: n}
			in.Reset()
			want.Reset()
			part = 1
		case part == 1 && line == "----":
			part = 2
		case part == 1:
			in.WriteString(line + "\n")
		case part == 2 && line == "====":
			cur.input, cur.want = in.String(), want.String()
			cases = append(cases, *cur)
			part = 0
		default:
			want.WriteString(line + "\n")
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if part != 0 {
		t.Fatalf("%s: case at line %d has no ====", path, cur.line)
	}
	return cases
}

// treeWork adds a child's tree into its work, and price charges it to a
// lane as the flat code Options.Inline names. A parent of 128 threads (4
// warps) launches a child of 2 CTAs of 64 threads (2 warps) running 100
// and 300 cycles, whose first CTA launches a grandchild of 1 CTA of 32
// threads running 50. The grandchild's work: 32 threads, 1·50 = 50 warp
// cycles, 32·50 = 1600 thread cycles. The child's tree: 2·64 + 32 = 160
// threads; 2·100 + 2·300 + 50 = 850 warp cycles (one warp running the
// tree's warps in turn); 64·100 + 64·300 + 1600 = 27200 thread cycles (one
// thread running the tree's threads in turn, each its warp's time).
// Priced: loop 27200, loop at a share of 0.25 6800, warp 850, and cta the
// warp figure shared by the parent's 4 warps and 128 threads: ⌈850/4⌉ =
// 213 cycles and ⌈160/128⌉ = 2 threads.
func TestTreeWork(t *testing.T) {
	parent := &kernel{id: 1, grid: [3]uint32{1, 1, 1}, block: [3]uint32{128, 1, 1}, kids: []uint64{2}}
	child := &kernel{id: 2, grid: [3]uint32{2, 1, 1}, block: [3]uint32{64, 1, 1}, kids: []uint64{3}}
	grand := &kernel{id: 3, grid: [3]uint32{1, 1, 1}, block: [3]uint32{32, 1, 1}}
	w := treeWork([]*kernel{parent, child, grand}, map[uint64][]int64{1: {1000}, 2: {100, 300}, 3: {50}}, 0)
	if got, want := w[3], (work{threads: 32, warpCycles: 50, threadCycles: 1600}); got != want {
		t.Errorf("grandchild %+v, want %+v", got, want)
	}
	if got, want := w[2], (work{threads: 160, warpCycles: 850, threadCycles: 27200}); got != want {
		t.Errorf("child %+v, want %+v", got, want)
	}
	if got, want := w[2].spread(parent), (work{threads: 2, warpCycles: 213}); got != want {
		t.Errorf("child shared by the parent CTA %+v, want %+v", got, want)
	}
	// loop_accesses: each further lane of a launch of k lanes adds one
	// access a cycle to each of the loop body's a instructions, for each
	// of the child tree's 160 threads: at share 0.25 (6,800) and a = 5,
	// 4 lanes add 3·5·160 = 2,400 (9,200), 32 lanes 31·5·160 = 24,800
	// (31,600), and 40 lanes no more than 32 (another warp's); a lone
	// lane 6,800 whatever a; warp and cta do not loop in a lane, so a
	// leaves them alone.
	for _, c := range []struct {
		inline          string
		share           float64
		accesses        int64
		lanes           int
		threads, cycles int64
	}{
		{"loop", 1, 0, 1, 160, 27200}, {"loop", 0.25, 0, 1, 160, 6800}, {"loop", 0.25, 0, 4, 160, 6800},
		{"loop", 0.25, 5, 1, 160, 6800}, {"loop", 0.25, 5, 4, 160, 9200}, {"loop", 0.25, 5, 32, 160, 31600},
		{"loop", 0.25, 5, 40, 160, 31600}, {"warp", 1, 5, 4, 160, 850}, {"cta", 1, 5, 4, 2, 213},
	} {
		o := DefaultOptions()
		o.Inline, o.LoopShare, o.LoopAccesses = c.inline, c.share, c.accesses
		if n, got := w[2].price(o, parent, c.lanes); n != c.threads || got != c.cycles {
			t.Errorf("inline=%s loop_share=%g loop_accesses=%d, %d lanes: %d threads, %d cycles; want %d, %d", c.inline, c.share, c.accesses, c.lanes, n, got, c.threads, c.cycles)
		}
	}
}

// With cta_once 40, each CTA of the tree counts 40 cycles less: warps
// 2·(100-40) + 2·(300-40) + 1·(50-40) = 650, threads 64·60 + 64·260 +
// 32·10 = 20800.
func TestTreeWorkOnce(t *testing.T) {
	child := &kernel{id: 2, grid: [3]uint32{2, 1, 1}, block: [3]uint32{64, 1, 1}, kids: []uint64{3}}
	grand := &kernel{id: 3, grid: [3]uint32{1, 1, 1}, block: [3]uint32{32, 1, 1}}
	w := treeWork([]*kernel{child, grand}, map[uint64][]int64{2: {100, 300}, 3: {50}}, 40)
	if got, want := w[2], (work{threads: 160, warpCycles: 650, threadCycles: 20800}); got != want {
		t.Errorf("child's tree %+v, want %+v", got, want)
	}
}

// A CTA's cycles times its threads saturates at the trace's bound rather
// than wrapping: 1024 threads of 2^40 cycles.
func TestTreeWorkCaps(t *testing.T) {
	k := &kernel{id: 2, grid: [3]uint32{1, 1, 1}, block: [3]uint32{1024, 1, 1}}
	w := treeWork([]*kernel{k}, map[uint64][]int64{2: {trace.MaxCycles}}, 0)
	if w[2].threadCycles != trace.MaxCycles || w[2].warpCycles != trace.MaxCycles {
		t.Errorf("%+v, want both cycle figures at %d", w[2], trace.MaxCycles)
	}
}

// Set names what it wants when an inline option is wrong, and points the
// retired inline=lane at the names that replaced it.
func TestSetInlineErrors(t *testing.T) {
	for _, c := range []struct{ key, value, want string }{
		{"inline", "lane", "want loop (a lane looping over the child's threads) or warp"},
		{"inline", "grid", "want loop, warp, cta or levels"},
		{"loop_share", "0", "want a share above 0 and at most 1"},
		{"loop_share", "1.5", "want a share above 0 and at most 1"},
		{"loop_share", "NaN", "want a share above 0 and at most 1"},
		{"loop_share", "x", "want a share above 0 and at most 1"},
		{"loop_accesses", "-1", "want the loop body's per-lane memory instructions, from 0 to 65536"},
		{"loop_accesses", "1.5", "want the loop body's per-lane memory instructions, from 0 to 65536"},
		{"loop_accesses", "65537", "want the loop body's per-lane memory instructions, from 0 to 65536"},
		{"loop_crowd", "0.0044", "retired: want loop_accesses"},
	} {
		o := DefaultOptions()
		if err := o.Set(c.key, c.value); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s=%s: %v; want an error containing %q", c.key, c.value, err, c.want)
		}
	}
	o := DefaultOptions()
	if err := o.Set("loop_share", "0.45"); err != nil || o.LoopShare != 0.45 {
		t.Errorf("loop_share=0.45: %v, share %g", err, o.LoopShare)
	}
	if err := o.Set("loop_accesses", "5"); err != nil || o.LoopAccesses != 5 {
		t.Errorf("loop_accesses=5: %v, accesses %d", err, o.LoopAccesses)
	}
}
