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
		d, ok := keyDocs[k]
		if !ok {
			t.Errorf("%s: no KeyDoc", k)
			continue
		}
		if d.Range == "" || d.Doc == "" || strings.Contains(d.Doc, "\n") {
			t.Errorf("%s: KeyDoc %+v: want a range and one line of meaning", k, d)
		}
	}
	for k := range keyDocs {
		if !slices.Contains(Keys(), k) {
			t.Errorf("keyDocs names %s, which is not a key", k)
		}
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
