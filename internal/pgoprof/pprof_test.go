package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteProfile has go build's own reader of profiles (`go tool
// preprofile`, cmd/internal/pgo.FromPProf, the code go build runs on
// -pgo's file) read what writeProfile writes: each edge at its call
// site's offset from its caller's start line, with its weight, the
// heaviest first, the ballast before them.
func TestWriteProfile(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to run go tool preprofile:", err)
	}
	edges := map[edge]int64{
		{"a.f", 12, "a.g"}: 100, // a.f starts at 10: offset 2
		{"a.f", 12, "a.h"}: 30,  // the same call site, another callee
		{"a.g", 25, "a.h"}: 50,  // a.g starts at 20: offset 5
		{"a.h", 3, "a.x"}:  0,   // weightless: left out
		{"a.y", 7, "a.f"}:  20,  // a.y's start unknown: line 7 is offset 7
	}
	starts := map[string]int64{"a.f": 10, "a.g": 20, "a.h": 1}
	for _, c := range []struct {
		hot  float64
		want string
	}{
		// 99% of 200 is 198, passed by the last, 20: the line is drawn
		// halfway through it, at 190: 99 × 200 − 100 × 190.
		{99, ballastCaller + " " + ballastCallee + " 1 800|a.f a.g 2 100|a.g a.h 5 50|a.f a.h 2 30|a.y a.f 7 20"},
		// The ballast: 70% of 200 is 140, passed by 100 + 50, so the line
		// is drawn halfway through 50, at 125: 99 × 200 − 100 × 125.
		{70, ballastCaller + " " + ballastCallee + " 1 7300|a.f a.g 2 100|a.g a.h 5 50|a.f a.h 2 30|a.y a.f 7 20"},
	} {
		dir := t.TempDir()
		var buf bytes.Buffer
		if err := writeProfile(&buf, edges, starts, c.hot); err != nil {
			t.Fatal(err)
		}
		var again bytes.Buffer
		if err := writeProfile(&again, edges, starts, c.hot); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf.Bytes(), again.Bytes()) {
			t.Errorf("hot %v: two writes of the same edges differ", c.hot)
		}
		in, out := filepath.Join(dir, "p.pgo"), filepath.Join(dir, "p.pre")
		if err := os.WriteFile(in, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(gobin, "tool", "preprofile", "-i", in, "-o", out)
		if msg, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go tool preprofile: %v\n%s", err, msg)
		}
		if got := preprofiled(t, out); got != c.want {
			t.Errorf("hot %v: go tool preprofile reads\n%s\nwant\n%s", c.hot, got, c.want)
		}
	}
}

// TestWriteProfileTooHeavy: edges whose weight the ballast's arithmetic
// cannot hold are an error naming an edge, not a wrong profile.
func TestWriteProfileTooHeavy(t *testing.T) {
	edges := map[edge]int64{{"a.f", 1, "a.g"}: 1 << 57}
	var buf bytes.Buffer
	err := writeProfile(&buf, edges, nil, 95)
	if err == nil || !strings.Contains(err.Error(), "a.f line 1 → a.g") {
		t.Errorf("error %v, want one naming a.f line 1 → a.g", err)
	}
}

// preprofiled prints go tool preprofile's output ("GO PREPROFILE V1",
// then caller, callee and "OFFSET WEIGHT" lines per edge) as "CALLER
// CALLEE OFFSET WEIGHT" joined by |.
func preprofiled(t *testing.T, path string) string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	s := bufio.NewScanner(f)
	for s.Scan() {
		lines = append(lines, s.Text())
	}
	if len(lines) == 0 || lines[0] != "GO PREPROFILE V1" || (len(lines)-1)%3 != 0 {
		t.Fatalf("go tool preprofile wrote %q", lines)
	}
	var edges []string
	for i := 1; i < len(lines); i += 3 {
		edges = append(edges, lines[i]+" "+lines[i+1]+" "+lines[i+2])
	}
	return strings.Join(edges, "|")
}

// TestHotLine: go build counts hot the heaviest edges whose cumulative
// weight first passes 99% of the whole, ballast included.
//
// Of weights 100, 50, 30 and 20 (200) at hot 70: 70% is 140, passed at
// 150 (100 + 50), and no line falls within 69–71% (138–142): the line is
// drawn halfway through 50, at 125, by a ballast of 99 × 200 − 100 ×
// 125 = 7,300, which puts 99% of 7,500, 7,425, between 7,400 and 7,450:
// two hot. At hot 99, the line at 200 (all four) is within 98–100% and
// drawn halfway through 20, at 190: ballast 800. At hot 40, one.
//
// Of 8,000, 1,000, 80, 79, 40, 39, 38, twenty of 36 and 4 (10,000) at
// hot 90: lines fall within 89–91% (8,900–9,100) below 1,000 (9,000, a
// gap of 1,000/80) and below 80 (9,080, a gap of 80/79); the first
// passes 90% only at 9,080, but the line goes below 1,000, the wider
// gap: two hot, ballast 99 × 10,000 − 100 × (9,000 − 500).
//
// Of 1,000, 500, 10 and 10 (1,520) at hot 99: lines fall within 98–100%
// below 500 (1,500, gap 50), below the first 10 (1,510, gap 1) and
// below all (1,520), which no ballast can draw (it would pass go
// build's own 99%): two hot, ballast 99 × 1,520 − 100 × (1,500 − 250).
func TestHotLine(t *testing.T) {
	a := map[edge]int64{
		{"a", 1, "b"}: 100, {"a", 2, "c"}: 50, {"a", 3, "d"}: 30, {"a", 4, "e"}: 20,
	}
	d := map[edge]int64{
		{"a", 1, "b"}: 8000, {"a", 2, "c"}: 1000, {"a", 3, "d"}: 80, {"a", 4, "e"}: 79,
		{"a", 5, "f"}: 40, {"a", 6, "g"}: 39, {"a", 7, "h"}: 38, {"a", 8, "i"}: 4,
	}
	for i := range 20 {
		d[edge{"b", int64(i), "c"}] = 36
	}
	c := map[edge]int64{
		{"a", 1, "b"}: 1000, {"a", 2, "c"}: 500, {"a", 3, "d"}: 10, {"a", 4, "e"}: 10,
	}
	for _, c := range []struct {
		edges          map[edge]int64
		hot            float64
		n              int
		lightest, next int64
		ballast        int64
	}{
		{a, 70, 2, 50, 30, 7300},
		{a, 99, 4, 20, 0, 800},
		{a, 40, 1, 100, 50, 14800},
		{d, 90, 2, 1000, 80, 99*10000 - 100*(9000-500)},
		{c, 99, 2, 500, 10, 99*1520 - 100*(1500-250)},
		{map[edge]int64{}, 70, 0, 0, 0, 0},
	} {
		n, last, next := hotLine(c.edges, c.hot)
		if n != c.n || last != c.lightest || next != c.next {
			t.Errorf("%v hot %v: %d hot, lightest %d, next %d; want %d, %d, %d", c.edges, c.hot, n, last, next, c.n, c.lightest, c.next)
		}
		if got := ballast(c.edges, c.hot); got != c.ballast {
			t.Errorf("%v hot %v: ballast %d, want %d", c.edges, c.hot, got, c.ballast)
		}
	}
}
