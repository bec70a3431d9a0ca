package tables

import (
	"os/exec"
	"strings"
	"testing"
)

// TestStandardLibraryOnly checks that the package links nothing outside
// the standard library, so that the replay engine, which writes its rows
// here, links no file format's code (package doc).
func TestStandardLibraryOnly(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if first, _, _ := strings.Cut(p, "/"); strings.Contains(first, ".") && p != "github.com/gpureplay/gpureplay/tables" {
			t.Errorf("package tables links %s", p)
		}
	}
}
