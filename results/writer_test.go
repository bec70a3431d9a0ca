package results

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/gpureplay/gpureplay/tables"
)

// newTestWriter creates a Writer whose allocator the test checks for leaks
// once the Writer is closed. Not for Parquet: the library's buffered row
// group writer leaves one small buffer per column chunk to the garbage
// collector without releasing it, which the checked allocator counts.
func newTestWriter(t *testing.T, dir string, f Format, batch int) *Writer {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	if f != Parquet {
		t.Cleanup(func() { mem.AssertSize(t, 0) })
	}
	w, err := create(dir, f, mem, batch)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// dirNames lists the entries of dir, sorted.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var n []string
	for _, e := range entries {
		n = append(n, e.Name())
	}
	sort.Strings(n)
	return n
}

func finalNames(f Format) []string {
	var n []string
	for _, table := range Tables() {
		n = append(n, table+"."+string(f))
	}
	sort.Strings(n)
	return n
}

func TestRoundTrip(t *testing.T) {
	for _, f := range formats {
		// A batch of 1 row puts every row in its own record batch; a large
		// batch keeps them all in one.
		for _, batch := range []int{1, batchRows} {
			t.Run(string(f), func(t *testing.T) {
				dir := t.TempDir()
				w := newTestWriter(t, dir, f, batch)
				writeFixture(w)
				if err := w.Close(); err != nil {
					t.Fatal(err)
				}
				if got, want := dirNames(t, dir), finalNames(f); !reflect.DeepEqual(got, want) {
					t.Fatalf("files %v, want %v", got, want)
				}
				for _, table := range Tables() {
					checkTable(t, dir, table, f, fixtureRows[table])
				}
			})
		}
	}
}

