package replay_test

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/policies"
	"github.com/gpureplay/gpureplay/replay"
	"github.com/gpureplay/gpureplay/results"
	"github.com/gpureplay/gpureplay/trace"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the expected output of golden cases (then check every change by hand)")

// TestGolden runs every case in testdata/*.txt. A file holds cases like:
//
//	# what the case shows and how the numbers were computed
//	run policy=cdp set=gpu.sms=1,lat.host_issue=0 show=kernels,ctas
//	{"type":"header",...}      <- the trace, JSONL
//	----
//	kernel id=1 ...            <- the expected rows
//	====
//
// A line "defaults set=... show=..." applies to the cases after it. With
// rows=none the sink keeps no rows (results.Discarder), as the terminal
// summary's does: the tables it shows are then the ones the engine still
// writes.
// Expected values are computed by hand in the comments above each case.
func TestGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.txt")
	if len(files) == 0 {
		t.Fatal("no golden files")
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txt"), func(t *testing.T) { runGoldenFile(t, f) })
	}
}

type goldenCase struct {
	line     int
	args     map[string]string
	trace    []string
	want     []string
	comments []string
}

func runGoldenFile(t *testing.T, path string) {
	cases, tail := parseGolden(t, path)
	var out strings.Builder
	for _, c := range cases {
		got := runCase(t, c)
		name := fmt.Sprintf("line%d", c.line)
		if !*rewrite {
			if g, w := strings.Join(got, "\n"), strings.Join(c.want, "\n"); g != w {
				t.Errorf("%s:%d: output differs\n--- got\n%s\n--- want\n%s", path, c.line, g, w)
			}
		}
		_ = name
		c.want = got
		writeCase(&out, c)
	}
	out.WriteString(tail)
	if *rewrite {
		if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func parseGolden(t *testing.T, path string) ([]goldenCase, string) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	defaults := map[string]string{}
	var cases []goldenCase
	var cur *goldenCase
	var comments []string
	mode := ""
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		switch {
		case mode == "" && strings.HasPrefix(line, "defaults "):
			for k, v := range parseArgs(line[len("defaults "):]) {
				defaults[k] = v
			}
			comments = append(comments, line)
		case mode == "" && strings.HasPrefix(line, "run"):
			args := map[string]string{}
			for k, v := range defaults {
				args[k] = v
			}
			for k, v := range parseArgs(strings.TrimPrefix(line, "run")) {
				if k == "set" && args["set"] != "" {
					v = args["set"] + "," + v
				}
				args[k] = v
			}
			cases = append(cases, goldenCase{line: n, args: args, comments: append(comments, line)})
			comments = nil
			cur = &cases[len(cases)-1]
			mode = "trace"
		case mode == "trace" && line == "----":
			mode = "want"
		case mode == "trace":
			cur.trace = append(cur.trace, line)
		case mode == "want" && line == "====":
			mode = ""
		case mode == "want":
			cur.want = append(cur.want, line)
		default:
			comments = append(comments, line)
		}
	}
	if mode != "" {
		t.Fatalf("%s: case at line %d is not closed with ====", path, cur.line)
	}
	return cases, joinLines(comments)
}

func joinLines(ls []string) string {
	if len(ls) == 0 {
		return ""
	}
	return strings.Join(ls, "\n") + "\n"
}

func writeCase(b *strings.Builder, c goldenCase) {
	b.WriteString(joinLines(c.comments))
	b.WriteString(joinLines(c.trace))
	b.WriteString("----\n")
	b.WriteString(joinLines(c.want))
	b.WriteString("====\n")
}

func parseArgs(s string) map[string]string {
	m := map[string]string{}
	for _, f := range strings.Fields(s) {
		k, v, _ := strings.Cut(f, "=")
		m[k] = v
	}
	return m
}

