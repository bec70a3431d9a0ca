package replaycli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The launch-site case of replay/testdata/contention.txt, with a host
// launch call of 10 cycles in front: two full-width CTAs of kernel 1 on
// one SM at 1000 MHz start at 10; CTA 0's warp reaches its site at cycle
// 90 and launches kernel 2, which waits 90..190 and runs 190..200; CTA 1
// ends at 150, CTA 0 at 250.
const siteTrace = `{"type":"header","version":1,"clock_mhz":1000}
{"type":"kernel","id":1,"name":"parent","grid":[2,1,1],"block":[32,1,1],"regs":0,"smem":0}
{"type":"launch","kernel":1,"t":0,"stream":0}
{"type":"cta","kernel":1,"cta":0,"cycles":100,"insts":200}
{"type":"cta","kernel":1,"cta":1,"cycles":100,"insts":200}
{"type":"kernel","id":2,"name":"child","grid":[1,1,1],"block":[32,1,1],"regs":0,"smem":0}
{"type":"launch","kernel":2,"parent":{"kernel":1,"cta":0,"warp":0,"lane":0,"at":40},"workload":3,"inline_cycles":30}
{"type":"cta","kernel":2,"cta":0,"cycles":10}
`

type traceEvent struct {
	Ph   string          `json:"ph"`
	Name string          `json:"name"`
	Pid  int             `json:"pid"`
	Tid  int             `json:"tid"`
	Ts   float64         `json:"ts"`
	Dur  float64         `json:"dur"`
	ID   uint64          `json:"id"`
	Args json.RawMessage `json:"args"`
}

// The timeline has exactly the slices, flow and counters the hand-computed
// schedule implies, in its three processes (the run, its SMs, its launch
// queue). CTA rows arrive in end order: CTA 1/1 (10..150) takes SM 0's
// first lane, the child's CTA (190..200) reuses it, CTA 1/0 (10..250)
// needs a second; each is named by its kernel. Kernel 2 ends first and
// takes the kernels track's first lane (running 190..200) and the launch
// queue's (queued 90..190); kernel 1 (queued 0..10, running 10..250) a
// second of each. The host's launch call is 0..10; the stages table's
// kernels span 0..250. Arrow 1 runs from CTA 1/0's lane at 90 to kernel
// 2's wait at 90, its start written first though kernel 2's row comes
// before CTA 1/0's; arrow 2 from the host's call at 0 to kernel 1's wait
// at 0. Occupancy: one window, (240 + 140 + 10) / 250 = 1.56 warps.
func TestTimelineOfASite(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "site.jsonl")
	if err := os.WriteFile(in, []byte(siteTrace), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "site.json")
	code, _, stderr := replayCmd(t, "--policy=cdp", "--timeline", out, "--quiet",
		"--set", "gpu.sms=1", "--set", "gpu.issue_width=2", "--set", "gpu.clock_mhz=1000", "--set", "lat.host_issue=10", "--set", "lat.host_launch=0", "--set", "lat.kernel_dispatch=0",
		"--set", "cdp.param_b=100", "--set", "cdp.param_a=0", "--set", "cdp.launch_b=0", "--set", "cdp.launch_a=0", "--set", "cdp.stream_create=0", "--set", "cdp.clock_mhz=0", in)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct{ TraceEvents []traceEvent }
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	procs := map[int]string{}
	threads := map[[2]int]string{}
	var slices_, flows, counters []string
	for _, e := range doc.TraceEvents {
		if e.Ph != "M" {
			continue
		}
		var a struct{ Name string }
		json.Unmarshal(e.Args, &a)
		switch e.Name {
		case "process_name":
			procs[e.Pid] = a.Name
		case "thread_name":
			threads[[2]int{e.Pid, e.Tid}] = a.Name
		}
	}
	track := func(e traceEvent) string { return procs[e.Pid] + "/" + threads[[2]int{e.Pid, e.Tid}] }
	for _, e := range doc.TraceEvents {
		switch e.Ph {
		case "X":
			slices_ = append(slices_, fmt.Sprintf("%s|%s|%g+%g", track(e), e.Name, e.Ts*1000, e.Dur*1000))
		case "s", "f":
			flows = append(flows, fmt.Sprintf("%s %d %s@%g", e.Ph, e.ID, track(e), e.Ts*1000))
		case "C":
			counters = append(counters, fmt.Sprintf("%s:%s@%g=%s", procs[e.Pid], e.Name, e.Ts*1000, e.Args))
		}
	}
	slices.Sort(slices_)
	want := []string{
		"site · cdp/host I/O and copies|kernels|0+250",
		"site · cdp/host|launch parent|0+10",
		"site · cdp/kernels (2)|parent|10+240",
		"site · cdp/kernels|child|190+10",
		"site · cdp: SMs/SM 0 (2)|parent|10+240",
		"site · cdp: SMs/SM 0|child|190+10",
		"site · cdp: SMs/SM 0|parent|10+140",
		"site · cdp: launch queue/queued (2)|queued parent|0+10",
		"site · cdp: launch queue/queued|queued child|90+100",
	}
	if strings.Join(slices_, "\n") != strings.Join(want, "\n") {
		t.Errorf("slices:\n%s\nwant:\n%s", strings.Join(slices_, "\n"), strings.Join(want, "\n"))
	}
	if w := []string{"s 1 site · cdp: SMs/SM 0 (2)@90", "f 1 site · cdp: launch queue/queued@90", "s 2 site · cdp/host@0", "f 2 site · cdp: launch queue/queued (2)@0"}; !slices.Equal(flows, w) {
		t.Errorf("flows in file order %v, want %v", flows, w)
	}
	if !slices.Contains(counters, `site · cdp: SMs:SM 0 resident warps@0={"warps":1.56}`) {
		t.Errorf("counters %v: want resident warps 1.56 at 0", counters)
	}
	if !slices.ContainsFunc(counters, func(c string) bool { return strings.HasPrefix(c, "site · cdp:issue utilisation@250=") }) {
		t.Errorf("counters %v: want the issue utilisation at the end of the run", counters)
	}
}

