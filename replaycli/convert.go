package replaycli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/gpureplay/gpureplay/convert/accelsim"
	"github.com/gpureplay/gpureplay/convert/gpgpusim"
	"github.com/gpureplay/gpureplay/convert/kineto"
	"github.com/gpureplay/gpureplay/convert/nsys"
	"github.com/gpureplay/gpureplay/internal/tempfile"
	"github.com/gpureplay/gpureplay/trace"
)

const convertSynopsis = `replay convert — turn a trace into the canonical binary form

Usage:
  replay convert --from=FORMAT INPUT -o OUT.trace.zst

The input is read, validated record by record and written to OUT (binary
*.trace.zst, or JSONL if OUT ends in .jsonl). OUT appears only when the
whole input converted cleanly. An existing OUT is replaced only if it is a
trace (or empty), and never if the conversion reads it (its input, the
gpgpusim.config beside a log, an Accel-Sim kernel file).

--from=accelsim reads an Accel-Sim trace directory's kernelslist.g; --opt
KEY=VALUE (repeatable) sets its cost model and other assumptions (cpi,
issue_width, global_latency, sector_cycles, shared_latency,
mem_parallelism, clock_mhz, page_bytes, host_gap; docs/importers/accelsim.md).
--from=kineto reads a PyTorch profiler trace (JSON or .json.gz); its
--opt keys are clock_mhz, device and gpu.
--from=nsys reads an Nsight Systems SQLite export (nsys export --type
sqlite); its --opt keys are clock_mhz, device, gpu and names
(demangled|short).
--from=gpgpusim reads a GPGPU-Sim run's output (plain, .xz, .gz or .zst)
logged with LIVENESS tracing (-trace_enabled 1, -trace_components
LIVENESS, -trace_sampling_core -1); device launches need the run to have
had PTX_SIM_DEBUG=1. Its --opt keys are config (a gpgpusim.config for
options the log does not print; default: the one beside the log), gpu,
inline (loop|warp|cta|levels: which flat code does a child's work in
its parent: a lane looping over its threads, the default; its warp or
its CTA sharing them; or levels, no parent: one host kernel a launch
depth, each after the one before), cta_once (cycles a CTA pays once), loop_share (a lone
thread's share of its warp's time under loop), loop_accesses (the loop body's
memory instructions that send an access a lane: what each further lane of a
launch adds to an iteration, one access a cycle) and syncs (on|off: write the
host's waits for the GPU as sync records; on by default;
docs/importers/gpgpusim.md).
Replay it with --gpu=captured to get the simulator's GPU and latencies.

Examples:
  replay convert --from=jsonl testdata/app.jsonl -o app.trace.zst
  replay convert --from=accelsim traces/kernelslist.g -o app.trace.zst
  replay convert --from=kineto --opt clock_mhz=1410 trace.json.gz -o app.trace.zst
  replay convert --from=nsys report.sqlite -o app.trace.zst
  replay convert --from=gpgpusim run.log -o app.trace.zst && replay --gpu=captured app.trace.zst
`

// importer converts inputs into out, with its --opt KEY=VALUE settings,
// showing progress on stderr; it returns what it made (nil when it has no
// summary), printed only once the trace is in place, so a conversion
// refused at the end says one thing.
type importer func(inputs, opts []string, out trace.Sink, stderr io.Writer) (fmt.Stringer, error)

// importers are the formats convert reads, by --from name.
var importers = map[string]importer{
	"jsonl":    importJSONL,
	"accelsim": importAccelSim,
	"kineto":   importKineto,
	"nsys":     importNsys,
	"gpgpusim": importGPGPUSim,
}

