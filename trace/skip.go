package trace

import (
	"encoding/binary"
	"errors"
	"unicode/utf8"
)

// hostLaunch decodes a launch record without allocating and returns it
// (as a fresh record) only if the host launched it.
func (r *Reader) hostLaunch() (*Launch, error) {
	if r.skipDeviceLaunchFast() {
		return nil, nil
	}
	if err := r.launchInto(&r.scratch, &r.scratchP); err != nil {
		return nil, err
	}
	if r.scratch.Parent != nil {
		return nil, nil
	}
	l := r.scratch
	return &l, nil
}

// errPaused is what Next returns, between two skipped records, once the
// function given to pauseWhen says to pause; the next call goes on.
var errPaused = errors.New("trace: reading paused between skipped records")

// pauseWhen makes Next return errPaused after a skipped record whenever f
// reports true. A Prefetcher asks it so that records it already holds
// reach a waiting caller while the reader skips a long run of records
// (the replay's host pass crossing a launch tree of millions of records).
func (r *Reader) pauseWhen(f func() bool) { r.pause = f }

func (r *Reader) paused() bool { return r.pause != nil && r.pause() }

func (r *Reader) skipped(k Kind) bool { return k < 64 && r.skip&(1<<k) != 0 }

// skipBody reads past the body of a record of kind k without building it.
// Delta state is still updated, so later records decode correctly.
func (r *Reader) skipBody(k Kind, extended bool) error {
	d := fieldReader{in: r.in}
	switch k {
	case KindCTA:
		if r.skipCTAFast(extended) {
			return nil
		}
		d.ref(&r.delta, true)
		d.varint()
		d.skipList()
		if extended {
			d.uvarint()
			d.uvarint()
		}
	case KindKernel:
		// Read, not passed over: a kernelalike record after it is
		// declared as it (kernelTail), whether read or passed over.
		// Unchecked, it is no tail a record read later is alike by
		// its bytes (kernelFast), and a kernelalike one read later is
		// checked whole (Validator.Child).
		if err := r.kernelInto(&r.scratchK, extended); err != nil {
			return err
		}
		r.tail.unchecked, r.tail.bytes = true, 0
		return nil
	default:
		_, err := r.decode(k, extended)
		return err
	}
	return d.err
}

// skipCTAFast passes over a cta record straight from the buffer, as
// ctaFast decodes one: only its kernel and CTA are decoded (later records
// are coded against them). It gives up, consuming nothing, unless the
// buffer surely holds the whole record and it has at most a warp's worth
// of warp_cycles, none of them or of its other fields longer than nine
// bytes; skipBody then takes the general path, which reports what is
// wrong. demand says the record has insts and dram_bytes.
func (r *Reader) skipCTAFast(demand bool) bool {
	p, dk, dc, i, ok := r.ctaHead()
	if !ok {
		return false
	}
	n3, left, _ := varintEnds(p[i:], 1) // cycles
	if left > 0 {
		return false
	}
	i += n3
	warps, n4 := binary.Uvarint(p[i:])
	if n4 <= 0 || warps > maxFastWarps {
		return false
	}
	i += n4
	rest := int(warps)
	if demand {
		rest += 2
	}
	n5, left, _ := varintEnds(p[i:], rest)
	if left > 0 {
		return false
	}
	kernel := r.delta.kernel + uint64(dk)
	r.delta.kernel, r.delta.cta = kernel, r.delta.expectedCTA(kernel, true)+uint64(dc)
	r.in.r += i + n5
	return true
}

// skipDeviceLaunchFast passes over a device launch record straight from
// the buffer, decoding only what later records are coded against (its
// kernel and its parent's kernel and CTA). It gives up, consuming nothing,
// on a host launch, one with an after list, unknown flags, or a buffer
// that might not hold the whole record; launchInto then reads it.
func (r *Reader) skipDeviceLaunchFast() bool {
	p := r.in.buf[r.in.r:r.in.w]
	if len(p) < 12*binary.MaxVarintLen64 {
		return false
	}
	flags, i := binary.Uvarint(p)
	if i <= 0 || flags&^launchFlagsMask != 0 || flags&launchHasParent == 0 || flags&launchHasAfter != 0 {
		return false
	}
	dl, n := binary.Varint(p[i:])
	if n <= 0 {
		return false
	}
	i += n
	if flags&launchHasT != 0 {
		if n, left, _ := varintEnds(p[i:], 1); left == 0 {
			i += n
		} else {
			return false
		}
	}
	if flags&launchHasStream != 0 {
		if n, left, _ := varintEnds(p[i:], 1); left == 0 {
			i += n
		} else {
			return false
		}
	}
	dk, n := binary.Varint(p[i:])
	if n <= 0 {
		return false
	}
	i += n
	dc, n := binary.Varint(p[i:])
	if n <= 0 {
		return false
	}
	i += n
	rest := 3 // warp, lane, at
	if flags&launchHasWorkload != 0 {
		rest++
	}
	if flags&launchHasInline != 0 {
		rest++
	}
	n, left, _ := varintEnds(p[i:], rest)
	if left > 0 {
		return false
	}
	kernel := r.delta.kernel + uint64(dk)
	r.delta.kernel, r.delta.cta = kernel, r.delta.expectedCTA(kernel, false)+uint64(dc)
	r.delta.parented()
	r.delta.launched += 1 + uint64(dl)
	r.in.r += i + n
	return true
}

// skipStr reads past a length-prefixed string.
func (d *fieldReader) skipStr() {
	n := d.uvarint()
	if d.err != nil {
		return
	}
	if n > maxStringLen {
		d.fail(errRange("string length %d exceeds the format's limit of %d", n, maxStringLen))
		return
	}
	for n > 0 && d.err == nil {
		step := min(int(n), len(d.in.buf))
		_, err := d.in.next(step)
		d.fail(err)
		n -= uint64(step)
	}
}

// skipList reads past a list of varints.
func (d *fieldReader) skipList() {
	n, _ := d.listLen()
	if n > 0 && d.err == nil {
		d.fail(d.in.skipVarints(n))
	}
}

// maxInterned bounds the kernel-name cache: real traces have a handful of
// kernel names repeated over millions of records.
const maxInterned = 1024

// kernelName reads a kernel's name, returning the same string for repeated
// names so a trace of a million device launches of one kernel does not
// allocate a million copies. The name read last is tried before the map:
// a launch-heavy trace declares one child kernel after another under the
// same name (BFS scale 20: 165,464 of them).
func (r *Reader) kernelName(d *fieldReader) string {
	n := d.uvarint()
	if d.err != nil || n > maxStringLen || int(n) > len(d.in.buf) {
		if d.err == nil {
			// Let the general path report or read it.
			return d.strOfLen(n)
		}
		return ""
	}
	p, err := d.in.next(int(n))
	if err != nil {
		d.fail(err)
		return ""
	}
	if string(p) == r.lastName {
		return r.lastName
	}
	s, ok := r.names[string(p)]
	if !ok {
		s = string(p)
		if !utf8.ValidString(s) {
			d.fail(errRange("string %q is not valid UTF-8", s))
			return ""
		}
		if r.names == nil {
			r.names = map[string]string{}
		}
		if len(r.names) < maxInterned {
			r.names[s] = s
		}
	}
	r.lastName, r.nameKey = s, newNameKey(s)
	return s
}

// strOfLen reads a string whose length prefix was already read.
func (d *fieldReader) strOfLen(n uint64) string {
	if d.err != nil {
		return ""
	}
	s, err := d.in.strN(n)
	d.fail(err)
	return s
}
