package trace

import (
	"encoding/binary"
	"errors"
	"io"
	"unicode/utf8"
)

// inbufSize is the read-ahead of the binary reader: large enough that a
// refill is rare, small enough to stay in cache.
const inbufSize = 64 << 10

var errVarint = errors.New("varint longer than 64 bits")

// inbuf is a buffered reader over the decompressed stream that decodes
// varints in place and counts bytes, so each record knows its offset. It is
// bufio.Reader cut down to what the decoder needs, without per-call
// interface overhead. A stream that ends inside a value reports
// io.ErrUnexpectedEOF; other errors of src are returned as they are.
type inbuf struct {
	src  io.Reader
	buf  []byte
	r, w int   // buf[r:w] is unread
	base int64 // stream offset of buf[0]
	err  error // src's sticky error, returned once buf is drained
}

func newInbuf(src io.Reader) *inbuf {
	return &inbuf{src: src, buf: make([]byte, inbufSize)}
}

// offset is the stream offset of the next unread byte.
func (b *inbuf) offset() int64 { return b.base + int64(b.r) }

// fill moves the unread bytes to the front and reads more after them. It
// returns an error only when nothing new could be read.
func (b *inbuf) fill() error {
	if b.r > 0 {
		b.w = copy(b.buf, b.buf[b.r:b.w])
		b.base += int64(b.r)
		b.r = 0
	}
	if b.err != nil {
		return b.err
	}
	for tries := 0; tries < 100 && b.w < len(b.buf); tries++ {
		n, err := b.src.Read(b.buf[b.w:])
		b.w += n
		if err != nil {
			b.err = err
		}
		if n > 0 {
			return nil
		}
		if err != nil {
			return err
		}
	}
	if b.w == len(b.buf) {
		return nil
	}
	b.err = io.ErrNoProgress
	return b.err
}

// more is fill for a read that has already started a value, where the end
// of the stream means truncation.
func (b *inbuf) more() error {
	err := b.fill()
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// byte0 reads the byte that starts a record; io.EOF here is a clean end.
func (b *inbuf) byte0() (byte, error) {
	if b.r == b.w {
		if err := b.fill(); err != nil {
			return 0, err
		}
	}
	c := b.buf[b.r]
	b.r++
	return c, nil
}

func (b *inbuf) byte1() (byte, error) {
	if b.r == b.w {
		if err := b.more(); err != nil {
			return 0, err
		}
	}
	c := b.buf[b.r]
	b.r++
	return c, nil
}

func (b *inbuf) uvarint() (uint64, error) {
	// Most fields are small: one byte, no loop.
	if b.r < b.w && b.buf[b.r] < 0x80 {
		v := b.buf[b.r]
		b.r++
		return uint64(v), nil
	}
	for {
		v, n := binary.Uvarint(b.buf[b.r:b.w])
		if n > 0 {
			b.r += n
			return v, nil
		}
		if n < 0 {
			return 0, errVarint
		}
		if err := b.more(); err != nil {
			return 0, err
		}
	}
}

// varintEnds scans p for the ends of n varints: it returns the bytes the
// whole ones take, how many of the n are left, and the continuation bytes
// seen of the next one. It stops at a varint's ninth continuation byte
// (run == MaxVarintLen64-1), for a decoder to refuse one longer than 64
// bits.
func varintEnds(p []byte, n int) (end, left, run int) {
	for i := 0; i < len(p) && n > 0; i++ {
		if p[i] >= 0x80 {
			if run++; run == binary.MaxVarintLen64-1 {
				break
			}
			continue
		}
		end, run = i+1, 0
		n--
	}
	return end, n, run
}

// skipVarints reads past n varints. It scans the buffer for the bytes
// that end them, much faster than decoding each; a varint that reaches its
// tenth byte is left to uvarint, which refuses one longer than 64 bits.
func (b *inbuf) skipVarints(n int) error {
	for n > 0 {
		end, left, run := varintEnds(b.buf[b.r:b.w], n)
		b.r += end
		n = left
		switch {
		case n == 0:
			return nil
		case run == binary.MaxVarintLen64-1:
			if _, err := b.uvarint(); err != nil {
				return err
			}
			n--
		default:
			if err := b.more(); err != nil {
				return err
			}
		}
	}
	return nil
}

// next returns the next n bytes, valid until the following read; n must not
// exceed the buffer size.
func (b *inbuf) next(n int) ([]byte, error) {
	for b.w-b.r < n {
		if err := b.more(); err != nil {
			return nil, err
		}
	}
	p := b.buf[b.r : b.r+n]
	b.r += n
	return p, nil
}

// str reads a length-prefixed UTF-8 string.
func (b *inbuf) str() (string, error) {
	n, err := b.uvarint()
	if err != nil {
		return "", err
	}
	return b.strN(n)
}

// strN reads an n-byte UTF-8 string whose length was already read.
func (b *inbuf) strN(n uint64) (string, error) {
	var err error
	if n > maxStringLen {
		return "", errRange("string length %d exceeds the format's limit of %d", n, maxStringLen)
	}
	var s string
	if int(n) <= len(b.buf) {
		p, err := b.next(int(n))
		if err != nil {
			return "", err
		}
		s = string(p)
	} else if s, err = b.long(int(n)); err != nil {
		return "", err
	}
	if !utf8.ValidString(s) {
		return "", errRange("string %q is not valid UTF-8", s)
	}
	return s, nil
}

// long reads an n-byte string larger than the buffer, growing its result
// only as data actually arrives.
func (b *inbuf) long(n int) (string, error) {
	out := make([]byte, 0, len(b.buf))
	for len(out) < n {
		if b.r == b.w {
			if err := b.more(); err != nil {
				return "", err
			}
		}
		k := min(n-len(out), b.w-b.r)
		out = append(out, b.buf[b.r:b.r+k]...)
		b.r += k
	}
	return string(out), nil
}

// zigzag is a varint's value from its uvarint coding (binary.Varint's
// last step). ctaFast, which reads most of a trace's varints straight
// from the buffer, calls short3 and this rather than binary.Varint,
// which is too large for the compiler to inline.
func zigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }

