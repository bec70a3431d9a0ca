package sqlite

import (
	"encoding/hex"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// affinity is a declared type's column affinity
// (https://www.sqlite.org/datatype3.html, 3.1: "Determination Of Column
// Affinity", its five rules in order).
func affinity(typ string) byte {
	u := strings.ToUpper(typ)
	switch {
	case strings.Contains(u, "INT"):
		return 'I'
	case strings.Contains(u, "CHAR") || strings.Contains(u, "CLOB") || strings.Contains(u, "TEXT"):
		return 'T'
	case strings.Contains(u, "BLOB") || u == "":
		return 'B'
	case strings.Contains(u, "REAL") || strings.Contains(u, "FLOA") || strings.Contains(u, "DOUB"):
		return 'R'
	}
	return 'N'
}

// realAffinity reports whether a declared type has REAL affinity.
func realAffinity(typ string) bool { return affinity(typ) == 'R' }

// The literals' patterns are compiled at their first use, not when the
// program starts: every replay links this package (the Nsight Systems
// importer), and compiling them at start cost each run some 3.8M
// instructions, a DEFAULT literal being read only from an export.
var (
	intText   = lazyRegexp(`^[+-]?[0-9]+$`)
	realText  = lazyRegexp(`^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$`)
	hexInt    = lazyRegexp(`^0[xX][0-9a-fA-F]{1,16}$`)
	blobText  = lazyRegexp(`^[xX]'([0-9a-fA-F][0-9a-fA-F])*'$`)
	sqlSpaces = " \t\n\f\r"
)

// lazyRegexp is a pattern compiled once, when first called.
func lazyRegexp(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}

// defaultValue is the value column col reads in a row written before
// ALTER TABLE added it: its DEFAULT literal with the column's affinity
// applied, as SQLite's OP_Column gives a missing value
// (sqlite3ValueFromExpr with the column's affinity). A DEFAULT that is
// not a literal (a constant expression such as (1+2)) is an error: this
// reader evaluates no SQL.
func (t *Table) defaultValue(col int) (any, error) {
	c := t.Columns[col]
	v, ok := literal(c.Default)
	if !ok {
		return nil, fmt.Errorf("column %s was added after the row was written and its DEFAULT %s is not a literal this reader evaluates", c.Name, c.Default)
	}
	switch aff := affinity(c.Type); aff {
	case 'I', 'N', 'R':
		if s, ok := v.(string); ok {
			v = numeric(s)
		}
		if f, ok := v.(float64); ok && aff != 'R' {
			if i := int64(f); float64(i) == f && f > math.MinInt64 && f < math.MaxInt64 {
				v = i
			}
		}
		if i, ok := v.(int64); ok && aff == 'R' {
			v = float64(i)
		}
	case 'T':
		switch x := v.(type) {
		case int64:
			v = strconv.FormatInt(x, 10)
		case float64:
			// SQLite prints a real as "%!.15g", which this reader does
			// not reproduce.
			return nil, fmt.Errorf("column %s was added after the row was written and its DEFAULT %s (a real in a TEXT column) is not one this reader converts", c.Name, c.Default)
		}
	}
	return v, nil
}

// numeric converts text the way NUMERIC affinity does: a well-formed
// integer or real literal (spaces around it allowed) becomes an int64 or
// a float64; any other text stays text.
func numeric(s string) any {
	t := strings.Trim(s, sqlSpaces)
	if intText().MatchString(t) {
		if i, err := strconv.ParseInt(t, 10, 64); err == nil {
			return i
		}
	}
	if realText().MatchString(t) {
		if f, err := strconv.ParseFloat(t, 64); err == nil || math.IsInf(f, 0) {
			return f
		}
	}
	return s
}

// literal evaluates a DEFAULT value as written: NULL, TRUE, FALSE, a
// number (decimal, real or hex, a sign before it), a string or a blob,
// each possibly in parentheses. ok is false for anything else.
func literal(w string) (v any, ok bool) {
	w = strings.Trim(w, sqlSpaces)
	if w == "" {
		return nil, true // no DEFAULT: NULL
	}
	if w[0] == '(' && w[len(w)-1] == ')' {
		return literal(w[1 : len(w)-1])
	}
	switch u := strings.ToUpper(w); {
	case u == "NULL":
		return nil, true
	case u == "TRUE":
		return int64(1), true
	case u == "FALSE":
		return int64(0), true
	case blobText().MatchString(w):
		b, err := hex.DecodeString(w[2 : len(w)-1])
		return b, err == nil
	case w[0] == '\'' || w[0] == '"':
		// A double-quoted DEFAULT is an identifier that SQLite takes for
		// a string.
		if len(w) < 2 || w[len(w)-1] != w[0] || closingQuote(w, 0) != len(w)-1 {
			return nil, false
		}
		return unquote(w), true
	}
	neg := false
	num := w
	if num[0] == '-' || num[0] == '+' {
		neg = num[0] == '-'
		num = strings.TrimLeft(num[1:], sqlSpaces)
	}
	switch {
	case hexInt().MatchString(num):
		u, err := strconv.ParseUint(num[2:], 16, 64)
		if err != nil {
			return nil, false
		}
		i := int64(u)
		if neg {
			i = -i
		}
		return i, true
	case intText().MatchString(num):
		if neg {
			num = "-" + num
		}
		if i, err := strconv.ParseInt(num, 10, 64); err == nil {
			return i, true
		}
		f, err := strconv.ParseFloat(num, 64)
		return f, err == nil
	case realText().MatchString(num):
		f, err := strconv.ParseFloat(num, 64)
		if err != nil && !math.IsInf(f, 0) {
			return nil, false
		}
		if neg {
			f = -f
		}
		return f, true
	}
	return nil, false
}
