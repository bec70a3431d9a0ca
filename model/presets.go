package model

import (
	"embed"
	"fmt"
	"strings"
	"sync"
)

// presetFiles holds one complete Config per preset, in the JSON shape a
// user's own GPU file has, so a user can copy one as a starting point.
//
//go:embed presets/*.json
var presetFiles embed.FS

// DefaultPreset is the GPU a replay runs on unless told otherwise: the Tesla
// K20c the DTBL paper simulated, on which the CDP launch latencies every
// preset uses were measured.
const DefaultPreset = "k20c"

// PresetInfo describes a built-in preset for `replay gpus`.
type PresetInfo struct {
	Name   string // what --gpu accepts
	Source string // where the hardware numbers come from
	Line   string // a one-line description
}

// presets is the registry of built-in presets, sorted by name. Only names
// listed here are read from presetFiles, so a --gpu value can never reach
// an arbitrary embedded path.
var presets = []PresetInfo{
	{"gk110-64", "CRCS Table 1", "GK110-style GPGPU-Sim GPU of the CRCS/PPCS paper: 64 SMs at 700 MHz, 8 CTAs, 1024 threads, 16 KiB shared memory per SM, 307.2 GB/s DRAM; models the host I/O stages (io.model=stages)"},
	{"h100", "public H100 SXM specs", "NVIDIA H100 SXM5: 132 SMs at 1755 MHz, 32 CTAs, 2048 threads, 228 KiB shared memory per SM, 3350 GB/s DRAM, 128 concurrent kernels"},
	{"k20c", "DTBL Table 2", "Tesla K20c as simulated for DTBL (the default): 13 SMXs at 706 MHz, 16 CTAs, 2048 threads, 48 KiB shared memory per SMX, 208 GB/s DRAM"},
	{"k20c-spawn", "SPAWN Table II", "K20c-like GPU of the SPAWN paper: 13 SMXs at 1400 MHz, 16 CTAs, 2048 threads, 48 KiB shared memory per SMX, 208 GB/s DRAM"},
	{"titanx", "Pagoda §2, §6", "Maxwell GTX Titan X of the Pagoda paper: 24 SMs at 1000 MHz, 32 CTAs, 2048 threads, 96 KiB shared memory per SM, 336.5 GB/s DRAM"},
}

// Presets lists the built-in presets sorted by name.
func Presets() []PresetInfo {
	return append([]PresetInfo(nil), presets...)
}

func isPreset(name string) bool {
	for _, p := range presets {
		if p.Name == name {
			return true
		}
	}
	return false
}

// Preset returns the named built-in preset. Every key is set by the preset
// itself; none is inherited from another preset.
//
// A preset is decoded once a process (parsed): a Config is a value with
// nothing shared (TestConfigIsFlat), so each caller gets a copy of its
// own. The replays of one command each load their GPU, and a preset's
// decode is some 770K instructions: a sweep of 8 points over BFS scale
// 16 spent 8M of its 588M on them.
func Preset(name string) (Config, error) {
	if !isPreset(name) {
		return Config{}, unknownPreset(name)
	}
	p, _ := parsed.LoadOrStore(name, &parsedPreset{})
	e := p.(*parsedPreset)
	e.once.Do(func() { e.c, e.err = decodePreset(name) })
	return e.c, e.err
}

// parsed holds each preset's decode (a *parsedPreset), by name.
var parsed sync.Map

type parsedPreset struct {
	once sync.Once
	c    Config
	err  error
}

// decodePreset decodes the named built-in preset from its file.
func decodePreset(name string) (Config, error) {
	path := "presets/" + name + ".json"
	data, err := presetFiles.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("preset %s: %w", name, err)
	}
	var c Config
	named, err := decodeConfig(path, data, &c)
	if err != nil {
		return Config{}, err
	}
	if missing := missingKeys(named); len(missing) > 0 {
		return Config{}, fmt.Errorf("%s: missing %s %s", path, plural(len(missing), "key"), strings.Join(missing, ", "))
	}
	return c, nil
}

func missingKeys(named map[string]bool) []string {
	var missing []string
	for _, k := range keyTable {
		if !named[k.name] {
			missing = append(missing, k.name)
		}
	}
	return missing
}

func unknownPreset(name string) error {
	names := make([]string, len(presets))
	for i, p := range presets {
		names[i] = p.Name
	}
	return fmt.Errorf("unknown GPU preset %q; presets: %s (or give the path of a JSON file)", name, strings.Join(names, ", "))
}
