package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"
)

// The ballast's two functions: no program has them, so go build finds
// no call site of theirs, and their edge only moves the hot line.
const (
	ballastCaller = "gpureplay.pgoBallastCaller"
	ballastCallee = "gpureplay.pgoBallastCallee"
)

// hotWeights returns the edges' positive weights, heaviest first, and
// their sum.
func hotWeights(edges map[edge]int64) (ws []int64, total int64) {
	for _, w := range edges {
		if w > 0 {
			ws = append(ws, w)
			total += w
		}
	}
	slices.SortFunc(ws, func(a, b int64) int { return cmp.Compare(b, a) })
	return ws, total
}

// window is how far, in points of the weight, the line may move from
// hot to find a gap: the line is drawn where the weights of the lightest
// hot edge and the heaviest cold one differ most, so that counts that
// move a little from one remake to the next (the runtime's, whose
// scheduling follows the clock) leave it where it is.
const window = 1

// maxWeight is the most the edges may weigh in all: the ballast is
// figured as 99 times their weight, in int64.
const maxWeight = 1 << 56

// ballast returns the weight of an edge that, added to edges, makes go
// build count hot the heaviest edges that together make hot percent of
// their weight, give or take window points: of the lines drawn there,
// the one below the widest ratio of one edge's weight to the next's. go
// build counts hot the heaviest edges whose cumulative weight first
// exceeds 99% of the profile's
// (cmd/compile/internal/inline.hotNodesFromCDF: "if
// pgo.WeightInPercentage(cum, p.TotalWeight) >
// inlineCDFHotCallSiteThresholdPercent"); with an edge of weight B
// counted before the line, the real edges must pass 0.99(total+B) − B,
// which B = 99·total − 100·line puts at line, drawn halfway through the
// last hot edge. It returns 0 where no ballast does (go build's own line
// is then kept).
func ballast(edges map[edge]int64, hot float64) int64 {
	ws, total := hotWeights(edges)
	if len(ws) == 0 {
		return 0
	}
	// b is the ballast that makes the k heaviest, of weight c, hot; 0
	// where none does: B must be counted before the line, heavier than
	// the last hot edge.
	b := func(k int, c int64) int64 {
		if w := 99*total - 100*(c-ws[k-1]/2); w > ws[k-1] {
			return w
		}
		return 0
	}
	// wider reports whether the line below k leaves a wider gap than
	// the one below best: ws[k-1]/ws[k] > ws[best-1]/ws[best], where no
	// edge below is the widest.
	wider := func(k, best int) bool {
		if best == len(ws) {
			return false
		}
		if k == len(ws) {
			return true
		}
		return ws[k-1]*ws[best] > ws[best-1]*ws[k]
	}
	lo := int64(float64(total) * (hot - window) / 100)
	hi := int64(float64(total) * (hot + window) / 100)
	target := int64(float64(total) * hot / 100)
	first, best, bestCum := 0, 0, int64(0)
	var cum int64
	for k := 1; k <= len(ws); k++ {
		cum += ws[k-1]
		if first == 0 && cum > target {
			first = k
			if best == 0 && b(k, cum) > 0 {
				best, bestCum = k, cum // unless the window has a wider gap
			}
		}
		if cum < lo || cum > hi || b(k, cum) == 0 {
			continue
		}
		if best == 0 || wider(k, best) {
			best, bestCum = k, cum
		}
	}
	if best == 0 {
		return 0
	}
	return b(best, bestCum)
}

