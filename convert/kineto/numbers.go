package kineto

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"
)

// ident is a pid, tid, stream, device or correlation: Kineto writes them
// as numbers, as decimal or hex strings ("0x7f.." streams on ROCm), and
// sometimes negative. It keeps the text; absent or null is "".
type ident string

func (id *ident) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) == 0 || string(b) == "null":
		*id = ""
	case b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*id = ident(strings.TrimSpace(s))
	case b[0] == '-' || b[0] >= '0' && b[0] <= '9':
		*id = ident(b)
	default:
		return errors.New("want a number or a string")
	}
	return nil
}

// uint reads the identifier as a non-negative integer (decimal, or hex
// with a 0x prefix); ok is false for anything else.
func (id ident) uint() (v uint64, ok bool) {
	s := string(id)
	base := 10
	if len(s) > 2 && (s[:2] == "0x" || s[:2] == "0X") {
		s, base = s[2:], 16
	}
	v, err := strconv.ParseUint(s, base, 64)
	return v, err == nil
}

// int reads the identifier as a signed decimal integer.
func (id ident) int() (v int64, ok bool) {
	v, err := strconv.ParseInt(string(id), 10, 64)
	return v, err == nil
}

// micros is a time or duration in microseconds, held exactly as
// nanoseconds: integers in older traces, fractional ("2413669097444.592")
// in newer ones.
type micros struct {
	ns  int64
	set bool
}

func (m *micros) UnmarshalJSON(b []byte) error {
	s := string(bytes.TrimSpace(b))
	if s == "null" {
		*m = micros{}
		return nil
	}
	ns, ok := parseMicros(s)
	if !ok {
		return errors.New("want a number of microseconds")
	}
	*m = micros{ns: ns, set: true}
	return nil
}

// parseMicros turns a JSON number of microseconds into nanoseconds,
// exactly for plain decimals (rounding past the third fractional digit)
// and through float64 for exponent forms.
func parseMicros(s string) (int64, bool) {
	if s == "" || strings.ContainsAny(s, "eE") {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(f) || math.Abs(f*1e3) >= 9e18 {
			return 0, false
		}
		return int64(math.Round(f * 1e3)), true
	}
	neg := s[0] == '-'
	if neg {
		s = s[1:]
	}
	whole, frac, _ := strings.Cut(s, ".")
	frac += "0000"
	w, err := strconv.ParseInt(whole, 10, 64)
	if err != nil || w > math.MaxInt64/1000-1 {
		return 0, false
	}
	f, err := strconv.ParseInt(frac[:3], 10, 64)
	if err != nil || strings.Trim(frac, "0123456789") != "" {
		return 0, false
	}
	ns := w*1000 + f
	if frac[3] >= '5' {
		ns++
	}
	if neg {
		ns = -ns
	}
	return ns, true
}

// dim3 is a grid or block shape: [x, y, z] (missing trailing dimensions
// are 1), or the same written as a string, as some ROCm traces do.
type dim3 struct {
	v   [3]int64
	set bool
}

func (d *dim3) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if string(b) == "null" {
		*d = dim3{}
		return nil
	}
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		b = []byte(s)
	}
	var xs []int64
	if err := json.Unmarshal(b, &xs); err != nil || len(xs) == 0 || len(xs) > 3 {
		return errors.New("want [x, y, z]")
	}
	*d = dim3{v: [3]int64{1, 1, 1}, set: true}
	copy(d.v[:], xs)
	return nil
}
