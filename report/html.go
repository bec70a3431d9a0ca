package report

import (
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"strings"

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
// and nothing fetched, so it opens offline and can be mailed.
var page = template.Must(template.New("report").Parse(Prefix + `<style>
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1100px; color: #222; }
h1 { font-size: 1.6em; } h2 { font-size: 1.2em; margin-top: 2em; }
table { border-collapse: collapse; font-size: 0.85em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.5em; text-align: right; }
th { background: #f3f3f3; } td.l { text-align: left; }
figure { margin: 1.5em 0; } figcaption { font-size: 0.85em; color: #555; max-width: 720px; }
.figure svg { max-width: 100%; height: auto; }
</style>
</head>
<body>
<h1>gpureplay report</h1>
<p>{{.Runs}} runs from {{.Dirs}}.</p>
<h2>Summary</h2>
<table id="summary">
<tr><th>trace</th><th>policy</th><th>params</th><th>gpu</th><th>makespan (cycles)</th><th>makespan (µs)</th><th>speedup</th><th>kernels</th><th>CTAs</th><th>launched</th><th>inlined</th><th>coalesced</th><th>occupancy</th><th>issue util.</th><th>DRAM util.</th></tr>
{{range .Rows}}<tr><td class="l">{{.Trace}}</td><td class="l">{{.Policy}}</td><td class="l">{{.Params}}</td><td class="l">{{.GPU}}</td><td>{{.Makespan}}</td><td>{{.MakespanUS}}</td><td>{{.Speedup}}</td><td>{{.Kernels}}</td><td>{{.CTAs}}</td><td>{{.Launched}}</td><td>{{.Inlined}}</td><td>{{.Coalesced}}</td><td>{{.Occupancy}}</td><td>{{.Issue}}</td><td>{{.DRAM}}</td></tr>
{{end}}</table>
{{range .Figures}}<h2>{{.Title}}</h2>
<figure class="figure" id="{{.Name}}">{{.SVG}}<figcaption>{{.Caption}}</figcaption></figure>
{{end}}
</body>
</html>
`))

type pageRow struct {
	Trace, Policy, Params, GPU                  string
	Makespan, Kernels, CTAs                     int64
	Launched, Inlined, Coalesced                int64
	MakespanUS, Speedup, Occupancy, Issue, DRAM string
}

type pageFigure struct {
	Name, Title, Caption string
	SVG                  template.HTML
}

// Write renders the report page for dirs to w, and when figDir is not
// empty every figure as NAME.svg and NAME.png there.
func (d *Data) Write(w io.Writer, dirs []string, figDir string) error {
	view := struct {
		Runs    int
		Dirs    string
		Rows    []pageRow
		Figures []pageFigure
	}{Runs: len(d.runs), Dirs: strings.Join(dirs, ", ")}
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
	return page.Execute(w, view)
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