// short3 is the varint at p[i:] where it takes at most three bytes, and
// 0 bytes (n) where it takes more, which the caller leaves to its general
// path. A fast path's room check has made sure p holds three bytes from
// i. It makes no call, so the compiler inlines it where uvarint3, with
// binary.Uvarint behind it, is a call, and ctaFastInto, which reads a
// CTA's cycles, insts and DRAM bytes with it, makes none.
func short3(p []byte, i int) (v uint64, n int) {
	b0 := uint64(p[i])
	if b0 < 0x80 {
		return b0, 1
	}
	b1 := uint64(p[i+1])
	if b1 < 0x80 {
		return b0&0x7f | b1<<7, 2
	}
	if b2 := uint64(p[i+2]); b2 < 0x80 {
		return b0&0x7f | (b1&0x7f)<<7 | b2<<14, 3
	}
	return 0, 0
}

// uvarint3 is binary.Uvarint unrolled for a varint of up to three bytes,
// nearly all of a trace's (a CTA's cycles, insts and DRAM bytes take two
// or three): binary.Uvarint's loop takes about twice the instructions for
// them. It is short3 where p holds three bytes, and binary.Uvarint for
// what short3 leaves.
func uvarint3(p []byte) (uint64, int) {
	if len(p) >= 3 {
		if v, n := short3(p, 0); n > 0 {
			return v, n
		}
	}
	return binary.Uvarint(p)
}

// zigzag7s is zigzag of each one-byte varint's value, zigzag7's table:
// of 256 entries, so that a byte indexes it with no bounds check (those
// past 0x7f, no one-byte varint's, are not read).
var zigzag7s = func() (t [0x100]int8) {
	for u := range 0x80 {
		t[u] = int8(zigzag(uint64(u)))
	}
	return t
}()

// zigzag7 is zigzag of u below 0x80, a one-byte varint's value: a load
// from a table, three instructions where zigzag's shift, mask, negation
// and exclusive or take five. ctaFastInto reads a two-warp record's
// first warp delta with it (BFS scale 20, scripts/instructions.sh bfs:
// 858,605,754 to 857,750,274 instructions, 1,601 to 1,599 a CTA).
func zigzag7(u uint64) int64 { return int64(zigzag7s[uint8(u)]) }
