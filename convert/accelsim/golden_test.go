package accelsim

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden .jsonl files from the converter's output")

// TestGolden converts each hand-made trace under testdata/golden (one per
// tracer version, line format and address mode, see testdata/README.md)
// and compares the records with the reviewed NAME.jsonl beside it.
func TestGolden(t *testing.T) {
	lists, err := filepath.Glob("testdata/golden/*/kernelslist.g")
	if err != nil || len(lists) == 0 {
		t.Fatalf("no golden cases: %v", err)
	}
	for _, list := range lists {
		dir := filepath.Dir(list)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			got := jsonl(t, convert(t, list, DefaultOptions()))
			golden := dir + ".jsonl"
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("conversion differs from %s\n%s", golden, firstDiff(got, want))
			}
		})
	}
}

// firstDiff shows the first line where got and want differ.
func firstDiff(got, want []byte) string {
	g, w := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl []byte
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if !bytes.Equal(gl, wl) {
			return "line " + strconv.Itoa(i+1) + ":\n got  " + string(gl) + "\n want " + string(wl)
		}
	}
	return "(no line differs)"
}