func runConvert(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("convert", convertSynopsis, stdout)
	from := fs.String("from", "", "input format: "+strings.Join(importerNames(), ", "))
	out := fs.StringP("output", "o", "", "output trace file")
	opts := fs.StringArray("opt", nil, "importer option KEY=VALUE (repeatable; accelsim, gpgpusim, kineto and nsys)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	imp, ok := importers[*from]
	switch {
	case *from == "":
		return usagef("convert: --from is required (%s)", strings.Join(importerNames(), ", "))
	case !ok:
		return usagef("convert: unknown --from %q; supported: %s", *from, strings.Join(importerNames(), ", "))
	case *out == "":
		return usagef("convert: -o OUT is required")
	case fs.NArg() == 0:
		return usagef("convert: no input given")
	}
	var inputs []named
	for _, in := range fs.Args() {
		inputs = append(inputs, named{"an input", in})
	}
	if err := checkOutputs(inputs, []named{{"-o", *out}}); err != nil {
		return err
	}
	if err := checkTracePath(*out); err != nil {
		return err
	}
	// Every importer's output is validated on its way out, so a trace that
	// converts is one the replay accepts.
	var sum fmt.Stringer
	err := writeTrace(*out, func(s trace.Sink) error {
		checked := trace.NewCheckedSink(s)
		var err error
		sum, err = imp(fs.Args(), *opts, checked, stderr)
		if err == nil {
			err = checked.Finish()
		}
		if cerr := checked.Finish(); cerr != nil && errors.Is(err, cerr) {
			// The importer's records, not its input, are at fault.
			return badInput(fmt.Errorf("%s: the converted trace would be refused by the replay: %w", strings.Join(fs.Args(), " "), cerr))
		}
		return badInputIfTrace(err)
	})
	if err == nil && sum != nil {
		fmt.Fprintln(stderr, sum)
	}
	if err != nil && fs.NArg() == 1 {
		if hint := inputHint(*from, fs.Arg(0)); hint != "" {
			err = fmt.Errorf("%w (%s)", err, hint)
		}
	}
	return err
}

// inputHint names what a file that an importer refused is, where it is
// plainly something another --from reads: an Nsight Systems export given
// to another importer said "not valid JSON" or quoted binary bytes as a
// trace line, and a gpureplay trace given to one needs no conversion.
func inputHint(from, path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	head := make([]byte, len(nsys.Magic))
	if n, _ := io.ReadFull(f, head); from != "nsys" && string(head[:n]) == nsys.Magic {
		return path + " is an SQLite database: --from=nsys reads Nsight Systems exports"
	}
	if from == "jsonl" {
		return ""
	}
	src, err := trace.Open(path)
	if err != nil {
		return ""
	}
	defer src.Close()
	if rec, err := trace.NewValidator(src).Next(); err == nil {
		if _, ok := rec.(*trace.Header); ok {
			return path + " is a gpureplay trace already: replay it as it is"
		}
	}
	return ""
}

func importerNames() []string {
	var ns []string
	for n := range importers {
		ns = append(ns, n)
	}
	sort.Strings(ns)
	return ns
}

// setOpts applies --opt KEY=VALUE settings through an importer's setter.
func setOpts(opts []string, set func(key, value string) error) error {
	for _, kv := range opts {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return usagef("convert: --opt %q: want KEY=VALUE", kv)
		}
		if err := set(k, v); err != nil {
			return usagef("convert: %v", err)
		}
	}
	return nil
}

// importJSONL copies a validated JSONL trace.
func importJSONL(inputs, opts []string, out trace.Sink, _ io.Writer) (fmt.Stringer, error) {
	if len(inputs) != 1 {
		return nil, usagef("convert --from=jsonl takes one input, got %d", len(inputs))
	}
	if len(opts) > 0 {
		return nil, usagef("convert --from=jsonl takes no --opt")
	}
	return nil, copyTrace(inputs[0], out)
}

// importKineto converts a PyTorch profiler trace (JSON or .json.gz) and
// reports what it made and what it left out.
func importKineto(inputs, opts []string, out trace.Sink, stderr io.Writer) (fmt.Stringer, error) {
	o := kineto.DefaultOptions()
	return importOne("kineto", "one trace", inputs, opts, o.Set, func(path string) (any, error) {
		return kineto.Convert(path, out, o)
	}, isError[*kineto.Error], stderr)
}

// importNsys converts an Nsight Systems SQLite export and reports what it
// made and what it left out.
func importNsys(inputs, opts []string, out trace.Sink, stderr io.Writer) (fmt.Stringer, error) {
	o := nsys.DefaultOptions()
	return importOne("nsys", "one report (.sqlite)", inputs, opts, o.Set, func(path string) (any, error) {
		return nsys.Convert(path, out, o)
	}, isError[*nsys.Error], stderr)
}

