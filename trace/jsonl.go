package trace

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"unicode/utf8"
)

// The JSONL encoding: one JSON object per line, "type" (the Kind name) first
// and then the fields of the record's struct in record.go, in struct order and
// under their json names; meta keys are sorted. A field is left out when it
// is zero and its tag says omitempty, and a launch leaves out the zero fields
// the other kind of launch uses (t and stream of a device launch, workload and
// inline_cycles of a host launch), so
//
//	{"type":"launch","kernel":3,"t":0,"stream":1}
//	{"type":"launch","kernel":4,"parent":{"kernel":3,"cta":0,"warp":1,"lane":5,"at":120},"workload":8,"inline_cycles":900}
//
// Every other field is always written. A field left out reads as its zero
// value, so the encoding is lossless: binary to JSONL to binary gives the same
// bytes.

// JSONLWriter writes records as JSONL. Output is deterministic: the same
// records give the same bytes.
type JSONLWriter struct {
	w      *bufio.Writer
	line   []byte
	record int64
	err    error // sticky I/O error
	closed bool
}

// NewJSONLWriter returns a JSONLWriter writing to w. Close flushes it.
func NewJSONLWriter(w io.Writer) *JSONLWriter {
	return &JSONLWriter{w: bufio.NewWriter(w)}
}

// Write writes rec as one line. A record JSON cannot carry (nil or of a
// foreign type, a non-finite float, a string that is not UTF-8) is refused
// with a *Error and nothing is written.
func (w *JSONLWriter) Write(rec Record) error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return errors.New("trace: Write after Close")
	}
	e := jsonEncoder{b: w.line[:0]}
	e.record(rec)
	w.line = e.b
	if e.err != nil {
		return &Error{Record: w.record + 1, Line: w.record + 1, Offset: -1, Kind: kindOf(rec), Msg: e.err.Error()}
	}
	w.record++
	_, w.err = w.w.Write(append(e.b, '\n'))
	return w.err
}

// Close flushes buffered lines. It does not close the underlying writer.
func (w *JSONLWriter) Close() error {
	w.closed = true
	if w.err == nil {
		w.err = w.w.Flush()
	}
	return w.err
}

// jsonEncoder appends one record as a JSON object, keeping the first
// problem in err.
type jsonEncoder struct {
	b   []byte
	err error
}

func (e *jsonEncoder) record(rec Record) {
	switch r := rec.(type) {
	case *Header:
		if r != nil {
			e.header(r)
			return
		}
	case *Buffer:
		if r != nil {
			e.open(KindBuffer)
			e.uint("id", r.ID)
			e.strOmit("name", r.Name)
			e.uint("base", r.Base)
			e.int("bytes", r.Bytes)
			e.str("role", string(r.Role))
			e.close()
			return
		}
	case *Memcpy:
		if r != nil {
			e.open(KindMemcpy)
			e.str("dir", r.Dir)
			e.uint("buffer", r.Buffer)
			e.int("bytes", r.Bytes)
			e.uint("stream", r.Stream)
			e.int("t", r.T)
			e.boolOmit("blocking", r.Blocking)
			e.boolOmit("pageable", r.Pageable)
			e.intOmit("ret", r.Ret)
			e.close()
			return
		}
	case *Sync:
		if r != nil {
			if r.Op == 0 || r.Op >= numSyncOps {
				e.fail(fmt.Errorf("unknown sync op %d", uint8(r.Op)))
				return
			}
			e.open(KindSync)
			e.str("op", r.Op.String())
			e.uintOmit("stream", r.Stream)
			e.uintOmit("event", r.Event)
			e.int("t", r.T)
			e.intOmit("ret", r.Ret)
			e.close()
			return
		}
	case *Kernel:
		if r != nil {
			e.open(KindKernel)
			e.uint("id", r.ID)
			e.str("name", r.Name)
			e.dim3("grid", r.Grid)
			e.dim3("block", r.Block)
			e.int("regs", int64(r.Regs))
			e.int("smem", r.Smem)
			e.close()
			return
		}
	case *Launch:
		if r != nil {
			e.launch(r)
			return
		}
	case *CTA:
		if r != nil {
			e.open(KindCTA)
			e.uint("kernel", r.Kernel)
			e.uint("cta", r.CTA)
			e.int("cycles", r.Cycles)
			if len(r.WarpCycles) > 0 {
				e.key("warp_cycles")
				e.b = append(e.b, '[')
				for i, v := range r.WarpCycles {
					e.comma(i)
					e.b = strconv.AppendInt(e.b, v, 10)
				}
				e.b = append(e.b, ']')
			}
			if r.Insts != 0 {
				e.uint("insts", r.Insts)
			}
			if r.DRAMBytes != 0 {
				e.uint("dram_bytes", r.DRAMBytes)
			}
			e.close()
			return
		}
	case *Access:
		if r != nil {
			e.open(KindAccess)
			e.uint("kernel", r.Kernel)
			e.uint("cta", r.CTA)
			e.uint("buffer", r.Buffer)
			e.uint("lo", r.Lo)
			e.uint("hi", r.Hi)
			e.str("mode", r.Mode)
			e.intOmit("at", r.At)
			e.close()
			return
		}
	case *Pages:
		if r != nil {
			e.open(KindPages)
			e.uint("kernel", r.Kernel)
			e.uint("cta", r.CTA)
			e.uint("buffer", r.Buffer)
			e.uints("r", r.R)
			e.uints("w", r.W)
			e.intOmit("at", r.At)
			e.close()
			return
		}
	}
	e.err = errors.New("cannot encode a nil or unknown record type")
}

