package trace

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"
	"testing/iotest"
)

// skipVarints ends where reading the varints one by one ends, with the
// same error, whatever the reads' sizes: varints of every length, one of
// ten bytes, lists cut short, a varint longer than 64 bits, a stream cut
// inside a varint.
func TestSkipVarintsMatchesUvarint(t *testing.T) {
	var list []byte
	for i, v := range []uint64{0, 1, 127, 128, 300, 1 << 20, 1 << 35, 1<<63 + 5, 7, 1<<14 - 1} {
		list = binary.AppendUvarint(list, v*uint64(i+1))
	}
	overlong := append(bytes.Repeat([]byte{0xff}, 10), 0x01)
	cases := map[string][]byte{
		"list":               list,
		"list then more":     append(append([]byte{}, list...), 0x05, 0x06),
		"cut inside":         list[:len(list)-1],
		"overlong":           append(append([]byte{}, list[:3]...), overlong...),
		"ten bytes, too big": append(bytes.Repeat([]byte{0x80}, 9), 0x02),
		"empty":              nil,
	}
	for name, data := range cases {
		for n := 0; n <= 12; n++ {
			for _, chunk := range []func(io.Reader) io.Reader{
				func(r io.Reader) io.Reader { return r },
				iotest.OneByteReader,
				iotest.HalfReader,
			} {
				want := newInbuf(chunk(bytes.NewReader(data)))
				var wantErr error
				for i := 0; i < n && wantErr == nil; i++ {
					_, wantErr = want.uvarint()
				}
				got := newInbuf(chunk(bytes.NewReader(data)))
				gotErr := got.skipVarints(n)
				if !errors.Is(gotErr, wantErr) || (wantErr == nil && got.offset() != want.offset()) {
					t.Errorf("%s, n=%d: skipVarints ends at %d with %v, uvarint at %d with %v", name, n, got.offset(), gotErr, want.offset(), wantErr)
				}
			}
		}
	}
}

// uvarint3 decodes what binary.Uvarint does, value and length, for
// varints of every length up to ten bytes and one longer than 64 bits,
// whatever the bytes after them and wherever the slice ends.
func TestUvarint3(t *testing.T) {
	var vals []uint64
	for s := 0; s < 64; s += 7 {
		vals = append(vals, 1<<s-1, 1<<s, 1<<s+1, 0x55<<s)
	}
	vals = append(vals, 1<<64-1)
	var bufs [][]byte
	for _, v := range vals {
		bufs = append(bufs, append(binary.AppendUvarint(nil, v), 0x81, 0x7f, 0x00))
	}
	bufs = append(bufs, append(bytes.Repeat([]byte{0xff}, 10), 0x01), append(bytes.Repeat([]byte{0x80}, 9), 0x02))
	for _, buf := range bufs {
		for end := 0; end <= len(buf); end++ {
			v, n := uvarint3(buf[:end])
			wv, wn := binary.Uvarint(buf[:end])
			if v != wv || n != wn {
				t.Errorf("% x: uvarint3 %d, %d; binary.Uvarint %d, %d", buf[:end], v, n, wv, wn)
			}
		}
	}
}

// TestZigzag7 checks zigzag7's table against zigzag for every one-byte
// varint.
func TestZigzag7(t *testing.T) {
	for u := range uint64(0x80) {
		if got, want := zigzag7(u), zigzag(u); got != want {
			t.Fatalf("zigzag7(%d) = %d, want %d", u, got, want)
		}
	}
}