// --timeline-ctas caps the CTA slices and says so; the file is still
// valid JSON. Under SPAWN the controller's n and n_con are counters, the
// first decision seeing an empty queue.
func TestTimelineCap(t *testing.T) {
	out := filepath.Join(t.TempDir(), "s.json")
	code, _, stderr := replayCmd(t, "--policy=spawn", "--timeline", out, "--timeline-ctas", "10", "--quiet", sample)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	data, _ := os.ReadFile(out)
	var doc struct{ TraceEvents []traceEvent }
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	ctas := 0
	var n []string
	for _, e := range doc.TraceEvents {
		if e.Ph == "C" && strings.HasPrefix(e.Name, "SPAWN n ") {
			n = append(n, string(e.Args))
		}
		if e.Ph == "X" && strings.Contains(string(e.Args), `"cta":`) && e.Name != "stalled" {
			ctas++
		}
	}
	if len(n) != 1039 || n[0] != `{"n":0}` {
		t.Errorf("%d SPAWN n counter values (want one per launching lane, 1039), the first %v", len(n), n[:min(1, len(n))])
	}
	if ctas != 10 || !strings.Contains(string(data), "resident-warp values left out (--timeline-ctas 10)") {
		t.Errorf("%d CTA slices (want 10) and the note: %v", ctas, strings.Contains(string(data), "left out"))
	}
}

// --timeline-kernels bounds the kernels drawn, and with them SPAWN's
// decision counters; --timeline-ctas the SMs' resident-warp counters, at
// two values a CTA (issue 75: kernels and counters were always drawn, so
// 10^6 small kernels wrote 1.25 GB with --timeline-ctas=1000).
func TestTimelineKernelCap(t *testing.T) {
	out := filepath.Join(t.TempDir(), "s.json")
	code, _, stderr := replayCmd(t, "--policy=spawn", "--timeline", out, "--timeline-ctas", "10", "--timeline-kernels", "7", "--quiet", sample)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	data, _ := os.ReadFile(out)
	var doc struct{ TraceEvents []traceEvent }
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	kernels, spawn, warps := 0, 0, 0
	for _, e := range doc.TraceEvents {
		switch {
		case e.Ph == "X" && strings.Contains(string(e.Args), `"ready_cycle":`) && !strings.HasPrefix(e.Name, "queued "):
			kernels++
		case e.Ph == "C" && strings.HasPrefix(e.Name, "SPAWN n "):
			spawn++
		case e.Ph == "C" && strings.HasSuffix(e.Name, " resident warps"):
			warps++
		}
	}
	if kernels != 7 || spawn != 7 || warps != 20 {
		t.Errorf("%d kernels, %d SPAWN n values, %d resident-warp values; want 7, 7 and 20", kernels, spawn, warps)
	}
	if !strings.Contains(string(data), " SPAWN decisions left out (--timeline-kernels 7)") {
		t.Error("no note of the kernels left out")
	}
	if code, _, stderr := replayCmd(t, "--timeline", out, "--timeline-kernels", "-1", sample); code != 2 || !strings.Contains(stderr, "--timeline-kernels -1: want 0 (all) or more") {
		t.Errorf("--timeline-kernels -1: exit %d, %s", code, stderr)
	}
}