// runCase replays one case and renders the tables it asks for.
func runCase(t *testing.T, c goldenCase) []string {
	cfg, err := model.Preset(orDefault(c.args["gpu"], "k20c"))
	if err != nil {
		t.Fatal(err)
	}
	if s := c.args["set"]; s != "" {
		for _, kv := range strings.Split(s, ",") {
			k, v, _ := strings.Cut(kv, "=")
			if err := cfg.Set(k, v); err != nil {
				t.Fatalf("line %d: %v", c.line, err)
			}
		}
	}
	show := strings.Split(orDefault(c.args["show"], "summary,kernels,ctas,launches"), ",")
	src := strings.Join(c.trace, "\n")
	jsonl := func() (trace.Source, error) { return trace.NewJSONLReader(strings.NewReader(src)), nil }
	run := func(open replay.Opener, prefetch bool) []string {
		pol, err := policies.New(orDefault(c.args["policy"], "cdp"), cfg)
		if p, ok := testPolicies[c.args["policy"]]; ok {
			pol, err = p, nil
		}
		if err != nil {
			t.Fatalf("line %d: %v", c.line, err)
		}
		rec := &recorder{}
		var sink results.Sink = rec
		if c.args["rows"] == "none" {
			q := &discarder{}
			sink, rec = q, &q.recorder
		}
		st, err := replay.Run(open, replay.Options{Config: cfg, Policy: pol, Prefetch: prefetch, CDPFloor: true}, sink)
		if err != nil {
			return []string{"error: " + err.Error()}
		}
		return rec.render(st, show)
	}
	got := run(jsonl, false)
	// Reading the trace on a goroutine of its own changes nothing.
	if pre := run(jsonl, true); !slices.Equal(pre, got) {
		t.Errorf("line %d: with Prefetch the case gives\n%s\nwithout\n%s", c.line, strings.Join(pre, "\n"), strings.Join(got, "\n"))
	}
	// Nor does taking the host operations from a binary trace's host
	// index. A trace error names its record in either encoding's terms
	// (a line, a byte offset), so then both must fail.
	if data, ok := binaryOf(src); ok {
		for _, prefetch := range []bool{false, true} {
			ix := run(openIndexed(data, nil), prefetch)
			same := slices.Equal(ix, got)
			if strings.HasPrefix(strings.Join(got, ""), "error: trace:") {
				same = strings.HasPrefix(strings.Join(ix, ""), "error: trace:")
			}
			if !same {
				t.Errorf("line %d: from the host index (prefetch %v) the case gives\n%s\nfrom JSONL\n%s", c.line, prefetch, strings.Join(ix, "\n"), strings.Join(got, "\n"))
			}
		}
	}
	return got
}

