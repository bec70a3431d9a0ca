package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// A program whose functions' start lines are known: small is inlined
// into main and also compiled out of line (its value is taken), so its
// out-of-line subprogram names its line through its abstract origin.
const knownProgram = `package main

func small(x int) int { return x + 1 }

//go:noinline
func big(x int) int {
	return x * 3
}

var f = small

func main() {
	println(small(1), f(2), big(3))
}
`

// TestStartLines builds knownProgram and reads its DWARF: each function
// starts at the line of its func keyword.
func TestStartLines(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build a program with:", err)
	}
	dir := t.TempDir()
	for name, text := range map[string]string{"go.mod": "module known\n\ngo 1.21\n", "main.go": knownProgram} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(gobin, "build", "-o", "known", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off")
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, msg)
	}
	starts, err := startLines(filepath.Join(dir, "known"))
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]int64{"main.small": 3, "main.big": 6, "main.main": 12} {
		if got := starts[name]; got != want {
			t.Errorf("%s starts at %d, want %d", name, got, want)
		}
	}
	if _, err := startLines(filepath.Join(dir, "main.go")); err == nil {
		t.Error("startLines of a file that is no ELF binary: no error")
	}
}
