package samples

import (
	"fmt"
	"math/rand/v2"
	"sort"

	"github.com/gpureplay/gpureplay/trace"
)

// Param documents one parameter a generator accepts, for `replay gen --list`
// and for error messages that list the valid names.
type Param struct {
	Name    string // the key in name=value
	Default string // the value used when the caller does not give one
	Doc     string // one line: what it controls, with its unit
}

// Generator is one workload generator. Run writes a complete trace (header
// first) to out. It checks every parameter value before writing anything, so
// a bad value is reported as a *ParamError and leaves out untouched.
type Generator struct {
	Name   string
	Doc    string // one line for `replay gen --list`
	Params []Param
	run    func(p Params, out trace.Sink) error
	// mixes is each kernel's demand by name (demand.go); nil writes no
	// demand.
	mixes map[string]warpMix
	// costs are the invented constants of its cost model that parameters
	// set (costparams.go), declared after Params.
	costs []costConst
	// refit solves the measured constants fitted beside those (the
	// capture's time less the invented terms) again after costs change.
	refit func()
	// loop is the cost model's iteration of a parent lane's loop, which
	// loop_cycles' default charges (loopParam); 0 without loop_cycles.
	loop int64
}

// seedParam is shared so every generator documents its seed the same way.
var seedParam = Param{Name: "seed", Default: "1", Doc: "random seed; the same seed gives the same trace"}

// registry holds the generators by name. Each generator's file adds itself
// from an init function, so adding a workload touches no shared file.
var registry = map[string]*Generator{}

// register adds g to the registry. A duplicate name or parameter is a
// programming error in this package, caught when it initialises.
func register(g *Generator) {
	if _, dup := registry[g.Name]; dup {
		panic("samples: generator " + g.Name + " registered twice")
	}
	registerCosts(g)
	seen := map[string]bool{}
	for _, p := range g.Params {
		if seen[p.Name] {
			panic(fmt.Sprintf("samples: generator %s declares param %s twice", g.Name, p.Name))
		}
		seen[p.Name] = true
	}
	registry[g.Name] = g
}

// Lookup returns the generator called name.
func Lookup(name string) (*Generator, bool) {
	g, ok := registry[name]
	return g, ok
}

// List returns every generator, sorted by name.
func List() []*Generator {
	gs := make([]*Generator, 0, len(registry))
	for _, g := range registry {
		gs = append(gs, g)
	}
	sort.Slice(gs, func(i, j int) bool { return gs[i].Name < gs[j].Name })
	return gs
}

// pcgStream is the second PCG word (the stream selector) every generator
// pairs with its seed; fixed so a seed alone determines the output.
const pcgStream = 0x9e3779b97f4a7c15

// newRand returns the generator's only source of randomness. Generators never
// touch the global rand functions or depend on map iteration order, so their
// output is a pure function of their parameters.
func newRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, pcgStream))
}

// ceilDiv returns ⌈a/b⌉ for a ≥ 0, b > 0: grid sizes from work counts.
func ceilDiv(a, b int) int {
	return (a + b - 1) / b
}

// warpSize is the SIMT width of every GPU the presets model.
const warpSize = 32

// writeAll writes records in order, stopping at the first error.
func writeAll(out trace.Sink, recs ...trace.Record) error {
	for _, r := range recs {
		if err := out.Write(r); err != nil {
			return err
		}
	}
	return nil
}

// k20cHeader starts a generated trace: times in cycles of the K20c's 706 MHz
// core clock (the DTBL/SPAWN baseline GPU, and the default preset), so the
// cost constants can be read as K20c cycles.
func k20cHeader(source string, meta map[string]string) *trace.Header {
	return &trace.Header{
		Version:   trace.Version,
		ClockMHz:  706,
		PageBytes: trace.DefaultPageBytes,
		Source:    source,
		GPU:       "k20c",
		Meta:      meta,
		// Every generator writes a host CTA's device launches in CTA
		// order after the host kernel's cta records, and a child's
		// records (recursively) right after its launch.
		OrderedTrees: true,
	}
}
