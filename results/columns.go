package results

import (
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/gpureplay/gpureplay/tables"
)

// Each table type below holds its column builders, bound once in schema
// order, and appends one row type to them. The leading trace and policy
// columns are the embedded table's.

// id stores an unsigned id in an int64 column, keeping its bits (see the
// column types in schema.go).
func id(v uint64) int64 { return int64(v) }

func appendOptID(b *array.Int64Builder, v *uint64) {
	if v == nil {
		b.AppendNull()
		return
	}
	b.Append(id(*v))
}

func appendOptFloat(b *array.Float64Builder, v *float64) {
	if v == nil {
		b.AppendNull()
		return
	}
	b.Append(*v)
}

type summaryCols struct {
	table
	gpu                                 *array.StringBuilder
	makespan                            *array.Int64Builder
	makespanUS, speedup                 *array.Float64Builder
	kernels, deviceKernels, ctas        *array.Int64Builder
	sites, launched, inlined, coalesced *array.Int64Builder
	occupancy, kernelWait               *array.Float64Builder
	stall, busy                         *array.Int64Builder
	issueUtil, dramUtil                 *array.Float64Builder
}

func (t *summaryCols) bind() {
	t.gpu = t.str()
	t.makespan, t.makespanUS, t.speedup = t.int64s(), t.float64s(), t.float64s()
	t.kernels, t.deviceKernels, t.ctas = t.int64s(), t.int64s(), t.int64s()
	t.sites, t.launched, t.inlined, t.coalesced = t.int64s(), t.int64s(), t.int64s(), t.int64s()
	t.occupancy, t.kernelWait, t.stall = t.float64s(), t.float64s(), t.int64s()
	t.busy = t.int64s()
	t.issueUtil, t.dramUtil = t.float64s(), t.float64s()
}

func (t *summaryCols) append(r tables.Summary) {
	t.gpu.Append(r.GPU)
	t.makespan.Append(r.MakespanCycles)
	t.makespanUS.Append(r.MakespanUS)
	t.speedup.Append(r.Speedup)
	t.kernels.Append(r.Kernels)
	t.deviceKernels.Append(r.DeviceKernels)
	t.ctas.Append(r.CTAs)
	t.sites.Append(r.LaunchSites)
	t.launched.Append(r.Launched)
	t.inlined.Append(r.Inlined)
	t.coalesced.Append(r.Coalesced)
	t.occupancy.Append(r.AvgOccupancy)
	t.kernelWait.Append(r.AvgKernelWaitCycles)
	t.stall.Append(r.StallCycles)
	t.busy.Append(r.BusyCycles)
	appendOptFloat(t.issueUtil, r.IssueUtilization)
	appendOptFloat(t.dramUtil, r.DRAMUtilization)
}

type kernelCols struct {
	table
	kernelID                      *array.Int64Builder
	name, origin                  *array.StringBuilder
	parent, stream, ctas, threads *array.Int64Builder
	launch, ready, start, end     *array.Int64Builder
	wait, groups                  *array.Int64Builder
	sc                            scratch               // appendRows' (bulk.go)
	one                           oneRow[tables.Kernel] // append's
}

func (t *kernelCols) bind() {
	t.kernelID, t.name, t.origin = t.int64s(), t.str(), t.str()
	t.parent, t.stream, t.ctas, t.threads = t.int64s(), t.int64s(), t.int64s(), t.int64s()
	t.launch, t.ready, t.start, t.end = t.int64s(), t.int64s(), t.int64s(), t.int64s()
	t.wait, t.groups = t.int64s(), t.int64s()
}

// append appends one row the way appendRows appends many (bulk.go).
func (t *kernelCols) append(r tables.Kernel) { t.appendRows(t.one.of(r)) }

type ctaCols struct {
	table
	kernelID, cta                      *array.Int64Builder
	sm                                 *array.Int32Builder
	dispatch, start, end, stall, group *array.Int64Builder
	slowdown                           *array.Float64Builder
	sc                                 scratch            // appendRows' (bulk.go)
	one                                oneRow[tables.CTA] // append's
}

func (t *ctaCols) bind() {
	t.kernelID, t.cta, t.sm = t.int64s(), t.int64s(), t.int32s()
	t.dispatch, t.start, t.end = t.int64s(), t.int64s(), t.int64s()
	t.stall, t.group = t.int64s(), t.int64s()
	t.slowdown = t.float64s()
}

// append appends one row the way appendRows appends many (bulk.go).
func (t *ctaCols) append(r tables.CTA) { t.appendRows(t.one.of(r)) }

type launchCols struct {
	table
	site, cycle, parent, parentCTA *array.Int64Builder
	warp, lane                     *array.Int32Builder
	child, workload                *array.Int64Builder
	decision                       *array.StringBuilder
	target                         *array.Int64Builder
	estChild, estParent            *array.Float64Builder
	spawnN                         *array.Int64Builder
	spawnNCon                      *array.Float64Builder
	outcome                        *array.StringBuilder
	sc                             scratch               // appendRows' (bulk.go)
	one                            oneRow[tables.Launch] // append's
}

func (t *launchCols) bind() {
	t.site, t.cycle, t.parent, t.parentCTA = t.int64s(), t.int64s(), t.int64s(), t.int64s()
	t.warp, t.lane = t.int32s(), t.int32s()
	t.child, t.workload, t.decision = t.int64s(), t.int64s(), t.str()
	t.target, t.estChild, t.estParent = t.int64s(), t.float64s(), t.float64s()
	t.spawnN, t.spawnNCon = t.int64s(), t.float64s()
	t.outcome = t.str()
}

// append appends one row the way appendRows appends many (bulk.go).
func (t *launchCols) append(r tables.Launch) { t.appendRows(t.one.of(r)) }

type occupancyCols struct {
	table
	cycle, window *array.Int64Builder
	sm            *array.Int32Builder
	warps, ctas   *array.Float64Builder
	sc            scratch                  // appendRows' (bulk.go)
	one           oneRow[tables.Occupancy] // append's
}

func (t *occupancyCols) bind() {
	t.cycle, t.window, t.sm = t.int64s(), t.int64s(), t.int32s()
	t.warps, t.ctas = t.float64s(), t.float64s()
}

// append appends one row the way appendRows appends many (bulk.go).
func (t *occupancyCols) append(r tables.Occupancy) { t.appendRows(t.one.of(r)) }

type pageCols struct {
	table
	page, buffer    *array.Int64Builder
	event           *array.StringBuilder
	kernelID, cycle *array.Int64Builder
}

func (t *pageCols) bind() {
	t.page, t.buffer, t.event = t.int64s(), t.int64s(), t.str()
	t.kernelID, t.cycle = t.int64s(), t.int64s()
}

func (t *pageCols) append(r tables.Page) {
	t.page.Append(id(r.Page))
	t.buffer.Append(id(r.Buffer))
	t.event.Append(r.Event)
	appendOptID(t.kernelID, r.KernelID)
	t.cycle.Append(r.Cycle)
}

type stageCols struct {
	table
	stage      *array.StringBuilder
	start, end *array.Int64Builder
}

func (t *stageCols) bind() {
	t.stage, t.start, t.end = t.str(), t.int64s(), t.int64s()
}

func (t *stageCols) append(r tables.Stage) {
	t.stage.Append(r.Stage)
	t.start.Append(r.StartCycle)
	t.end.Append(r.EndCycle)
}