// writeProfile writes edges as a pprof profile
// (https://github.com/google/pprof/blob/main/proto/profile.proto) for go
// build's -pgo: one sample per edge, of two frames, the callee at its
// first line and the caller at the call site's line, its value the
// edge's weight as "samples"/"count". That is what go build reads of a
// CPU profile (cmd/internal/pgo.FromPProf): the first sample value of
// type samples/count or cpu/nanoseconds, the graph of caller→callee
// edges between adjacent frames (internal/profile.NewGraph), each edge's
// call site as its caller frame's line less its function's start_line
// (createNamedEdgeMap: "CallSiteOffset: n.Info.Lineno -
// n.Info.StartLine"), functions by their linker symbol names. starts
// gives the functions' start lines; one it lacks is written at 0. A
// ballast edge (ballast) puts go build's line at hot. The output is the
// same for the same edges: the ballast, then samples in the order of
// caller, line, callee.
func writeProfile(w io.Writer, edges map[edge]int64, starts map[string]int64, hot float64) error {
	keys := make([]edge, 0, len(edges))
	var total int64
	for e, wt := range edges {
		if wt > 0 {
			keys = append(keys, e)
			total += wt
			if wt > maxWeight || total > maxWeight {
				return fmt.Errorf("the edges weigh more than %d in all (%s line %d → %s at %d): the ballast's arithmetic (99 × the weight) would overflow", int64(maxWeight), e.caller, e.line, e.callee, wt)
			}
		}
	}
	slices.SortFunc(keys, func(a, b edge) int {
		return cmp.Or(cmp.Compare(a.caller, b.caller), cmp.Compare(a.line, b.line), cmp.Compare(a.callee, b.callee))
	})
	var p pb
	strs := map[string]int64{}
	var table []string
	str := func(s string) int64 {
		if i, ok := strs[s]; ok {
			return i
		}
		strs[s] = int64(len(table))
		table = append(table, s)
		return int64(len(table) - 1)
	}
	str("")
	valueType := func(typ, unit string) []byte {
		var m pb
		m.num(1, str(typ))
		m.num(2, str(unit))
		return m
	}
	p.msg(1, valueType("samples", "count"))

	type loc struct {
		fn   string
		line int64
	}
	fnIDs := map[string]uint64{}
	var fnNames []string
	locIDs := map[loc]uint64{}
	var locs []loc
	location := func(fn string, line int64) uint64 {
		l := loc{fn, line}
		if id, ok := locIDs[l]; ok {
			return id
		}
		if _, ok := fnIDs[fn]; !ok {
			fnNames = append(fnNames, fn)
			fnIDs[fn] = uint64(len(fnNames))
		}
		locs = append(locs, l)
		locIDs[l] = uint64(len(locs))
		return uint64(len(locs))
	}
	sample := func(callee, caller string, line, weight int64) {
		var s pb
		s.packed(1, location(callee, starts[callee]), location(caller, line))
		s.packed(2, uint64(weight))
		p.msg(2, s)
	}
	if b := ballast(edges, hot); b > 0 {
		sample(ballastCallee, ballastCaller, 1, b)
	}
	for _, e := range keys {
		sample(e.callee, e.caller, e.line, edges[e])
	}
	for i, l := range locs {
		var line, m pb
		line.num(1, int64(fnIDs[l.fn]))
		line.num(2, l.line)
		m.num(1, int64(i+1))
		m.msg(4, line)
		p.msg(4, m)
	}
	for i, fn := range fnNames {
		var m pb
		m.num(1, int64(i+1))
		m.num(2, str(fn))
		m.num(3, str(fn))
		m.num(5, starts[fn])
		p.msg(5, m)
	}
	for _, s := range table {
		p.bytes(6, []byte(s))
	}
	if _, err := w.Write(p); err != nil {
		return fmt.Errorf("writing the profile: %w", err)
	}
	return nil
}

// pb is a protocol buffer message being encoded.
type pb []byte

func (m *pb) varint(v uint64) {
	for v >= 0x80 {
		*m = append(*m, byte(v)|0x80)
		v >>= 7
	}
	*m = append(*m, byte(v))
}

// num writes an int64 field (wire type 0); proto3 leaves zero out.
func (m *pb) num(field int, v int64) {
	if v == 0 {
		return
	}
	m.varint(uint64(field) << 3)
	m.varint(uint64(v))
}

// bytes writes a length-delimited field (wire type 2).
func (m *pb) bytes(field int, b []byte) {
	m.varint(uint64(field)<<3 | 2)
	m.varint(uint64(len(b)))
	*m = append(*m, b...)
}

func (m *pb) msg(field int, b pb) { m.bytes(field, b) }

// packed writes a packed repeated uint64 field.
func (m *pb) packed(field int, vs ...uint64) {
	var b pb
	for _, v := range vs {
		b.varint(v)
	}
	m.bytes(field, b)
}