// importGPGPUSim converts a GPGPU-Sim log and reports what it made and
// what it could not carry over.
func importGPGPUSim(inputs, opts []string, out trace.Sink, stderr io.Writer) (fmt.Stringer, error) {
	o := gpgpusim.DefaultOptions()
	return importOne("gpgpusim", "one log", inputs, opts, o.Set, func(path string) (any, error) {
		return gpgpusim.Convert(path, out, o)
	}, isError[*gpgpusim.Error], stderr)
}

// importOne is an importer of one input file (one, what it takes, is
// said in the usage error): it applies the --opt settings through set,
// converts, and returns the converter's summary. An error the converter's
// own type names (bad) is the input's fault (exit 2).
func importOne(from, one string, inputs, opts []string, set func(key, value string) error, convert func(path string) (any, error), bad func(error) bool, stderr io.Writer) (fmt.Stringer, error) {
	if len(inputs) != 1 {
		return nil, usagef("convert --from=%s takes %s, got %d inputs", from, one, len(inputs))
	}
	if err := setOpts(opts, set); err != nil {
		return nil, err
	}
	sum, err := convert(inputs[0])
	if bad(err) {
		return nil, badInput(err)
	}
	if err != nil {
		return nil, err
	}
	return summary{sum}, nil
}

// summary prints a converter's summary value.
type summary struct{ v any }

func (s summary) String() string { return fmt.Sprint(s.v) }

// isError reports whether err is, or wraps, an error of type E.
func isError[E error](err error) bool {
	var e E
	return errors.As(err, &e)
}

// importAccelSim converts an Accel-Sim trace (DIR/kernelslist.g) with the
// given KEY=VALUE options, showing progress on stderr when it is a
// terminal.
func importAccelSim(inputs, opts []string, out trace.Sink, stderr io.Writer) (fmt.Stringer, error) {
	if len(inputs) != 1 {
		return nil, usagef("convert --from=accelsim takes one kernelslist.g, got %d inputs", len(inputs))
	}
	o := accelsim.DefaultOptions()
	if err := setOpts(opts, o.Set); err != nil {
		return nil, err
	}
	if isTerminal(stderr) {
		last := time.Now()
		o.Progress = func(p accelsim.Progress) {
			if time.Since(last) > 200*time.Millisecond {
				last = time.Now()
				fmt.Fprintf(stderr, "\r\033[Kaccelsim: pass %d/2, kernel %d/%d, %d MB read", p.Pass, p.Kernel, p.Kernels, p.Bytes>>20)
			}
		}
		defer fmt.Fprint(stderr, "\r\033[K")
	}
	err := accelsim.Convert(inputs[0], out, o)
	if isError[*accelsim.Error](err) {
		return nil, badInput(err)
	}
	return nil, err
}

// copyTrace streams every record of a validated trace into out.
func copyTrace(path string, out trace.Sink) error {
	src, err := trace.Open(path)
	if err != nil {
		return badInput(inFile(path, err))
	}
	defer src.Close()
	return badInputIfTrace(inFile(path, forEach(trace.NewValidator(src), out.Write)))
}

// inFile names the trace at path in a trace error about its records (an
// error of the output, which names its own file, stays as it is).
func inFile(path string, err error) error {
	var te *trace.Error
	if errors.As(err, &te) {
		return fmt.Errorf("%s: %w", path, err)
	}
	return err
}

// forEach calls fn for every record of src.
func forEach(src trace.Source, fn func(trace.Record) error) error {
	for {
		r, err := src.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := fn(r); err != nil {
			return err
		}
	}
}

// writeTrace writes the trace fill makes to path (trace.Create): it
// appears there only when fill and the encoding both succeed, so a failed
// run never leaves a half-written trace.
func writeTrace(path string, fill func(trace.Sink) error) error {
	out, err := trace.Create(path)
	if err != nil {
		return badInput(outputError(err))
	}
	if err := fill(out); err != nil {
		out.Abort()
		return err
	}
	if err := out.Close(); err != nil {
		if isError[*tempfile.InputError](err) {
			return badInput(outputError(err))
		}
		return err
	}
	return nil
}

// outputError names -o in an error creating or committing its file.
func outputError(err error) error {
	if isError[*tempfile.InputError](err) {
		return fmt.Errorf("-o %w", err)
	}
	return fmt.Errorf("-o: %w", err)
}
