package profile

import "testing"

func TestParseOptions(t *testing.T) {
	for _, c := range []struct {
		in string
		ok bool
	}{{"1410", true}, {"0", true}, {"1.5e3", true}, {"-1", false}, {"NaN", false}, {"+Inf", false}, {"fast", false}} {
		if _, ok := ParseClockMHz(c.in); ok != c.ok {
			t.Errorf("ParseClockMHz(%q) ok = %v, want %v", c.in, ok, c.ok)
		}
	}
	for _, c := range []struct {
		in string
		ok bool
	}{{"0", true}, {"-1", true}, {"3", true}, {"-2", false}, {"1.5", false}, {"gpu0", false}} {
		if _, ok := ParseDevice(c.in); ok != c.ok {
			t.Errorf("ParseDevice(%q) ok = %v, want %v", c.in, ok, c.ok)
		}
	}
}
