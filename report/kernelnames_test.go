package report

import (
	"math"
	"slices"
	"testing"
)

// runWith is a run at 1000 MHz (a cycle is a nanosecond) of makespan
// 1000 cycles with the kernels given as name, launch, start, end.
func runWith(policy string, ks ...kernelSpan) *runData {
	rd := &runData{summary: summaryRow{run: run{trace: "t", policy: policy}, makespan: 1000, clockMHz: 1000}, names: map[string]*nameStats{}}
	for _, k := range ks {
		rd.kernels = append(rd.kernels, k)
		if rd.names[k.name] == nil {
			rd.names[k.name] = &nameStats{name: k.name}
		}
		rd.names[k.name].add(k)
	}
	return rd
}

// The per-name table, by hand: "a" ran twice (run 100 and 300 cycles,
// waits 50 and 0), "b" once (run 200, wait 100); a's 400 cycles are 40%
// of the makespan. Against a baseline where "a" ran 600 cycles and "c"
// 50, "a" gained 200 cycles, "c" gained its 50 and "b" lost 200.
func TestNameTableAndDiff(t *testing.T) {
	rd := runWith("p",
		kernelSpan{name: "a", launch: 0, start: 50, end: 150},
		kernelSpan{name: "a", launch: 200, start: 200, end: 500},
		kernelSpan{name: "b", launch: 0, start: 100, end: 300})
	got := rd.nameTable()
	want := []nameRow{
		{Name: "a", Instances: 2, Total: "0.4", Mean: "0.2", Min: "0.1", Max: "0.3", Wait: "0.05", Share: "40.0%"},
		{Name: "b", Instances: 1, Total: "0.2", Mean: "0.2", Min: "0.2", Max: "0.2", Wait: "0.1", Share: "20.0%"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("name table %+v, want %+v", got, want)
	}
	base := runWith("cdp", kernelSpan{name: "a", start: 0, end: 600}, kernelSpan{name: "c", start: 0, end: 50})
	diff := diffTable(base, rd)
	var names, changes []string
	for _, r := range diff {
		names = append(names, r.Name)
		changes = append(changes, r.DRun+"/"+r.Change)
	}
	if !slices.Equal(names, []string{"b", "a", "c"}) || !slices.Equal(changes, []string{"+0.2/loss", "−0.2/gain", "−0.05/gain"}) {
		t.Errorf("diff %v %v, want b, a, c with +0.2/loss, −0.2/gain, −0.05/gain", names, changes)
	}
}

// Axes are labelled every 1, 2 or 5 times a power of ten, about five
// times, not at their two ends.
func TestNiceTicks(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		want   []string
	}{
		{0, 250, []string{"0", "50", "100", "150", "200", "250"}},
		{0, 8.4, []string{"0", "2", "4", "6", "8"}},
		{0, 0.37, []string{"0.0", "0.1", "0.2", "0.3"}},
	} {
		var got []string
		for _, tk := range (niceTicks{}).Ticks(c.lo, c.hi) {
			if tk.Label != "" {
				got = append(got, tk.Label)
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("ticks(%g, %g) = %v, want %v", c.lo, c.hi, got, c.want)
		}
	}
}

// A chart is drawn only where there is data: no stage rows for a run
// whose only stage is its kernels' span, no occupancy without resident
// warps. Past maxLines runs the occupancy is small multiples, one per
// run, not eight lines and the rest dropped.
func TestChartsWhereThereIsData(t *testing.T) {
	rd := runWith("cdp", kernelSpan{name: "a", start: 0, end: 10})
	one := &Data{runs: []*runData{rd}}
	rows := func() int { return len(one.gantt(rd, 0).plot.Y.Tick.Marker.Ticks(0, 1)) }
	rd.stages = []span{{"kernels", 0, 10}}
	if n := rows(); n != 1 {
		t.Errorf("%d timeline rows for a run without host I/O, want its kernel's alone", n)
	}
	rd.stages = append(rd.stages, span{"h2d", 0, 5}, span{"h2d", 6, 8})
	if n := rows(); n != 3 {
		t.Errorf("%d timeline rows for a run with host I/O, want kernels, h2d and the kernel's", n)
	}
	var runs []string
	for range 16 {
		runs = append(runs, "cdp")
	}
	d := testData([]string{"t"}, "", runs, make([]float64, 16))
	if d.occupancy() != nil {
		t.Error("an occupancy chart without resident warps")
	}
	for _, rd := range d.runs {
		rd.occupancy = make([]float64, occBins)
		rd.occupancy[0], rd.warpCycles, rd.summary.occupancy = 64*3, 64, 0.5
	}
	f := d.occupancy()
	if f == nil || len(f.tiles) != 16 {
		t.Fatalf("occupancy of 16 runs: %v, want 16 small multiples", f)
	}
	if _, err := f.Render("svg"); err != nil {
		t.Error(err)
	}
	// capacity = warp·cycles / makespan / occupancy = 64 / 1000 / 0.5.
	if c := d.runs[0].capacity(); c != 0.128 {
		t.Errorf("capacity %g, want 0.128", c)
	}
}

// The wait breakdown, by hand, at 1000 MHz (a cycle is a nanosecond):
// host kernel h1 on stream 0 is launched at 0, ready at 30, starts at 50
// (host 30, KD queue 20) and ends at 400; h2 on stream 0 is launched at
// 10, behind h1 until 400, ready at 420, starts at 500 (dependencies
// 390, host 20, KD queue 80); device kernel d (its own stream) is
// launched at 100, ready at 160, starts at 200 (launch path 60, KD queue
// 40). A prelude of 0–100 and a d2h of 900–1000 around a kernels stage
// of 50–950 leave 100 cycles of I/O outside it, 10% of the makespan.
func TestWaitBreakdown(t *testing.T) {
	rd := runWith("p")
	for _, k := range []struct {
		k      kernelSpan
		stream int64
	}{ // completion order, as the table's rows
		{kernelSpan{name: "h1", origin: "host", launch: 0, ready: 30, start: 50, end: 400}, 0},
		{kernelSpan{name: "d", origin: "device", launch: 100, ready: 160, start: 200, end: 450}, 1 << 32},
		{kernelSpan{name: "h2", origin: "host", launch: 10, ready: 420, start: 500, end: 900}, 0},
	} {
		rd.waits.addWait(k.k, k.stream)
	}
	if w := rd.waits; w.host != 50 || w.deps != 390 || w.path != 60 || w.kd != 140 {
		t.Errorf("host %d, deps %d, path %d, kd %d; want 50, 390, 60, 140", w.host, w.deps, w.path, w.kd)
	}
	rd.stages = []span{{"prelude", 0, 100}, {"kernels", 50, 950}, {"d2h", 900, 1000}}
	want := waitRow{Label: "t · p", Host: "0.05", Path: "0.06", Deps: "0.39", KD: "0.14", Wait: "0.64",
		HostShare: "7.8%", PathShare: "9.4%", DepsShare: "60.9%", KDShare: "21.9%", IO: "0.1", IOShare: "10.0%"}
	if got := rd.waitRow(); got != want {
		t.Errorf("wait row %+v, want %+v", got, want)
	}
	rd.stages = []span{{"kernels", 0, 900}}
	if got := rd.waitRow(); got.IO != "" {
		t.Errorf("I/O %q without host I/O stages, want none", got.IO)
	}
}

// The host's side of the wait, by hand: at 1000 MHz (a cycle a
// nanosecond), a stream sync held its thread 20..620 (600 cycles) and
// another 700..800 (100), a device sync returned at its call (0), and a
// call no table names ("launch", a hostile row) 0..50 counts as other; a
// row returning before its call counts the call but no wait. 750 cycles
// in five calls are 75% of the makespan of 1000; no event sync or copy
// was made, so their cells are empty.
func TestHostWaits(t *testing.T) {
	rd := runWith("p")
	rd.hostWaits.add("stream", 20, 620)
	rd.hostWaits.add("device", 900, 900)
	rd.hostWaits.add("stream", 700, 800)
	rd.hostWaits.add("launch", 0, 50)
	rd.hostWaits.add("device", 500, 400)
	got := rd.waitRow()
	want := [len(syncCalls)]string{"0 (2)", "0.7 (2)", "", "", "0.05 (1)"}
	if got.Sync != want || got.SyncWait != "0.75 (5)" || got.SyncShare != "75.0%" {
		t.Errorf("host waits %q, in all %q, %q; want %q, 0.75 (5), 75.0%%", got.Sync, got.SyncWait, got.SyncShare, want)
	}
	var h hostWaits
	h.add("event", 0, math.MaxInt64)
	h.add("event", -1, math.MaxInt64)
	if calls, cycles := h.total(); calls != 2 || cycles != math.MaxInt64 {
		t.Errorf("two waits of 2^63-1 cycles: %d calls, %d cycles; want 2, the largest int64", calls, cycles)
	}
	if got := runWith("q").waitRow(); got.SyncWait != "" || got.Sync != [len(syncCalls)]string{} {
		t.Errorf("a run without blocking calls shows %+v", got)
	}
}
