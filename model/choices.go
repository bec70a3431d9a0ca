package model

// The string keys the engine branches on have types of their own, with a
// constant for each value Validate accepts: code compares a key with its
// type's constants, so a misspelt value does not compile, and the JSON,
// --set and key docs see plain strings (their kind is reflect.String).

// Switch is a key that is on or off (model.contention,
// gpu.concurrent_kernel_sm).
type Switch string

const (
	On  Switch = "on"
	Off Switch = "off"
)

// IOModel is io.model.
type IOModel string

const (
	IOStages IOModel = "stages" // the host's prelude and postlude stages are modelled
	IONone   IOModel = "none"
)

// Memcpy is io.memcpy: how a trace's memcpy records are called.
type Memcpy string

const (
	MemcpyAsync  Memcpy = "async"
	MemcpySync   Memcpy = "sync"
	MemcpyLegacy Memcpy = "legacy"
)

// Fallback is dtbl.fallback: how an aggregated group's launch command is
// handled.
type Fallback string

const (
	FallbackDispatch Fallback = "dispatch"
	FallbackInstant  Fallback = "instant"
)

// SpillLoads is dtbl.spill_loads: when a spilled group's metadata is
// loaded.
type SpillLoads string

const (
	SpillLoadsCTA   SpillLoads = "cta"
	SpillLoadsFirst SpillLoads = "first"
)

// Match is dtbl.match: what makes a running kernel eligible for an
// aggregated group besides its function.
type Match string

const (
	MatchShape    Match = "shape"
	MatchFunction Match = "function"
)

// LaunchCost is dtbl.launch_cost: what a warp's aggregated launch stalls
// it for.
type LaunchCost string

const (
	LaunchCostFront LaunchCost = "front"
	LaunchCostCDP   LaunchCost = "cdp"
)

// DeviceStreams is cdp.streams: which streams device launches go into.
type DeviceStreams string

const (
	StreamsTraced        DeviceStreams = "traced"
	StreamsChild         DeviceStreams = "child"
	StreamsCTA           DeviceStreams = "cta"
	StreamsTail          DeviceStreams = "tail"
	StreamsFireAndForget DeviceStreams = "fire_and_forget"
)

// PageRefs is crcs.pages: the pages a kernel references.
type PageRefs string

const (
	PagesRanges PageRefs = "ranges"
	PagesExact  PageRefs = "exact"
)

// PageShare is crcs.share: when a prelude page may be shared.
type PageShare string

const (
	ShareReady     PageShare = "ready"
	ShareAvailable PageShare = "available"
)

// PageGate is crcs.gate: where a CTA's pages are checked.
type PageGate string

const (
	GateAccess PageGate = "access"
	GateStart  PageGate = "start"
)

// Irregular is crcs.irregular: how kernels without access records are
// gated.
type Irregular string

const (
	IrregularReady Irregular = "ready"
	IrregularAll   Irregular = "all"
)

// oneOfKey checks a choice key against its type's constants.
func oneOfKey[T ~string](v *validator, key string, s T, choices ...T) {
	cs := make([]string, len(choices))
	for i, c := range choices {
		cs[i] = string(c)
	}
	v.oneOf(key, string(s), cs...)
}
