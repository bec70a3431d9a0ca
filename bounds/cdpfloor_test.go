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

// The CDP floor is a lower bound under the replay's own semantics: on
// random DP traces — host kernels and copies on one or two streams,
// CTAs of several warps with recorded demand or none, warps with several
// sites of one to three lanes, children nesting up to three deep — under
// random GPUs (1–4 SMs, few CTA slots), hosts, dispatch and device-runtime
// costs (zero too, as cdp-ideal), launch servers, pending pools, copy
// modes and the contention model, no cdp run ends before its floor. The
// floor is positive on every trace, and on many of them it is the
// makespan itself (a chain nothing delays, or a full SM's area): there a
// term inflated by a cycle would pass the makespan, so the test fails
// on any term that charges what the engine does not.
func TestCDPFloorHolds(t *testing.T) {
	// 2500 reach seed 2453: 3 SMs of one CTA slot, a pool of 3 and the
	// contention model, where a superseded wake-up once hid the stall that
	// sends a held warp over the limit, and the replay ended in a deadlock.
	tight, rooms := 0, 0
	forRandomDP(t, "k20c", 2500, func(seed int64, tr string, cfg model.Config, roomy bool, open replay.Opener) {
		pol, err := policies.New("cdp", cfg)
		if err != nil {
			t.Fatal(err)
		}
		floor := bounds.NewCDPFloor(cfg, pol)
		st, err := replay.Run(open, replay.Options{Config: cfg, Policy: pol, Analyses: []replay.Analysis{floor}}, &policytest.Recorder{})
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, tr)
		}
		if f := floor.Cycles(); f <= 0 || f > st.MakespanCycles {
			t.Errorf("seed %d: floor %d, makespan %d\n%s", seed, f, st.MakespanCycles, tr)
		}
		if seed%50 == 0 { // the floor only reads the run: without it, the same run
			off, err := replay.Run(open, replay.Options{Config: cfg, Policy: pol}, &policytest.Recorder{})
			if err != nil || off.MakespanCycles != st.MakespanCycles {
				t.Errorf("seed %d without the floor: %v, makespan %d (with it %d)", seed, err, off.MakespanCycles, st.MakespanCycles)
			}
		}
		if roomy {
			rooms++
			if floor.Cycles() == st.MakespanCycles {
				tight++
			}
		}
	})
	if tight < rooms/2 {
		t.Errorf("the floor is the makespan on %d of %d traces on a roomy GPU: too few to catch an inflated term", tight, rooms)
	}
}

// forRandomDP calls check with each of n random DP traces (randomDP, seeds
// 1 to n) on a random device (randomDevice) based on preset, and an
// opener of the trace.
func forRandomDP(t *testing.T, preset string, n int64, check func(seed int64, tr string, cfg model.Config, roomy bool, open replay.Opener)) {
	t.Helper()
	base, err := model.Preset(preset)
	if err != nil {
		t.Fatal(err)
	}
	for seed := int64(1); seed <= n; seed++ {
		r := rand.New(rand.NewSource(seed))
		tr := randomDP(r)
		cfg, roomy := randomDevice(r, base)
		check(seed, tr, cfg, roomy, func() (trace.Source, error) { return trace.NewJSONLReader(strings.NewReader(tr)), nil })
	}
}

// randomDevice is base with a random GPU size, host, dispatch, device
// runtime (k20c's costs, none, or counted at another clock), launch path,
// copy mode and contention model. A third of them are roomy: k20c's 13
// SMs of 16 CTA slots, no contention, launch servers or pending pool, and
// one host thread, where nothing but the chain delays a CTA (the random
// traces have at most about 40 kernels of at most 3 CTAs).
func randomDevice(r *rand.Rand, base model.Config) (model.Config, bool) {
	cfg := base
	roomy := r.Intn(3) == 0
	cfg.GPU.SMs = 1 + r.Intn(4)
	cfg.GPU.MaxCTAsPerSM = 1 + r.Intn(16)
	cfg.Lat.HostThreads = 1 + r.Int63n(2)
	cfg.Lat.HostIssue = r.Int63n(3000)
	cfg.Lat.HostLaunch = r.Int63n(3000)
	cfg.Lat.KernelDispatch = r.Int63n(1000)
	switch r.Intn(3) {
	case 0: // cdp-ideal: no launch latency
		cfg.CDP.StreamCreate, cfg.CDP.ParamB, cfg.CDP.ParamA, cfg.CDP.LaunchB, cfg.CDP.LaunchA = 0, 0, 0, 0, 0
	case 1: // costs counted at another clock
		cfg.CDP.ClockMHz = 500
	}
	cfg.CDP.LaunchServers = r.Int63n(3)
	cfg.CDP.PendingLimit = []int64{0, 0, 1, 3}[r.Intn(4)]
	cfg.IO.Memcpy = []model.Memcpy{model.MemcpySync, model.MemcpyAsync}[r.Intn(2)]
	cfg.IO.PCIeGBps = []float64{11, 0.5}[r.Intn(2)]
	cfg.Model.Contention = []model.Switch{model.On, model.Off}[r.Intn(2)]
	if roomy {
		cfg.GPU.SMs, cfg.GPU.MaxCTAsPerSM = base.GPU.SMs, base.GPU.MaxCTAsPerSM
		cfg.Lat.HostThreads, cfg.CDP.LaunchServers, cfg.CDP.PendingLimit = 1, 0, 0
		cfg.Model.Contention = "off"
	}
	return cfg, roomy
}

