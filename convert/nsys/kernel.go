package nsys

import (
	"database/sql"
	"strconv"

	"github.com/gpureplay/gpureplay/convert/internal/profile"
	"github.com/gpureplay/gpureplay/trace"
)

// kernelOp is one kernel of the converted device with the time of its
// launch call.
type kernelOp struct {
	row         *row
	t           int64 // the launch call's start (ns)
	start, end  int64 // on the GPU (ns)
	stream      streamKey
	name        string
	grid, block [3]int64
	regs, smem  int64
}

func (k *kernelOp) at() int64 { return k.t }

// kernelNames are the columns the kernel query selects after the rowid,
// in kernelOp's order; the index constants below follow it.
var kernelNames = []string{"launch start", "start", "end", "streamId", "correlationId", "globalPid",
	"gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ",
	"registersPerThread", "staticSharedMemory", "dynamicSharedMemory", "name"}

const (
	kT = iota
	kStart
	kEnd
	kStream
	kCorr
	kPid
	kGridX
	kGridY
	kGridZ
	kBlockX
	kBlockY
	kBlockZ
	kRegs
	kStatic
	kDynamic
	kName
)

// kernelQuery selects the device's kernels in launch order: by the start
// of their launch call (the earliest of its rows), then correlation id
// (kernels of one CUDA graph launch share a call) and GPU start. A
// kernel's name is the first of its name columns (names says which
// first) whose string is in StringIds.
func (r *report) kernelQuery(names string) *query {
	nameCols := r.nameColumns(names)
	cols := append([]string{"deviceId", "correlationId", "globalPid", "start", "end", "streamId",
		"gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ",
		"registersPerThread", "staticSharedMemory", "dynamicSharedMemory"}, nameCols...)
	return &query{name: "kernel/" + names, table: tabKernel, cols: cols, names: kernelNames, strings: true,
		where: func(v []any, dev int64) bool { return equal(v[0], dev) },
		order: func(v []any, t any) [3]any { return [3]any{t, v[1], v[3]} },
		sel: func(r *report, v []any, t any) []any {
			out := make([]any, 0, len(kernelNames))
			out = append(out, t, v[3], v[4], v[5], v[1], r.pid(tabKernel, v[2]))
			out = append(out, v[6:15]...)
			var name any
			for _, id := range v[15:] {
				if s := r.strs[keyOf(id)]; id != nil && s != nil {
					name = s
					break
				}
			}
			return append(out, name)
		}}
}

// nameColumns are the kernel name columns the export has, the preferred
// one first.
func (r *report) nameColumns(names string) []string {
	order := []string{"demangledName", "shortName"}
	if names == NamesShort {
		order = []string{"shortName", "demangledName"}
	}
	var cols []string
	for _, c := range order {
		if r.hasCol(tabKernel, c) {
			cols = append(cols, c)
		}
	}
	return cols
}

// readKernel decodes a kernel row, rejecting what no GPU could have run.
func (c *converter) readKernel(rw *row) (op, error) {
	k := &kernelOp{row: rw, name: rw.text(kName)}
	corr, err := rw.nullInt(kCorr)
	if err != nil {
		return nil, err
	}
	t, ok, err := rw.int(kT)
	switch {
	case err != nil:
		return nil, err
	case !ok:
		return nil, rw.errorf("kernel %s has no launch: no %s row with correlationId %s", strconv.Quote(k.name), tabRuntime, nullText(corr))
	}
	k.t = t
	if k.start, err = rw.need(kStart); err != nil {
		return nil, err
	}
	if k.end, err = rw.need(kEnd); err != nil {
		return nil, err
	}
	if k.stream, err = streamOf(rw, kStream, kPid); err != nil {
		return nil, err
	}
	for i := range 3 {
		if k.grid[i], err = rw.need(kGridX + i); err != nil {
			return nil, err
		}
		if k.block[i], err = rw.need(kBlockX + i); err != nil {
			return nil, err
		}
	}
	var static, dynamic int64
	for _, f := range []struct {
		i int
		v *int64
	}{{kRegs, &k.regs}, {kStatic, &static}, {kDynamic, &dynamic}} {
		if *f.v, _, err = rw.int(f.i); err != nil { // NULL counts as 0
			return nil, err
		}
	}
	if static < 0 || dynamic < 0 || static > 1<<40 || dynamic > 1<<40 {
		return nil, rw.errorf("kernel %s has %d bytes of static and %d of dynamic shared memory; want 0..2^40 each", strconv.Quote(k.name), static, dynamic)
	}
	k.smem = static + dynamic
	return k, nil
}

