package model

import (
	"slices"
	"strings"
	"testing"
)

// Every key of Config has a unit-or-choice, a range and a meaning for
// `replay params`, and the table names no key Config lacks.
func TestKeyDocs(t *testing.T) {
	for _, k := range Keys() {
		if _, ok := keyDocs[k]; !ok {
			t.Errorf("%s: no KeyDoc", k)
			continue
		}
		d, ok := DocOf(k)
		if !ok {
			t.Errorf("%s: no KeyDoc", k)
			continue
		}
		if d.Range == "" || d.Doc == "" || strings.Contains(d.Doc, "\n") {
			t.Errorf("%s: KeyDoc %+v: want a range and one line of meaning", k, d)
		}
	}
	for k, d := range keyDocs {
		if !slices.Contains(Keys(), k) {
			t.Errorf("keyDocs names %s, which is not a key", k)
		}
		if _, numeric := ranges[k]; numeric && d.Range != "" {
			t.Errorf("keyDocs writes %s's range, %q; it comes from ranges, the one Validate holds it to", k, d.Range)
		}
	}
}

// The range `replay params` prints for a numeric key is the one Validate
// holds it to: a value one step outside either end is refused, each end
// accepted (issue 75: gpu.issue_width was printed "above 0", where the
// check's least is 1/32; gemtc.threads "at least 1", where 1024 is its
// most). A declared parameter with Choices prints them.
func TestPrintedRangeIsChecked(t *testing.T) {
	for key, r := range ranges {
		d, _ := DocOf(key)
		if !strings.HasPrefix(d.Range, formatBound(r.lo)+" to "+formatBound(r.hi)) {
			t.Errorf("%s: printed %q; want %s to %s", key, d.Range, formatBound(r.lo), formatBound(r.hi))
		}
	}
	for _, c := range []struct {
		key, ok, bad string
	}{
		{"gpu.issue_width", "0.03125", "0.03"},
		{"gemtc.threads", "1024", "1025"},
		{"gpu.clock_mhz", "1", "0.5"},
	} {
		for _, v := range []string{c.ok, c.bad} {
			cfg, err := Preset("k20c")
			if err != nil {
				t.Fatal(err)
			}
			if err := cfg.Set(c.key, v); err != nil {
				t.Fatal(err)
			}
			if err := cfg.Validate(); (err == nil) != (v == c.ok) {
				t.Errorf("%s=%s: %v", c.key, v, err)
			}
		}
	}
	if err := DeclareParam(Param{Name: "zz_test.mode", Default: "a", Choices: []string{"a", "b"}, Doc: "a test"}); err != nil {
		t.Fatal(err)
	}
	if d, _ := DocOf("zz_test.mode"); d.Range != "a or b" {
		t.Errorf("zz_test.mode: printed %q; want \"a or b\"", d.Range)
	}
	var cfg Config
	cfg, _ = Preset("k20c")
	if err := cfg.Set("zz_test.mode", "c"); err != nil {
		t.Fatal(err)
	}
	if err := cfg.Validate(); err == nil || err.Error() != `zz_test.mode is c; want a or b` {
		t.Errorf("zz_test.mode=c: %v", err)
	}
	if err := DeclareParam(Param{Name: "zz_test.bad", Default: "x", Choices: []string{"a"}, Doc: "a test"}); err == nil {
		t.Error("a default outside its choices was declared")
	}
}

// An unknown key's error names the nearest keys, misspelt or missing its
// section, and not the whole list.
func TestNearest(t *testing.T) {
	for _, c := range []struct {
		name string
		want string
	}{
		{"gpu.smz", "gpu.sms"},
		{"threshold", "launch.threshold"},
		{"lat.host_isue", "lat.host_issue"},
		{"spawn.windows", "spawn.window"},
		{"cdp.launch_c", "cdp.launch_a"},
	} {
		if got := Nearest(c.name, 3); len(got) == 0 || got[0] != c.want {
			t.Errorf("Nearest(%s) = %v, want %s first", c.name, got, c.want)
		}
	}
	var c Config
	err := c.Set("gpu.smz", "13")
	if err == nil || !strings.HasPrefix(err.Error(), `unknown key "gpu.smz"; nearest: gpu.sms, `) || strings.Contains(err.Error(), "cdp.") {
		t.Errorf("error = %v", err)
	}
}
