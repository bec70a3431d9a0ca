package trace

import (
	"fmt"
	"math"
	"unicode/utf16"
	"unicode/utf8"
)

// maxJSONDepth bounds nesting in values the reader skips; the schema itself
// never nests deeper than two.
const maxJSONDepth = 32

// jsonScanner reads JSON values from one line. It is stricter than
// encoding/json where a trace needs it: keys match exactly (no case folding),
// integers must be written as integers, and every problem carries the column.
// It never allocates for strings without escapes: those alias the line.
type jsonScanner struct {
	b []byte
	i int
}

func (s *jsonScanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\r', '\n':
			s.i++
		default:
			return
		}
	}
}

func (s *jsonScanner) errorf(format string, args ...any) error {
	return fmt.Errorf("column %d: "+format, append([]any{s.i + 1}, args...)...)
}

// unexpected reports that the next token is not what the grammar wants.
func (s *jsonScanner) unexpected(want string) error {
	s.space()
	if s.i >= len(s.b) {
		return s.errorf("unexpected end of line, want %s", want)
	}
	r, _ := utf8.DecodeRune(s.b[s.i:])
	return s.errorf("unexpected %q, want %s", r, want)
}

// eat consumes c if it is the next non-space byte.
func (s *jsonScanner) eat(c byte) bool {
	s.space()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// end checks that nothing but space is left.
func (s *jsonScanner) end() error {
	s.space()
	if s.i < len(s.b) {
		return s.unexpected("end of line")
	}
	return nil
}

// null consumes a null literal if one is next.
func (s *jsonScanner) null() bool {
	s.space()
	if len(s.b)-s.i >= 4 && string(s.b[s.i:s.i+4]) == "null" {
		s.i += 4
		return true
	}
	return false
}

// boolean reads a true or false literal.
func (s *jsonScanner) boolean() (bool, error) {
	s.space()
	for _, lit := range []string{"true", "false"} {
		if len(s.b)-s.i >= len(lit) && string(s.b[s.i:s.i+len(lit)]) == lit {
			s.i += len(lit)
			return lit == "true", nil
		}
	}
	return false, s.unexpected("true or false")
}

// object reads an object, calling member with each key when the scanner is
// at the key's value; member must consume the value.
func (s *jsonScanner) object(member func(key []byte) error) error {
	if !s.eat('{') {
		return s.unexpected("'{'")
	}
	if s.eat('}') {
		return nil
	}
	for {
		key, err := s.str()
		if err != nil {
			return err
		}
		if !s.eat(':') {
			return s.unexpected("':'")
		}
		if err := member(key); err != nil {
			return err
		}
		if s.eat(',') {
			continue
		}
		if s.eat('}') {
			return nil
		}
		return s.unexpected("',' or '}'")
	}
}

// array reads an array, calling elem when the scanner is at each element.
func (s *jsonScanner) array(elem func() error) error {
	if !s.eat('[') {
		return s.unexpected("'['")
	}
	if s.eat(']') {
		return nil
	}
	for {
		if err := elem(); err != nil {
			return err
		}
		if s.eat(',') {
			continue
		}
		if s.eat(']') {
			return nil
		}
		return s.unexpected("',' or ']'")
	}
}

// str reads a string. The result aliases the line unless it had escapes.
func (s *jsonScanner) str() ([]byte, error) {
	if !s.eat('"') {
		return nil, s.unexpected("a string")
	}
	start := s.i
	for s.i < len(s.b) {
		switch c := s.b[s.i]; {
		case c == '"':
			s.i++
			return s.b[start : s.i-1], nil
		case c == '\\':
			return s.unescape(append([]byte(nil), s.b[start:s.i]...))
		case c < 0x20:
			return nil, s.errorf("control character %#02x in a string", c)
		}
		s.i++
	}
	return nil, s.errorf("unterminated string")
}

// unescape finishes a string that has escapes, appending to out.
func (s *jsonScanner) unescape(out []byte) ([]byte, error) {
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return out, nil
		case c < 0x20:
			return nil, s.errorf("control character %#02x in a string", c)
		case c != '\\':
			out = append(out, c)
			s.i++
			continue
		}
		if s.i+1 >= len(s.b) {
			return nil, s.errorf("unterminated string")
		}
		c = s.b[s.i+1]
		s.i += 2
		switch c {
		case '"', '\\', '/':
			out = append(out, c)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, err := s.unicodeEscape()
			if err != nil {
				return nil, err
			}
			out = utf8.AppendRune(out, r)
		default:
			s.i -= 2
			return nil, s.errorf("invalid escape \\%c", c)
		}
	}
	return nil, s.errorf("unterminated string")
}

