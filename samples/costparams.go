package samples

import (
	"slices"
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
	name string   // the parameter's name
	v    *int64   // the variable the cost model reads, or
	f    *float64 // the variable of a cost that is no whole number of cycles
	doc  string   // one line: what it is (cycles of what)
	def  float64  // the variable's value at registration: the default
	// codes are the values of the generator's code parameter whose
	// kernels read it; nil: every code's.
	codes []string
}

// maxCostCycles bounds a cost parameter, as maxLoopCycles does
// loop_cycles.
const maxCostCycles = maxLoopCycles

// costMu guards every cost variable: held for reading by a run at the
// defaults, for writing by a run that sets a cost parameter.
var costMu sync.RWMutex

// cost declares an invented constant v, in cycles, as parameter name.
func cost(name string, v *int64, doc string) costConst {
	return costConst{name: name, v: v, doc: "cycles of " + doc}
}

// floatCost declares an invented constant f that is no whole number of
// cycles (bytes a cycle) as parameter name.
func floatCost(name string, f *float64, doc string) costConst {
	return costConst{name: name, f: f, doc: doc}
}

// onlyIn is c read only by the kernels of these codes (the generator's
// code parameter): under another, setting it leaves the trace's records
// as they are (TestCostsOnlyInTheirCodes).
func (c costConst) onlyIn(codes ...string) costConst {
	c.codes = codes
	return c
}

// get and set are the variable's value.
func (c costConst) get() float64 {
	if c.f != nil {
		return *c.f
	}
	return float64(*c.v)
}

func (c costConst) set(x float64) {
	if c.f != nil {
		*c.f = x
		return
	}
	*c.v = int64(x)
}

// text is the default as the parameter's text.
func (c costConst) text() string { return strconv.FormatFloat(c.def, 'f', -1, 64) }

// param is the parameter: what it prices, and that it is invented.
func (c costConst) param() Param {
	return Param{Name: c.name, Default: c.text(),
		Doc: c.doc + " (an invented cost constant; the sensitivity grid varies it ×0.5 and ×2)"}
}

// registerCosts records g's cost constants' defaults and declares them
// as parameters after g's own.
func registerCosts(g *Generator) {
	for i := range g.costs {
		c := &g.costs[i]
		c.def = c.get()
		g.Params = append(g.Params, c.param())
	}
}

// CostParam says whether name is one of g's invented cost parameters,
// what the experiments' sensitivity grid varies, and whether it takes
// whole numbers only.
func (g *Generator) CostParam(name string) (ok, whole bool) {
	for _, c := range g.costs {
		if c.name == name {
			return true, c.f == nil
		}
	}
	return false, false
}

// CostReaches says whether g's invented cost parameter name prices any
// kernel of a run with these parameters (NAME=VALUE): not where only
// another code's kernels read it, so that varying it would write the
// same records (the experiments' grid leaves it out there). Parameters
// that do not parse reach it: the run will say what is wrong.
func (g *Generator) CostReaches(name string, params []string) bool {
	for _, c := range g.costs {
		if c.name != name {
			continue
		}
		if c.codes == nil {
			return true
		}
		p, err := g.ParseParams(params)
		if err != nil {
			return true
		}
		code, err := p.lookup("code")
		return err != nil || slices.Contains(c.codes, code)
	}
	return false
}

// setCosts applies p's cost parameters for one run and returns what ends
// it: at the defaults a shared hold on the variables, otherwise an
// exclusive one with the given values, put back at the end.
func (g *Generator) setCosts(p Params) (func(), error) {
	vals := make([]float64, len(g.costs))
	same := true
	for i, c := range g.costs {
		if c.f != nil {
			v, err := p.Float(c.name, 1e-3, maxCostCycles)
			if err != nil {
				return nil, err
			}
			vals[i] = v
		} else {
			v, err := p.Int(c.name, 0, maxCostCycles)
			if err != nil {
				return nil, err
			}
			vals[i] = float64(v)
		}
		same = same && vals[i] == c.def
	}
	if same {
		costMu.RLock()
		return costMu.RUnlock, nil
	}
	costMu.Lock()
	old := make([]float64, len(g.costs))
	for i, c := range g.costs {
		old[i] = c.get()
		c.set(vals[i])
	}
	if g.refit != nil {
		g.refit()
	}
	return func() {
		for i, c := range g.costs {
			c.set(old[i])
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
		if meta[c.name] == c.text() {
			delete(meta, c.name)
		}
	}
}
