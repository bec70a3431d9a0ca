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
// against the model so a typo fails before hours of replays. A key that a
// --set also gives is refused (the sweep would replace the --set in every
// replay), and so is a value that sets the key as an earlier one does,
// however it is written (64 and 064, 706 and 706.0, on and true): both
// would replay the same configuration.
func parseSweeps(flags, sets []string, base model.Config) ([]study.Axis, error) {
	var axes []study.Axis
	seen := map[string]bool{}
	for _, f := range flags {
		key, list, ok := strings.Cut(f, "=")
		key = strings.TrimSpace(key)
		if !ok || strings.TrimSpace(list) == "" {
			return nil, usagef("--sweep %q: want key=v1,v2,...", f)
		}
		if seen[key] {
			return nil, usagef("--sweep: key %s given twice", key)
		}
		if setsKey(sets, key) {
			return nil, usagef("--sweep %s and --set %s: the sweep would replace the --set value in every replay; give %s in one of them", key, key, key)
		}
		seen[key] = true
		// Spaces around a key or a value are the shell's quoting, not the
		// value: "launch.threshold= 16, 32" sweeps 16 and 32, and the
		// params column says so without them.
		ax := study.Axis{Key: key, Values: strings.Split(list, ",")}
		for i, v := range ax.Values {
			if ax.Values[i] = strings.TrimSpace(v); ax.Values[i] == "" {
				return nil, usagef("--sweep %q: value %d is empty; want key=v1,v2,...", f, i+1)
			}
		}
		// A model.Config is a value (no pointer, slice or map in it), so
		// two values that set it alike are two equal keys: one lookup a
		// value, where comparing each with every one before it took a
		// sweep of 5,000 values 15 s before any replay.
		first := make(map[model.Config]string, len(ax.Values))
		for _, v := range ax.Values {
			cfg := base
			if err := cfg.Set(key, v); err != nil {
				return nil, usagef("--sweep: %v", err)
			}
			if err := cfg.Validate(); err != nil {
				return nil, usagef("--sweep %s=%s: %v", key, v, err)
			}
			if w, ok := first[cfg]; ok {
				if w == v {
					return nil, usagef("--sweep %s: value %s given twice", key, v)
				}
				return nil, usagef("--sweep %s: values %s and %s are equal; give each value once", key, w, v)
			}
			first[cfg] = v
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
		key = strings.TrimSpace(key)
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
