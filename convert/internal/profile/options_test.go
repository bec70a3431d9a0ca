package profile

import (
	"strings"
	"testing"
)

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

func TestCommonSet(t *testing.T) {
	k := Keys{Importer: "tool", ClockZero: "the table", DeviceAny: "the first", Extra: []string{"names"}}
	c := Common{Device: -1}
	for _, kv := range [][2]string{{"clock_mhz", "1530.5"}, {"device", "3"}, {"gpu", "h100"}} {
		if handled, err := c.Set(k, kv[0], kv[1]); !handled || err != nil {
			t.Fatalf("Set(%s, %s) = %v, %v", kv[0], kv[1], handled, err)
		}
	}
	if got, want := strings.Join(c.Pairs(), " "), "clock_mhz=1530.5 device=3 gpu=h100"; got != want {
		t.Errorf("Pairs() = %q, want %q", got, want)
	}
	if handled, err := c.Set(k, "names", "short"); handled || err != nil {
		t.Errorf("Set(names) = %v, %v; want it left to the importer", handled, err)
	}
	for _, tc := range [][3]string{
		{"clock_mhz", "-1", `tool option clock_mhz="-1": want a number > 0 (or 0 for the table)`},
		{"device", "-2", `tool option device="-2": want a device number (or -1 for the first)`},
		{"gpu", "no-such-gpu", `tool option gpu="no-such-gpu"`},
	} {
		if handled, err := c.Set(k, tc[0], tc[1]); !handled || err == nil || !strings.HasPrefix(err.Error(), tc[2]) {
			t.Errorf("Set(%s, %s) = %v, %v; want an error starting %q", tc[0], tc[1], handled, err, tc[2])
		}
	}
	if got, want := k.Unknown("clock").Error(), `unknown tool option "clock"; valid: clock_mhz, device, gpu, names`; got != want {
		t.Errorf("Unknown = %q, want %q", got, want)
	}
	if c.ClockMHz != 1530.5 || c.Device != 3 || c.GPU != "h100" {
		t.Errorf("a rejected value changed the options: %+v", c)
	}
}
