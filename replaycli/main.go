// Package replaycli is the replay command as a library: cmd/replay is one
// call to Main, and a module of its own can build the same command with
// its own policies registered (see docs/policies.md). The command replays
// GPU execution traces through a timing model under scheduling policies
// from the DTBL, SPAWN, CRCS/PPCS and Pagoda papers and writes the results
// as Parquet, Arrow or CSV tables.
//
//	replay [flags] TRACE...        replay traces (default policy cdp)
//	replay convert --from=jsonl IN -o OUT.trace.zst
//	replay gen WORKLOAD [--param k=v ...] -o OUT.trace.zst
//	replay inspect TRACE [--json]
//	replay dump TRACE
//	replay policies | replay gpus | replay params
//	replay report DIR... -o report.html [--figures DIR]
//	replay study plan|run|status|slurm ...
//
// Exit status: 0 success; 2 bad usage, bad input, an output that cannot
// be written or would replace an input, or a policy's decision the
// engine refused; 1 a policy's panic or any other failure (the README's
// table lists each cause).
package replaycli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/gpureplay/gpureplay/internal/tempfile"
	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/policies"
	"github.com/gpureplay/gpureplay/study"
	"github.com/spf13/pflag"
)

// usageError is a mistake in how the command was called (exit status 2).
type usageError struct{ msg string }

func (u *usageError) Error() string { return u.msg }

func usagef(format string, a ...any) error { return &usageError{fmt.Sprintf(format, a...)} }

// inputError wraps a problem with the user's files or settings (exit 2).
type inputError struct{ err error }

func (i *inputError) Error() string { return i.err.Error() }
func (i *inputError) Unwrap() error { return i.err }

func badInput(err error) error {
	if err == nil {
		return nil
	}
	return &inputError{err}
}

// command is one subcommand.
type command struct {
	name  string
	usage string // one line for the overview
	run   func(args []string, stdout, stderr io.Writer) error
}

func commands() []command {
	return []command{
		{"convert", "convert a captured trace into the trace format", runConvert},
		{"gen", "generate a workload trace (replay gen --list)", runGen},
		{"inspect", "count a trace's records, kernels, CTAs and sites", runInspect},
		{"dump", "print a trace as JSONL", runDump},
		{"policies", "list the scheduling policies", runPolicies},
		{"gpus", "list the GPU presets", runGPUs},
		{"params", "list the model keys (--set) with defaults, units, ranges and meaning", runParams},
		{"report", "write an HTML report (and figures) from result tables", runReport},
		{"study", "plan a study, run it in shards, check it, or write a Slurm job array for it", runStudy},
	}
}

// Main runs the replay command on args (the command line without the
// program name) and returns the exit status for os.Exit. It installs the
// handler that removes unfinished files on SIGINT, SIGTERM and SIGHUP and
// tunes the garbage collector, so call it once per process.
//
// extra are policies of the caller's own, registered (policies.Register)
// beside the built-in ones before anything runs: --policy, --set and
// --sweep of their Params, `replay policies`, studies and Slurm array
// tasks (which run this same binary) take them as they take the built-in
// ones. One that Register refuses is reported, with exit status 1.
func Main(args []string, extra ...policies.Info) int {
	for _, p := range extra {
		if err := policies.Register(p); err != nil {
			fmt.Fprintln(os.Stderr, "replay: "+err.Error())
			return 1
		}
	}
	tuneGC()
	// Registered before anything is written, so no signal can find a
	// temporary file without the handler that removes it. The message is
	// one line: on a terminal the progress line (and the ^C the terminal
	// echoed) is cleared first, where a newline left an empty line above
	// it in every log.
	tempfile.ExitOnSignals(func(s os.Signal, n int) {
		clear := ""
		if isTerminal(os.Stderr) {
			clear = "\r\033[K"
		}
		fmt.Fprintf(os.Stderr, "%sreplay: %s: stopped; removed %d unfinished %s\n", clear, s, n, plural(n, "file"))
	})
	tempfile.OnSweep(func(dir string, removed []string) {
		fmt.Fprintf(os.Stderr, "replay: note: removed %d unfinished %s in %s left by a stopped run\n", len(removed), plural(len(removed), "file"), dir)
	})
	stdout := &checkedWriter{w: os.Stdout}
	code := run(args, stdout, os.Stderr)
	if code == 0 && stdout.err != nil {
		// The results went nowhere (a full disk, a closed pipe): a
		// success would be a lie.
		fmt.Fprintf(os.Stderr, "replay: writing standard output: %v\n", stdout.err)
		return 1
	}
	return code
}

// checkedWriter remembers the first error writing to w, so that output
// lost after the fact (standard output on a full disk) still fails the
// command.
type checkedWriter struct {
	w   io.Writer
	err error
}

func (c *checkedWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	c.err = err
	return n, err
}

func plural(n int, what string) string {
	if n == 1 {
		return what
	}
	return what + "s"
}

// run executes the command line and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	tempfile.ForgetInputs()
	err := dispatch(args, stdout, stderr)
	if err == nil {
		return 0
	}
	if errors.Is(err, pflag.ErrHelp) {
		return 0
	}
	fmt.Fprintln(stderr, "replay: "+oneLine(err.Error()))
	var pp *model.PolicyPanic
	if errors.As(err, &pp) {
		return 1 // the policy's own defect, whatever input it met
	}
	var u *usageError
	var in *inputError
	var replaced *tempfile.InputError
	if errors.As(err, &u) || errors.As(err, &in) || errors.As(err, &replaced) || study.IsInputError(err) {
		return 2
	}
	return 1
}

// oneLine keeps an error message on one readable line: newlines become
// "; " and a message longer than maxMessage (one quoting a huge field of a
// hostile trace, say) keeps its start and end around a note of what was
// left out.
func oneLine(msg string) string {
	msg = strings.ReplaceAll(strings.TrimSpace(msg), "\n", "; ")
	if len(msg) <= maxMessage {
		return msg
	}
	head, tail := msg[:maxMessage*2/3], msg[len(msg)-maxMessage/3:]
	return fmt.Sprintf("%s … (%d bytes left out) … %s", strings.ToValidUTF8(head, ""), len(msg)-len(head)-len(tail), strings.ToValidUTF8(tail, ""))
}

const maxMessage = 900

func dispatch(args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 {
		for _, c := range commands() {
			if args[0] == c.name {
				return c.run(args[1:], stdout, stderr)
			}
		}
		if args[0] == "help" {
			return runReplay([]string{"--help"}, stdout, stderr)
		}
	}
	return runReplay(args, stdout, stderr)
}

// newFlags makes a flag set whose errors are usage errors and whose --help
// prints the given text first.
func newFlags(name, synopsis string, out io.Writer) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(out)
	fs.SortFlags = false
	fs.Usage = func() {
		fmt.Fprint(out, synopsis)
		fmt.Fprintln(out, "\nFlags:")
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses and turns pflag's errors into usage errors.
func parseFlags(fs *pflag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return err
		}
		if fs.Name() == "replay" {
			return usagef("%v (see replay --help)", err)
		}
		return usagef("%s: %v (see replay %s --help)", fs.Name(), err, fs.Name())
	}
	return nil
}