func (e *jsonEncoder) header(h *Header) {
	e.open(KindHeader)
	e.int("version", int64(h.Version))
	e.float("clock_mhz", h.ClockMHz)
	e.intOmit("page_bytes", h.PageBytes)
	e.strOmit("source", h.Source)
	e.strOmit("gpu", h.GPU)
	if s := h.GPUSpec; s != nil {
		e.key("gpu_spec")
		e.b = append(e.b, '{')
		e.intOmit("sms", int64(s.SMs))
		if s.ClockMHz != 0 {
			e.float("clock_mhz", s.ClockMHz)
		}
		e.intOmit("max_ctas_per_sm", int64(s.MaxCTAsPerSM))
		e.intOmit("max_threads_per_sm", int64(s.MaxThreadsPerSM))
		e.intOmit("regs_per_sm", int64(s.RegsPerSM))
		e.intOmit("smem_per_sm", s.SmemPerSM)
		e.intOmit("max_kernels", int64(s.MaxKernels))
		e.close()
	}
	if h.OrderedTrees {
		e.key("ordered_trees")
		e.b = append(e.b, "true"...)
	}
	if len(h.Meta) > 0 {
		e.key("meta")
		e.b = append(e.b, '{')
		for _, k := range sortedKeys(h.Meta) {
			e.str(k, h.Meta[k])
		}
		e.close()
	}
	e.close()
}

func (e *jsonEncoder) launch(l *Launch) {
	e.open(KindLaunch)
	e.uint("kernel", l.Kernel)
	host := l.Parent == nil
	if host || l.T != 0 {
		e.int("t", l.T)
	}
	if host || l.Stream != 0 {
		e.uint("stream", l.Stream)
	}
	if p := l.Parent; p != nil {
		e.key("parent")
		e.b = append(e.b, '{')
		e.uint("kernel", p.Kernel)
		e.uint("cta", p.CTA)
		e.int("warp", int64(p.Warp))
		e.int("lane", int64(p.Lane))
		e.int("at", p.At)
		e.close()
	}
	if !host || l.Workload != 0 {
		e.int("workload", l.Workload)
	}
	if !host || l.InlineCycles != 0 {
		e.int("inline_cycles", l.InlineCycles)
	}
	e.uints("after", l.After)
	if l.DeviceStream != OwnStream {
		e.str("stream_kind", l.DeviceStream.String())
	}
	e.boolOmit("creates_stream", l.CreatesStream)
	e.close()
}

// open starts a record's object with its type.
func (e *jsonEncoder) open(k Kind) {
	e.b = append(e.b, `{"type":"`...)
	e.b = append(e.b, k.String()...)
	e.b = append(e.b, '"')
}

func (e *jsonEncoder) close() { e.b = append(e.b, '}') }

// key starts a member, with a comma unless it is the object's first. Keys
// are escaped like values because meta keys are arbitrary strings.
func (e *jsonEncoder) key(k string) {
	if !utf8.ValidString(k) {
		e.fail(fmt.Errorf("key %q is not valid UTF-8", k))
	}
	if e.b[len(e.b)-1] != '{' {
		e.b = append(e.b, ',')
	}
	e.b = appendJSONString(e.b, k)
	e.b = append(e.b, ':')
}

func (e *jsonEncoder) comma(i int) {
	if i > 0 {
		e.b = append(e.b, ',')
	}
}

func (e *jsonEncoder) uint(k string, v uint64) {
	e.key(k)
	e.b = strconv.AppendUint(e.b, v, 10)
}

func (e *jsonEncoder) int(k string, v int64) {
	e.key(k)
	e.b = strconv.AppendInt(e.b, v, 10)
}

func (e *jsonEncoder) uintOmit(k string, v uint64) {
	if v != 0 {
		e.uint(k, v)
	}
}

// boolOmit writes true, and leaves false out.
func (e *jsonEncoder) boolOmit(k string, v bool) {
	if v {
		e.key(k)
		e.b = append(e.b, "true"...)
	}
}

func (e *jsonEncoder) intOmit(k string, v int64) {
	if v != 0 {
		e.int(k, v)
	}
}

func (e *jsonEncoder) dim3(k string, v [3]uint32) {
	e.key(k)
	e.b = append(e.b, '[')
	for i, x := range v {
		e.comma(i)
		e.b = strconv.AppendUint(e.b, uint64(x), 10)
	}
	e.b = append(e.b, ']')
}

func (e *jsonEncoder) uints(k string, v []uint64) {
	if len(v) == 0 {
		return
	}
	e.key(k)
	e.b = append(e.b, '[')
	for i, x := range v {
		e.comma(i)
		e.b = strconv.AppendUint(e.b, x, 10)
	}
	e.b = append(e.b, ']')
}

// float writes v the way encoding/json does: the shortest decimal that reads
// back as the same float64.
func (e *jsonEncoder) float(k string, v float64) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		e.fail(fmt.Errorf("%s %v cannot be written in JSON", k, v))
		return
	}
	e.key(k)
	format := byte('f')
	if a := math.Abs(v); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	e.b = strconv.AppendFloat(e.b, v, format, -1, 64)
}

func (e *jsonEncoder) strOmit(k, v string) {
	if v != "" {
		e.str(k, v)
	}
}

func (e *jsonEncoder) str(k, v string) {
	if !utf8.ValidString(v) {
		e.fail(fmt.Errorf("%s %q is not valid UTF-8", k, v))
		return
	}
	e.key(k)
	e.b = appendJSONString(e.b, v)
}

func (e *jsonEncoder) fail(err error) {
	if e.err == nil {
		e.err = err
	}
}

// appendJSONString appends s quoted as a JSON string, escaping only what
// JSON requires.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
