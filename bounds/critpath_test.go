package bounds_test

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/gpureplay/gpureplay/bounds"
	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/policies"
	"github.com/gpureplay/gpureplay/policies/policytest"
	"github.com/gpureplay/gpureplay/replay"
	"github.com/gpureplay/gpureplay/trace"
)

// The critical-path floors are lower bounds under the replay's own
// semantics: on random task traces — copies of any size each way or none,
// several threadblocks and warps, launch times, shared streams and copies
// out of Fig. 1a's order (where HyperQ's floor gives none) — under random
// hosts, call and launch costs, copy modes, spawn lifecycles and the
// contention model, no hyperq or pagoda run ends before its floor. The
// floors are positive on every trace with a task, and HyperQ's is given on
// the traces of Fig. 1a's shape.
func TestCriticalPathsHold(t *testing.T) {
	base, err := model.Preset("titanx")
	if err != nil {
		t.Fatal(err)
	}
	shaped := 0
	for seed := int64(1); seed <= 300; seed++ {
		r := rand.New(rand.NewSource(seed))
		tr, fig1a := randomTasks(r)
		cfg := randomHost(r, base)
		runs := map[string]*replay.Stats{}
		var w bounds.TaskWork
		for _, name := range []string{"hyperq", "pagoda"} {
			pol, err := policies.New(name, cfg)
			if err != nil {
				t.Fatal(err)
			}
			open := func() (trace.Source, error) { return trace.NewJSONLReader(strings.NewReader(tr)), nil }
			tasks := bounds.NewTaskBounds(cfg)
			st, err := replay.Run(open, replay.Options{Config: cfg, Policy: pol, Analyses: []replay.Analysis{tasks}}, &policytest.Recorder{})
			if err != nil {
				t.Fatalf("seed %d, %s: %v\n%s", seed, name, err, tr)
			}
			runs[name] = st
			if name == "pagoda" {
				w = tasks.Result()
			}
		}
		if w.PagodaPath <= 0 || (fig1a && w.HyperQPath <= 0) || (!fig1a && w.HyperQPath != 0) {
			t.Errorf("seed %d: critical paths hyperq %d, pagoda %d (Fig. 1a's shape: %v)", seed, w.HyperQPath, w.PagodaPath, fig1a)
		}
		if fig1a {
			shaped++
		}
		if m := runs["hyperq"].MakespanCycles; m < w.HyperQPath {
			t.Errorf("seed %d: hyperq's makespan %d is below its critical path %d\n%s", seed, m, w.HyperQPath, tr)
		}
		if m := runs["pagoda"].MakespanCycles; m < w.PagodaPath {
			t.Errorf("seed %d: pagoda's makespan %d is below its critical path %d\n%s", seed, m, w.PagodaPath, tr)
		}
	}
	if shaped < 100 || shaped > 250 {
		t.Errorf("%d of 300 traces of Fig. 1a's shape: the test should cover both kinds", shaped)
	}
}

// randomHost is base with a random host (1–3 threads, calls and launches
// of 0–6,000 cycles), copy mode, spawn lifecycle and contention model.
func randomHost(r *rand.Rand, base model.Config) model.Config {
	cfg := base
	cfg.Lat.HostThreads = 1 + r.Int63n(3)
	cfg.Lat.HostIssue = r.Int63n(6000)
	cfg.Lat.HostLaunch = r.Int63n(6000)
	cfg.Lat.KernelDispatch = r.Int63n(1000)
	cfg.Pagoda.SpawnCycles = r.Int63n(6000)
	cfg.Pagoda.SchedCycles = r.Int63n(2000)
	cfg.IO.Memcpy = []model.Memcpy{model.MemcpySync, model.MemcpyAsync}[r.Intn(2)]
	cfg.IO.PCIeGBps = []float64{11, 3}[r.Intn(2)]
	cfg.Pagoda.Spawn = []string{"pipelined", "direct"}[r.Intn(2)]
	cfg.Model.Contention = []model.Switch{model.On, model.Off}[r.Intn(2)]
	return cfg
}

