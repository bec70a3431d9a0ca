package model

import (
	"sort"
	"strings"
)

// Nearest returns up to n keys (Config's and the declared parameters)
// closest to name, closest first: an unknown key's error names them, not
// all 60-odd keys, which a terminal or a log line cuts. A key is as close
// as the fewer edits of its whole name or of its field alone ("threshold"
// for launch.threshold), so a misspelling and a missing section both find
// it. The closest key is always named; others only within two edits of it
// and within half the name's length, so far-fetched ones are not.
func Nearest(name string, n int) []string {
	type scored struct {
		key string
		d   int
	}
	var all []scored
	for _, k := range allKeys() {
		_, field, _ := strings.Cut(k, ".")
		all = append(all, scored{k, min(editDistance(name, k), editDistance(name, field)+1)})
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].d < all[j].d })
	var out []string
	for i, s := range all {
		if len(out) == n || (i > 0 && (s.d > all[0].d+2 || s.d > len(name)/2)) {
			break
		}
		out = append(out, s.key)
	}
	return out
}

func allKeys() []string {
	keys := Keys()
	for _, p := range Params() {
		keys = append(keys, p.Name)
	}
	sort.Strings(keys)
	return keys
}

// unknownKeyHint is what follows an unknown key in an error.
func unknownKeyHint(name string) string {
	return "nearest: " + strings.Join(Nearest(name, 3), ", ") + " (replay params lists every key)"
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
