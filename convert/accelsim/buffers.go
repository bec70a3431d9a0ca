package accelsim

import (
	"fmt"

	"github.com/gpureplay/gpureplay/trace"
)

// buffer is one buffer of the converted trace.
type buffer struct {
	span
	id   uint64
	role trace.Role
}

// bufferTable holds every buffer in address order, for looking up which
// buffer an address falls in.
type bufferTable struct {
	all    []buffer
	index  spans
	ofCopy []int // copied region → index in all
}

// newBufferTable makes the buffers: the copied regions (input, or inout
// when a kernel writes them) and the uncopied runs (output when written,
// else temp), numbered from 1 in address order.
func newBufferTable(copies spans, copyAcc []access, runs []run) *bufferTable {
	t := &bufferTable{ofCopy: make([]int, len(copies))}
	i, j := 0, 0
	for i < len(copies) || j < len(runs) {
		var b buffer
		if j == len(runs) || i < len(copies) && copies[i].lo < runs[j].lo {
			b = buffer{span: copies[i], role: trace.RoleInput}
			if copyAcc[i]&accWrite != 0 {
				b.role = trace.RoleInOut
			}
			t.ofCopy[i] = len(t.all)
			i++
		} else {
			b = buffer{span: runs[j].span, role: trace.RoleTemp}
			if runs[j].written {
				b.role = trace.RoleOutput
			}
			j++
		}
		b.id = uint64(len(t.all) + 1)
		t.all = append(t.all, b)
		t.index = append(t.index, b.span)
	}
	return t
}

// record is the buffer's declaration.
func (b *buffer) record() *trace.Buffer {
	return &trace.Buffer{
		ID:    b.id,
		Name:  fmt.Sprintf("0x%x", b.lo),
		Base:  b.lo,
		Bytes: int64(b.hi - b.lo + 1),
		Role:  b.role,
	}
}
