package nsys

import (
	"database/sql"
	"strconv"
	"strings"

	"github.com/gpureplay/gpureplay/trace"
)

// copyOp is a host-to-device or device-to-host copy of the converted
// device, at the time of its API call (or its own start when the report
// shows none).
type copyOp struct {
	row      *row
	t        int64 // the API call's start (ns)
	start    int64 // on the GPU (ns)
	ret      int64 // the API call's end (ns), where hasRet
	hasRet   bool
	stream   streamKey
	bytes    int64
	dir      string
	blocking bool // a synchronous call (cudaMemcpy, not cudaMemcpyAsync)
	pageable bool // the host side is pageable memory
}

func (c *copyOp) at() int64 { return c.t }

// The copyKind values (ENUM_CUDA_MEMCPY_OPER, CUpti_ActivityMemcpyKind)
// that become memcpy records; the labels are the export's, for the
// unused counts.
const (
	copyHtoD = 1
	copyDtoH = 2
)

var copyLabels = []string{"Unknown", "Host-to-Device", "Device-to-Host", "Host-to-Array",
	"Array-to-Host", "Array-to-Array", "Array-to-Device", "Device-to-Array", "Device-to-Device",
	"Host-to-Host", "Peer-to-Peer", "Unified Host-to-Device", "Unified Device-to-Host",
	"Unified Device-to-Device"}

// copyLabel names a copyKind.
func copyLabel(kind sql.NullInt64) string {
	if kind.Valid && kind.Int64 >= 0 && kind.Int64 < int64(len(copyLabels)) {
		return copyLabels[kind.Int64]
	}
	return "copyKind " + nullText(kind)
}

// copyConverted reports whether a copy of kind kind and size bytes
// becomes a memcpy record: host-to-device or device-to-host, at least one
// byte. Unified-memory migrations and copies within or between devices
// have no trace record; countUnused counts the complement.
func copyConverted(kind, bytes any) bool {
	return (equal(kind, int64(copyHtoD)) || equal(kind, int64(copyDtoH))) && greater(bytes, int64(0))
}

// copyNames are the columns the copy query selects after the rowid, for
// messages: the host time of the copy's API call (its own start without
// one), its stream, process, size and kind, its start on the GPU, its
// call's end and function, and the memory kinds of its source and
// destination.
var copyNames = []string{"call start", "streamId", "globalPid", "bytes", "copyKind", "start", "call end", "call", "srcKind", "dstKind"}

// maxCopyBytes bounds a copy's size (256 TiB), above any GPU's memory.
const maxCopyBytes = 1 << 48

// copyQuery selects the device's converted copies in host order: by
// their API call's start (their own without one), correlation id and GPU
// start.
func (r *report) copyQuery() *query {
	return &query{name: "memcpy", table: tabMemcpy, names: copyNames, strings: true,
		cols:  []string{"deviceId", "correlationId", "globalPid", "start", "streamId", "bytes", "copyKind", "srcKind", "dstKind"},
		where: func(v []any, dev int64) bool { return equal(v[0], dev) && copyConverted(v[6], v[5]) },
		order: func(v []any, t any) [3]any { return [3]any{coalesce(t, v[3]), v[1], v[3]} },
		sel: func(r *report, v []any, t any) []any {
			call := r.callOf(tabMemcpy, v[1], v[2])
			return []any{coalesce(t, v[3]), v[4], r.pid(tabMemcpy, v[2]), v[5], v[6], v[3], call.end, r.function(call.name), v[7], v[8]}
		}}
}

// coalesce is a, or b where a is NULL.
func coalesce(a, b any) any {
	if a == nil {
		return b
	}
	return a
}

