package main

import (
	"cmp"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

// A case of testdata/callgrind.txt.
type cgCase struct {
	line       int // the directive's line in the file
	input, out string
}

func readCases(t testing.TB, path string) []cgCase {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cases []cgCase
	lines := strings.Split(string(b), "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		if l != "read" {
			t.Fatalf("%s:%d: directive %q, want read", path, i+1, l)
		}
		c := cgCase{line: i + 1}
		var in, out []string
		j := i + 1
		for ; j < len(lines) && lines[j] != "----"; j++ {
			in = append(in, lines[j])
		}
		for j++; j < len(lines) && lines[j] != "===="; j++ {
			out = append(out, lines[j])
		}
		if j >= len(lines) {
			t.Fatalf("%s:%d: case not closed by ----, then ====", path, c.line)
		}
		c.input = strings.Join(in, "\n") + "\n"
		c.out = strings.Join(out, "\n")
		cases = append(cases, c)
		i = j
	}
	return cases
}

// formatEdges prints edges one a line, "CALLER LINE CALLEE WEIGHT", in
// the order of caller, line and callee.
func formatEdges(edges map[edge]int64) string {
	keys := make([]edge, 0, len(edges))
	for e := range edges {
		keys = append(keys, e)
	}
	slices.SortFunc(keys, func(a, b edge) int {
		return cmp.Or(cmp.Compare(a.caller, b.caller), cmp.Compare(a.line, b.line), cmp.Compare(a.callee, b.callee))
	})
	var sb strings.Builder
	for i, e := range keys {
		if i > 0 {
			sb.WriteByte('\n')
		}
		fmt.Fprintf(&sb, "%s %d %s %d", e.caller, e.line, e.callee, edges[e])
	}
	return sb.String()
}

// TestReadCallgrind runs the cases of testdata/callgrind.txt.
func TestReadCallgrind(t *testing.T) {
	cases := readCases(t, "testdata/callgrind.txt")
	if len(cases) < 10 {
		t.Fatalf("%d cases read, want at least 10", len(cases))
	}
	for _, c := range cases {
		edges := map[edge]int64{}
		err := readCallgrind(strings.NewReader(c.input), edges, false)
		if want, ok := strings.CutPrefix(c.out, "error: "); ok {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("testdata/callgrind.txt:%d: error %v, want one containing %q", c.line, err, want)
			}
			continue
		}
		if err != nil {
			t.Errorf("testdata/callgrind.txt:%d: %v", c.line, err)
			continue
		}
		if got := formatEdges(edges); got != c.out {
			t.Errorf("testdata/callgrind.txt:%d: edges\n%s\nwant\n%s", c.line, got, c.out)
		}
	}
}

// FuzzReadCallgrind reads arbitrary files: no panic, and a file read
// without error reads to the same edges again, none of negative weight.
func FuzzReadCallgrind(f *testing.F) {
	for _, c := range readCases(f, "testdata/callgrind.txt") {
		f.Add(c.input)
	}
	f.Fuzz(func(t *testing.T, in string) {
		edges := map[edge]int64{}
		if err := readCallgrind(strings.NewReader(in), edges, false); err != nil {
			return
		}
		again := map[edge]int64{}
		if err := readCallgrind(strings.NewReader(in), again, false); err != nil {
			t.Fatalf("second read: %v", err)
		}
		if a, b := formatEdges(edges), formatEdges(again); a != b {
			t.Fatalf("two reads differ:\n%s\n%s", a, b)
		}
		for e, w := range edges {
			if w < 0 {
				t.Fatalf("edge %v weighs %d", e, w)
			}
		}
	})
}
