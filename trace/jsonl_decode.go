package trace

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
)

// lineDecoder turns one JSONL line into a record. Each record kind has a
// method listing its fields by JSON name; the helpers below read one field's
// value into its struct field.
type lineDecoder struct {
	s jsonScanner
}

// fieldSetter reads the value of the member named key into the record,
// reporting known=false for a key the record does not have.
type fieldSetter func(key []byte) (known bool, err error)

// object reads an object through set, rejecting unknown and duplicate keys
// and naming the field in every error.
func (d *lineDecoder) object(set fieldSetter) error {
	var seen [16][]byte
	n := 0
	return d.s.object(func(key []byte) error {
		for _, k := range seen[:n] {
			if bytes.Equal(k, key) {
				return fmt.Errorf("duplicate field %q", key)
			}
		}
		if n < len(seen) {
			seen[n] = key
			n++
		}
		known, err := set(key)
		if !known {
			return fmt.Errorf("unknown field %q", key)
		}
		if err != nil {
			return fmt.Errorf("field %q: %w", key, err)
		}
		return nil
	})
}

// typeField is the setter case for "type", whose value lineKind has checked.
func (d *lineDecoder) typeField() (bool, error) {
	_, err := d.s.str()
	return true, err
}

func (d *lineDecoder) header() (Record, error) {
	h := new(Header)
	err := d.object(func(key []byte) (bool, error) {
		switch string(key) {
		case "type":
			return d.typeField()
		case "version":
			return true, d.int(&h.Version)
		case "clock_mhz":
			return true, d.f64(&h.ClockMHz)
		case "page_bytes":
			return true, d.i64(&h.PageBytes)
		case "source":
			return true, d.str(&h.Source)
		case "gpu":
			return true, d.str(&h.GPU)
		case "gpu_spec":
			return true, d.gpuSpec(&h.GPUSpec)
		case "meta":
			return true, d.meta(&h.Meta)
		case "ordered_trees":
			return true, d.bool(&h.OrderedTrees)
		}
		return false, nil
	})
	return h, err
}

func (d *lineDecoder) gpuSpec(p **GPUSpec) error {
	if d.s.null() {
		return nil
	}
	s := new(GPUSpec)
	*p = s
	return d.object(func(key []byte) (bool, error) {
		switch string(key) {
		case "sms":
			return true, d.int(&s.SMs)
		case "clock_mhz":
			return true, d.f64(&s.ClockMHz)
		case "max_ctas_per_sm":
			return true, d.int(&s.MaxCTAsPerSM)
		case "max_threads_per_sm":
			return true, d.int(&s.MaxThreadsPerSM)
		case "regs_per_sm":
			return true, d.int(&s.RegsPerSM)
		case "smem_per_sm":
			return true, d.i64(&s.SmemPerSM)
		case "max_kernels":
			return true, d.int(&s.MaxKernels)
		}
		return false, nil
	})
}

func (d *lineDecoder) buffer() (Record, error) {
	b := new(Buffer)
	err := d.object(func(key []byte) (bool, error) {
		switch string(key) {
		case "type":
			return d.typeField()
		case "id":
			return true, d.u64(&b.ID)
		case "name":
			return true, d.str(&b.Name)
		case "base":
			return true, d.u64(&b.Base)
		case "bytes":
			return true, d.i64(&b.Bytes)
		case "role":
			var s string
			err := d.str(&s)
			b.Role = Role(s)
			return true, err
		}
		return false, nil
	})
	return b, err
}

func (d *lineDecoder) memcpy() (Record, error) {
	m := new(Memcpy)
	err := d.object(func(key []byte) (bool, error) {
		switch string(key) {
		case "type":
			return d.typeField()
		case "dir":
			return true, d.str(&m.Dir)
		case "buffer":
			return true, d.u64(&m.Buffer)
		case "bytes":
			return true, d.i64(&m.Bytes)
		case "stream":
			return true, d.u64(&m.Stream)
		case "t":
			return true, d.i64(&m.T)
		case "blocking":
			return true, d.bool(&m.Blocking)
		case "pageable":
			return true, d.bool(&m.Pageable)
		case "ret":
			return true, d.i64(&m.Ret)
		}
		return false, nil
	})
	return m, err
}

