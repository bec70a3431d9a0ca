package replaycli

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/policies"
	"github.com/gpureplay/gpureplay/study"
)

// parseSweeps reads the --sweep flags, checking every key and value
// against the model so a typo fails before hours of replays.
func parseSweeps(flags []string, base model.Config) ([]study.Axis, error) {
	var axes []study.Axis
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
		ax := study.Axis{Key: key, Values: strings.Split(list, ",")}
		for i, v := range ax.Values {
			if slices.Contains(ax.Values[:i], v) {
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
