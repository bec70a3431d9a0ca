package timeline

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"github.com/gpureplay/gpureplay/internal/perfetto"
	"github.com/gpureplay/gpureplay/tables"
)

// rows is one run of a parent kernel 1 (host-launched, two CTAs) whose
// CTA 0 launches kernel 2 at cycle 90 and coalesces a group 7 into kernel
// 3, given in the order the engine writes them: by end, so the child's
// kernel row and the group's CTA come before their parent CTA's row.
func rows(w *Writer, run string) {
	w.Begin(tables.Run{Trace: "t", Policy: run})
	w.Launch(tables.Launch{ParentKernelID: 1, ParentCTA: 0, ChildKernelID: 2, Cycle: 90, Outcome: "launched"})
	w.Launch(tables.Launch{ParentKernelID: 1, ParentCTA: 0, ChildKernelID: 7, Cycle: 95, Outcome: "coalesced"})
	w.Launch(tables.Launch{ParentKernelID: 1, ParentCTA: 1, ChildKernelID: 8, Cycle: 60, Outcome: "inlined"})
	w.CTA(tables.CTA{KernelID: 1, CTA: 1, SM: 0, StartCycle: 10, EndCycle: 150, Name: "parent"})
	w.CTA(tables.CTA{KernelID: 2, CTA: 0, SM: 0, StartCycle: 190, EndCycle: 200, Name: "child"})
	parent := uint64(1)
	w.Kernel(tables.Kernel{KernelID: 2, Name: "child", ParentKernelID: &parent, LaunchCycle: 90, StartCycle: 190, EndCycle: 200})
	group := uint64(7)
	w.CTA(tables.CTA{KernelID: 3, CTA: 0, SM: 1, DispatchCycle: 100, StartCycle: 120, EndCycle: 210, GroupID: &group, Name: "host3"})
	w.CTA(tables.CTA{KernelID: 1, CTA: 0, SM: 1, StartCycle: 10, EndCycle: 250, Name: "parent"})
	w.Kernel(tables.Kernel{KernelID: 1, Name: "parent", LaunchCycle: 0, StartCycle: 10, EndCycle: 250})
	w.Kernel(tables.Kernel{KernelID: 3, Name: "host3", LaunchCycle: 0, StartCycle: 0, EndCycle: 210})
	w.Summary(tables.Summary{MakespanCycles: 250})
}

// Two runs of the same rows, imported by Perfetto's rules, draw four
// arrows each (the launch, the coalesced lane, two host launches), all
// within their run: flow ids are unique across the file and every start
// is written before its end. CTA slices are named by kernel.
func TestArrowsPerfettoDraws(t *testing.T) {
	var buf bytes.Buffer
	w := New(&buf, Options{})
	for _, run := range []string{"a", "b"} {
		w.SetModel(1400, 10)
		rows(w, run)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	tr, err := perfetto.Import(&buf)
	if err != nil {
		t.Fatal(err)
	}
	for stat, n := range tr.Stats {
		t.Errorf("Perfetto's import counts %d %s", n, stat)
	}
	var got []string
	for _, f := range tr.Flows {
		out, in := tr.Slices[f.Out], tr.Slices[f.In]
		got = append(got, fmt.Sprintf("%s/%s %s -> %s/%s %s", tr.Processes[out.Pid], tr.Threads[[2]int{out.Pid, out.Tid}], out.Name,
			tr.Processes[in.Pid], tr.Threads[[2]int{in.Pid, in.Tid}], in.Name))
	}
	slices.Sort(got)
	var want []string
	for _, run := range []string{"t · a", "t · b"} {
		want = append(want,
			run+"/host (2) launch host3 -> "+run+"/kernels (3) host3",
			run+"/host launch parent -> "+run+": launch queue/queued (2) queued parent",
			run+": SMs/SM 1 (2) parent -> "+run+": SMs/SM 1 host3",
			run+": SMs/SM 1 (2) parent -> "+run+": launch queue/queued queued child",
		)
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("arrows:\n%v\nwant:\n%v", got, want)
	}
}

// Under the CTA cap, an arrow whose parent CTA is left out is not
// written at all, neither its start nor its end.
func TestArrowsUnderTheCap(t *testing.T) {
	var buf bytes.Buffer
	w := New(&buf, Options{MaxCTAs: 2})
	w.SetModel(1000, 0)
	rows(w, "a")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	tr, err := perfetto.Import(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Stats) != 0 || len(tr.Flows) != 0 {
		t.Errorf("stats %v, %d arrows; want none of either", tr.Stats, len(tr.Flows))
	}
	if bytes.Contains(buf.Bytes(), []byte(`"ph":"f"`)) {
		t.Errorf("an arrow's end is written without its start")
	}
}

// Times are whole nanoseconds written exactly: us(ns) read back as
// Perfetto does (llround(ts*1000)) is ns.
func TestUS(t *testing.T) {
	for _, c := range []struct {
		ns   int64
		want string
	}{{0, "0"}, {7, "0.007"}, {1000, "1"}, {12345, "12.345"}, {12340, "12.34"}, {1_000_000_001, "1000000.001"}} {
		if got := us(c.ns); got != c.want {
			t.Errorf("us(%d) = %s, want %s", c.ns, got, c.want)
		}
	}
}
