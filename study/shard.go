package study

import (
	"fmt"
	"strconv"
	"strings"
)

// A Shard is one of N parts of a plan: shard I of N holds the groups whose
// number is I modulo N, so a replay and its speedup baseline always run
// together, and shards differ by at most one group.
type Shard struct{ I, N int }

// ParseShard reads "i/N" (0 <= i < N).
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return Shard{}, fmt.Errorf("shard %q: want i/N with 0 <= i < N, e.g. 0/4", s)
	}
	return Shard{i, n}, nil
}

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.I, s.N) }

// Holds reports whether the shard runs r.
func (s Shard) Holds(r Replay) bool { return r.Group%s.N == s.I }

// Select is the part of plan the shard runs, in plan order.
func (s Shard) Select(plan []Replay) []Replay {
	var out []Replay
	for _, r := range plan {
		if s.Holds(r) {
			out = append(out, r)
		}
	}
	return out
}

// Groups is the number of groups in a plan.
func Groups(plan []Replay) int {
	if len(plan) == 0 {
		return 0
	}
	return plan[len(plan)-1].Group + 1
}
