package model

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/gpureplay/gpureplay/internal/tempfile"
)

// Load returns the configuration --gpu names: a built-in preset, or else the
// path of a JSON file. A file need only name the keys it changes; the rest
// come from the DefaultPreset, so a two-line file describes "a k20c with 26
// SMs". Keys the file does not know are an error naming each of them, and a
// file that does not set gpu.name is named after the file (without .json) so
// result tables say which GPU a run used. The result is validated.
func Load(nameOrPath string) (Config, error) {
	if isPreset(nameOrPath) {
		return Preset(nameOrPath)
	}
	data, err := tempfile.ReadFile(nameOrPath)
	if errors.Is(err, fs.ErrNotExist) && !looksLikePath(nameOrPath) {
		return Config{}, unknownPreset(nameOrPath)
	}
	if err != nil {
		return Config{}, err
	}
	c, err := Preset(DefaultPreset)
	if err != nil {
		return Config{}, err
	}
	named, err := decodeConfig(nameOrPath, data, &c)
	if err != nil {
		return Config{}, err
	}
	if !named["gpu.name"] {
		c.GPU.Name = strings.TrimSuffix(filepath.Base(nameOrPath), ".json")
	}
	if err := c.Validate(); err != nil {
		return Config{}, fmt.Errorf("%s: %w", nameOrPath, err)
	}
	return c, nil
}

// looksLikePath tells a missing file ("gpus/mine.json") from a misspelt
// preset ("k20", reported with the list of presets).
func looksLikePath(s string) bool {
	return strings.ContainsRune(s, '/') || strings.ContainsRune(s, filepath.Separator) || filepath.Ext(s) != ""
}
