package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/policies"
)

// sweepAxis is one --sweep key and its values.
type sweepAxis struct {
	key    string
	values []string
}

// combo is one point of a sweep: key=value settings, in --sweep order.
type combo []string

// String is the summary table's params value: "k1=v1,k2=v2".
func (c combo) String() string { return strings.Join(c, ",") }

// parseSweeps reads the --sweep flags, checking every key and value
// against the model so a typo fails before hours of replays.
func parseSweeps(flags []string, base model.Config) ([]sweepAxis, error) {
	var axes []sweepAxis
	seen := map[string]bool{}
	for _, f := range flags {
		key, list, ok := strings.Cut(f, "=")
		if !ok || list == "" {
			return nil, usagef("--sweep %q: want key=v1,v2,...", f)
		}
		if seen[key] {
			return nil, usagef("--sweep: key %s given twice", key)
		}
		seen[key] = true
		ax := sweepAxis{key: key, values: strings.Split(list, ",")}
		for i, v := range ax.values {
			if slices.Contains(ax.values[:i], v) {
				return nil, usagef("--sweep %s: value %s given twice", key, v)
			}
			cfg := base
			if err := cfg.Set(key, v); err != nil {
				return nil, usagef("--sweep: %v", err)
			}
			if err := cfg.Validate(); err != nil {
				return nil, usagef("--sweep %s=%s: %v", key, v, err)
			}
		}
		axes = append(axes, ax)
	}
	return axes, nil
}

// warnUnread says which swept keys no chosen policy reads: their
// combinations would replay alike.
func warnUnread(flags, specs []string, w io.Writer) {
	for _, f := range flags {
		key, _, _ := strings.Cut(f, "=")
		if !slices.ContainsFunc(specs, func(spec string) bool { return policies.Reads(spec, key) }) {
			fmt.Fprintf(w, "replay: warning: no chosen policy (%s) reads %s; its combinations replay alike\n", strings.Join(specs, ", "), key)
		}
	}
}

// combos is the cartesian product of the axes, the first axis varying
// slowest; one empty combination when there is nothing to sweep.
func combos(axes []sweepAxis) []combo {
	out := []combo{nil}
	for _, ax := range axes {
		var next []combo
		for _, c := range out {
			for _, v := range ax.values {
				next = append(next, append(append(combo(nil), c...), ax.key+"="+v))
			}
		}
		out = next
	}
	return out
}

// apply returns base with the combination's settings.
func (c combo) apply(base model.Config) (model.Config, error) {
	cfg := base
	for _, kv := range c {
		k, v, _ := strings.Cut(kv, "=")
		if err := cfg.Set(k, v); err != nil {
			return cfg, err
		}
	}
	return cfg, cfg.Validate()
}

// printBest reports, per trace and policy, the combination with the
// shortest makespan: with --policy=threshold --sweep launch.threshold=...
// it is SPAWN's Offline-Search.
func printBest(w io.Writer, rows []summaryRow) {
	type key struct{ trace, policy string }
	best := map[key]summaryRow{}
	var order []key
	for _, r := range rows {
		k := key{r.trace, r.policy}
		b, ok := best[k]
		if !ok {
			order = append(order, k)
		}
		if !ok || r.s.MakespanCycles < b.s.MakespanCycles {
			best[k] = r
		}
	}
	fmt.Fprintln(w, "best combination per trace and policy:")
	for _, k := range order {
		r := best[k]
		fmt.Fprintf(w, "  %-20s %-12s %-28s %14d cycles  %.3fx\n", r.trace, r.policy, r.params, r.s.MakespanCycles, r.s.Speedup)
	}
}
