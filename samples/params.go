package samples

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Params holds one run's parameter values, as given or defaulted. Values stay
// text until a generator asks for them through a typed getter, which checks
// type and range at once so every bad value is reported the same way.
type Params struct {
	gen  *Generator
	vals map[string]string
}

// ParamError is a parameter the user got wrong: text that is not
// name=value, an unknown or repeated name, or a value of the wrong type or
// out of range. Commands report it as bad usage.
type ParamError struct {
	Generator string
	Param     string // the parameter's name; empty when the text was not name=value
	Value     string // the value given, or the whole text when Param is empty
	Msg       string // what is wrong, and what would be right
}

func (e *ParamError) Error() string {
	if e.Param == "" {
		return fmt.Sprintf("gen %s: parameter %q: %s", e.Generator, e.Value, e.Msg)
	}
	return fmt.Sprintf("gen %s: parameter %s=%s: %s", e.Generator, e.Param, e.Value, e.Msg)
}

// ParseParams reads name=value pairs, fills in defaults for the parameters
// not given, and rejects malformed text, unknown names (listing the valid
// ones) and names given twice. Values are checked later, by the getters.
func (g *Generator) ParseParams(kv []string) (Params, error) {
	p := Params{gen: g, vals: make(map[string]string, len(g.Params))}
	given := map[string]bool{}
	for _, s := range kv {
		name, value, ok := strings.Cut(s, "=")
		if !ok || name == "" {
			return Params{}, &ParamError{Generator: g.Name, Value: s, Msg: "want name=value"}
		}
		if !g.declares(name) {
			return Params{}, p.errorf(name, value, "no such parameter (valid: %s)", g.paramNames())
		}
		if given[name] {
			return Params{}, p.errorf(name, value, "given twice")
		}
		given[name] = true
		p.vals[name] = value
	}
	for _, d := range g.Params {
		if !given[d.Name] {
			p.vals[d.Name] = d.Default
		}
	}
	return p, nil
}

// Int returns the named parameter as an integer in [lo, hi]. Generators
// bound every integer so no value can exhaust memory or overflow a field.
func (p Params) Int(name string, lo, hi int) (int, error) {
	s, err := p.lookup(name)
	if err != nil {
		return 0, err
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < lo || v > hi {
		return 0, p.errorf(name, s, "want an integer in [%d, %d]", lo, hi)
	}
	return v, nil
}

// Float returns the named parameter as a number in [lo, hi] (never NaN).
func (p Params) Float(name string, lo, hi float64) (float64, error) {
	s, err := p.lookup(name)
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || !(v >= lo && v <= hi) {
		return 0, p.errorf(name, s, "want a number in [%g, %g]", lo, hi)
	}
	return v, nil
}

// Uint64 returns the named parameter as an unsigned 64-bit integer: the
// full range a PCG seed can take.
func (p Params) Uint64(name string) (uint64, error) {
	s, err := p.lookup(name)
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, p.errorf(name, s, "want an unsigned integer below 2^64")
	}
	return v, nil
}

// Choice returns the named parameter, which must be one of choices: the
// form string parameters take in generators (a distribution, a task kind).
func (p Params) Choice(name string, choices ...string) (string, error) {
	s, err := p.lookup(name)
	if err != nil {
		return "", err
	}
	for _, c := range choices {
		if s == c {
			return s, nil
		}
	}
	return "", p.errorf(name, s, "want one of %s", strings.Join(choices, ", "))
}

// Values returns every parameter's text, defaults included, so a generator
// can record exactly what produced a trace in its header's meta; but the
// invented cost constants' (costparams.go) only where they are not at
// their defaults.
func (p Params) Values() map[string]string {
	m := make(map[string]string, len(p.vals))
	for k, v := range p.vals {
		m[k] = v
	}
	p.omitDefaultCosts(m)
	return m
}

// omitDefaults deletes from meta, a copy Values made, each named
// parameter whose value is its declared default. Generators use it for
// parameters added after their first traces were made: leaving the
// default out keeps those traces, the committed sample among them,
// byte-identical to what the generator writes now.
func (p Params) omitDefaults(meta map[string]string, names ...string) {
	if p.gen == nil {
		return
	}
	for _, d := range p.gen.Params {
		if slices.Contains(names, d.Name) && meta[d.Name] == d.Default {
			delete(meta, d.Name)
		}
	}
}

func (p Params) lookup(name string) (string, error) {
	s, ok := p.vals[name]
	if !ok {
		return "", &ParamError{Generator: p.genName(), Param: name, Msg: "no such parameter"}
	}
	return s, nil
}

func (p Params) errorf(name, value, format string, args ...any) error {
	return &ParamError{Generator: p.genName(), Param: name, Value: value, Msg: fmt.Sprintf(format, args...)}
}

// genName tolerates the zero Params a failed ParseParams returns.
func (p Params) genName() string {
	if p.gen == nil {
		return "?"
	}
	return p.gen.Name
}

func (g *Generator) declares(name string) bool {
	for _, d := range g.Params {
		if d.Name == name {
			return true
		}
	}
	return false
}

// paramNames lists the declared names, sorted, for error messages.
func (g *Generator) paramNames() string {
	names := make([]string, len(g.Params))
	for i, d := range g.Params {
		names[i] = d.Name
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// variantParam is shared by the dynamic-parallelism generators. dp, the
// default, writes the DP code's trace as before the parameter existed
// (launch sites and child kernels); flat writes the trace of the original
// non-DP benchmark the DP code was derived from, costed from the same
// constants, so that only the distribution of the work differs. This is
// not the replay policy `flat`, which inlines every launch site of a dp
// trace; each generator's doc says what its flat variant is, with its
// source.
var variantParam = Param{Name: "variant", Default: "dp", Doc: "dp: the dynamic-parallelism code, with launch sites; flat: the original non-DP benchmark, no launches (see the generator's doc)"}

// flatVariant reports whether p asks for the flat variant.
func flatVariant(p Params) (bool, error) {
	v, err := p.Choice(variantParam.Name, "dp", "flat")
	return v == "flat", err
}

// noSites is the site threshold of a flat variant whose original code is
// the DP code's `else` branch for every work item (a thread loops over its
// item's nested work itself): no item's work exceeds it, so no lane
// launches.
const noSites = math.MaxInt

// variantMeta records the variant in a header's meta: omitted for dp, the
// default, so dp traces stay byte-identical to those written before the
// parameter existed.
func variantMeta(p Params, meta map[string]string) map[string]string {
	p.omitDefaults(meta, variantParam.Name)
	return meta
}

// auto is the declared default of a parameter whose default depends on
// other parameters (join's r_tuples, block, ... on its algo).
const auto = "auto"

// IntAuto is Int for a parameter whose declared default is auto: that
// text stands for def, the default the other parameters give, and is not
// range-checked.
func (p Params) IntAuto(name string, def, lo, hi int) (int, error) {
	if s, err := p.lookup(name); err != nil || s != auto {
		return p.Int(name, lo, hi)
	}
	return def, nil
}