// checkTable reads a table back and compares its columns and rows.
func checkTable(t *testing.T, dir, table string, f Format, want [][]any) {
	t.Helper()
	s, header, rows := readTable(t, dir, table, f)
	if s != nil {
		sameSchema(t, table, s)
	}
	if got := columnNames(Schema(table)); !reflect.DeepEqual(header, got) {
		t.Errorf("%s header %v, want %v", table, header, got)
	}
	if f == CSV {
		want = asText(want)
	}
	if len(rows) != len(want) {
		t.Fatalf("%s: %d rows, want %d", table, len(rows), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(rows[i], want[i]) {
			t.Errorf("%s row %d:\n got %#v\nwant %#v", table, i, rows[i], want[i])
		}
	}
}

func TestEmptyTables(t *testing.T) {
	for _, f := range formats {
		t.Run(string(f), func(t *testing.T) {
			dir := t.TempDir()
			w := newTestWriter(t, dir, f, batchRows)
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			for _, table := range Tables() {
				checkTable(t, dir, table, f, nil)
			}
		})
	}
}

func TestDeterministic(t *testing.T) {
	for _, f := range formats {
		t.Run(string(f), func(t *testing.T) {
			var dirs [2]string
			for i := range dirs {
				dirs[i] = t.TempDir()
				w := newTestWriter(t, dirs[i], f, 2)
				writeFixture(w)
				if err := w.Close(); err != nil {
					t.Fatal(err)
				}
			}
			for _, name := range finalNames(f) {
				a, err := os.ReadFile(filepath.Join(dirs[0], name))
				if err != nil {
					t.Fatal(err)
				}
				b, err := os.ReadFile(filepath.Join(dirs[1], name))
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(a, b) {
					t.Errorf("%s differs between two identical writes", name)
				}
			}
		})
	}
}

func TestBeginRunsConcatenate(t *testing.T) {
	dir := t.TempDir()
	w := newTestWriter(t, dir, Parquet, 3)
	runs := []struct {
		run  tables.Run
		ctas int
	}{
		{tables.Run{Trace: "a.trace.zst", Policy: "cdp", Params: ""}, 5},
		{tables.Run{Trace: "a.trace.zst", Policy: "spawn", Params: "spawn.ncon=busy"}, 4},
		{tables.Run{Trace: "b.trace.zst", Policy: "flat", Params: ""}, 0},
		{tables.Run{Trace: "b.trace.zst", Policy: "dtbl+ppcs", Params: "gpu.sms=26,dtbl.agt_entries=512"}, 2},
	}
	var want [][]any
	for _, r := range runs {
		w.Begin(r.run)
		for i := 0; i < r.ctas; i++ {
			row := tables.CTA{KernelID: 4, CTA: uint64(i), SM: int32(i), EndCycle: int64(10 * i)}
			w.CTA(row)
			_, vals := rowValues(r.run, row)
			want = append(want, vals)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	checkTable(t, dir, "ctas", Parquet, want)
}

func TestAbort(t *testing.T) {
	dir := t.TempDir()
	w := newTestWriter(t, dir, Arrow, 1)
	writeFixture(w)
	w.Abort()
	if names := dirNames(t, dir); len(names) != 0 {
		t.Errorf("Abort left %v", names)
	}
	w.Abort()
	w.CTA(tables.CTA{KernelID: 1}) // dropped, no panic
	if err := w.Close(); err == nil {
		t.Error("Close after Abort succeeded")
	}
}

func TestAbortAfterClose(t *testing.T) {
	dir := t.TempDir()
	w := newTestWriter(t, dir, CSV, batchRows)
	writeFixture(w)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	w.Abort()
	if got, want := dirNames(t, dir), finalNames(CSV); !reflect.DeepEqual(got, want) {
		t.Errorf("after Close and Abort: files %v, want %v", got, want)
	}
	if err := w.Close(); err == nil {
		t.Error("second Close succeeded")
	}
}

func TestCloseRemovedDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	w := newTestWriter(t, dir, Parquet, 2)
	writeFixture(w)
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	err := w.Close()
	if err == nil {
		t.Fatal("Close into a removed directory succeeded")
	}
	// The kernels table is the first renamed (the summary comes last).
	if !strings.Contains(err.Error(), "kernels table") {
		t.Errorf("error %q does not name the table", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("directory reappeared: %v", err)
	}
	w.Abort()
}

// A table whose final name cannot be taken fails Close; no temporary file
// stays, the tables renamed before it are whole, and the summary, renamed
// last as the mark of a finished output, is not there. (The directory in
// the way appears after the writer started: one there at the start is
// refused then.)
func TestCloseRenameFails(t *testing.T) {
	dir := t.TempDir()
	w := newTestWriter(t, dir, CSV, batchRows)
	if err := os.MkdirAll(filepath.Join(dir, "stages.csv", "x"), 0o777); err != nil {
		t.Fatal(err)
	}
	writeFixture(w)
	err := w.Close()
	if err == nil || !strings.Contains(err.Error(), "stages table") {
		t.Fatalf("Close: %v, want an error naming the stages table", err)
	}
	for _, name := range dirNames(t, dir) {
		if strings.HasPrefix(name, ".") {
			t.Errorf("temporary file %s left", name)
		}
	}
	for _, table := range Tables()[1:6] {
		checkTable(t, dir, table, CSV, fixtureRows[table])
	}
	if _, err := os.Stat(filepath.Join(dir, "summary.csv")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("summary.csv after a failed Close: %v", err)
	}
	w.Abort()
}

// failWriter stands for a disk that refuses every write.
type failWriter struct{}

var errDiskFull = errors.New("disk full")

func (failWriter) Write([]byte) (int, error) { return 0, errDiskFull }

func TestWriteErrorIsSticky(t *testing.T) {
	dir := t.TempDir()
	w := newTestWriter(t, dir, Arrow, 2)
	w.ctas.out.buf.Reset(failWriter{})
	// The failure shows once the file's buffer fills and is written out.
	for i := 0; i < 1e6 && w.Err() == nil; i++ {
		w.CTA(tables.CTA{KernelID: 1, CTA: uint64(i)})
		w.Stage(tables.Stage{Stage: "kernels"})
	}
	if err := w.Err(); !errors.Is(err, errDiskFull) {
		t.Fatalf("Err() = %v, want the write error", err)
	}
	pending := w.stages.pending
	w.Stage(tables.Stage{Stage: "d2h"})
	if w.stages.pending != pending {
		t.Error("a row was taken after the error")
	}
	err := w.Close()
	if !errors.Is(err, errDiskFull) || !strings.Contains(err.Error(), "ctas table") {
		t.Fatalf("Close: %v, want the write error naming the ctas table", err)
	}
	if names := dirNames(t, dir); len(names) != 0 {
		t.Errorf("failed Close left %v", names)
	}
	w.Abort()
}

func TestCreateErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := Create(dir, "xlsx"); err == nil || !strings.Contains(err.Error(), "parquet, arrow, csv") {
		t.Errorf("Create with format xlsx: %v", err)
	}
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o666); err != nil {
		t.Fatal(err)
	}
	if _, err := Create(filepath.Join(file, "out"), Parquet); err == nil {
		t.Error("Create under a regular file succeeded")
	}
	if names := dirNames(t, dir); !reflect.DeepEqual(names, []string{"file"}) {
		t.Errorf("failed Create left %v", names)
	}
}

func TestCreateDefaultsToParquet(t *testing.T) {
	dir := t.TempDir()
	w, err := Create(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got, want := dirNames(t, dir), finalNames(Parquet); !reflect.DeepEqual(got, want) {
		t.Errorf("files %v, want %v", got, want)
	}
}

func TestCloseReplacesOldTables(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "stages.csv")
	if err := os.WriteFile(old, []byte("stale\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	w := newTestWriter(t, dir, CSV, batchRows)
	writeFixture(w)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	checkTable(t, dir, "stages", CSV, fixtureRows["stages"])
}

// TestRowsDoNotAllocate writes rows of the tables with a row per CTA,
// kernel, launching lane and SM window one at a time to a file Writer:
// none may allocate (they are appended a value at a time, the generated
// append of columns_gen.go).
func TestRowsDoNotAllocate(t *testing.T) {
	w := newTestWriter(t, t.TempDir(), Parquet, 1<<20)
	defer w.Abort()
	w.Begin(tables.Run{Trace: "t", Policy: "cdp"})
	cta := tables.CTA{KernelID: 7, CTA: 3, SM: 1, DispatchCycle: 10, StartCycle: 11, EndCycle: 90, GroupID: u64(2)}
	kernel := tables.Kernel{KernelID: 9, Name: "k", Origin: "device", ParentKernelID: u64(1), CTAs: 4, EndCycle: 90}
	launch := tables.Launch{SiteID: 1, Cycle: 5, Decision: "launch", Outcome: "launched"}
	occupancy := tables.Occupancy{Cycle: 100, WindowCycles: 100, SM: 2, ActiveWarps: 3}
	rows := map[string]func(){
		"ctas":      func() { w.CTA(cta) },
		"kernels":   func() { w.Kernel(kernel) },
		"launches":  func() { w.Launch(launch) },
		"occupancy": func() { w.Occupancy(occupancy) },
	}
	for table, write := range rows {
		// Builders grow by doubling, so growth is a handful of
		// allocations over the run; AllocsPerRun rounds the mean down
		// to a whole number.
		if n := testing.AllocsPerRun(20000, write); n != 0 {
			t.Errorf("a %s row allocates %v times", table, n)
		}
	}
}

// TestFullBatchReserve checks that a table that filled a batch sizes its
// builders for the next one exactly: room for a batch of rows, not twice
// as many (the builders round a reservation up to the power of two above
// it).
func TestFullBatchReserve(t *testing.T) {
	const batch = 1024
	w := newTestWriter(t, t.TempDir(), Parquet, batch)
	defer w.Abort()
	w.Begin(tables.Run{Trace: "t", Policy: "cdp"})
	for i := range batch + 1 {
		w.CTA(tables.CTA{KernelID: 1, CTA: uint64(i)})
	}
	if c := w.ctas.kernelID.Cap(); c != batch {
		t.Errorf("after a full batch the builders hold room for %d rows, want %d", c, batch)
	}
}