// testPolicies are mechanisms only the golden cases use, to reach engine
// behaviour no real policy provokes.
var testPolicies = map[string]replay.Policy{
	// never-2 never lets kernel 2's CTAs start: a deadlock.
	"never-2": {Name: "never-2", Gate: gateFunc(func(k *replay.Kernel, _ uint64) bool { return k.ID() != 2 })},
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// recorder is an in-memory results.Sink.
type recorder struct {
	kernels   []results.Kernel
	ctas      []results.CTA
	launches  []results.Launch
	occupancy []results.Occupancy
	pages     []results.Page
	stages    []results.Stage
}

func (r *recorder) Kernel(x results.Kernel)       { r.kernels = append(r.kernels, x) }
func (r *recorder) CTA(x results.CTA)             { r.ctas = append(r.ctas, x) }
func (r *recorder) Launch(x results.Launch)       { r.launches = append(r.launches, x) }
func (r *recorder) Occupancy(x results.Occupancy) { r.occupancy = append(r.occupancy, x) }
func (r *recorder) Page(x results.Page)           { r.pages = append(r.pages, x) }
func (r *recorder) Stage(x results.Stage)         { r.stages = append(r.stages, x) }

// render prints rows in a stable order (kernels by id, CTAs by kernel and
// index, launches by cycle, parent and lane) so cases read naturally.
func (r *recorder) render(st *replay.Stats, show []string) []string {
	var out []string
	for _, s := range show {
		switch s {
		case "summary":
			line := fmt.Sprintf("summary makespan=%d kernels=%d device_kernels=%d ctas=%d sites=%d launched=%d inlined=%d stall=%d",
				st.MakespanCycles, st.Kernels, st.DeviceKernels, st.CTAs, st.LaunchSites, st.Launched, st.Inlined, st.StallCycles)
			if st.Coalesced > 0 {
				line += fmt.Sprintf(" coalesced=%d", st.Coalesced)
			}
			out = append(out, line)
		case "cdpfloor":
			out = append(out, fmt.Sprintf("cdpfloor floor=%d", st.CDPFloorCycles))
		case "blind":
			out = append(out, fmt.Sprintf("blind sites=%d of %d floor=%d", st.BlindSites, st.LaunchSites, st.BlindFloorCycles))
		case "kernels":
			ks := append([]results.Kernel(nil), r.kernels...)
			sort.Slice(ks, func(i, j int) bool { return ks[i].KernelID < ks[j].KernelID })
			for _, k := range ks {
				parent := "-"
				if k.ParentKernelID != nil {
					parent = fmt.Sprint(*k.ParentKernelID)
				}
				line := fmt.Sprintf("kernel %d %s parent=%s launch=%d ready=%d start=%d end=%d wait=%d",
					k.KernelID, k.Origin, parent, k.LaunchCycle, k.ReadyCycle, k.StartCycle, k.EndCycle, k.WaitCycles)
				if k.CoalescedGroups > 0 {
					line += fmt.Sprintf(" groups=%d", k.CoalescedGroups)
				}
				out = append(out, line)
			}
		case "ctas":
			cs := append([]results.CTA(nil), r.ctas...)
			sort.Slice(cs, func(i, j int) bool {
				if cs[i].KernelID != cs[j].KernelID {
					return cs[i].KernelID < cs[j].KernelID
				}
				if gi, gj := group(cs[i]), group(cs[j]); gi != gj {
					return gi < gj
				}
				return cs[i].CTA < cs[j].CTA
			})
			for _, c := range cs {
				name := fmt.Sprintf("%d/%d", c.KernelID, c.CTA)
				if c.GroupID != nil {
					name = fmt.Sprintf("%d/g%d/%d", c.KernelID, *c.GroupID, c.CTA)
				}
				line := fmt.Sprintf("cta %s sm=%d dispatch=%d start=%d end=%d stall=%d",
					name, c.SM, c.DispatchCycle, c.StartCycle, c.EndCycle, c.StallCycles)
				if c.Slowdown != nil {
					line += fmt.Sprintf(" slowdown=%.3f", *c.Slowdown)
				}
				out = append(out, line)
			}
		case "launches":
			for _, l := range r.launches {
				line := fmt.Sprintf("site %d cycle=%d parent=%d/%d warp=%d lane=%d child=%d workload=%d %s",
					l.SiteID, l.Cycle, l.ParentKernelID, l.ParentCTA, l.Warp, l.Lane, l.ChildKernelID, l.Workload, l.Decision)
				if l.TargetKernelID != nil {
					line += fmt.Sprintf(" target=%d", *l.TargetKernelID)
				}
				if l.EstChildCycles != nil && l.EstParentCycles != nil {
					line += fmt.Sprintf(" est_child=%.0f est_parent=%.0f", *l.EstChildCycles, *l.EstParentCycles)
				}
				out = append(out, line)
			}
		case "pages":
			for _, p := range r.pages {
				k := "-"
				if p.KernelID != nil {
					k = fmt.Sprint(*p.KernelID)
				}
				out = append(out, fmt.Sprintf("page %d/%d %s kernel=%s cycle=%d", p.Buffer, p.Page, p.Event, k, p.Cycle))
			}
		case "stages":
			for _, s := range r.stages {
				out = append(out, fmt.Sprintf("stage %s %d..%d", s.Stage, s.StartCycle, s.EndCycle))
			}
		case "utilization":
			if st.Contention {
				out = append(out, fmt.Sprintf("utilization issue=%.4f dram=%.4f", st.IssueUtilization, st.DRAMUtilization))
			} else {
				out = append(out, "utilization off")
			}
		case "occupancy-avg":
			out = append(out, fmt.Sprintf("avg_occupancy=%.4f", st.AvgOccupancy))
		case "occupancy":
			for _, o := range r.occupancy {
				out = append(out, fmt.Sprintf("occ sm=%d cycle=%d width=%d warps=%.3f ctas=%.3f",
					o.SM, o.Cycle, o.WindowCycles, o.ActiveWarps, o.ActiveCTAs))
			}
		}
	}
	return out
}

// group is a CTA's aggregated group id, 0 for a native CTA (sorted first).
func group(c results.CTA) uint64 {
	if c.GroupID == nil {
		return 0
	}
	return *c.GroupID
}