// randomTasks is a trace of 1–12 tasks, on titanx's clock or another,
// and whether it has Fig. 1a's shape: each task's copies in, launch and
// copies back on one stream, consecutive tasks on different streams, no
// copy back after the next task's copy in. Half the traces try to break
// the shape somewhere.
func randomTasks(r *rand.Rand) (string, bool) {
	var b strings.Builder
	fmt.Fprintf(&b, `{"type":"header","version":1,"clock_mhz":%d}`+"\n", []int{1000, 745}[r.Intn(2)]) // titanx's clock, or scaled
	b.WriteString(`{"type":"buffer","id":1,"name":"in","base":0,"bytes":1048576,"role":"temp"}` + "\n")
	b.WriteString(`{"type":"buffer","id":2,"name":"out","base":1048576,"bytes":1048576,"role":"temp"}` + "\n")
	breakAt := -1 // the task whose calls break the shape, if it can
	n := 1 + r.Intn(12)
	if r.Intn(2) == 0 {
		breakAt = r.Intn(n)
	}
	var now int64 // the calls' t: in program order, sometimes later than the last
	at := func() int64 {
		if r.Intn(3) == 0 {
			now += r.Int63n(20000)
		}
		return now
	}
	copyRec := func(dir string, buf int, stream uint64) string {
		return fmt.Sprintf(`{"type":"memcpy","dir":"%s","buffer":%d,"bytes":%d,"stream":%d,"t":%d}`+"\n",
			dir, buf, r.Int63n(300000), stream, at())
	}
	var held string // a copy back written after the next task's copies in
	broke := false
	for i := 0; i < n; i++ {
		stream := uint64(i + 1)
		how := -1
		if i == breakAt {
			how = r.Intn(3)
		}
		if how == 0 && i > 0 {
			stream = uint64(i) // the previous task's stream
			broke = true
		}
		ins := r.Intn(3)
		for k := ins; k > 0; k-- {
			s := stream
			if how == 1 {
				s = stream + 100 // a copy on another stream
				broke = true
			}
			b.WriteString(copyRec("h2d", 1, s))
		}
		broke = broke || (held != "" && ins > 0)
		b.WriteString(held)
		held = ""
		ctas, threads := 1+r.Intn(3), 32*(1+r.Intn(8))
		smem := r.Intn(2) * 1024
		fmt.Fprintf(&b, `{"type":"kernel","id":%d,"name":"k%d","grid":[%d,1,1],"block":[%d,1,1],"regs":32,"smem":%d}`+"\n",
			i+1, r.Intn(3), ctas, threads, smem)
		fmt.Fprintf(&b, `{"type":"launch","kernel":%d,"t":%d,"stream":%d}`+"\n", i+1, at(), stream)
		for c := 0; c < ctas; c++ {
			warps := make([]string, threads/32)
			var longest int64
			for w := range warps {
				c := 1 + r.Int63n(40000)
				longest = max(longest, c)
				warps[w] = fmt.Sprint(c)
			}
			demand := ""
			if r.Intn(2) == 0 {
				work := int64(len(warps)) * longest // at most a warp instruction a warp-cycle
				demand = fmt.Sprintf(`,"insts":%d,"dram_bytes":%d`, r.Int63n(work), r.Int63n(4*work))
			}
			fmt.Fprintf(&b, `{"type":"cta","kernel":%d,"cta":%d,"cycles":%d,"warp_cycles":[%s]%s}`+"\n",
				i+1, c, longest, strings.Join(warps, ","), demand)
		}
		outs := ""
		for k := r.Intn(3); k > 0; k-- {
			outs += copyRec("d2h", 2, stream)
		}
		if how == 2 && outs != "" && i+1 < n {
			held = outs // the next task's copies in come first
			continue
		}
		b.WriteString(outs)
	}
	b.WriteString(held)
	return b.String(), !broke
}