// nullText renders an optional integer for a message.
func nullText(v sql.NullInt64) string {
	if !v.Valid {
		return "NULL"
	}
	return strconv.FormatInt(v.Int64, 10)
}

// maxCTAs bounds a kernel's grid: CUDA allows up to (2^31-1)·65535·65535
// CTAs, but a kernel-level profile of more than 2^32 would become cta
// records beyond any replay's reach.
const maxCTAs = 1 << 32

// shape builds the kernel record and checks it.
func (k *kernelOp) shape(id uint64) (*trace.Kernel, error) {
	rec := &trace.Kernel{ID: id, Name: k.name}
	if rec.Name == "" {
		return nil, k.row.errorf("kernel has no name (its name ids are not in %s)", tabStrings)
	}
	if len(rec.Name) > trace.MaxString {
		return nil, k.row.errorf("kernel has a name of %d bytes; a trace holds at most %d (2^20)", len(rec.Name), trace.MaxString)
	}
	for i := range 3 {
		if k.grid[i] < 1 || k.grid[i] > 1<<32-1 || k.block[i] < 1 || k.block[i] > 1024 {
			return nil, k.errorf("has grid %v and block %v; want every dimension in 1..2^32-1 (block 1..1024)", k.grid, k.block)
		}
		rec.Grid[i], rec.Block[i] = uint32(k.grid[i]), uint32(k.block[i])
	}
	if rec.CTAs() > maxCTAs {
		return nil, k.errorf("has grid %v, more than 2^32 CTAs", k.grid)
	}
	if rec.Threads() > 1024 {
		return nil, k.errorf("has block %v, more than 1024 threads", k.block)
	}
	if k.regs < 0 || k.regs > 255 {
		return nil, k.errorf("has %d registers per thread; want 0..255", k.regs)
	}
	if k.end < k.start {
		return nil, k.errorf("ends (%d ns) before it starts (%d ns)", k.end, k.start)
	}
	rec.Regs, rec.Smem = int(k.regs), k.smem
	return rec, nil
}

func (k *kernelOp) errorf(format string, a ...any) *Error {
	e := k.row.errorf(format, a...)
	e.Msg = "kernel " + strconv.Quote(k.name) + " " + e.Msg
	return e
}

// kernel writes a kernel as its kernel record, its host launch and one
// cta record per thread block,
// whose cycles are the wave estimate (profile.CTACycles) of its measured
// duration.
func (c *converter) kernel(k *kernelOp) error {
	t, err := c.t(k.row)
	if err != nil {
		return err
	}
	c.kid++
	rec, err := k.shape(c.kid)
	if err != nil {
		return err
	}
	per, err := profile.CTACycles(c.gpu.Model, rec, profile.CyclesBetween(k.start, k.end, c.gpu.Spec.ClockMHz))
	if err != nil {
		return k.errorf("%v", err)
	}
	launch := &trace.Launch{Kernel: rec.ID, T: t, Stream: c.streams.id(k.stream)}
	c.used[launch.Stream] = true
	n, err := profile.WriteKernel(c.out, rec, launch, per)
	if err != nil {
		return err
	}
	c.sum.Kernels++
	c.sum.CTAs += int64(n)
	return nil
}
