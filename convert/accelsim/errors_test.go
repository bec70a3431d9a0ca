package accelsim

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// v4 is a header for hand-written malformed kernels: a grid of two blocks
// of 64 threads (two warps), tracer version 4 without line numbers.
const v4 = `-kernel name = k
-kernel id = 1
-grid dim = (2,1,1)
-block dim = (64,1,1)
-accelsim tracer version = 4
-enable lineinfo = 0

#traces format = ...
`

// writeTrace writes files (name → content) into a fresh directory and
// returns its kernelslist.g, which lists kernel-1.traceg unless files gives
// one.
func writeTrace(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	if _, ok := files["kernelslist.g"]; !ok {
		files["kernelslist.g"] = "kernel-1.traceg\n"
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "kernelslist.g")
}

// lineOf is the 1-based number of the first line of text containing s, or
// of the n-th one for s written "text@n".
func lineOf(t *testing.T, text, s string) int64 {
	t.Helper()
	n := 1
	if before, after, ok := strings.Cut(s, "@"); ok {
		s, n = before, int(after[0]-'0')
	}
	for i, l := range strings.Split(text, "\n") {
		if strings.Contains(l, s) {
			if n--; n == 0 {
				return int64(i + 1)
			}
		}
	}
	t.Fatalf("no line contains %q", s)
	return 0
}