func (d *lineDecoder) sync() (Record, error) {
	s := new(Sync)
	hasOp := false
	err := d.object(func(key []byte) (bool, error) {
		switch string(key) {
		case "type":
			return d.typeField()
		case "op":
			var name string
			if err := d.str(&name); err != nil {
				return true, err
			}
			op, err := ParseSyncOp(name)
			s.Op, hasOp = op, err == nil
			return true, err
		case "stream":
			return true, d.u64(&s.Stream)
		case "event":
			return true, d.u64(&s.Event)
		case "t":
			return true, d.i64(&s.T)
		case "ret":
			return true, d.i64(&s.Ret)
		}
		return false, nil
	})
	if err == nil && !hasOp {
		err = errors.New(`missing "op" field`)
	}
	return s, err
}

func (d *lineDecoder) kernel() (Record, error) {
	k := new(Kernel)
	err := d.object(func(key []byte) (bool, error) {
		switch string(key) {
		case "type":
			return d.typeField()
		case "id":
			return true, d.u64(&k.ID)
		case "name":
			return true, d.str(&k.Name)
		case "grid":
			return true, d.dim3(&k.Grid)
		case "block":
			return true, d.dim3(&k.Block)
		case "regs":
			return true, d.int(&k.Regs)
		case "smem":
			return true, d.i64(&k.Smem)
		}
		return false, nil
	})
	return k, err
}

func (d *lineDecoder) launch() (Record, error) {
	l := new(Launch)
	err := d.object(func(key []byte) (bool, error) {
		switch string(key) {
		case "type":
			return d.typeField()
		case "kernel":
			return true, d.u64(&l.Kernel)
		case "t":
			return true, d.i64(&l.T)
		case "stream":
			return true, d.u64(&l.Stream)
		case "parent":
			return true, d.parent(&l.Parent)
		case "workload":
			return true, d.i64(&l.Workload)
		case "inline_cycles":
			return true, d.i64(&l.InlineCycles)
		case "after":
			return true, d.u64s(&l.After)
		case "stream_kind":
			var name string
			if err := d.str(&name); err != nil {
				return true, err
			}
			v, err := ParseDeviceStream(name)
			l.DeviceStream = v
			return true, err
		case "creates_stream":
			return true, d.bool(&l.CreatesStream)
		}
		return false, nil
	})
	return l, err
}

func (d *lineDecoder) parent(pp **Parent) error {
	if d.s.null() {
		return nil
	}
	p := new(Parent)
	*pp = p
	return d.object(func(key []byte) (bool, error) {
		switch string(key) {
		case "kernel":
			return true, d.u64(&p.Kernel)
		case "cta":
			return true, d.u64(&p.CTA)
		case "warp":
			return true, d.int(&p.Warp)
		case "lane":
			return true, d.int(&p.Lane)
		case "at":
			return true, d.i64(&p.At)
		}
		return false, nil
	})
}

func (d *lineDecoder) cta() (Record, error) {
	c := new(CTA)
	err := d.object(func(key []byte) (bool, error) {
		switch string(key) {
		case "type":
			return d.typeField()
		case "kernel":
			return true, d.u64(&c.Kernel)
		case "cta":
			return true, d.u64(&c.CTA)
		case "cycles":
			return true, d.i64(&c.Cycles)
		case "warp_cycles":
			return true, d.i64s(&c.WarpCycles)
		case "insts":
			return true, d.u64(&c.Insts)
		case "dram_bytes":
			return true, d.u64(&c.DRAMBytes)
		}
		return false, nil
	})
	return c, err
}

func (d *lineDecoder) access() (Record, error) {
	a := new(Access)
	err := d.object(func(key []byte) (bool, error) {
		switch string(key) {
		case "type":
			return d.typeField()
		case "kernel":
			return true, d.u64(&a.Kernel)
		case "cta":
			return true, d.u64(&a.CTA)
		case "buffer":
			return true, d.u64(&a.Buffer)
		case "lo":
			return true, d.u64(&a.Lo)
		case "hi":
			return true, d.u64(&a.Hi)
		case "mode":
			return true, d.str(&a.Mode)
		case "at":
			return true, d.i64(&a.At)
		}
		return false, nil
	})
	return a, err
}