// randomDP is a trace of 1–3 host kernels, each on stream 0 or 1 and
// sometimes after a copy in or before a copy back, whose CTAs' warps
// launch children, nested up to three deep (at most about 40 kernels).
func randomDP(r *rand.Rand) string {
	g := &dpGen{r: r, next: 1}
	g.b.WriteString(`{"type":"header","version":1,"clock_mhz":706}` + "\n")
	g.b.WriteString(`{"type":"buffer","id":1,"name":"data","base":0,"bytes":1048576,"role":"temp"}` + "\n")
	var t int64
	for i := 1 + r.Intn(3); i > 0; i-- {
		stream := r.Intn(2)
		t += r.Int63n(3) * r.Int63n(5000)
		if r.Intn(3) == 0 {
			fmt.Fprintf(&g.b, `{"type":"memcpy","dir":"h2d","buffer":1,"bytes":%d,"stream":%d,"t":%d}`+"\n", r.Int63n(100000), stream, t)
		}
		id := g.kernel()
		fmt.Fprintf(&g.b, `{"type":"launch","kernel":%d,"t":%d,"stream":%d}`+"\n", id, t, stream)
		g.body(id, 0)
		if r.Intn(3) == 0 {
			fmt.Fprintf(&g.b, `{"type":"memcpy","dir":"d2h","buffer":1,"bytes":%d,"stream":%d,"t":%d}`+"\n", r.Int63n(100000), stream, t)
		}
	}
	return g.b.String()
}

type dpGen struct {
	r    *rand.Rand
	b    strings.Builder
	next int
	// warps and grid of each kernel declared and not yet given its body
	warps, grid map[int]int
}

// kernel declares a kernel of 1–3 CTAs of 1–4 warps and returns its id.
func (g *dpGen) kernel() int {
	if g.warps == nil {
		g.warps, g.grid = map[int]int{}, map[int]int{}
	}
	id := g.next
	g.next++
	g.grid[id], g.warps[id] = 1+g.r.Intn(3), 1+g.r.Intn(4)
	fmt.Fprintf(&g.b, `{"type":"kernel","id":%d,"name":"k%d","grid":[%d,1,1],"block":[%d,1,1],"regs":%d,"smem":%d}`+"\n",
		id, g.r.Intn(3), g.grid[id], 32*g.warps[id], 8*g.r.Intn(8), 1024*g.r.Intn(4))
	return id
}

// body writes kernel id's CTAs at depth depth, then each launch it makes
// and its child's body (a parent's records before its children's).
func (g *dpGen) body(id, depth int) {
	r := g.r
	type site struct {
		cta, warp, lane int
		at              int64
	}
	var sites []site
	for c := 0; c < g.grid[id]; c++ {
		cycles := make([]string, g.warps[id])
		var longest int64
		for w := range cycles {
			own := 1 + r.Int63n(20000)
			longest = max(longest, own)
			cycles[w] = fmt.Sprint(own)
			if depth >= 3 || g.next > 40 || r.Intn(3) != 0 {
				continue
			}
			for n := 1 + r.Intn(2); n > 0; n-- {
				at := r.Int63n(own + 1)
				for l := 1 + r.Intn(3); l > 0; l-- {
					sites = append(sites, site{c, w, r.Intn(32), at})
				}
			}
		}
		demand := ""
		if r.Intn(2) == 0 {
			work := int64(len(cycles)) * longest
			demand = fmt.Sprintf(`,"insts":%d,"dram_bytes":%d`, r.Int63n(work), r.Int63n(64*work))
		}
		fmt.Fprintf(&g.b, `{"type":"cta","kernel":%d,"cta":%d,"cycles":%d,"warp_cycles":[%s]%s}`+"\n",
			id, c, longest, strings.Join(cycles, ","), demand)
	}
	for _, s := range sites {
		child := g.kernel()
		fmt.Fprintf(&g.b, `{"type":"launch","kernel":%d,"parent":{"kernel":%d,"cta":%d,"warp":%d,"lane":%d,"at":%d},"workload":10,"inline_cycles":100}`+"\n",
			child, id, s.cta, s.warp, s.lane, s.at)
		g.body(child, depth+1)
	}
}
