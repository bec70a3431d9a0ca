package model

import (
	"strings"
	"testing"
)

func declare(t *testing.T, p Param) {
	t.Helper()
	if err := DeclareParam(p); err != nil {
		t.Fatal(err)
	}
}

// A declared parameter is set, read and validated like Config's own keys,
// and copies of a Config keep their own values.
func TestParamSetGetValidate(t *testing.T) {
	declare(t, Param{Name: "ptest.k", Default: 4, Doc: "k", Check: func(v any) string {
		if v.(int64) < 1 {
			return "must be at least 1"
		}
		return ""
	}})
	declare(t, Param{Name: "ptest.f", Default: 0.5, Doc: "f"})
	declare(t, Param{Name: "ptest.s", Default: "x", Doc: "s"})
	cfg, err := Preset("k20c")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Int("ptest.k") != 4 || cfg.Float("ptest.f") != 0.5 {
		t.Fatalf("defaults: k=%d f=%g", cfg.Int("ptest.k"), cfg.Float("ptest.f"))
	}
	a := cfg
	for _, kv := range [][2]string{{"ptest.k", " 8"}, {"ptest.f", "2e3"}, {"ptest.s", "a=b"}, {"ptest.k", "7"}} {
		if err := a.Set(kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	b := a
	if err := b.Set("ptest.k", "9"); err != nil {
		t.Fatal(err)
	}
	if a.Int("ptest.k") != 7 || b.Int("ptest.k") != 9 || cfg.Int("ptest.k") != 4 || a.Float("ptest.f") != 2000 {
		t.Errorf("copies share values: base %d, a %d, b %d", cfg.Int("ptest.k"), a.Int("ptest.k"), b.Int("ptest.k"))
	}
	if s, _ := a.Get("ptest.s"); s != "a=b" {
		t.Errorf("ptest.s = %q, want a=b", s)
	}
	if s, _ := a.Get("ptest.f"); s != "2000" {
		t.Errorf("ptest.f = %q, want 2000", s)
	}
	// Setting a value back to what another Config has makes them equal.
	c := cfg
	_ = c.Set("ptest.f", "2000")
	_ = c.Set("ptest.s", "a=b")
	_ = c.Set("ptest.k", "7")
	if c != a {
		t.Error("configs with the same settings compare unequal")
	}
	if err := a.Validate(); err != nil {
		t.Errorf("valid: %v", err)
	}
	_ = a.Set("ptest.k", "0")
	if err := a.Validate(); err == nil || err.Error() != "ptest.k is 0; must be at least 1" {
		t.Errorf("Validate: %v, want ptest.k is 0; must be at least 1", err)
	}
	for _, kv := range [][2]string{{"ptest.k", "1.5"}, {"ptest.f", "NaN"}, {"ptest.s", "a\x00"}} {
		if err := a.Set(kv[0], kv[1]); err == nil || !strings.Contains(err.Error(), "bad value") {
			t.Errorf("Set(%s, %q): %v, want a bad value", kv[0], kv[1], err)
		}
	}
	if err := a.Set("ptest.nope", "1"); err == nil || !strings.Contains(err.Error(), "unknown key") || !strings.Contains(err.Error(), "ptest.k") {
		t.Errorf("unknown key: %v, want a refusal listing ptest.k", err)
	}
}

func TestDeclareParamRefuses(t *testing.T) {
	declare(t, Param{Name: "ptest2.k", Default: int64(2)})
	declare(t, Param{Name: "ptest2.k", Default: 2}) // the same again
	for _, p := range []Param{
		{Name: "gpu.extra", Default: 1},
		{Name: "Ptest2.k", Default: 1},
		{Name: "ptest2", Default: 1},
		{Name: "ptest2.k", Default: 3},
		{Name: "ptest2.u", Default: uint(1)},
		{Name: "ptest2.d", Default: 1, Doc: "two\nlines"},
	} {
		if err := DeclareParam(p); err == nil {
			t.Errorf("%s (%v): declared", p.Name, p.Default)
		}
	}
}

func TestParamReadOfUndeclaredPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic")
		}
	}()
	Config{}.Float("ptest.k") // an integer parameter
}
