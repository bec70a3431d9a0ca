package tempfile

import (
	"os"
	"path/filepath"
	"testing"
)

// A file appears under its final name, readable by all, only on Commit;
// Discard leaves nothing; neither leaves it among the files Exit removes.
func TestCommitAndDiscard(t *testing.T) {
	dir := t.TempDir()
	final := filepath.Join(dir, "t.parquet")
	os.WriteFile(final, []byte("old"), 0o644)
	f, err := Create(final)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("new")
	if got, _ := os.ReadFile(final); string(got) != "old" {
		t.Errorf("the final file changed before Commit: %q", got)
	}
	if len(live) != 1 {
		t.Errorf("%d files in flight, want 1", len(live))
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(final)
	if got, _ := os.ReadFile(final); string(got) != "new" || st.Mode().Perm() != 0o644 {
		t.Errorf("after Commit: %q, mode %v", got, st.Mode().Perm())
	}
	g, err := Create(filepath.Join(dir, "u"))
	if err != nil {
		t.Fatal(err)
	}
	g.Discard()
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || len(live) != 0 {
		t.Errorf("after Discard: %d files in the directory (want 1), %d in flight", len(entries), len(live))
	}
}
