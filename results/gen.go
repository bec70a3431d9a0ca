//go:build ignore

// gen writes the files that follow from the tables' column declarations
// (package tables, results/internal/colgen): `go generate ./results`.
package main

import (
	"log"
	"os"

	"github.com/gpureplay/gpureplay/results/internal/colgen"
)

func main() {
	src, err := colgen.Go()
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile("columns_gen.go", src, 0o666); err != nil {
		log.Fatal(err)
	}
	const py = "../interop/python/gpureplay_tables.py"
	old, err := os.ReadFile(py)
	if err != nil {
		log.Fatal(err)
	}
	if src, err = colgen.Python(old); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(py, src, 0o666); err != nil {
		log.Fatal(err)
	}
}
