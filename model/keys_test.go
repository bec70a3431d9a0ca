package model

import (
	"sort"
	"strconv"
	"strings"
	"testing"
)

func TestKeys(t *testing.T) {
	keys := Keys()
	if len(keys) != 69 {
		t.Errorf("%d keys, want 69 (one per leaf field of Config): %v", len(keys), keys)
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
	if !strings.HasPrefix(msg, `unknown key "gpu.smz"; nearest: gpu.sms, `) || !strings.HasSuffix(msg, "(replay params lists every key)") {
		t.Errorf("error = %q", msg)
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
