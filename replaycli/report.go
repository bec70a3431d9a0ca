package replaycli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/gpureplay/gpureplay/internal/tempfile"
	"github.com/gpureplay/gpureplay/report"
	"github.com/gpureplay/gpureplay/results"
)

const reportSynopsis = `replay report — one HTML page of tables and figures from result tables

Usage:
  replay report DIR... -o report.html [--figures FIGDIR]

Reads the tables replay --out wrote (Parquet or Arrow) in each DIR and
writes one self-contained page: the summary, speedups, occupancy over
time, launch decisions and controller estimates, page readiness and host
stages (CRCS), task latency (narrow tasks) and a kernel Gantt chart per
run. It needs no network to open. --figures also writes each figure as
SVG and PNG, for papers.

Examples:
  replay --policy=cdp,flat,dtbl --out out samples/bfs-kron12.trace.zst
  replay report out -o report.html
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
	for _, dir := range fs.Args() {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return badInput(fmt.Errorf("report: %s is not a directory of result tables", dir))
		}
	}
	data, err := report.Load(fs.Args())
	var old *results.OldTableError
	if errors.Is(err, report.ErrNoResults) || errors.As(err, &old) {
		return badInput(err)
	}
	if err != nil {
		return err
	}
	var page bytes.Buffer
	if err := data.Write(&page, fs.Args(), *figs); err != nil {
		return err
	}
	if err := tempfile.WriteFile(*out, page.Bytes()); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "report written to %s\n", *out)
	return nil
}
