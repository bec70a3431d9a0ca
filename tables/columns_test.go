package tables

import (
	"reflect"
	"testing"
)

// TestColumnsReadTheirFields checks each declaration against its row
// type: the field (or a derived column's method) exists, its Go type holds the column's type, it is a
// pointer exactly where the column is nullable, and no column name is
// used twice in a table.
func TestColumnsReadTheirFields(t *testing.T) {
	check := func(table string, row reflect.Type, cols []Column, seen map[string]bool) {
		for _, c := range cols {
			if seen[c.Name] {
				t.Errorf("%s.%s: declared twice", table, c.Name)
			}
			seen[c.Name] = true
			var ft reflect.Type
			if f, ok := row.FieldByName(c.Field); ok {
				ft = f.Type
			} else if m, ok := row.MethodByName(c.Field); ok && !c.Nullable && m.Type.NumIn() == 1 && m.Type.NumOut() == 1 {
				ft = m.Type.Out(0) // a derived column
			} else {
				t.Errorf("%s.%s: %s has no field %s, nor a method %s() of one result", table, c.Name, row.Name(), c.Field, c.Field)
				continue
			}
			if ptr := ft.Kind() == reflect.Pointer; ptr != c.Nullable {
				t.Errorf("%s.%s: nullable is %v, field %s.%s is %s", table, c.Name, c.Nullable, row.Name(), c.Field, ft)
				continue
			} else if ptr {
				ft = ft.Elem()
			}
			if !holds(c.Type, ft.Kind()) {
				t.Errorf("%s.%s: a %s column cannot hold %s.%s, a %s", table, c.Name, c.Type, row.Name(), c.Field, ft)
			}
		}
	}
	for _, tb := range All() {
		seen := map[string]bool{}
		check(tb.Name, reflect.TypeOf(Run{}), RunColumns(), seen)
		check(tb.Name, reflect.TypeOf(tb.Row), tb.Columns, seen)
	}
}

func holds(t Type, k reflect.Kind) bool {
	switch t {
	case Int64:
		return k == reflect.Int64 || k == reflect.Uint64
	case Int32:
		return k == reflect.Int32
	case Float64:
		return k == reflect.Float64
	case String:
		return k == reflect.String
	}
	return false
}
