package nsys

import (
	"bytes"
	"database/sql"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The importer reads stored values as SQLite returns them (nil, int64,
// float64, string, []byte) and compares them as SQLite's SQL does, so
// that a report converts as it did when the importer ran SQL queries:
// NULL sorts first and equals nothing; numbers compare by value, before
// text, before blobs; text compares by its bytes. Affinity conversions
// are not applied (Nsight Systems declares each column's type and stores
// values of it).

// compare orders a and b as SQLite's ORDER BY does.
func compare(a, b any) int {
	ca, cb := class(a), class(b)
	if ca != cb {
		return ca - cb
	}
	switch ca {
	case 0:
		return 0
	case 1:
		return compareNum(a, b)
	case 2:
		return strings.Compare(a.(string), b.(string))
	}
	return bytes.Compare(a.([]byte), b.([]byte))
}

// class is a value's storage class in SQLite's sort order.
func class(v any) int {
	switch v.(type) {
	case nil:
		return 0
	case int64, float64:
		return 1
	case string:
		return 2
	}
	return 3
}

func compareNum(a, b any) int {
	ai, aInt := a.(int64)
	bi, bInt := b.(int64)
	if aInt && bInt {
		switch {
		case ai < bi:
			return -1
		case ai > bi:
			return 1
		}
		return 0
	}
	af, bf := toFloat(a), toFloat(b)
	switch {
	case af < bf:
		return -1
	case af > bf:
		return 1
	}
	// Equal as floats: an int64 beyond 2^53 and the float it rounds to.
	if aInt && !bInt && !math.IsInf(bf, 0) && bf >= -1<<63 && bf < 1<<63 {
		return compareInt(ai, int64(bf))
	}
	if bInt && !aInt && !math.IsInf(af, 0) && af >= -1<<63 && af < 1<<63 {
		return compareInt(int64(af), bi)
	}
	return 0
}

func compareInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func toFloat(v any) float64 {
	if i, ok := v.(int64); ok {
		return float64(i)
	}
	return v.(float64)
}

// equal is SQL's a = b taken as true or not (NULL on either side: not).
func equal(a, b any) bool { return a != nil && b != nil && compare(a, b) == 0 }

// greater is SQL's a > b taken as true or not.
func greater(a, b any) bool { return a != nil && b != nil && compare(a, b) > 0 }

// perProcess is SQL's v / 16777216: a serialized global id's process
// (the bits above the low 24), NULL for NULL. Integers divide as
// integers (toward zero), reals as reals; text and blobs are numbers as
// far as their leading digits go, as SQLite takes them.
func perProcess(v any) any {
	switch x := v.(type) {
	case nil:
		return nil
	case int64:
		return x / 16777216
	case float64:
		return x / 16777216
	case string:
		return perProcess(numeric(x))
	case []byte:
		return perProcess(numeric(string(x)))
	}
	return nil
}

// numeric is the number a text value stands for in arithmetic: its
// longest numeric prefix, 0 without one.
func numeric(s string) any {
	s = strings.TrimSpace(s)
	for n := len(s); n > 0; n-- {
		if i, err := strconv.ParseInt(s[:n], 10, 64); err == nil {
			return i
		}
		if f, err := strconv.ParseFloat(s[:n], 64); err == nil {
			return f
		}
	}
	return int64(0)
}

// valueKey is a value as a map key: values SQL's = calls equal (1 and
// 1.0) get the same key; NULL has a key of its own (GROUP BY's and IS's
// equality).
type valueKey struct {
	class uint8
	i     int64 // an integer, or a real's bits
	s     string
}

func keyOf(v any) valueKey {
	switch x := v.(type) {
	case nil:
		return valueKey{}
	case int64:
		return valueKey{class: 1, i: x}
	case float64:
		if x == math.Trunc(x) && x >= -1<<63 && x < 1<<63 {
			return valueKey{class: 1, i: int64(x)}
		}
		return valueKey{class: 4, i: int64(math.Float64bits(x))}
	case string:
		return valueKey{class: 2, s: x}
	case []byte:
		return valueKey{class: 3, s: string(x)}
	}
	return valueKey{class: 5}
}

// scanInt converts a value as database/sql's Scan into a sql.NullInt64
// does: integers as they are, reals and text by their decimal form,
// which must be an integer.
func scanInt(v any) (sql.NullInt64, error) {
	var s string
	switch x := v.(type) {
	case nil:
		return sql.NullInt64{}, nil
	case int64:
		return sql.NullInt64{Int64: x, Valid: true}, nil
	case float64:
		s = strconv.FormatFloat(x, 'g', -1, 64)
	case string:
		s = x
	case []byte:
		s = string(x)
	}
	i, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return sql.NullInt64{}, fmt.Errorf("converting %s to an integer: %w", show(v), err)
	}
	return sql.NullInt64{Int64: i, Valid: true}, nil
}

// scanString converts a value as Scan into a sql.NullString does.
func scanString(v any) sql.NullString {
	switch x := v.(type) {
	case nil:
		return sql.NullString{}
	case string:
		return sql.NullString{String: x, Valid: true}
	case []byte:
		return sql.NullString{String: string(x), Valid: true}
	case int64:
		return sql.NullString{String: strconv.FormatInt(x, 10), Valid: true}
	case float64:
		return sql.NullString{String: strconv.FormatFloat(x, 'g', -1, 64), Valid: true}
	}
	return sql.NullString{String: fmt.Sprint(v), Valid: true}
}
