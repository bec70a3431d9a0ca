package model

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadPreset(t *testing.T) {
	for _, p := range Presets() {
		c, err := Load(p.Name)
		if err != nil {
			t.Fatalf("Load(%s): %v", p.Name, err)
		}
		want, _ := Preset(p.Name)
		if c != want {
			t.Errorf("Load(%s) differs from Preset", p.Name)
		}
	}
}

// A partial file overrides what it names and keeps the k20c defaults for
// the rest; its GPU is named after the file.
func TestLoadPartialFile(t *testing.T) {
	c, err := Load(filepath.Join("testdata", "k20c-x2.json"))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := Preset(DefaultPreset)
	want.GPU.Name = "k20c-x2"
	want.GPU.SMs = 26
	want.GPU.ClockMHz = 1400
	want.Spawn.Window = 2048
	if c != want {
		t.Errorf("got\n%+v\nwant\n%+v", c, want)
	}
}

func TestLoadFileKeepsItsName(t *testing.T) {
	path := writeFile(t, "gpu.json", `{"gpu": {"name": "my-a100", "sms": 108}}`)
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if c.GPU.Name != "my-a100" || c.GPU.SMs != 108 {
		t.Errorf("got %+v", c.GPU)
	}
}

// A full preset file loads to exactly the preset, so users can start from
// a copy of one.
func TestLoadCopyOfPreset(t *testing.T) {
	data, err := presetFiles.ReadFile("presets/titanx.json")
	if err != nil {
		t.Fatal(err)
	}
	c, err := Load(writeFile(t, "copy.json", string(data)))
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := Preset("titanx"); c != want {
		t.Errorf("got %+v, want %+v", c, want)
	}
}

func TestLoadErrors(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []string // substrings of the error
	}{
		{"unknown.json", "{\n \"gpu\": {\"smz\": 13},\n \"fpga\": {\"luts\": 1}\n}",
			[]string{"unknown.json: unknown keys gpu.smz (line 2), fpga (line 3); nearest: gpu.sms,"}},
		{"one.json", `{"gpu": {"sms": 13, "bogus": 1}}`,
			[]string{"one.json: unknown key gpu.bogus (line 1); nearest: "}},
		{"dup.json", "{\"gpu\": {\"sms\": 13,\n\"sms\": 14}}", []string{"dup.json:2: duplicate key gpu.sms"}},
		{"type.json", "{\n\"gpu\": {\"sms\": \"13\"}}", []string{`type.json:2: bad value "13" for gpu.sms: want an integer`}},
		{"frac.json", `{"gpu": {"sms": 12.5}}`, []string{`frac.json:1: bad value 12.5 for gpu.sms: want an integer`}},
		{"big.json", `{"gpu": {"smem_per_sm": 1e30}}`, []string{`big.json:1: bad value 1e30 for gpu.smem_per_sm: want an integer`}},
		{"null.json", `{"io": {"pcie_gbps": null}}`, []string{`null.json:1: bad value null for io.pcie_gbps: want a number`}},
		{"str.json", `{"crcs": {"pages": 3}}`, []string{`str.json:1: bad value 3 for crcs.pages: want a string`}},
		{"nested.json", `{"gpu": {"sms": {"x": 1}}}`, []string{`bad value {"x": 1} for gpu.sms: want an integer`}},
		{"flat.json", `{"gpu": 3}`, []string{"flat.json:1: section gpu: want an object, found 3"}},
		{"array.json", `[1]`, []string{"array.json:1: the file: want an object, found ["}},
		{"empty.json", "  \n", []string{"empty.json: empty; want a JSON object"}},
		{"trunc.json", `{"gpu": {"sms": 13`, []string{"trunc.json: unexpected end of file"}},
		// The line is the loader's, the words encoding/json's (Go 1.26:
		// "expected colon after object key", 1.27: "invalid character '1'
		// after object key").
		{"syntax.json", "{\n\n\"gpu\": {\"sms\" 13}}", []string{"syntax.json:3: ", "after object key"}},
		{"trailing.json", `{"gpu": {}} {}`, []string{"trailing.json:1: unexpected data after the closing }"}},
		{"invalid.json", `{"gpu": {"sms": 0}}`, []string{"invalid.json: gpu.sms is 0; must be at least 1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeFile(t, tc.name, tc.text)
			_, err := Load(path)
			if err == nil {
				t.Fatal("Load succeeded")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\nwant it to contain %q", err, w)
				}
			}
		})
	}
}

func TestLoadUnknownPresetOrMissingFile(t *testing.T) {
	_, err := Load("k20")
	if err == nil || !strings.Contains(err.Error(), `unknown GPU preset "k20"; presets: gk110-64, h100, k20c, k20c-spawn, titanx`) {
		t.Errorf("Load(k20) error = %v", err)
	}
	missing := filepath.Join(t.TempDir(), "none.json")
	_, err = Load(missing)
	if err == nil || !os.IsNotExist(err) {
		t.Errorf("Load(%s) error = %v, want a not-exist error", missing, err)
	}
}

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
