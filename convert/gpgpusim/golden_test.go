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
	for _, c := range readCases(t, "testdata/convert.txt") {
		t.Run(c.name, func(t *testing.T) {
			o := DefaultOptions()
			for _, kv := range c.args {
				k, v, _ := strings.Cut(kv, "=")
				if err := o.Set(k, v); err != nil {
					t.Fatalf("line %d: %v", c.line, err)
				}
			}
			got, err := convertString(c.input, o)
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

// treeWork adds a child's tree into its work, and spread shares it among
// the parent CTA's warps. A parent of 128 threads (4 warps) launches a
// child of 2 CTAs of 64 threads (2 warps) running 100 and 300 cycles,
// whose first CTA launches a grandchild of 1 CTA of 32 threads running
// 50: the grandchild's work is 32 threads and 1·50 = 50 cycles; the
// child's 2·64 + 32 = 160 threads and 2·100 + 2·300 + 50 = 850 cycles
// (one warp running the tree's warps in turn). Shared by the parent's 4
// warps and 128 threads: ⌈850/4⌉ = 213 cycles and ⌈160/128⌉ = 2 threads.
func TestTreeWork(t *testing.T) {
	parent := &kernel{id: 1, grid: [3]uint32{1, 1, 1}, block: [3]uint32{128, 1, 1}, kids: []uint64{2}}
	child := &kernel{id: 2, grid: [3]uint32{2, 1, 1}, block: [3]uint32{64, 1, 1}, kids: []uint64{3}}
	grand := &kernel{id: 3, grid: [3]uint32{1, 1, 1}, block: [3]uint32{32, 1, 1}}
	w := treeWork([]*kernel{parent, child, grand}, map[uint64][]int64{1: {1000}, 2: {100, 300}, 3: {50}}, 0)
	if got, want := w[3], (work{threads: 32, cycles: 50}); got != want {
		t.Errorf("grandchild %+v, want %+v", got, want)
	}
	if got, want := w[2], (work{threads: 160, cycles: 850}); got != want {
		t.Errorf("child %+v, want %+v", got, want)
	}
	if got, want := w[2].spread(parent), (work{threads: 2, cycles: 213}); got != want {
		t.Errorf("child shared by the parent CTA %+v, want %+v", got, want)
	}
}

// With cta_once 40, each CTA of the tree counts 40 cycles less:
// 2·(100-40) + 2·(300-40) + 1·(50-40) = 650.
func TestTreeWorkOnce(t *testing.T) {
	child := &kernel{id: 2, grid: [3]uint32{2, 1, 1}, block: [3]uint32{64, 1, 1}, kids: []uint64{3}}
	grand := &kernel{id: 3, grid: [3]uint32{1, 1, 1}, block: [3]uint32{32, 1, 1}}
	w := treeWork([]*kernel{child, grand}, map[uint64][]int64{2: {100, 300}, 3: {50}}, 40)
	if got, want := w[2].cycles, int64(650); got != want {
		t.Errorf("child's tree %d cycles, want %d", got, want)
	}
}
