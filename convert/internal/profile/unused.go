package profile

import (
	"maps"
	"slices"
	"strconv"
	"strings"
)

// NotConverted is the part of an importer's one-line summary that says
// what of the profile became no record: "not converted: " and the counts
// by category, "3 memset, 1 runtime:cudaMalloc", in category order so the
// line is the same on every run. It is "" when counts is empty. Importers
// count what they leave out rather than drop it silently, and this is
// where the user is told.
func NotConverted(counts map[string]int) string {
	if len(counts) == 0 {
		return ""
	}
	keys := slices.Sorted(maps.Keys(counts))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = strconv.Itoa(counts[k]) + " " + k
	}
	return "not converted: " + strings.Join(parts, ", ")
}
