package results

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/gpureplay/gpureplay/tables"
)

// The column builders of columns_gen.go and the Python reader's schema
// follow from the declarations in package tables.
//go:generate go run gen.go

// The tables, in the order of tables.All (docs/design.md §6). A table's
// index is its position in Writer.tables.
const (
	summaryTable = iota
	kernelsTable
	ctasTable
	launchesTable
	occupancyTable
	pagesTable
	stagesTable
	syncsTable
	numTables
)

// The Arrow types of the declared column types.
var (
	i64 = arrow.PrimitiveTypes.Int64
	i32 = arrow.PrimitiveTypes.Int32
	f64 = arrow.PrimitiveTypes.Float64
	str = arrow.BinaryTypes.String
)

var arrowTypes = map[tables.Type]arrow.DataType{tables.Int64: i64, tables.Int32: i32, tables.Float64: f64, tables.String: str}

// tableNames and schemas are each table's name and Arrow schema, the run
// columns first, as package tables declares them.
var tableNames, schemas = declared()

func declared() (names [numTables]string, schemas [numTables]*arrow.Schema) {
	all := tables.All()
	if len(all) != numTables {
		panic(fmt.Sprintf("results: %d tables declared, %d known", len(all), numTables))
	}
	for i, t := range all {
		cols := append(append([]tables.Column(nil), tables.RunColumns()...), t.Columns...)
		fields := make([]arrow.Field, len(cols))
		for j, c := range cols {
			fields[j] = arrow.Field{Name: c.Name, Type: arrowTypes[c.Type], Nullable: c.Nullable}
		}
		names[i], schemas[i] = t.Name, arrow.NewSchema(fields, nil)
	}
	return names, schemas
}

// Tables returns the names of the output tables in docs/design.md §6 order. Each is
// written as NAME.FORMAT (kernels.parquet, ...).
func Tables() []string {
	return append([]string(nil), tableNames[:]...)
}

// Schema returns the Arrow schema of the named table, or nil if there is no
// such table. Writers of docs and readers that validate input use it; the
// schema is shared and must not be modified.
func Schema(table string) *arrow.Schema {
	for i, name := range tableNames {
		if name == table {
			return schemas[i]
		}
	}
	return nil
}