func (d *lineDecoder) pages() (Record, error) {
	p := new(Pages)
	err := d.object(func(key []byte) (bool, error) {
		switch string(key) {
		case "type":
			return d.typeField()
		case "kernel":
			return true, d.u64(&p.Kernel)
		case "cta":
			return true, d.u64(&p.CTA)
		case "buffer":
			return true, d.u64(&p.Buffer)
		case "r":
			return true, d.u64s(&p.R)
		case "w":
			return true, d.u64s(&p.W)
		case "at":
			return true, d.i64(&p.At)
		}
		return false, nil
	})
	return p, err
}

// errNull is reported for null where a value is required; a field that is
// absent reads as zero, so null would only be a second way to say that.
var errNull = errors.New("null is not allowed here; leave the field out instead")

var errListLen = fmt.Errorf("list is longer than the limit of %d entries", maxListLen)

func (d *lineDecoder) u64(p *uint64) (err error) {
	if d.s.null() {
		return errNull
	}
	*p, err = d.s.uint64()
	return err
}

func (d *lineDecoder) i64(p *int64) (err error) {
	if d.s.null() {
		return errNull
	}
	*p, err = d.s.int64()
	return err
}

func (d *lineDecoder) int(p *int) error {
	var v int64
	if err := d.i64(&v); err != nil {
		return err
	}
	if int64(int(v)) != v {
		return fmt.Errorf("%d is out of range", v)
	}
	*p = int(v)
	return nil
}

func (d *lineDecoder) f64(p *float64) error {
	if d.s.null() {
		return errNull
	}
	tok, err := d.s.number()
	if err != nil {
		return err
	}
	v, err := strconv.ParseFloat(string(tok), 64)
	if err != nil || math.IsInf(v, 0) {
		return fmt.Errorf("%s is out of range", tok)
	}
	*p = v
	return nil
}

func (d *lineDecoder) bool(p *bool) error {
	if d.s.null() {
		return errNull
	}
	v, err := d.s.boolean()
	*p = v
	return err
}

func (d *lineDecoder) str(p *string) error {
	if d.s.null() {
		return errNull
	}
	b, err := d.s.str()
	if err == nil && len(b) > maxStringLen {
		return fmt.Errorf("string of %d bytes is longer than the limit of %d", len(b), maxStringLen)
	}
	*p = string(b)
	return err
}

func (d *lineDecoder) dim3(p *[3]uint32) error {
	n := 0
	err := d.s.array(func() error {
		if n == len(p) {
			return errors.New("want 3 dimensions, got more")
		}
		v, err := d.s.uint64()
		if err == nil && v > math.MaxUint32 {
			err = fmt.Errorf("%d does not fit in 32 bits", v)
		}
		p[n] = uint32(v)
		n++
		return err
	})
	if err == nil && n != len(p) {
		err = fmt.Errorf("want 3 dimensions, got %d", n)
	}
	return err
}

// u64s reads an array of unsigned integers; null and [] read as nil.
func (d *lineDecoder) u64s(p *[]uint64) error {
	if d.s.null() {
		return nil
	}
	var xs []uint64
	err := d.s.array(func() error {
		if len(xs) == maxListLen {
			return errListLen
		}
		v, err := d.s.uint64()
		xs = append(xs, v)
		return err
	})
	*p = xs
	return err
}

// i64s reads an array of integers; null and [] read as nil.
func (d *lineDecoder) i64s(p *[]int64) error {
	if d.s.null() {
		return nil
	}
	var xs []int64
	err := d.s.array(func() error {
		if len(xs) == maxListLen {
			return errListLen
		}
		v, err := d.s.int64()
		xs = append(xs, v)
		return err
	})
	*p = xs
	return err
}

// meta reads an object of strings; null and {} read as nil.
func (d *lineDecoder) meta(p *map[string]string) error {
	if d.s.null() {
		return nil
	}
	var m map[string]string
	err := d.s.object(func(key []byte) error {
		if len(m) == maxMetaLen {
			return fmt.Errorf("more than %d entries", maxMetaLen)
		}
		if len(key) > maxStringLen {
			return fmt.Errorf("key of %d bytes is longer than the limit of %d", len(key), maxStringLen)
		}
		if _, dup := m[string(key)]; dup {
			return fmt.Errorf("duplicate key %q", key)
		}
		var v string
		if err := d.str(&v); err != nil {
			return fmt.Errorf("key %q: %w", key, err)
		}
		if m == nil {
			m = make(map[string]string)
		}
		m[string(key)] = v
		return nil
	})
	*p = m
	return err
}
