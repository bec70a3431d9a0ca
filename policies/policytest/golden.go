// Package policytest runs golden cases of scheduling policies: small
// traces with the rows the replay must produce under a policy, worked out
// by hand, in the data-driven files the engine's own cases use
// (replay/testdata/*.txt). A policy from another module tests itself the
// same way (docs/policies.md, examples/ownpolicy).
//
// A file holds cases like:
//
//	# what the case shows and how the numbers were computed
//	run policy=cdp set=gpu.sms=1,lat.host_issue=0 show=kernels,ctas
//	{"type":"header",...}      <- the trace, JSONL
//	kernels n=8 cycles=500     <- or a builder line standing for records (build.go)
//	----
//	kernel 1 host ...          <- the expected rows
//	====
//
// A line "defaults set=... show=..." applies to the cases after it (a
// case's set= adds to the defaults'). gpu= names the preset (k20c when
// absent), policy= the --policy spec (cdp), show= the tables (summary,
// kernels, ctas, launches). With rows=none the sink keeps no rows
// (tables.Discarder), as the terminal summary's does: the tables it shows
// are then the ones the engine still writes. go test -rewrite writes each
// case's output as its expected rows, to be checked by hand.
package policytest

import (
	"bufio"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gpureplay/gpureplay/bounds"
	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/policies"
	"github.com/gpureplay/gpureplay/replay"
	"github.com/gpureplay/gpureplay/tables"
	"github.com/gpureplay/gpureplay/trace"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the expected output of golden cases (then check every change by hand)")

// Case is one golden case.
type Case struct {
	Line     int               // of its run line
	Args     map[string]string // gpu, policy, set, show, and any a runner reads
	Trace    []string          // JSONL records, builder lines expanded (build.go)
	source   []string          // the trace as written
	want     []string
	comments []string
}

// Config is the case's preset (gpu=, k20c by default) with its set= keys.
func (c Case) Config() (model.Config, error) {
	cfg, err := model.Preset(c.Arg("gpu", "k20c"))
	if err != nil {
		return cfg, err
	}
	if s := c.Args["set"]; s != "" {
		for _, kv := range strings.Split(s, ",") {
			k, v, _ := strings.Cut(kv, "=")
			if err := cfg.Set(k, v); err != nil {
				return cfg, err
			}
		}
	}
	return cfg, cfg.Validate()
}

// Arg is the case's argument name, or def when it has none.
func (c Case) Arg(name, def string) string {
	if v := c.Args[name]; v != "" {
		return v
	}
	return def
}

// Show is the tables the case prints (show=, by default summary, kernels,
// ctas and launches).
func (c Case) Show() []string {
	return strings.Split(c.Arg("show", "summary,kernels,ctas,launches"), ",")
}

// Replay runs the case's trace under its policy (policies.New, so any
// registered policy) and renders the tables it shows; a failed replay is
// one row "error: ...".
func Replay(t *testing.T, c Case) []string {
	t.Helper()
	return Run(c, c.Options(t), c.JSONL())
}

// Options are the case's configuration (Config) and its policy
// (policy=, cdp by default, through policies.New); a bad one fails t.
func (c Case) Options(t testing.TB) replay.Options {
	t.Helper()
	cfg, err := c.Config()
	if err != nil {
		t.Fatalf("line %d: %v", c.Line, err)
	}
	pol, err := policies.New(c.Arg("policy", "cdp"), cfg)
	if err != nil {
		t.Fatalf("line %d: %v", c.Line, err)
	}
	return replay.Options{Config: cfg, Policy: pol}
}

// JSONL opens the case's trace.
func (c Case) JSONL() replay.Opener {
	src := strings.Join(c.Trace, "\n")
	return func() (trace.Source, error) { return trace.NewJSONLReader(strings.NewReader(src)), nil }
}

// Run replays open with opts and renders the tables c shows: where they
// include cdpfloor or blind, with the floors attached (bounds.Attach).
func Run(c Case, opts replay.Options, open replay.Opener) []string {
	rec := &Recorder{}
	var sink tables.Sink = rec
	if c.Args["rows"] == "none" {
		sink = discarder{rec}
	}
	found := func(*replay.Stats) bounds.Bounds { return bounds.Bounds{} }
	if show := c.Show(); slices.Contains(show, "cdpfloor") || slices.Contains(show, "blind") {
		found = bounds.Attach(&opts)
	}
	st, err := replay.Run(open, opts, sink)
	if err != nil {
		return []string{"error: " + err.Error()}
	}
	return rec.Render(st, found(st), c.Show())
}

// discarder is a Recorder that asks for no rows (tables.Discarder).
type discarder struct{ *Recorder }

func (discarder) DiscardsRows() bool { return true }

// Files runs every case of the files glob matches, each file a subtest,
// comparing what run returns with the expected rows (or, under -rewrite,
// writing it as them).
func Files(t *testing.T, glob string, run func(t *testing.T, c Case) []string) {
	files, _ := filepath.Glob(glob)
	if len(files) == 0 {
		t.Fatalf("no golden files match %s", glob)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txt"), func(t *testing.T) { runFile(t, f, run) })
	}
}

func runFile(t *testing.T, path string, run func(t *testing.T, c Case) []string) {
	cases, tail := parse(t, path)
	var out strings.Builder
	for _, c := range cases {
		got := run(t, c)
		if !*rewrite {
			if g, w := strings.Join(got, "\n"), strings.Join(c.want, "\n"); g != w {
				t.Errorf("%s:%d: output differs\n--- got\n%s\n--- want\n%s", path, c.Line, g, w)
			}
		}
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

func parse(t *testing.T, path string) ([]Case, string) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	defaults := map[string]string{}
	var cases []Case
	var cur *Case
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
			cases = append(cases, Case{Line: n, Args: args, comments: append(comments, line)})
			comments = nil
			cur = &cases[len(cases)-1]
			mode = "trace"
		case mode == "trace" && line == "----":
			mode = "want"
		case mode == "trace":
			recs, err := expand(line)
			if err != nil {
				t.Fatalf("%s:%d: %v", path, n, err)
			}
			cur.Trace = append(cur.Trace, recs...)
			cur.source = append(cur.source, line)
		case mode == "want" && line == "====":
			mode = ""
		case mode == "want":
			cur.want = append(cur.want, line)
		default:
			comments = append(comments, line)
		}
	}
	if mode != "" {
		t.Fatalf("%s: case at line %d is not closed with ====", path, cur.Line)
	}
	return cases, joinLines(comments)
}

func joinLines(ls []string) string {
	if len(ls) == 0 {
		return ""
	}
	return strings.Join(ls, "\n") + "\n"
}

func writeCase(b *strings.Builder, c Case) {
	b.WriteString(joinLines(c.comments))
	b.WriteString(joinLines(c.source))
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
