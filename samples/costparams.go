package samples

import (
	"strconv"
	"sync"
)

// Invented cost constants as parameters. A constant of a cost model that
// nothing measured and no paper states (the file of each says which of
// its constants are which; docs/calibration.md lists the measured ones)
// is a package variable its generators declare as a parameter, named
// after it, whose default is its value: a run that leaves it alone
// writes the trace it always did, and one that sets it (the experiments'
// sensitivity grid, at ×0.5 and ×2) prices the whole trace, DP and flat
// variants alike, with the value given.
//
// The cost models read the variables directly, as they read constants.
// A run that sets one holds them alone for its whole run (costMu) and
// puts every one back when it ends; runs at the defaults share them, so
// concurrent runs never see each other's values. A measured constant
// that was fitted beside invented ones (the capture's time less their
// terms) is solved again from the capture with the values given
// (Generator.refit), so the captured kernel keeps its measured time and
// only what the capture did not measure moves. What a parameter does not
// change: the kernels' demand mixes (mixes.go) keep the rates the
// defaults give, as they do under loop_cycles.

// costConst is an invented constant of a cost model that a generator's
// parameter sets.
type costConst struct {
	name string // the parameter's name
	v    *int64 // the variable the cost model reads
	doc  string // one line: what it is (cycles of what)
	def  int64  // *v's value at registration: the default
}

// maxCostCycles bounds a cost parameter, as maxLoopCycles does
// loop_cycles.
const maxCostCycles = maxLoopCycles

// costMu guards every cost variable: held for reading by a run at the
// defaults, for writing by a run that sets a cost parameter.
var costMu sync.RWMutex

// cost declares an invented constant v as parameter name.
func cost(name string, v *int64, doc string) costConst {
	return costConst{name: name, v: v, doc: doc}
}

// costParamDoc is every cost parameter's documentation: what it prices,
// and that it is invented.
func (c costConst) param() Param {
	return Param{Name: c.name, Default: strconv.FormatInt(c.def, 10),
		Doc: "cycles of " + c.doc + " (an invented cost constant; the sensitivity grid varies it ×0.5 and ×2)"}
}

// registerCosts records g's cost constants' defaults and declares them
// as parameters after g's own.
func registerCosts(g *Generator) {
	for i := range g.costs {
		c := &g.costs[i]
		c.def = *c.v
		g.Params = append(g.Params, c.param())
	}
}

// IsCost says whether name is one of g's invented cost parameters: what
// the experiments' sensitivity grid varies.
func (g *Generator) IsCost(name string) bool {
	for _, c := range g.costs {
		if c.name == name {
			return true
		}
	}
	return false
}

// setCosts applies p's cost parameters for one run and returns what ends
// it: at the defaults a shared hold on the variables, otherwise an
// exclusive one with the given values, put back at the end.
func (g *Generator) setCosts(p Params) (func(), error) {
	vals := make([]int64, len(g.costs))
	same := true
	for i, c := range g.costs {
		v, err := p.Int(c.name, 0, maxCostCycles)
		if err != nil {
			return nil, err
		}
		vals[i] = int64(v)
		same = same && vals[i] == c.def
	}
	if same {
		costMu.RLock()
		return costMu.RUnlock, nil
	}
	costMu.Lock()
	old := make([]int64, len(g.costs))
	for i, c := range g.costs {
		old[i], *c.v = *c.v, vals[i]
	}
	if g.refit != nil {
		g.refit()
	}
	return func() {
		for i, c := range g.costs {
			*c.v = old[i]
		}
		if g.refit != nil {
			g.refit()
		}
		costMu.Unlock()
	}, nil
}

// roundDiv is a/b rounded to the nearest integer (a ≥ 0, b > 0): a
// fitted constant solved from a capture.
func roundDiv(a, b int64) int64 { return (2*a + b) / (2 * b) }

// omitDefaultCosts deletes from meta each cost parameter at its default,
// so that a trace at the defaults stays byte-identical to one written
// before the parameters existed.
func (p Params) omitDefaultCosts(meta map[string]string) {
	if p.gen == nil {
		return
	}
	for _, c := range p.gen.costs {
		if meta[c.name] == strconv.FormatInt(c.def, 10) {
			delete(meta, c.name)
		}
	}
}
