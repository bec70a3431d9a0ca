package study

import (
	"path/filepath"
	"strings"
)

// A Replay is one replay of a plan: one trace under one policy with one
// model configuration.
type Replay struct {
	// ID numbers the replay within its plan, from 0, in the order a
	// single run replays them: by trace, then swept combination, then
	// policy.
	ID int `json:"id"`
	// Group numbers the replays that share a speedup baseline: the
	// policies of one trace and combination, or, when the plan has one
	// policy, every combination of one trace. The group's first replay is
	// its baseline (speedup 1).
	Group int `json:"group"`
	// Trace is the trace file; Name is its value in the tables' trace
	// column.
	Trace string `json:"trace"`
	Name  string `json:"name"`
	// GPU is a preset name, a preset JSON file or "captured".
	GPU string `json:"gpu"`
	// Sets are the --set overrides, key=value, applied in order; Sweep is
	// the swept combination's key=value settings, applied after them.
	Sets  []string `json:"sets,omitempty"`
	Sweep []string `json:"sweep,omitempty"`
	// Policy is the policy spec (a name, or names joined with +).
	Policy string `json:"policy"`
}

// Params is the tables' params value: the swept settings, "k1=v1,k2=v2".
func (r Replay) Params() string { return strings.Join(r.Sweep, ",") }

// An Axis is one swept key and its values.
type Axis struct {
	Key    string
	Values []string
}

// A Spec is what a replay command line asks for.
type Spec struct {
	Traces   []string
	GPU      string
	Sets     []string
	Sweeps   []Axis
	Policies []string
}

// Expand numbers every replay the spec asks for, in the order of a single
// run: by trace, then combination (the first axis varying slowest), then
// policy. Trace names are those of TraceNames.
func Expand(s Spec) []Replay {
	names := TraceNames(s.Traces)
	var plan []Replay
	group := -1
	for i, path := range s.Traces {
		for c, combo := range combos(s.Sweeps) {
			if c == 0 || len(s.Policies) > 1 {
				group++
			}
			for _, pol := range s.Policies {
				plan = append(plan, Replay{
					ID: len(plan), Group: group, Trace: path, Name: names[i], GPU: s.GPU,
					Sets: s.Sets, Sweep: combo, Policy: pol,
				})
			}
		}
	}
	return plan
}

// combos is the cartesian product of the axes, the first axis varying
// slowest; one empty combination when there is nothing to sweep.
func combos(axes []Axis) [][]string {
	out := [][]string{nil}
	for _, ax := range axes {
		var next [][]string
		for _, c := range out {
			for _, v := range ax.Values {
				next = append(next, append(append([]string(nil), c...), ax.Key+"="+v))
			}
		}
		out = next
	}
	return out
}

// TraceNames are the trace column's values for the paths: each file's
// name without its trace extensions, or, for a file whose value another
// path shares, its path as given (cleaned, with / separators and its
// extensions), so their rows stay apart: a/x.trace.zst and b/x.trace.zst,
// or d/x.trace.zst and d/x.jsonl. The values are distinct as long as the
// paths are distinct files (the replay command refuses a file given
// twice).
func TraceNames(paths []string) []string {
	names := make([]string, len(paths))
	for i, p := range paths {
		names[i] = TraceName(p)
	}
	// A path can equal another file's short name ("x.jsonl" beside
	// "x.jsonl.json"), so repeat until no value is shared; each round
	// turns at least one short name into a path, so it ends.
	for {
		count := map[string]int{}
		for _, n := range names {
			count[n]++
		}
		changed := false
		for i, p := range paths {
			if full := filepath.ToSlash(filepath.Clean(p)); count[names[i]] > 1 && names[i] != full {
				names[i], changed = full, true
			}
		}
		if !changed {
			return names
		}
	}
}

// TraceName is the trace column's value for one trace: the file name
// without its trace extensions.
func TraceName(path string) string {
	base := filepath.Base(path)
	for _, ext := range []string{".zst", ".trace", ".jsonl", ".json"} {
		base = strings.TrimSuffix(base, ext)
	}
	return base
}
