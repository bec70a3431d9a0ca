package nsys

import (
	"database/sql"
	"fmt"
	"math"
)

// row is one result row as SQLite stored it. SQLite columns hold
// whatever was written into them, so each value is converted on use,
// with an error that names the table, the rowid and the column.
type row struct {
	file, table string
	id          int64    // the rowid
	names       []string // the selected columns' names, for messages
	vals        []any
}

// int is value i as an integer; ok is false when it is NULL. A REAL that
// holds an integer is accepted; text, blobs and fractions are errors.
func (r *row) int(i int) (v int64, ok bool, err error) {
	switch x := r.vals[i].(type) {
	case nil:
		return 0, false, nil
	case int64:
		return x, true, nil
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<63 {
			return int64(x), true, nil
		}
	}
	return 0, false, r.errorf("%s is %s, not an integer", r.names[i], show(r.vals[i]))
}

// need is value i as an integer that must be present.
func (r *row) need(i int) (int64, error) {
	v, ok, err := r.int(i)
	if err == nil && !ok {
		err = r.errorf("%s is NULL", r.names[i])
	}
	return v, err
}

// nullInt is value i as an integer, or NULL.
func (r *row) nullInt(i int) (sql.NullInt64, error) {
	v, ok, err := r.int(i)
	return sql.NullInt64{Int64: v, Valid: ok}, err
}

// text is value i as a string ("" for NULL).
func (r *row) text(i int) string {
	switch x := r.vals[i].(type) {
	case string:
		return x
	case []byte:
		return string(x)
	case nil:
		return ""
	}
	return fmt.Sprint(r.vals[i])
}

func (r *row) errorf(format string, a ...any) *Error {
	return errorf(r.file, r.table, r.id, format, a...)
}

// show renders a stored value for a message, quoting text and eliding
// long values.
func show(v any) string {
	s := fmt.Sprintf("%v", v)
	switch v.(type) {
	case string, []byte:
		if len(s) > 40 {
			s = s[:40] + "..."
		}
		return fmt.Sprintf("%q", s)
	}
	return s
}
