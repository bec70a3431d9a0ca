package timeline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
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
		w.SetModel(1400, 10, 0)
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
	w.SetModel(1000, 0, 0)
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

// Under the kernel cap, the kernels past it are not drawn, and no arrow
// into or out of one is written: the launch into child kernel 2 (drawn
// first, within the cap) is kept, the host launches of kernels 1 and 3
// and a blocking call released by kernel 3 are not.
func TestArrowsUnderTheKernelCap(t *testing.T) {
	var buf bytes.Buffer
	w := New(&buf, Options{MaxKernels: 1})
	w.SetModel(1000, 10, 5)
	rows(w, "a")
	three := uint64(3)
	w.Sync(tables.Sync{Seq: 1, Call: "device", CallCycle: 5, ReturnCycle: 215, LastKernel: &three})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data := bytes.Clone(buf.Bytes())
	tr, err := perfetto.Import(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Stats) != 0 || len(tr.Flows) != 2 {
		t.Errorf("stats %v, %d arrows; want none and 2 (the launch into kernel 2, the coalesced lane)", tr.Stats, len(tr.Flows))
	}
	if !bytes.Contains(data, []byte("2 kernels and 0 SPAWN decisions left out (--timeline-kernels 1)")) {
		t.Error("no note of the kernels left out")
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

// syncRows is one run, on a 1000 MHz GPU (a cycle a nanosecond) with
// lat.host_sync=5, of host kernels 1 (stream 0, runs 100..1000) and 2
// (stream 7, runs 1000..1500), and three blocking calls on host thread 0
// given with the calls' rows in the engine's order: a stream sync
// released by kernel 1, whose row comes after the kernel's (the call
// returns at 1005); an event sync released by kernel 2, whose row comes
// before the kernel's (as it may where lat.host_sync=0 puts both rows in
// one cycle); and a device sync that waited for nothing (call = return =
// 1600).
func syncRows(w *Writer) {
	w.Begin(tables.Run{Trace: "t", Policy: "cdp"})
	one, two, s0, s7, e3 := uint64(1), uint64(2), int64(0), int64(7), int64(3)
	w.Kernel(tables.Kernel{KernelID: 1, Name: "k1", LaunchCycle: 0, ReadyCycle: 100, StartCycle: 100, EndCycle: 1000})
	w.Sync(tables.Sync{Seq: 2, Call: "stream", Stream: &s0, CallCycle: 20, ReturnCycle: 1005, CapturedReturn: 900, LastKernel: &one})
	w.Sync(tables.Sync{Seq: 4, Call: "event", Stream: &s7, Event: &e3, CallCycle: 1010, ReturnCycle: 1505, CapturedReturn: 1400, LastKernel: &two})
	w.Kernel(tables.Kernel{KernelID: 2, Name: "k2", Stream: 7, LaunchCycle: 900, ReadyCycle: 1000, StartCycle: 1000, EndCycle: 1500})
	w.Sync(tables.Sync{Seq: 5, Call: "device", CallCycle: 1600, ReturnCycle: 1600, CapturedReturn: 1500})
	w.Summary(tables.Summary{MakespanCycles: 1600})
}

// Each blocking call is a slice on its host thread's track, named by its
// CUDA call, with a "release" arrow from the end of the kernel that ended
// its wait to the call's last nanosecond (a "released" slice nested in
// it), whichever of the two rows came first; a call that waited for
// nothing has no arrow.
func TestSyncSlicesAndReleaseArrows(t *testing.T) {
	var buf bytes.Buffer
	w := New(&buf, Options{})
	w.SetModel(1000, 0, 5)
	syncRows(w)
	if len(w.flows.hostEnded) != 1 || len(w.flows.hostOrder) != 1 {
		t.Errorf("%d host kernels' slices kept, want 1: kernel 1 ended more than lat.host_sync before kernel 2", len(w.flows.hostEnded))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(buf.Bytes(), []byte(`"name":"release","cat":"sync"`)); n != 4 {
		t.Errorf("%d release arrow events, want 4 (two arrows, a start and an end each)", n)
	}
	tr, err := perfetto.Import(&buf)
	if err != nil {
		t.Fatal(err)
	}
	for stat, n := range tr.Stats {
		t.Errorf("Perfetto's import counts %d %s", n, stat)
	}
	var got []string
	for _, s := range tr.Slices {
		if track := tr.Threads[[2]int{s.Pid, s.Tid}]; track == "host thread 0" {
			got = append(got, fmt.Sprintf("%d %s %d+%d wait=%v", s.Depth, s.Name, s.Ts, s.Dur, s.Args["wait_cycles"]))
		}
	}
	want := []string{
		"0 cudaStreamSynchronize 20+985 wait=985",
		"1 released 1004+1 wait=<nil>",
		"0 cudaEventSynchronize 1010+495 wait=495",
		"1 released 1504+1 wait=<nil>",
		"0 cudaDeviceSynchronize 1600+0 wait=0",
	}
	if !slices.Equal(got, want) {
		t.Errorf("host thread 0:\n%q\nwant\n%q", got, want)
	}
	got = nil
	for _, f := range tr.Flows {
		out, in := tr.Slices[f.Out], tr.Slices[f.In]
		got = append(got, fmt.Sprintf("%s %s -> %s %s at %d (kernel %v)", tr.Threads[[2]int{out.Pid, out.Tid}], out.Name,
			tr.Threads[[2]int{in.Pid, in.Tid}], in.Name, in.Ts, in.Args["last_kernel_id"]))
	}
	slices.Sort(got)
	want = []string{
		"kernels k1 -> host thread 0 released at 1004 (kernel 1)",
		"kernels k2 -> host thread 0 released at 1504 (kernel 2)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("arrows:\n%q\nwant\n%q", got, want)
	}
}

// Names are written as JSON strings, whatever they hold: a kernel or
// trace named with a control byte or a non-printable rune past U+FFFF
// was written with Go's escapes (\x01, \U000e0001), which no JSON reader
// takes. Each name reads back as it was given.
func TestNamesAreJSON(t *testing.T) {
	odd := "k\"q\\t\n\t\x01\x1f\x7f☃\U000e0001<&>"
	var buf bytes.Buffer
	w := New(&buf, Options{})
	w.SetModel(1400, 10, 0)
	w.Begin(tables.Run{Trace: "t" + odd, Policy: "p"})
	w.CTA(tables.CTA{KernelID: 1, CTA: 0, SM: 0, StartCycle: 10, EndCycle: 150, Name: odd})
	w.Kernel(tables.Kernel{KernelID: 1, Name: odd, LaunchCycle: 0, StartCycle: 10, EndCycle: 150})
	w.Summary(tables.Summary{MakespanCycles: 150})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TraceEvents []struct {
			Name string `json:"name"`
			Args struct {
				Name string `json:"name"`
			} `json:"args"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	var slices, procs int
	for _, e := range doc.TraceEvents {
		if e.Name == odd {
			slices++
		}
		if strings.HasPrefix(e.Args.Name, "t"+odd) {
			procs++
		}
	}
	if slices < 2 || procs < 1 {
		t.Errorf("%d slices named %q, %d processes of its trace; want the CTA's and the kernel's, and the run's", slices, odd, procs)
	}
}