// TestMalformed checks that every kind of malformed kernel file stops the
// conversion with an *Error naming the file, the line and the problem.
func TestMalformed(t *testing.T) {
	const ok = "0000 ffffffff 1 R1 MOV 0 0 \n"
	for _, c := range []struct {
		name   string
		kernel string
		at     string // text on the line the error must name; "" for no line
		msg    string
	}{
		{"fewer lines than insts", v4 + "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 3\n" + ok + ok + "#END_TB\n",
			"#END_TB", "warp 0 has 2 instruction lines but its insts line (line 12) says 3"},
		{"fewer lines than insts before next warp", v4 + "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 2\n" + ok + "warp = 1\ninsts = 0\n#END_TB\n",
			"warp = 1", "warp 0 has 1 instruction lines"},
		{"more lines than insts", v4 + "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n" + ok + "0010 ffffffff 0 EXIT 0 0 \n#END_TB\n",
			"EXIT", "more instruction lines than its insts line"},
		{"bad PC", v4 + "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n00zz ffffffff 0 NOP 0 0 \n#END_TB\n",
			"00zz", `bad PC "00zz"`},
		{"bad mask", v4 + "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n0000 1ffffffff 0 NOP 0 0 \n#END_TB\n",
			"NOP", "bad active mask"},
		{"bad address", v4 + "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n0000 00000003 1 R2 LDG.E 1 R4 4 0 0x7f00 0x7fgg \n#END_TB\n",
			"LDG", `bad address "0x7fgg" for lane 1`},
		{"too few addresses", v4 + "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n0000 00000007 1 R2 LDG.E 1 R4 4 0 0x7f00 0x7f04 \n#END_TB\n",
			"LDG", `bad address "" for lane 2`},
		{"too many addresses", v4 + "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n0000 00000001 1 R2 LDG.E 1 R4 4 0 0x7f00 0x7f04 \n#END_TB\n",
			"LDG", `unexpected field "0x7f04"`},
		{"unknown address mode", v4 + "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n0000 ffffffff 1 R2 LDG.E 1 R4 4 3 0x7f00 4 \n#END_TB\n",
			"LDG", "unknown address mode 3"},
		{"bad delta", v4 + "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n0000 00000003 1 R2 LDG.E 1 R4 4 2 0x7f00 4x \n#END_TB\n",
			"LDG", `bad delta "4x" for lane 1`},
		{"stride over a gap", v4 + "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n0000 00000005 1 R2 LDG.E 1 R4 4 1 0x7f00 4 \n#END_TB\n",
			"LDG", "base and stride need contiguous active lanes"},
		{"bad register", v4 + "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n0000 ffffffff 1 P0 MOV 0 0 \n#END_TB\n",
			"MOV", `destination register 1 of 1 is "P0"`},
		{"missing mem_width", v4 + "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n0000 ffffffff 0 NOP 0\n#END_TB\n",
			"NOP", `bad mem_width ""`},
		{"missing #END_TB at end", v4 + "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n" + ok,
			"#BEGIN_TB", "missing #END_TB"},
		{"missing #END_TB before next block", v4 + "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n" + ok + "\n#BEGIN_TB  \n",
			"#BEGIN_TB  ", "#BEGIN_TB before the #END_TB of the thread block opened at line 9"},
		{"#END_TB alone", v4 + "#END_TB\n", "#END_TB", "#END_TB without #BEGIN_TB"},
		{"block outside grid", v4 + "#BEGIN_TB\nthread block = 2,0,0\n#END_TB\n", "thread block", "outside the grid (2,1,1)"},
		{"block twice", v4 + "#BEGIN_TB\nthread block = 1,0,0\n#END_TB\n#BEGIN_TB\nthread block = 1,0,0\n#END_TB\n",
			"thread block = 1,0,0@2", "appears twice"},
		{"no thread block line", v4 + "#BEGIN_TB\nwarp = 0\n", "warp = 0", "warp line before the \"thread block = x,y,z\" line"},
		{"warp outside block", v4 + "#BEGIN_TB\nthread block = 0,0,0\nwarp = 2\ninsts = 0\n#END_TB\n", "warp = 2", "block dim (64,1,1) has 2 warps"},
		{"warp twice", v4 + "#BEGIN_TB\nthread block = 0,0,0\nwarp = 1\ninsts = 0\nwarp = 1\n", "warp = 1@2", "warp 1 appears twice"},
		{"no insts line", v4 + "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\n" + ok, "MOV", "before the \"warp = N\" and \"insts = N\" lines"},
		{"stray line", v4 + "#BEGIN_TB\nthread block = 0,0,0\nsomething else\n", "something", `unexpected line "something else"`},
		{"line outside block", v4 + ok, "MOV", "expected #BEGIN_TB"},
		{"bad cluster line", v4 + "#BEGIN_TB\nthread block = 0,0,0\ncluster id = 1,2\n", "cluster", "bad cluster line"},
		{"bad grid", strings.Replace(v4, "(2,1,1)", "(2,x,1)", 1), "grid dim", `bad value "(2,x,1)" for header key "grid dim"`},
		{"too many threads", strings.Replace(v4, "(64,1,1)", "(64,32,1)", 1), "block dim", "has 2048 threads; a CTA has at most 1024"},
		{"too many CTAs", strings.Replace(v4, "(2,1,1)", "(2147483647,65535,2)", 1), "grid dim", "more than this importer handles"},
		{"bad header line", strings.Replace(v4, "-kernel id = 1", "kernel id = 1", 1), "kernel id", "expected a \"-key = value\" header line"},
		{"no header end", "-kernel name = k\n", "", "the header has no line starting with '#'"},
		{"mode 2 before version 3", strings.Replace(v4, "version = 4", "version = 2", 1) + "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n0 0 0 0 0000 00000001 1 R2 LDG.E 1 R4 4 2 0x7f00 \n#END_TB\n",
			"LDG", "address mode 2 in a tracer version 2 trace"},
		{"old prefix of another warp", strings.Replace(v4, "version = 4", "version = 2", 1) + "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n0 0 0 1 0000 ffffffff 0 NOP 0 0 \n#END_TB\n",
			"NOP", "instruction of thread block 0,0,0 warp 1 inside thread block 0,0,0 warp 0"},
		{"line numbers missing", strings.Replace(v4, "lineinfo = 0", "lineinfo = 1", 1) + "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n0000 ffffffff 0 NOP 0 0 \n#END_TB\n",
			"NOP", `bad destination register count "NOP"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			list := writeTrace(t, map[string]string{"kernel-1.traceg": c.kernel})
			var line int64
			if c.at != "" {
				line = lineOf(t, c.kernel, c.at)
			}
			checkError(t, Convert(list, discard{}, DefaultOptions()), "kernel-1.traceg", line, c.msg)
		})
	}
}

// checkError checks that err is an *Error at file:line saying msg.
func checkError(t *testing.T, err error, file string, line int64, msg string) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("got %v; want an *Error", err)
	}
	if filepath.Base(e.File) != file || e.Line != line || !strings.Contains(e.Error(), msg) {
		t.Errorf("got %q (file %s, line %d)\nwant file %s, line %d, containing %q", e.Error(), filepath.Base(e.File), e.Line, file, line, msg)
	}
}

// TestMalformedList covers the kernel list and the kernel files it names.
func TestMalformedList(t *testing.T) {
	good := v4 + "#BEGIN_TB\nthread block = 0,0,0\n#END_TB\n"
	for _, c := range []struct {
		name  string
		files map[string]string
		file  string
		line  int64
		msg   string
	}{
		{"bad copy address", map[string]string{"kernelslist.g": "kernel-1.traceg\nMemcpyHtoD,0xZZ,16\n"}, "kernelslist.g", 2, `bad MemcpyHtoD address "0xZZ"`},
		{"bad copy size", map[string]string{"kernelslist.g": "MemcpyHtoD,0x1000,-16\n"}, "kernelslist.g", 1, `bad MemcpyHtoD size "-16"`},
		{"copy fields", map[string]string{"kernelslist.g": "MemcpyHtoD,0x1000\n"}, "kernelslist.g", 1, "want MemcpyHtoD,0x<address>,<bytes>"},
		{"huge copy", map[string]string{"kernelslist.g": "MemcpyHtoD,0x1000,1222220222222024\n"}, "kernelslist.g", 1, "MemcpyHtoD of 1222220222222024 bytes: a trace's buffer holds at most 2^46"},
		{"raw trace", map[string]string{"kernelslist.g": "kernel-1.trace\n"}, "kernelslist.g", 1, "run Accel-Sim's post-traces-processing"},
		{"other file", map[string]string{"kernelslist.g": "kernel-1.txt\n"}, "kernelslist.g", 1, "want a .traceg or .traceg.xz file"},
		{"missing kernel file", map[string]string{"kernelslist.g": "kernel-2.traceg\n"}, "kernel-2.traceg", 0, "cannot open the kernel trace"},
		{"not xz", map[string]string{"kernelslist.g": "kernel-1.traceg.xz\n", "kernel-1.traceg.xz": good}, "kernel-1.traceg.xz", 0, "not an xz file"},
		{"junk line", map[string]string{"kernelslist.g": "kernel-1.traceg\nsomething else\n", "kernel-1.traceg": good}, "kernelslist.g", 2, `"something else" is neither a MemcpyHtoD nor a kernel trace file line`},
		{"empty list", map[string]string{"kernelslist.g": "# nothing\n\n"}, "kernelslist.g", 0, "names no kernel trace file"},
		{"newer tracer", map[string]string{"kernel-1.traceg": strings.Replace(good, "version = 4", "version = 9", 1)}, "kernel-1.traceg", 5, "accelsim tracer version 9 is newer than this importer reads (up to 5)"},
		{"kernel id twice", map[string]string{"kernelslist.g": "kernel-1.traceg\nkernel-2.traceg\n", "kernel-1.traceg": good, "kernel-2.traceg": good},
			"kernel-2.traceg", 0, "kernel id 1 is also the id of"},
	} {
		t.Run(c.name, func(t *testing.T) {
			list := writeTrace(t, c.files)
			checkError(t, Convert(list, discard{}, DefaultOptions()), c.file, c.line, c.msg)
		})
	}
	if err := Convert("testdata/no-such-dir/kernelslist.g", discard{}, DefaultOptions()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing kernel list gives %v; want an error wrapping fs.ErrNotExist", err)
	}
}
