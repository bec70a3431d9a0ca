package replaycli

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/gpureplay/gpureplay/internal/tempfile"
	"github.com/gpureplay/gpureplay/report"
	"github.com/gpureplay/gpureplay/results"
	"github.com/gpureplay/gpureplay/study"
)

const reportSynopsis = `replay report — one HTML page of tables and figures from result tables

Usage:
  replay report DIR... -o report.html [--figures FIGDIR]

Reads the tables replay --out wrote (Parquet, Arrow or CSV) in each DIR and
writes one self-contained page: the summary, speedups, occupancy over
time, launch decisions and controller estimates, page readiness and host
stages (CRCS), task latency (narrow tasks) and a kernel Gantt chart per
run. It needs no network to open. --figures also writes each figure as
SVG and PNG, for papers. An existing -o file is replaced only if it is a
report (or empty).

Examples:
  replay --policy=cdp,flat,dtbl --out out samples/bfs-kron12.trace.zst
  replay report out -o out/report.html
  replay report results/a results/b -o compare.html --figures figs/
`

func runReport(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("report", reportSynopsis, stdout)
	out := fs.StringP("output", "o", "", "the HTML file to write")
	figs := fs.String("figures", "", "also write every figure as SVG and PNG into this directory")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usagef("report: want at least one results DIR")
	}
	if *out == "" {
		return usagef("report: want -o FILE.html")
	}
	var tables []named
	for _, dir := range fs.Args() {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return badInput(fmt.Errorf("report: %s is not a directory of result tables", dir))
		}
		if st, err := os.Stat(study.Dataset{Dir: dir}.StudyDir()); err == nil && st.IsDir() {
			return badInput(fmt.Errorf("report: %s is a study's dataset (its tables are hive-partitioned parts, %s/<table>/policy=.../shard=.../part-*), not the tables of one replay --out; query it with DuckDB, pandas or polars (docs/scale-out.md), or replay the study's manifest with --out DIR for a report", dir, dir))
		}
		for _, f := range []results.Format{results.Parquet, results.Arrow, results.CSV} {
			tables = append(tables, tableFiles(dir, f)...)
		}
	}
	if err := checkOutputs(tables, []named{{"-o", *out}}); err != nil {
		return err
	}
	if err := checkReportPath(*out); err != nil {
		return err
	}
	// Created first, so an output that cannot be written fails before the
	// tables are read; the figures' directory likewise, with the exit
	// status of every output that cannot be written (2).
	page, err := tempfile.Create(*out)
	if err != nil {
		return badInput(fmt.Errorf("-o: %w", err))
	}
	if err := checkFigures(*figs); err != nil {
		page.Discard()
		return err
	}
	if err := writeReport(page, fs.Args(), *figs); err != nil {
		page.Discard()
		return err
	}
	if err := page.Commit(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "report written to %s\n", *out)
	return nil
}

// checkFigures makes --figures' directory and checks that a figure can
// be written there, before any work.
func checkFigures(dir string) error {
	if dir == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return badInput(fmt.Errorf("--figures: %w", err))
	}
	probe, err := tempfile.Create(filepath.Join(dir, "report.svg"))
	if err != nil {
		return badInput(fmt.Errorf("--figures: %w", err))
	}
	probe.Discard()
	return nil
}

// writeReport reads the tables of dirs and writes the page into page.
// Every error reading the tables is the tables' (a missing, old, damaged
// or unreadable table: exit 2, as for any other input).
func writeReport(page io.Writer, dirs []string, figs string) error {
	data, err := report.Load(dirs)
	if err != nil {
		return badInput(err)
	}
	bw := bufio.NewWriter(page)
	if err := data.Write(bw, dirs, figs); err != nil {
		return err
	}
	return bw.Flush()
}
