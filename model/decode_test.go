package model

import (
	"testing"
)

// FuzzDecodeConfig feeds arbitrary bytes to the JSON GPU-file decoder: it
// must never panic, and whatever it accepts must survive a Get/Set round
// trip of every key.
func FuzzDecodeConfig(f *testing.F) {
	data, err := presetFiles.ReadFile("presets/h100.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte(`{"gpu": {"sms": 26, "clock_mhz": 1.4e3}, "crcs": {"pages": "exact"}}`))
	f.Add([]byte(`{"gpu": {"smz": 1}, "x": [1, {"y": null}]}`))
	f.Add([]byte(`{"gpu": {"sms": 1, "sms": 2}}`))
	f.Add([]byte(`{"io": {"pcie_gbps": -0}}`))
	f.Add([]byte(`{`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, _ := Preset(DefaultPreset)
		if _, err := decodeConfig("fuzz.json", data, &c); err != nil {
			return
		}
		var back Config
		for _, k := range Keys() {
			v, err := c.Get(k)
			if err != nil {
				t.Fatal(err)
			}
			if err := back.Set(k, v); err != nil {
				t.Fatalf("Set(%s, Get=%q): %v", k, v, err)
			}
		}
		if back != c {
			t.Fatalf("round trip changed the config:\n%+v\n%+v", c, back)
		}
	})
}
