package replaycli

import (
	"bufio"
	"io"

	"github.com/gpureplay/gpureplay/trace"
)

const dumpSynopsis = `replay dump — print a trace as JSONL

Usage:
  replay dump TRACE > trace.jsonl

One JSON object per record, with the field names of the trace schema
(docs/trace-format.md). replay convert --from=jsonl turns it back into the
identical binary trace.
`

func runDump(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("dump", dumpSynopsis, stdout)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("dump: want one TRACE")
	}
	src, err := trace.Open(fs.Arg(0))
	if err != nil {
		return badInput(inFile(fs.Arg(0), err))
	}
	defer src.Close()
	bw := bufio.NewWriterSize(stdout, 1<<16)
	w := trace.NewJSONLWriter(bw)
	if err := forEach(trace.NewValidator(src), w.Write); err != nil {
		w.Close()
		bw.Flush()
		return badInputIfTrace(inFile(fs.Arg(0), err))
	}
	if err := w.Close(); err != nil {
		return err
	}
	return bw.Flush()
}
