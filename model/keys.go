package model

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// key is one leaf field of Config reachable as "section.field". The table of
// keys is built once from the json tags, so config.go stays the single place
// a parameter is declared: adding a field there makes it settable, gettable
// and loadable from JSON with no further code.
type key struct {
	name    string       // "gpu.sms"
	section int          // index of the section field in Config
	field   int          // index of the leaf field in its section
	kind    reflect.Kind // Int, Int64, Float64 or String
}

var (
	keyTable  = buildKeys()
	keyByName = indexKeys(keyTable)
	sections  = sectionNames(keyTable)
	keyList   = strings.Join(Keys(), ", ")
)

// buildKeys walks Config's sections in declaration order. A field of a kind
// the parsers below do not handle is a mistake in config.go, caught the
// moment the package loads (and so by every test).
func buildKeys() []key {
	var keys []key
	ct := reflect.TypeOf(Config{})
	for s := 0; s < ct.NumField(); s++ {
		if !ct.Field(s).IsExported() {
			continue // the declared parameters (params.go)
		}
		st := ct.Field(s).Type
		for f := 0; f < st.NumField(); f++ {
			k := key{
				name:    jsonName(ct.Field(s)) + "." + jsonName(st.Field(f)),
				section: s,
				field:   f,
				kind:    st.Field(f).Type.Kind(),
			}
			switch k.kind {
			case reflect.Int, reflect.Int64, reflect.Float64, reflect.String:
			default:
				panic("model: config key " + k.name + " has unsupported kind " + k.kind.String())
			}
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].name < keys[j].name })
	return keys
}

func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	return name
}

func indexKeys(keys []key) map[string]*key {
	m := make(map[string]*key, len(keys))
	for i := range keys {
		m[keys[i].name] = &keys[i]
	}
	return m
}

func sectionNames(keys []key) map[string]bool {
	m := make(map[string]bool)
	for _, k := range keys {
		section, _, _ := strings.Cut(k.name, ".")
		m[section] = true
	}
	return m
}

// Keys returns every dotted key of Config in sorted order: the paths a JSON
// GPU file may name, and with the declared parameters (Params) the names
// --set and --sweep accept.
func Keys() []string {
	names := make([]string, len(keyTable))
	for i, k := range keyTable {
		names[i] = k.name
	}
	return names
}

func lookup(name string) (*key, error) {
	if k, ok := keyByName[name]; ok {
		return k, nil
	}
	return nil, unknownKey(name)
}

// unknownKey says what an unknown key might have meant and where to look,
// short enough to read on one line (every key at once ran past a terminal
// line's worth and was cut in the middle): the nearest keys by spelling
// or by field, then the keys of the key's section, or the sections.
func unknownKey(name string) error {
	msg := fmt.Sprintf("unknown key %q", name)
	all := strings.Split(validKeys(), ", ")
	if near := nearKeys(name, all); len(near) > 0 {
		msg += "; did you mean " + strings.Join(near, " or ") + "?"
	}
	section, _, _ := strings.Cut(name, ".")
	var same []string
	secs := map[string]bool{}
	var order []string
	for _, k := range all {
		s, _, _ := strings.Cut(k, ".")
		if s == section {
			same = append(same, k)
		}
		if !secs[s] {
			secs[s] = true
			order = append(order, s)
		}
	}
	if len(same) > 0 {
		return fmt.Errorf("%s; the keys of %s: %s", msg, section, strings.Join(same, ", "))
	}
	return fmt.Errorf("%s; keys are section.field, the sections: %s (--set SECTION.x lists a section's keys; replay policies lists each policy's)", msg, strings.Join(order, ", "))
}

// nearKeys are the keys within two edits of name, or with name's field
// in another section (gpu.threshold: launch.threshold), or whose field is
// name (threshold).
func nearKeys(name string, all []string) []string {
	_, field, hasSection := strings.Cut(name, ".")
	if !hasSection {
		field = name
	}
	var near []string
	for _, k := range all {
		_, f, _ := strings.Cut(k, ".")
		if editDistance(name, k) <= 2 || f == field {
			near = append(near, k)
		}
	}
	if len(near) > 4 {
		near = near[:4]
	}
	return near
}

// editDistance is the Levenshtein distance of a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// value is the key's field inside the Config v points at or holds.
func (k *key) value(v reflect.Value) reflect.Value {
	return v.Field(k.section).Field(k.field)
}

// Set parses value according to key's type and stores it. It checks only
// the syntax (an integer, a number); ranges are Validate's job, so a caller
// applying several overrides validates once at the end and the order of the
// overrides does not matter.
func (c *Config) Set(key, value string) error {
	if p := findParam(key); p != nil {
		return c.setParam(p, value)
	}
	k, err := lookup(key)
	if err != nil {
		return err
	}
	if problem := k.parse(k.value(reflect.ValueOf(c).Elem()), value); problem != "" {
		return fmt.Errorf("bad value %q for %s: %s", value, k.name, problem)
	}
	return nil
}

// Get formats key's value so that Set(key, Get(key)) restores it exactly.
func (c Config) Get(key string) (string, error) {
	if p := findParam(key); p != nil {
		return formatParam(c.param(p)), nil
	}
	k, err := lookup(key)
	if err != nil {
		return "", err
	}
	v := k.value(reflect.ValueOf(c))
	switch k.kind {
	case reflect.Float64:
		return strconv.FormatFloat(v.Float(), 'g', -1, 64), nil
	case reflect.String:
		return v.String(), nil
	default:
		return strconv.FormatInt(v.Int(), 10), nil
	}
}

// parse stores s, the text form of a value, into v. It returns what is
// wrong with s ("want an integer"), or "" when s was stored; callers quote
// the value in the form their user wrote it.
func (k *key) parse(v reflect.Value, s string) (problem string) {
	switch k.kind {
	case reflect.Float64:
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return "want a finite number"
		}
		v.SetFloat(f)
	case reflect.String:
		v.SetString(s)
	default:
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, v.Type().Bits())
		if errors.Is(err, strconv.ErrRange) {
			return "integer out of range"
		}
		if err != nil {
			return "want an integer"
		}
		v.SetInt(n)
	}
	return ""
}