// readCopy decodes a copy row.
func (c *converter) readCopy(rw *row) (op, error) {
	cp := &copyOp{row: rw, dir: trace.DirH2D}
	var err error
	// The GPU start first: a copy without an API call has it as its host
	// time too, and a NULL one is reported under its own name.
	if cp.start, err = rw.need(5); err != nil {
		return nil, err
	}
	if cp.t, err = rw.need(0); err != nil {
		return nil, err
	}
	if cp.stream, err = streamOf(rw, 1, 2); err != nil {
		return nil, err
	}
	if cp.bytes, err = rw.need(3); err != nil {
		return nil, err
	}
	if cp.bytes > maxCopyBytes {
		return nil, rw.errorf("copy of %d bytes; want at most 2^48", cp.bytes)
	}
	kind, err := rw.need(4)
	if err != nil {
		return nil, err
	}
	host := 8 // the host side's memory kind: the source of a copy to the device
	if kind == copyDtoH {
		cp.dir, host = trace.DirD2H, 9
	}
	if cp.ret, cp.hasRet, err = rw.int(6); err != nil {
		return nil, err
	}
	// The call says whether the host waited: every copy function but the
	// ...Async ones is synchronous (cudaMemcpy, cudaMemcpyFromSymbol,
	// cuMemcpyDtoH, ...). A copy without its call (t is its own start) is
	// taken as asynchronous, as a trace without the fields means.
	fn := baseName(rw.text(7))
	cp.blocking = fn != "" && !strings.HasSuffix(fn, "Async")
	mem, hasMem, err := rw.int(host)
	if err != nil {
		return nil, err
	}
	cp.pageable = hasMem && mem == c.pageable
	return cp, nil
}

// pageableKind is the memory kind (srcKind, dstKind) of pageable host
// memory: its id in the export's ENUM_CUDA_MEM_KIND (CUDA_MEMOPR_MEMORY_
// KIND_PAGEABLE), 0 as Nsight Systems numbers it where the export has no
// such table. (CUPTI's own CUpti_ActivityMemoryKind numbers it 1; the
// exports renumber.)
func (r *report) pageableKind() (int64, error) {
	kind := int64(0)
	if !r.hasCol(tabMemKind, "id") || !r.hasCol(tabMemKind, "name") {
		return kind, nil
	}
	err := r.scan(tabMemKind, "reading the memory kinds", []string{"id", "name"}, func(_ int64, v []any) error {
		if id, ok := v[0].(int64); ok && equal(v[1], "CUDA_MEMOPR_MEMORY_KIND_PAGEABLE") {
			kind = id
		}
		return nil
	})
	return kind, err
}

// buffer declares the allocation a copy moves. The report records no
// addresses, so each copy gets its own buffer, page-aligned after the
// previous one: host-to-device copies fill inputs, device-to-host copies
// read back outputs.
func (c *converter) buffer(cp *copyOp) error {
	c.bid++
	role := trace.RoleInput
	if cp.dir == trace.DirD2H {
		role = trace.RoleOutput
	}
	b := &trace.Buffer{ID: c.bid, Name: "copy " + strconv.FormatUint(c.bid, 10) + ": " + cp.dir,
		Base: c.base, Bytes: cp.bytes, Role: role}
	c.base += (uint64(cp.bytes) + trace.DefaultPageBytes - 1) / trace.DefaultPageBytes * trace.DefaultPageBytes
	return c.out.Write(b)
}

// memcpy writes a copy as its memcpy record (buffer ids follow the
// buffers' order, which is the copies'), with whether the call blocked
// the host and, where it did, when it returned.
func (c *converter) memcpy(cp *copyOp) error {
	t, ret, err := c.hostT(cp.row)
	if err != nil {
		return err
	}
	c.bid++
	c.sum.Memcpys++
	m := &trace.Memcpy{
		Dir: cp.dir, Buffer: c.bid, Bytes: cp.bytes,
		Stream: c.streams.id(cp.stream), T: t,
		Blocking: cp.blocking, Pageable: cp.pageable,
	}
	if m.Blocks() && ret > t {
		m.Ret = ret
	}
	c.used[m.Stream] = true
	return c.out.Write(m)
}
