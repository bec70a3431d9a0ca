package model

import (
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Param is a parameter key outside Config's own sections: a policy built
// in another module declares the knobs it reads (policies.Register), and
// --set, --sweep, a captured trace's settings and Config.Get accept them
// like Config's own keys. Config's sections stay the single place the
// built-in parameters are declared; a Param only ever adds a section.
type Param struct {
	// Name is "section.field" in lower case, digits and '_', and its
	// section is none of Config's (gpu, cdp, spawn, ...): a policy's
	// keys cannot change what the built-in keys mean.
	Name string
	// Default is the value where nothing sets the key, and its type the
	// key's: an int or int64 (an integer key), a float64 or a string.
	Default any
	// Doc is one line for `replay policies`.
	Doc string
	// Choices, when set, are the values a string key may take: Validate
	// refuses any other ("is x; want a, b or c") before Check, and
	// `replay params` prints them as the key's range.
	Choices []string
	// Check, when set, is called by Config.Validate with the key's value
	// (an int64, a float64 or a string, as Default's type says) and
	// returns what is wrong with it, or "" ("must be at least 1").
	Check func(value any) string
}

// param is a declared Param with the kind its Default gives it.
type param struct {
	Param
	kind reflect.Kind // Int64, Float64 or String
}

var (
	paramMu   sync.RWMutex
	paramByID = map[string]*param{}
	nameRE    = regexp.MustCompile(`^[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*$`)
)

// DeclareParam adds p to the keys every Config accepts. Declaring the
// same key twice with the same default and kind is allowed (two policies
// of one module may share a knob); a different declaration, a malformed
// name, a section of Config's own or a Default of another type is an
// error. Declare before any Config reads the key: at init, or before
// replaycli.Main.
func DeclareParam(p Param) error {
	if !nameRE.MatchString(p.Name) {
		return fmt.Errorf("parameter %q: want section.field in lower case letters, digits and _", p.Name)
	}
	section, _, _ := strings.Cut(p.Name, ".")
	if sections[section] {
		return fmt.Errorf("parameter %s: section %s is the model's own; name a section of the policy's", p.Name, section)
	}
	d := &param{Param: p}
	switch v := p.Default.(type) {
	case int:
		d.Default, d.kind = int64(v), reflect.Int64
	case int64:
		d.kind = reflect.Int64
	case float64:
		d.kind = reflect.Float64
	case string:
		d.kind = reflect.String
	default:
		return fmt.Errorf("parameter %s: default %v (%T): want an int, int64, float64 or string", p.Name, p.Default, p.Default)
	}
	if strings.ContainsAny(p.Doc, "\n") {
		return fmt.Errorf("parameter %s: the doc must be one line", p.Name)
	}
	if len(p.Choices) > 0 && (d.kind != reflect.String || !slices.Contains(p.Choices, p.Default.(string))) {
		return fmt.Errorf("parameter %s: default %v is not one of its choices %v", p.Name, p.Default, p.Choices)
	}
	paramMu.Lock()
	defer paramMu.Unlock()
	if prev, ok := paramByID[p.Name]; ok {
		if prev.kind != d.kind || prev.Default != d.Default {
			return fmt.Errorf("parameter %s declared twice, with defaults %v and %v", p.Name, prev.Default, d.Default)
		}
		return nil
	}
	paramByID[p.Name] = d
	return nil
}

// Params returns the declared parameters, sorted by name; each Default is
// an int64, a float64 or a string.
func Params() []Param {
	paramMu.RLock()
	defer paramMu.RUnlock()
	out := make([]Param, 0, len(paramByID))
	for _, p := range paramByID {
		out = append(out, p.Param)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// IsParam reports whether name is a declared parameter.
func IsParam(name string) bool { return findParam(name) != nil }

func findParam(name string) *param {
	paramMu.RLock()
	defer paramMu.RUnlock()
	return paramByID[name]
}

// setParam parses s as p's value and records it in c.params, the text
// "name=value" of each set key in name order, each ending in NUL: a string
// keeps Config a comparable value whose copies (each replay of a sweep
// starts from one) never see each other's settings.
func (c *Config) setParam(p *param, s string) error {
	v := reflect.New(reflect.TypeOf(p.Default)).Elem()
	k := key{name: p.Name, kind: p.kind}
	if problem := k.parse(v, s); problem != "" || strings.ContainsRune(s, 0) {
		if problem == "" {
			problem = "contains NUL"
		}
		return fmt.Errorf("bad value %q for %s: %s", s, p.Name, problem)
	}
	vals := map[string]string{p.Name: formatParam(v.Interface())}
	for _, line := range strings.Split(strings.TrimSuffix(c.params, "\x00"), "\x00") {
		if name, val, ok := strings.Cut(line, "="); ok && name != p.Name {
			vals[name] = val
		}
	}
	var b strings.Builder
	for _, name := range slices.Sorted(maps.Keys(vals)) {
		b.WriteString(name + "=" + vals[name] + "\x00")
	}
	c.params = b.String()
	return nil
}

// param is the value of declared parameter p in c.
func (c Config) param(p *param) any {
	for line := range strings.SplitSeq(c.params, "\x00") {
		if name, val, _ := strings.Cut(line, "="); name == p.Name {
			v := reflect.New(reflect.TypeOf(p.Default)).Elem()
			(&key{kind: p.kind}).parse(v, val) // written by setParam: it parses
			return v.Interface()
		}
	}
	return p.Default
}

// Int is the value of an integer parameter a policy declared
// (DeclareParam). It panics for a key not declared as an integer: a
// policy reads the keys it declares, so that is a mistake in its code.
func (c Config) Int(name string) int64 { return c.typed(name, reflect.Int64).(int64) }

// Float is the value of a float64 parameter a policy declared; it panics
// like Int.
func (c Config) Float(name string) float64 { return c.typed(name, reflect.Float64).(float64) }

func (c Config) typed(name string, kind reflect.Kind) any {
	p := findParam(name)
	if p == nil || p.kind != kind {
		panic(fmt.Sprintf("model: %s is not a declared %s parameter", name, kind))
	}
	return c.param(p)
}

// formatParam is Get's text for a parameter's value.
func formatParam(v any) string {
	switch v := v.(type) {
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	case int64:
		return strconv.FormatInt(v, 10)
	}
	return v.(string)
}

// checkParams runs each declared parameter's Check on c's value. A Check
// that panics is its policy's defect: Validate returns a *PolicyPanic
// (policies.Register names the policy; a Param declared otherwise is
// named by its key), and the other parameters are not checked.
func (c Config) checkParams(v *validator) {
	for _, p := range Params() {
		if len(p.Choices) > 0 {
			if s, ok := c.param(findParam(p.Name)).(string); ok && !slices.Contains(p.Choices, s) {
				v.fail(p.Name, fmt.Sprintf("is %s; want %s", s, choiceList(p.Choices)))
				continue
			}
		}
		if p.Check == nil {
			continue
		}
		val := c.param(findParam(p.Name))
		problem, pp := runCheck(p, val)
		if pp != nil {
			if v.err == nil {
				v.err = pp
			}
			return
		}
		if problem != "" {
			v.fail(p.Name, fmt.Sprintf("is %s; %s", formatParam(val), problem))
		}
	}
}

// runCheck calls p.Check, recovering a panic as a *PolicyPanic.
func runCheck(p Param, val any) (problem string, pp *PolicyPanic) {
	defer func() {
		if r := recover(); r != nil {
			if q, ok := r.(*PolicyPanic); ok {
				pp = q
				return
			}
			pp = &PolicyPanic{Policy: "of parameter " + p.Name, Hook: "Check", Value: r}
		}
	}()
	return p.Check(val), nil
}
