package model

import (
	"sort"
	"strconv"
	"strings"
	"testing"
)

func TestKeys(t *testing.T) {
	keys := Keys()
	if len(keys) != 61 {
		t.Errorf("%d keys, want 61 (one per leaf field of Config): %v", len(keys), keys)
	}
	if !sort.StringsAreSorted(keys) {
		t.Errorf("Keys not sorted: %v", keys)
	}
	for _, want := range []string{"gpu.sms", "gpu.clock_mhz", "gpu.name", "lat.host_issue", "cdp.param_b",
		"launch.threshold", "spawn.window", "io.pcie_gbps", "crcs.pages", "output.occupancy_window"} {
		if i := sort.SearchStrings(keys, want); i == len(keys) || keys[i] != want {
			t.Errorf("missing key %s", want)
		}
	}
}

// Every key takes a value distinct from its default and gives it back.
func TestSetGetRoundTrip(t *testing.T) {
	c, err := Preset(DefaultPreset)
	if err != nil {
		t.Fatal(err)
	}
	for i, k := range Keys() {
		old, err := c.Get(k)
		if err != nil {
			t.Fatalf("Get(%s): %v", k, err)
		}
		var v string
		switch kind := keyByName[k].kind.String(); kind {
		case "string":
			v = old + "-x"
		case "float64":
			v = strconv.FormatFloat(1.0625+float64(i), 'g', -1, 64)
		default:
			v = strconv.Itoa(100003 + i)
		}
		if err := c.Set(k, v); err != nil {
			t.Fatalf("Set(%s, %s): %v", k, v, err)
		}
		if got, _ := c.Get(k); got != v {
			t.Errorf("%s: Set %q, Get %q", k, v, got)
		}
		if got, _ := c.Get(k); got == old {
			t.Errorf("%s: Set did not change the value", k)
		}
	}
	// Set reaches the struct fields, not a copy.
	if c.GPU.SMs == 13 || c.Spawn.Window == 1024 || c.IO.PCIeGBps == 15.75 {
		t.Errorf("Set did not reach Config fields: %+v", c)
	}
}

func TestSetParsesTypes(t *testing.T) {
	var c Config
	for _, tc := range []struct{ key, value string }{
		{"gpu.sms", " 26 "},
		{"gpu.clock_mhz", "1.5e3"},
		{"cdp.param_b", "-1"},
		{"crcs.pages", "exact"},
	} {
		if err := c.Set(tc.key, tc.value); err != nil {
			t.Errorf("Set(%s, %q): %v", tc.key, tc.value, err)
		}
	}
	if c.GPU.SMs != 26 || c.GPU.ClockMHz != 1500 || c.CDP.ParamB != -1 || c.CRCS.Pages != "exact" {
		t.Errorf("got %+v", c)
	}
}

func TestSetUnknownKey(t *testing.T) {
	var c Config
	err := c.Set("gpu.smz", "13")
	if err == nil {
		t.Fatal("Set(gpu.smz) succeeded")
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, `unknown key "gpu.smz"; did you mean gpu.sms?; the keys of gpu: gpu.clock_mhz, `) {
		t.Errorf("error = %q", msg)
	}
	// Every key is named by the message of an unknown key of its section,
	// and every message fits on the command's one line (900 bytes).
	for _, k := range Keys() {
		section, _, _ := strings.Cut(k, ".")
		msg := c.Set(section+".nosuch", "1").Error()
		if !strings.Contains(msg, k) || len(msg) > 900 {
			t.Errorf("%s.nosuch: %q does not list %s in 900 bytes", section, msg, k)
		}
	}
	for _, c2 := range []struct{ key, want string }{
		{"threshold", "did you mean launch.threshold?"},
		{"gpu.threshold", "did you mean launch.threshold?"},
		{"lat.host_isue", "did you mean lat.host_issue?"},
		{"nosuch.key", "the sections: cdp, crcs, dtbl, gemtc, gpu, io, lat, launch, model, output, pagoda, spawn"},
	} {
		if err := c.Set(c2.key, "1"); err == nil || !strings.Contains(err.Error(), c2.want) {
			t.Errorf("%s: %v, want %q", c2.key, err, c2.want)
		}
	}
	if _, err := c.Get("nope"); err == nil || !strings.Contains(err.Error(), `unknown key "nope"`) {
		t.Errorf("Get(nope) error = %v", err)
	}
}

func TestSetBadValue(t *testing.T) {
	for _, tc := range []struct{ key, value, want string }{
		{"gpu.sms", "abc", `bad value "abc" for gpu.sms: want an integer`},
		{"gpu.sms", "1.5", `bad value "1.5" for gpu.sms: want an integer`},
		{"gpu.sms", "", `bad value "" for gpu.sms: want an integer`},
		{"gpu.sms", "0x10", `bad value "0x10" for gpu.sms: want an integer`},
		{"spawn.window", "99999999999999999999", `bad value "99999999999999999999" for spawn.window: integer out of range`},
		{"gpu.clock_mhz", "fast", `bad value "fast" for gpu.clock_mhz: want a finite number`},
		{"gpu.clock_mhz", "NaN", `bad value "NaN" for gpu.clock_mhz: want a finite number`},
		{"io.pcie_gbps", "+Inf", `bad value "+Inf" for io.pcie_gbps: want a finite number`},
	} {
		c, _ := Preset(DefaultPreset)
		before := c
		err := c.Set(tc.key, tc.value)
		if err == nil || err.Error() != tc.want {
			t.Errorf("Set(%s, %q) error = %v, want %s", tc.key, tc.value, err, tc.want)
		}
		if c != before {
			t.Errorf("Set(%s, %q) changed the config on error", tc.key, tc.value)
		}
	}
}
