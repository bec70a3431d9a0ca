package model

import (
	"math"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// Every numeric key has a range, and a value just outside either end is
// refused naming the key, where gpu.clock_mhz=1e-308 was accepted (its
// makespan_us was +Inf) and sizes such as gemtc.threads or
// pagoda.table_rows took any int64.
func TestEveryNumericKeyHasARange(t *testing.T) {
	for _, k := range keyTable {
		if k.kind == reflect.String {
			continue
		}
		r, ok := ranges[k.name]
		if !ok {
			t.Errorf("%s has no range in ranges.go", k.name)
			continue
		}
		var outside []string
		if k.kind == reflect.Float64 {
			outside = []string{strconv.FormatFloat(math.Nextafter(r.lo, math.Inf(-1)), 'g', -1, 64),
				strconv.FormatFloat(math.Nextafter(r.hi, math.Inf(1)), 'g', -1, 64), "1e-308"}
			if r.lo <= 1e-308 {
				outside = outside[:2]
			}
		} else {
			outside = []string{strconv.FormatInt(int64(r.lo)-1, 10)}
			if r.hi < math.MaxInt64 {
				outside = append(outside, strconv.FormatInt(int64(r.hi)+1, 10))
			}
		}
		for _, v := range outside {
			c, _ := Preset(DefaultPreset)
			if err := c.Set(k.name, v); err != nil {
				continue // out of the field's own range
			}
			if err := c.Validate(); err == nil || !strings.HasPrefix(err.Error(), k.name+" ") {
				t.Errorf("%s=%s: %v, want it refused", k.name, v, err)
			}
		}
	}
	for name := range ranges {
		if k, ok := keyByName[name]; !ok || k.kind == reflect.String {
			t.Errorf("ranges.go names %s, not a numeric key", name)
		}
	}
	c, _ := Preset(DefaultPreset)
	c.Set("gpu.clock_mhz", "1e-308")
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "gpu.clock_mhz is 1e-308; must be between 1 and 1000000") {
		t.Errorf("gpu.clock_mhz=1e-308: %v", err)
	}
}

// The package doc lists every range as Range gives it.
func TestRangesDocumented(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	for name := range ranges {
		text, _ := Range(name)
		if !strings.Contains(string(doc), name+strings.Repeat(" ", max(1, 25-len(name)))+text+"\n") {
			t.Errorf("doc.go's Ranges do not list %s as %q", name, text)
		}
	}
}

// Every preset is inside every range.
func TestPresetsInRange(t *testing.T) {
	for _, p := range Presets() {
		name := p.Name
		c, err := Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		var v validator
		c.checkRanges(&v)
		if v.err != nil {
			t.Errorf("%s: %v", name, v.err)
		}
	}
}
