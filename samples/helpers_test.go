package samples

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/gpureplay/gpureplay/trace"
)

// sliceSink keeps every record written, in order.
type sliceSink struct{ recs []trace.Record }

func (s *sliceSink) Write(r trace.Record) error {
	s.recs = append(s.recs, r)
	return nil
}

// generate runs the named generator with kv and returns its records.
func generate(t testing.TB, name string, kv ...string) []trace.Record {
	t.Helper()
	p := mustParams(t, name, kv...)
	var sink sliceSink
	if err := p.gen.Run(p, &sink); err != nil {
		t.Fatal(err)
	}
	return sink.recs
}

// mustParams parses kv for the named generator.
func mustParams(t testing.TB, name string, kv ...string) Params {
	t.Helper()
	g, ok := Lookup(name)
	if !ok {
		t.Fatalf("no generator %q", name)
	}
	p, err := g.ParseParams(kv)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// kernelInfo is what checkOrder tracks per declared kernel.
type kernelInfo struct {
	k        *trace.Kernel
	declared int    // record index of the kernel record
	root     uint64 // the host-launched kernel this one descends from
	launched bool
	ctas     uint64 // cta records seen
}

// checkOrder verifies the structural rules every generator must keep: the
// header first and once; kernel ids counting up from 1, each kernel declared
// before its launch and CTAs;
// one launch per kernel; CTA indices inside the grid, each once; launch
// sites inside the parent's grid and block, after all the parent's CTAs;
// and the streaming rule: every record between one host launch and the
// next belongs to that host kernel or its descendants (except the next host
// kernel's own kernel record, which must precede its launch).
func checkOrder(recs []trace.Record) error {
	if len(recs) == 0 {
		return fmt.Errorf("no records")
	}
	if _, ok := recs[0].(*trace.Header); !ok {
		return fmt.Errorf("record 0 is %v, want header", recs[0].Kind())
	}
	kernels := map[uint64]*kernelInfo{}
	ctas := map[[2]uint64]*trace.CTA{}
	var current uint64
	currentAt := -1
	for i, r := range recs[1:] {
		i++
		switch r := r.(type) {
		case *trace.Header:
			return fmt.Errorf("record %d: second header", i)
		case *trace.Kernel:
			if r.ID != uint64(len(kernels))+1 {
				return fmt.Errorf("record %d: kernel id %d, want %d (ids count up from 1)", i, r.ID, len(kernels)+1)
			}
			kernels[r.ID] = &kernelInfo{k: r, declared: i}
		case *trace.Launch:
			ki := kernels[r.Kernel]
			if ki == nil || ki.launched {
				return fmt.Errorf("record %d: launch of undeclared or already launched kernel %d", i, r.Kernel)
			}
			ki.launched = true
			if r.Host() {
				current, currentAt, ki.root = r.Kernel, i, r.Kernel
				continue
			}
			if err := checkSite(i, r, kernels, ctas, current, currentAt); err != nil {
				return err
			}
			ki.root = current
		case *trace.CTA:
			ki := kernels[r.Kernel]
			switch {
			case ki == nil || !ki.launched:
				return fmt.Errorf("record %d: cta of undeclared or unlaunched kernel %d", i, r.Kernel)
			case ki.root != current:
				return fmt.Errorf("record %d: cta of kernel %d (root %d) after host launch of %d", i, r.Kernel, ki.root, current)
			case r.CTA >= ki.k.CTAs() || ctas[[2]uint64{r.Kernel, r.CTA}] != nil:
				return fmt.Errorf("record %d: cta %d of kernel %d out of grid or repeated", i, r.CTA, r.Kernel)
			}
			if err := checkCycles(r, ceilDiv(ki.k.Threads(), warpSize)); err != nil {
				return fmt.Errorf("record %d: %v", i, err)
			}
			ctas[[2]uint64{r.Kernel, r.CTA}] = r
			ki.ctas++
		}
	}
	for id, ki := range kernels {
		if !ki.launched || ki.ctas != ki.k.CTAs() {
			return fmt.Errorf("kernel %d: launched %v, %d of %d CTAs", id, ki.launched, ki.ctas, ki.k.CTAs())
		}
	}
	return nil
}

// checkSite checks a device launch at record i against its parent.
func checkSite(i int, l *trace.Launch, kernels map[uint64]*kernelInfo, ctas map[[2]uint64]*trace.CTA, current uint64, currentAt int) error {
	p := l.Parent
	parent := kernels[p.Kernel]
	switch {
	case parent == nil || !parent.launched:
		return fmt.Errorf("record %d: site in unlaunched kernel %d", i, p.Kernel)
	case parent.root != current:
		return fmt.Errorf("record %d: site of root %d after host launch of %d", i, parent.root, current)
	case kernels[l.Kernel].declared < currentAt:
		return fmt.Errorf("record %d: child %d declared before the current host launch", i, l.Kernel)
	case parent.ctas != parent.k.CTAs():
		return fmt.Errorf("record %d: site before all of parent %d's CTAs", i, p.Kernel)
	case p.CTA >= parent.k.CTAs() || p.Lane < 0 || p.Lane >= warpSize || p.Warp < 0 ||
		p.Warp*warpSize+p.Lane >= parent.k.Threads():
		return fmt.Errorf("record %d: site %+v outside parent grid/block", i, *p)
	case p.At < 0 || l.Workload <= 0 || l.InlineCycles <= 0:
		return fmt.Errorf("record %d: site values out of range: %+v", i, *l)
	}
	cta := ctas[[2]uint64{p.Kernel, p.CTA}]
	limit := cta.Cycles
	if cta.WarpCycles != nil {
		limit = cta.WarpCycles[p.Warp]
	}
	if p.At > limit {
		return fmt.Errorf("record %d: site at %d beyond its warp's %d cycles", i, p.At, limit)
	}
	return nil
}

// checkCycles checks a CTA's cost is positive and, with warp_cycles, one
// entry per warp whose max is the CTA's cycles.
func checkCycles(c *trace.CTA, warps int) error {
	if c.Cycles <= 0 {
		return fmt.Errorf("cta %d of kernel %d: %d cycles", c.CTA, c.Kernel, c.Cycles)
	}
	if c.WarpCycles == nil {
		return nil
	}
	if len(c.WarpCycles) != warps {
		return fmt.Errorf("cta %d of kernel %d: %d warp_cycles for %d warps", c.CTA, c.Kernel, len(c.WarpCycles), warps)
	}
	m := int64(0)
	for _, w := range c.WarpCycles {
		m = max(m, w)
	}
	if m != c.Cycles {
		return fmt.Errorf("cta %d of kernel %d: cycles %d, max warp cycles %d", c.CTA, c.Kernel, c.Cycles, m)
	}
	return nil
}

// countKinds counts records by kind, and host and device launches apart.
func countKinds(recs []trace.Record) (n map[trace.Kind]int, host, device int) {
	n = map[trace.Kind]int{}
	for _, r := range recs {
		n[r.Kind()]++
		if l, ok := r.(*trace.Launch); ok {
			if l.Host() {
				host++
			} else {
				device++
			}
		}
	}
	return n, host, device
}

// commandArgs splits a command case into its name and its name=value
// arguments.
func commandArgs(cmd string) (string, map[string]string, error) {
	f := strings.Fields(cmd)
	if len(f) == 0 {
		return "", nil, fmt.Errorf("empty command")
	}
	args := map[string]string{}
	for _, a := range f[1:] {
		k, v, ok := strings.Cut(a, "=")
		if !ok || v == "" {
			return "", nil, fmt.Errorf("argument %q: want name=value", a)
		}
		args[k] = v
	}
	return f[0], args, nil
}

// runCommandCases runs the hand-worked cases of the data-driven file at
// path: each case a command line, "----", the result worked by hand on
// one line, "===="; blank lines and lines from "#" on are left out. run
// gives a command's result as text, or an error; a case whose result
// differs, or whose command fails, is reported at its command's line.
func runCommandCases(t *testing.T, path string, run func(cmd string) (string, error)) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cmd, want string
	var caseLine, cases int
	expect := false
	for i, line := range strings.Split(string(data), "\n") {
		n := i + 1
		switch {
		case strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#"):
		case line == "----" && cmd != "":
			expect = true
		case line == "====" && expect:
			got, err := run(cmd)
			if err != nil {
				t.Errorf("%s:%d: %v", path, caseLine, err)
			} else if got != want {
				t.Errorf("%s:%d: %s: got %s, want %s", path, caseLine, cmd, got, want)
			}
			cmd, want, expect, cases = "", "", false, cases+1
		case expect && want == "":
			want = strings.TrimSpace(line)
		case cmd == "":
			cmd, caseLine = strings.TrimSpace(line), n
		default:
			t.Fatalf("%s:%d: unexpected %q", path, n, line)
		}
	}
	if cmd != "" {
		t.Fatalf("%s:%d: case %q has no ==== end", path, caseLine, cmd)
	}
	if cases == 0 {
		t.Fatalf("%s: no cases", path)
	}
}
