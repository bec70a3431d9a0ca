package report

import (
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/gpureplay/gpureplay/internal/tempfile"
)

// Prefix is how every report starts: replay report -o replaces an
// existing file only if it begins so (a report it wrote before).
const Prefix = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>gpureplay report</title>
`

// page is the HTML report: one file, its figures inline as SVG, no script
// and nothing fetched, so it opens offline and can be mailed. It is parsed
// when a report is first written, not when the program starts: every
// replay links this package, and parsing it at start cost each run some
// 0.8M instructions.
var page = sync.OnceValue(func() *template.Template { return template.Must(template.New("report").Parse(pageText)) })

const pageText = Prefix + `<style>
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1180px; color: #222; }
h1 { font-size: 1.6em; } h2 { font-size: 1.2em; margin-top: 2em; }
table { border-collapse: collapse; font-size: 0.85em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.5em; text-align: right; }
th { background: #f3f3f3; } td.l { text-align: left; }
figure { margin: 1.5em 0; } figcaption { font-size: 0.85em; color: #555; max-width: 720px; }
div.scroll { overflow-x: auto; } #summary td { white-space: nowrap; }
details { margin: 0.6em 0; } summary { cursor: pointer; font-weight: 600; }
td.gain { color: #1a7f37; } td.loss { color: #b3261e; }
p.note { font-size: 0.85em; color: #555; max-width: 720px; }
.figure svg { max-width: 100%; height: auto; }
</style>
</head>
<body>
<h1>gpureplay report</h1>
<p>{{.Runs}} run{{if ne .Runs 1}}s{{end}} from {{.Dirs}}.</p>
<h2>Summary</h2>
<div class="scroll"><table id="summary">
<tr><th>trace</th><th>policy</th><th>params</th><th>gpu</th><th>makespan (cycles)</th><th>makespan (µs)</th><th>speedup</th><th>kernels</th><th>CTAs</th><th>launched</th><th>inlined</th><th>coalesced</th><th>occupancy</th><th>issue util.</th><th>DRAM util.</th></tr>
{{range .Rows}}<tr><td class="l">{{.Trace}}</td><td class="l">{{.Policy}}</td><td class="l">{{.Params}}</td><td class="l">{{.GPU}}</td><td>{{.Makespan}}</td><td>{{.MakespanUS}}</td><td>{{.Speedup}}</td><td>{{.Kernels}}</td><td>{{.CTAs}}</td><td>{{.Launched}}</td><td>{{.Inlined}}</td><td>{{.Coalesced}}</td><td>{{.Occupancy}}</td><td>{{.Issue}}</td><td>{{.DRAM}}</td></tr>
{{end}}</table></div>
<h2>Kernels by name</h2>
<p class="note">Per run, each kernel name's instances, run time (first CTA to completion: total, mean, min, max), summed wait (launch to first CTA), all in µs, and its run time's share of the makespan (summed over instances, so names running side by side can pass 100%). The {{.MaxNames}} names with the most run time; the rest in one row. The same table comes from the tables by the query in docs/tables.md.</p>
{{range $i, $t := .Names}}<details class="names"{{if lt $i 3}} open{{end}}><summary>{{$t.Label}}</summary>
<table>
<tr><th>kernel</th><th>instances</th><th>total run</th><th>mean</th><th>min</th><th>max</th><th>wait</th><th>share of makespan</th></tr>
{{range $t.Rows}}<tr><td class="l">{{.Name}}</td><td>{{.Instances}}</td><td>{{.Total}}</td><td>{{.Mean}}</td><td>{{.Min}}</td><td>{{.Max}}</td><td>{{.Wait}}</td><td>{{.Share}}</td></tr>
{{end}}</table></details>
{{end}}{{if .Waits}}<h2>Where the wait went</h2>
<p class="note">Per run, its kernels' time from launch to first CTA, summed over kernels, in µs and as a share of that sum, by cause: host (a host kernel's issue, trip to the Kernel Management Unit and wait for a Kernel Distributor entry), launch path (a device kernel's, from its launch site to a Kernel Distributor entry), dependencies (waiting for the kernel launched before it into its stream to complete) and Kernel Distributor queue (ready until its first CTA ran: waiting for room on the SMs, or for a policy holding placed CTAs). The tables hold no cycle of arrival at the Kernel Management Unit, so the wait for a Kernel Distributor entry counts in host or launch path.{{if .WaitsIO}} I/O: the makespan's time in host I/O stages outside the kernels stage, and its share of the makespan.{{end}}{{if .SyncCols}} The other side: the host's own wait on the GPU, the time its threads were held in blocking calls (the syncs table: return − call, in µs, with the calls in brackets), per call and in all, with its share of the makespan.{{end}} The same breakdown comes from the tables by the queries in docs/tables.md.</p>
<div class="scroll"><table id="waits">
<tr><th>run</th><th>host</th><th>launch path</th><th>dependencies</th><th>KD queue</th><th>total wait</th>{{if .WaitsIO}}<th>I/O</th>{{end}}{{range .SyncCols}}<th>host in {{.Head}}</th>{{end}}{{if .SyncCols}}<th>host waited on the GPU</th>{{end}}</tr>
{{range $w := .Waits}}<tr><td class="l">{{.Label}}</td><td>{{.Host}} ({{.HostShare}})</td><td>{{.Path}} ({{.PathShare}})</td><td>{{.Deps}} ({{.DepsShare}})</td><td>{{.KD}} ({{.KDShare}})</td><td>{{.Wait}}</td>{{if $.WaitsIO}}<td>{{if .IO}}{{.IO}} ({{.IOShare}}){{else}}—{{end}}</td>{{end}}{{range $.SyncCols}}<td>{{with index $w.Sync .I}}{{.}}{{else}}—{{end}}</td>{{end}}{{if $.SyncCols}}<td>{{if .SyncWait}}{{.SyncWait}}, {{.SyncShare}}{{else}}—{{end}}</td>{{end}}</tr>
{{end}}</table></div>
{{end}}{{if .Diffs}}<h2>Against the baseline</h2>
<p class="note">Each run against the first policy of its trace and sweep combination (the summary's speedup baseline), per kernel name: run time and wait in µs in the baseline, in the run, and the change (green: the run spends less time there). The {{.MaxNames}} names that changed most.</p>
{{range $i, $t := .Diffs}}<details class="diff"{{if lt $i 3}} open{{end}}><summary>{{$t.Label}} against {{$t.Base}}</summary>
<table>
<tr><th>kernel</th><th>instances</th><th>run, baseline</th><th>run</th><th>change</th><th>wait, baseline</th><th>wait</th><th>change</th></tr>
{{range $t.Rows}}<tr><td class="l">{{.Name}}</td><td>{{.BaseInstances}} → {{.Instances}}</td><td>{{.BaseRun}}</td><td>{{.Run}}</td><td class="{{.Change}}">{{.DRun}}</td><td>{{.BaseWait}}</td><td>{{.Wait}}</td><td>{{.DWait}}</td></tr>
{{end}}</table></details>
{{end}}{{end}}
{{range .Figures}}<h2>{{.Title}}</h2>
<figure class="figure" id="{{.Name}}">{{.SVG}}<figcaption>{{.Caption}}</figcaption></figure>
{{end}}
</body>
</html>
`

type pageRow struct {
	Trace, Policy, Params, GPU                  string
	Makespan, Kernels, CTAs                     int64
	Launched, Inlined, Coalesced                int64
	MakespanUS, Speedup, Occupancy, Issue, DRAM string
}

type nameView struct {
	Label string
	Rows  []nameRow
}

type diffView struct {
	Label, Base string
	Rows        []diffRow
}

// baselinePairs pairs each run that has kernels with the first run of its
// trace and sweep combination (the summary's speedup baseline), when that
// is another run.
func (d *Data) baselinePairs() [][2]*runData {
	first := map[[2]string]*runData{}
	var out [][2]*runData
	for _, rd := range d.runs {
		k := [2]string{rd.summary.run.dir + "\x00" + rd.summary.run.trace, rd.summary.run.params}
		base, ok := first[k]
		if !ok {
			first[k] = rd
			continue
		}
		if len(base.names) > 0 || len(rd.names) > 0 {
			out = append(out, [2]*runData{base, rd})
		}
	}
	return out
}

// syncCol is a column of the host's waits in "Where the wait went": a
// call some run made, I its index in waitRow.Sync.
type syncCol struct {
	I    int
	Head string
}

type pageFigure struct {
	Name, Title, Caption string
	SVG                  template.HTML
}

// Write renders the report page for dirs to w, and when figDir is not
// empty every figure as NAME.svg and NAME.png there.
func (d *Data) Write(w io.Writer, dirs []string, figDir string) error {
	view := struct {
		Runs     int
		Dirs     string
		Rows     []pageRow
		Names    []nameView
		Diffs    []diffView
		Waits    []waitRow
		WaitsIO  bool
		SyncCols []syncCol
		MaxNames int
		Figures  []pageFigure
	}{Runs: len(d.runs), Dirs: strings.Join(dirs, ", "), MaxNames: maxNames}
	for _, rd := range d.runs {
		if len(rd.names) > 0 {
			view.Names = append(view.Names, nameView{rd.summary.run.label(), rd.nameTable()})
			w := rd.waitRow()
			view.Waits = append(view.Waits, w)
			view.WaitsIO = view.WaitsIO || w.IO != ""
		}
	}
	for i, head := range syncHeads {
		if slices.ContainsFunc(view.Waits, func(w waitRow) bool { return w.Sync[i] != "" }) {
			view.SyncCols = append(view.SyncCols, syncCol{i, head})
		}
	}
	for _, p := range d.baselinePairs() {
		view.Diffs = append(view.Diffs, diffView{p[1].summary.run.label(), p[0].summary.run.policy, diffTable(p[0], p[1])})
	}
	for _, rd := range d.runs {
		s := rd.summary
		view.Rows = append(view.Rows, pageRow{
			Trace: s.run.trace, Policy: s.run.policy, Params: s.run.params, GPU: s.gpu,
			Makespan: s.makespan, Kernels: s.kernels, CTAs: s.ctas, Launched: s.launched, Inlined: s.inlined, Coalesced: s.coalesced,
			MakespanUS: fmt.Sprintf("%.1f", s.makespanUS), Speedup: fmt.Sprintf("%.3f×", s.speedup),
			Occupancy: fmt.Sprintf("%.1f%%", 100*s.occupancy), Issue: percent(s.issueUtil), DRAM: percent(s.dramUtil),
		})
	}
	if figDir != "" {
		if err := os.MkdirAll(figDir, 0o755); err != nil {
			return err
		}
	}
	for _, f := range d.Figures() {
		svg, err := f.Render("svg")
		if err != nil {
			return fmt.Errorf("figure %s: %w", f.Name, err)
		}
		view.Figures = append(view.Figures, pageFigure{Name: f.Name, Title: f.Title, Caption: f.Caption, SVG: template.HTML(stripProlog(svg))})
		if figDir != "" {
			if err := tempfile.WriteFile(filepath.Join(figDir, f.Name+".svg"), svg); err != nil {
				return err
			}
			png, err := f.Render("png")
			if err != nil {
				return fmt.Errorf("figure %s: %w", f.Name, err)
			}
			if err := tempfile.WriteFile(filepath.Join(figDir, f.Name+".png"), png); err != nil {
				return err
			}
		}
	}
	return page().Execute(w, view)
}

func percent(v *float64) string {
	if v == nil {
		return "—"
	}
	return fmt.Sprintf("%.1f%%", 100**v)
}

// stripProlog drops the XML declaration and doctype gonum's SVG starts
// with, which have no place inside HTML.
func stripProlog(svg []byte) string {
	s := string(svg)
	if i := strings.Index(s, "<svg"); i > 0 {
		s = s[i:]
	}
	return s
}
