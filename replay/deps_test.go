package replay

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLinksNoFileFormats checks that the engine links none of the file
// formats' code: it writes rows to a tables.Sink, and package results,
// which writes them as Parquet, Arrow IPC or CSV with arrow-go (and
// thrift, flatbuffers, compression codecs), stays with the commands.
func TestLinksNoFileFormats(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if p == "github.com/gpureplay/gpureplay/results" || strings.HasPrefix(p, "github.com/apache/") {
			t.Errorf("package replay links %s", p)
		}
	}
}
