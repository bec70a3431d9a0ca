package kineto

import (
	"strings"
	"testing"
)

func TestParseMicros(t *testing.T) {
	for _, tc := range []struct {
		in string
		ns int64
		ok bool
	}{
		{"1707417525512145", 1707417525512145000, true},
		{"2413669097444.592", 2413669097444592, true},
		{"1.76", 1760, true},
		{"0.0005", 1, true},
		{"0.0004", 0, true},
		{"-2.5", -2500, true},
		{"1e3", 1000000, true},
		{"1.5E-3", 2, true},
		{"", 0, false},
		{"1.2.3", 0, false},
		{"9999999999999999999", 0, false},
		{"1e300", 0, false},
	} {
		ns, ok := parseMicros(tc.in)
		if ns != tc.ns || ok != tc.ok {
			t.Errorf("parseMicros(%q) = %d, %v; want %d, %v", tc.in, ns, ok, tc.ns, tc.ok)
		}
	}
}

func TestIdent(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want uint64
		ok   bool
	}{
		{`7`, 7, true}, {`"7"`, 7, true}, {`"0x5581a1b2c3d0"`, 0x5581a1b2c3d0, true},
		{`-1`, 0, false}, {`"stream 7"`, 0, false}, {`null`, 0, false},
	} {
		var id ident
		if err := id.UnmarshalJSON([]byte(tc.in)); err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		if v, ok := id.uint(); v != tc.want || ok != tc.ok {
			t.Errorf("ident %s: uint() = %d, %v; want %d, %v", tc.in, v, ok, tc.want, tc.ok)
		}
	}
	var id ident
	if err := id.UnmarshalJSON([]byte(`{}`)); err == nil {
		t.Error("an object was accepted as an identifier")
	}
}

func TestOptionsSet(t *testing.T) {
	o := DefaultOptions()
	for _, kv := range [][2]string{{"clock_mhz", "1980"}, {"device", "2"}, {"gpu", "k20c"}} {
		if err := o.Set(kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := o.String(), "clock_mhz=1980 device=2 gpu=k20c"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	for _, kv := range [][3]string{
		{"clock_mhz", "fast", "want a number"}, {"clock_mhz", "-1", "want a number"},
		{"clock_mhz", "NaN", "want a number"}, {"device", "-2", "want a device"},
		{"gpu", "no-such-gpu", "gpu="}, {"cpi", "4", "valid: clock_mhz, device, gpu"},
	} {
		before := o
		err := o.Set(kv[0], kv[1])
		if err == nil || !strings.Contains(err.Error(), kv[2]) {
			t.Errorf("Set(%q, %q) = %v, want an error containing %q", kv[0], kv[1], err, kv[2])
		}
		if o != before {
			t.Errorf("Set(%q, %q) changed the options on error", kv[0], kv[1])
		}
	}
}