// unicodeEscape reads the hex digits of a \u escape (the \u already read)
// and, for a surrogate, the \u escape of its pair.
func (s *jsonScanner) unicodeEscape() (rune, error) {
	r, err := s.hex4()
	if err != nil || !utf16.IsSurrogate(r) {
		return r, err
	}
	if len(s.b)-s.i >= 2 && s.b[s.i] == '\\' && s.b[s.i+1] == 'u' {
		s.i += 2
		r2, err := s.hex4()
		if err != nil {
			return 0, err
		}
		if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
			return d, nil
		}
	}
	return 0, s.errorf("\\u%04x is half of a UTF-16 surrogate pair", r)
}

func (s *jsonScanner) hex4() (rune, error) {
	if len(s.b)-s.i < 4 {
		return 0, s.errorf("\\u escape needs four hex digits")
	}
	var r rune
	for _, c := range s.b[s.i : s.i+4] {
		var d byte
		switch {
		case '0' <= c && c <= '9':
			d = c - '0'
		case 'a' <= c && c <= 'f':
			d = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, s.errorf("\\u escape needs four hex digits")
		}
		r = r<<4 | rune(d)
	}
	s.i += 4
	return r, nil
}

// number reads a number token, checked against JSON's grammar.
func (s *jsonScanner) number() ([]byte, error) {
	s.space()
	start := s.i
	s.optional('-')
	intStart := s.i
	if !s.digits() {
		s.i = start
		return nil, s.unexpected("a number")
	}
	if s.b[intStart] == '0' && s.i-intStart > 1 {
		s.i = start
		return nil, s.errorf("number with a leading zero")
	}
	if s.optional('.') && !s.digits() {
		return nil, s.unexpected("a digit")
	}
	if s.optional('e') || s.optional('E') {
		_ = s.optional('+') || s.optional('-')
		if !s.digits() {
			return nil, s.unexpected("a digit")
		}
	}
	return s.b[start:s.i], nil
}

func (s *jsonScanner) optional(c byte) bool {
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// digits consumes a run of decimal digits, reporting whether there was one.
func (s *jsonScanner) digits() bool {
	start := s.i
	for s.i < len(s.b) && '0' <= s.b[s.i] && s.b[s.i] <= '9' {
		s.i++
	}
	return s.i > start
}

// integer reads a number that must be an integer, as sign and magnitude.
func (s *jsonScanner) integer() (neg bool, mag uint64, err error) {
	tok, err := s.number()
	if err != nil {
		return false, 0, err
	}
	digits := tok
	if tok[0] == '-' {
		neg, digits = true, tok[1:]
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false, 0, fmt.Errorf("%s is not an integer", tok)
		}
		d := uint64(c - '0')
		if mag > (math.MaxUint64-d)/10 {
			return false, 0, fmt.Errorf("%s is out of range", tok)
		}
		mag = mag*10 + d
	}
	return neg, mag, nil
}

func (s *jsonScanner) uint64() (uint64, error) {
	neg, mag, err := s.integer()
	if err == nil && neg && mag != 0 {
		err = fmt.Errorf("-%d is negative", mag)
	}
	return mag, err
}

func (s *jsonScanner) int64() (int64, error) {
	neg, mag, err := s.integer()
	switch {
	case err != nil:
		return 0, err
	case neg && mag > 1<<63:
		return 0, fmt.Errorf("-%d is out of range", mag)
	case neg:
		return -int64(mag), nil
	case mag > math.MaxInt64:
		return 0, fmt.Errorf("%d is out of range", mag)
	}
	return int64(mag), nil
}

// skip reads any value and throws it away.
func (s *jsonScanner) skip(depth int) error {
	if depth > maxJSONDepth {
		return s.errorf("value nested more than %d deep", maxJSONDepth)
	}
	s.space()
	if s.i >= len(s.b) {
		return s.unexpected("a value")
	}
	switch s.b[s.i] {
	case '{':
		return s.object(func([]byte) error { return s.skip(depth + 1) })
	case '[':
		return s.array(func() error { return s.skip(depth + 1) })
	case '"':
		_, err := s.str()
		return err
	case 't', 'f', 'n':
		for _, lit := range []string{"true", "false", "null"} {
			if len(s.b)-s.i >= len(lit) && string(s.b[s.i:s.i+len(lit)]) == lit {
				s.i += len(lit)
				return nil
			}
		}
		return s.unexpected("a value")
	}
	_, err := s.number()
	return err
}
