package replaycli

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/policies"
)

// runParams lists every key --set, --sweep and a GPU file take: its unit
// and range, what it means, which policies read it, and its default on
// each GPU preset, so that a key is found by looking, not by reading
// config.go.
func runParams(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("params", "replay params [--policy=P] [--gpu=G] [KEY...] — list the model keys (--set, --sweep) with their defaults per GPU preset, units, ranges and meaning\n", stdout)
	policy := fs.String("policy", "", "only the keys this policy (or a+b spec) reads, with those that shape every replay")
	gpu := fs.String("gpu", "", "only this preset's defaults")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	presets := model.Presets()
	if *gpu != "" {
		i := slices.IndexFunc(presets, func(p model.PresetInfo) bool { return p.Name == *gpu })
		if i < 0 {
			_, err := model.Preset(*gpu)
			return usagef("params: %v", err)
		}
		presets = presets[i : i+1]
	}
	defaults := make([]model.Config, len(presets))
	for i, p := range presets {
		c, err := model.Preset(p.Name)
		if err != nil {
			return err
		}
		defaults[i] = c
	}
	if *policy != "" {
		for _, name := range strings.Split(*policy, "+") {
			if !slices.Contains(policies.Names(), strings.TrimSpace(name)) && !isAlias(name) {
				return usagef("params: unknown policy %q; valid policies: %s", name, strings.Join(policies.Names(), ", "))
			}
		}
	}
	keys := allKeys()
	for _, k := range fs.Args() {
		if !slices.Contains(keys, k) {
			return usagef("params: unknown key %q; nearest: %s", k, strings.Join(model.Nearest(k, 3), ", "))
		}
	}
	for _, key := range keys {
		if len(fs.Args()) > 0 && !slices.Contains(fs.Args(), key) {
			continue
		}
		if *policy != "" && !policies.Reads(*policy, key) {
			continue
		}
		writeParam(stdout, key, presets, defaults)
	}
	return nil
}

// writeParam writes one key's entry: a heading line, its meaning, and its
// defaults, one value for every preset when they agree.
func writeParam(w io.Writer, key string, presets []model.PresetInfo, defaults []model.Config) {
	d, _ := model.DocOf(key)
	head := key
	var what []string
	if d.Unit != "" {
		what = append(what, d.Unit)
	}
	if d.Range != "" {
		what = append(what, d.Range)
	}
	if len(what) > 0 {
		head += "  (" + strings.Join(what, "; ") + ")"
	}
	fmt.Fprintf(w, "%s  read by %s\n    %s\n", head, readers(key), d.Doc)
	vals := make([]string, len(defaults))
	for i, c := range defaults {
		vals[i], _ = c.Get(key)
	}
	if len(vals) > 1 && slices.Equal(vals, slices.Repeat(vals[:1], len(vals))) {
		fmt.Fprintf(w, "    default %s on every preset\n", show(vals[0]))
		return
	}
	var parts []string
	for i, p := range presets {
		parts = append(parts, p.Name+" "+show(vals[i]))
	}
	fmt.Fprintf(w, "    default %s\n", strings.Join(parts, ", "))
}

// readers says which replays read key: every one for a shared key,
// naming the policies that list it among their keys; else those
// policies.
func readers(key string) string {
	var names []string
	for _, p := range policies.List() {
		if slices.Contains(p.Keys, key) {
			names = append(names, p.Name)
		}
	}
	switch {
	case !policies.Shared(key):
		return strings.Join(names, ", ")
	case len(names) > 0:
		return "every replay (listed by " + strings.Join(names, ", ") + ")"
	}
	return "every replay"
}

func show(v string) string {
	if v == "" {
		return `""`
	}
	return v
}

func allKeys() []string {
	keys := model.Keys()
	for _, p := range model.Params() {
		keys = append(keys, p.Name)
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

func isAlias(name string) bool {
	for _, p := range policies.List() {
		if slices.Contains(p.Aliases, strings.TrimSpace(name)) {
			return true
		}
	}
	return false
}
