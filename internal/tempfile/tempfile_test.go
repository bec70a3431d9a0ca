package tempfile

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
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

// Errors name the final path; a directory is refused before anything is
// written; a device is written in place and its write errors come back.
func TestCreateRefusals(t *testing.T) {
	dir := t.TempDir()
	if _, err := Create(dir); err == nil || !strings.Contains(err.Error(), dir+": is a directory") {
		t.Errorf("Create(a directory): %v", err)
	}
	ro := filepath.Join(dir, "ro")
	os.Mkdir(ro, 0o555)
	final := filepath.Join(ro, "t.json")
	if _, err := Create(final); err == nil || err.Error() != "create "+final+": permission denied" {
		if os.Geteuid() != 0 {
			t.Errorf("Create in a read-only directory: %v", err)
		}
	}
	if f, err := Create("/dev/null"); err != nil {
		t.Errorf("Create(/dev/null): %v", err)
	} else if _, err := f.WriteString("x"); err != nil || f.Commit() != nil {
		t.Errorf("writing /dev/null: %v", err)
	}
	if _, err := os.Stat("/dev/full"); err == nil {
		f, err := Create("/dev/full")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString("x"); err == nil || !strings.Contains(err.Error(), "/dev/full: no space left") {
			t.Errorf("writing /dev/full: %v", err)
		}
		f.Discard()
	}
}

// A temporary file carries its process id and is locked while open, and
// a sweep removes only the files whose writer is gone: not this process's,
// not another live process's, not one whose lock is held, not one written
// in the last staleAge, never a file of another name.
func TestSweepRemovesOnlyOrphans(t *testing.T) {
	dir := t.TempDir()
	mine, err := Create(filepath.Join(dir, "mine.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	defer mine.Discard()
	if pid, ok := ownerPID(filepath.Base(mine.Name())); !ok || pid != os.Getpid() {
		t.Fatalf("%s: owner %d, %v; want this process, %d", mine.Name(), pid, ok, os.Getpid())
	}
	if removeIfUnlocked(mine.Name()) {
		t.Fatal("took the lock of a file this process is writing")
	}
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	dead := gone.Process.Pid
	old := time.Now().Add(-2 * staleAge)
	put := func(name string, age time.Time) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("part"), 0o600); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(p, age, age)
		return p
	}
	orphan := put(fmt.Sprintf(".summary.parquet.tmp-%d-123", dead), old)
	keep := []string{
		put(fmt.Sprintf(".fresh.parquet.tmp-%d-124", dead), time.Now()),
		put(".ctas.parquet.tmp-1-125", old), // pid 1 is alive
		put(".older.parquet.tmp-987654", old),
		put("notes.tmp-12-34", old),
		put(fmt.Sprintf(".a.tmp-%d-x1", dead), old),
	}
	locked := put(fmt.Sprintf(".locked.parquet.tmp-%d-126", dead), old)
	keep = append(keep, locked)
	holder, err := os.Open(locked)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	if err := lock(holder); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(mine.Name(), old, old)
	keep = append(keep, mine.Name())

	removed := Sweep(dir)
	if len(removed) != 1 || removed[0] != orphan {
		t.Errorf("removed %v, want only %s", removed, orphan)
	}
	for _, p := range keep {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s: %v", filepath.Base(p), err)
		}
	}
	if err := mine.Commit(); err != nil {
		t.Errorf("commit after a sweep: %v", err)
	}
}

// The first Create in a directory sweeps it, and says what it removed.
func TestCreateSweepsOnce(t *testing.T) {
	dir := t.TempDir()
	gone := exec.Command("true")
	gone.Run()
	orphan := filepath.Join(dir, fmt.Sprintf(".t.json.tmp-%d-1", gone.Process.Pid))
	os.WriteFile(orphan, nil, 0o600)
	old := time.Now().Add(-time.Hour)
	os.Chtimes(orphan, old, old)
	var told []string
	OnSweep(func(d string, removed []string) { told = append(told, removed...) })
	defer OnSweep(nil)
	if err := WriteFile(filepath.Join(dir, "t.json"), []byte("{}")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(orphan); err == nil || len(told) != 1 || told[0] != orphan {
		t.Errorf("after Create: orphan stat %v, told %v", err, told)
	}
}

// A file read (Open, ReadFile, AddInput) is never replaced: Create
// refuses it, and so does Commit when it was read only after Create (an
// importer's config), through a symbolic link, a hard link or ../ alike;
// the final file is as it was and no temporary file is left.
func TestInputsNeverReplaced(t *testing.T) {
	defer ForgetInputs()
	dir := t.TempDir()
	in := filepath.Join(dir, "in.config")
	os.WriteFile(in, []byte("input"), 0o644)
	os.Symlink(in, filepath.Join(dir, "link"))
	os.Link(in, filepath.Join(dir, "hard"))
	inFlight := len(live)
	for _, final := range []string{in, filepath.Join(dir, "link"), filepath.Join(dir, "hard"), dir + "/../" + filepath.Base(dir) + "/in.config"} {
		ForgetInputs()
		f, err := Create(final)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString("output")
		if _, err := Open(in); err != nil {
			t.Fatal(err)
		}
		var ie *InputError
		if err := f.Commit(); !errors.As(err, &ie) || ie.Input != in {
			t.Errorf("Commit onto %s: %v, want an InputError naming %s", final, err, in)
		}
		if _, err := Create(final); !errors.As(err, &ie) {
			t.Errorf("Create of %s after reading it: %v", final, err)
		}
		if got, _ := os.ReadFile(in); string(got) != "input" {
			t.Errorf("%s replaced: %q", in, got)
		}
		if len(live) != inFlight {
			t.Errorf("%d temporary files left in flight", len(live)-inFlight)
		}
	}
	if names, _ := filepath.Glob(filepath.Join(dir, ".*.tmp-*")); len(names) > 0 {
		t.Errorf("left %v", names)
	}
	ForgetInputs()
	if err := WriteFile(in, []byte("new")); err != nil {
		t.Errorf("after ForgetInputs: %v", err)
	}
}

// An input removed since it was read does not refuse a new file that got
// its inode (the file system reuses them): identity is compared with the
// input's path as it is now, not as it was when read.
func TestRemovedInputFreesItsInode(t *testing.T) {
	defer ForgetInputs()
	ForgetInputs()
	dir := t.TempDir()
	for i := range 20 {
		in := filepath.Join(dir, fmt.Sprintf("in%d", i))
		os.WriteFile(in, []byte("x"), 0o644)
		if _, err := ReadFile(in); err != nil {
			t.Fatal(err)
		}
		os.Remove(in)
		if err := WriteFile(filepath.Join(dir, fmt.Sprintf("out%d", i)), []byte("y")); err != nil {
			t.Fatalf("writing a new file after its input was removed: %v", err)
		}
	}
}

// A file read many times (a study opens each trace twice a replay) is
// remembered once, so checking an output costs the same however many
// replays a process runs.
func TestInputsKeptOnce(t *testing.T) {
	defer ForgetInputs()
	ForgetInputs()
	dir := t.TempDir()
	in := filepath.Join(dir, "a.trace.zst")
	os.WriteFile(in, []byte("x"), 0o644)
	for range 1000 {
		f, err := Open(in)
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	AddInput(dir + "/./a.trace.zst")
	if len(inputs) != 1 {
		t.Errorf("%d inputs remembered, want 1", len(inputs))
	}
}
