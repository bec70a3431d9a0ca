package kineto

import (
	"errors"
	"strings"
	"testing"

	"github.com/gpureplay/gpureplay/trace"
)

// discard is a trace.Sink that keeps nothing.
type discard struct{}

func (discard) Write(trace.Record) error { return nil }

const a100 = `"deviceProperties":[{"id":0,"name":"NVIDIA A100","numSms":108,"maxThreadsPerMultiprocessor":2048,"regsPerMultiprocessor":65536,"sharedMemPerMultiprocessor":167936,"computeMajor":8,"computeMinor":0}]`

const launch1 = `{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":1,"dur":1,"args":{"correlation":1}}`

// kernelDoc is a one-kernel trace whose kernel event has the given args.
func kernelDoc(args string) string {
	return `{` + a100 + `,"traceEvents":[` + launch1 + `,{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":2,"dur":3,"args":` + args + `}]}`
}

// TestErrors checks that bad input gives an *Error naming what was wrong
// and where.
func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		name, doc, want string
	}{
		{"not JSON", `hello`, "x.json (byte 1): not valid JSON"},
		{"a number", `42`, "x.json (byte 0): not a Kineto trace"},
		{"truncated", `{"traceEvents":[{"ph":"X"`, "truncated JSON"},
		{"no events", `{"traceEvents":[]}`, "no kernel events"},
		{"empty array", `[]`, "no kernel events"},
		{"events not an array", `{"traceEvents":{}}`, "traceEvents is not an array"},
		{"event not an object", `[1]`, "x.json: event 0 (byte 2): not an event object"},
		{"bad field", `[{"ph":"X","name":5}]`, `event 0 (byte 20): field "name": unexpected number`},
		{"bad ts", `[{},{"ts":"soon"}]`, "event 1 (byte 17): malformed event: want a number of microseconds"},
		{"trailing data", `[] []`, "data after the end"},
		{"no launch, no grid", `{` + a100 + `,"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":2,"dur":3,"args":{"correlation":9}}]}`,
			`x.json: no kernel of device 0 can be converted: each has neither a launch call nor a grid and block of its own`},
		{"no props", `{"traceEvents":[` + launch1 + `,{"ph":"X","cat":"kernel","name":"k","pid":3,"tid":7,"ts":2,"dur":3,"args":{"correlation":1}}]}`,
			"deviceProperties has no entry for device 3"},
		{"props lack numSms", `{"deviceProperties":[{"id":0}],"traceEvents":[` + launch1 + `,{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":2,"dur":3,"args":{"correlation":1}}]}`,
			"deviceProperties of device 0 has no numSms"},
		{"no grid", kernelDoc(`{"correlation":1}`), `kernel "k" has no grid or block`},
		{"bad grid", kernelDoc(`{"correlation":1,"grid":[0,1,1],"block":[1,1,1]}`), "has grid [0 1 1]"},
		{"grid not dims", kernelDoc(`{"correlation":1,"grid":{"x":1}}`), "bad args: want [x, y, z]"},
		{"big block", kernelDoc(`{"correlation":1,"grid":[1,1,1],"block":[1024,2,1]}`), "more than 1024 threads"},
		{"regs", kernelDoc(`{"correlation":1,"grid":[1,1,1],"block":[1,1,1],"registers per thread":300}`), `has "300" registers`},
		{"smem", kernelDoc(`{"correlation":1,"grid":[1,1,1],"block":[1,1,1],"shared memory":-4}`), `has "-4" bytes of shared memory`},
		{"too big for an SM", kernelDoc(`{"correlation":1,"grid":[1,1,1],"block":[1,1,1],"shared memory":200000}`), "does not fit on an SM of the captured GPU (smem limit)"},
		{"negative dur", `{` + a100 + `,"traceEvents":[` + launch1 + `,{"ph":"X","cat":"kernel","name":"k","pid":0,"ts":2,"dur":-3}]}`, "negative dur"},
		{"no ts", `{` + a100 + `,"traceEvents":[` + launch1 + `,{"ph":"X","cat":"kernel","name":"k","pid":0,"dur":3}]}`, "has no ts or no dur"},
		{"span", `{` + a100 + `,"traceEvents":[` + launch1 + `,{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":2,"dur":3,"args":{"correlation":1,"grid":[1,1,1],"block":[1,1,1]}},` +
			`{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":1e12,"dur":1,"args":{"correlation":2}},{"ph":"X","cat":"kernel","name":"late","pid":0,"tid":7,"ts":1e12,"dur":3,"args":{"correlation":2,"grid":[1,1,1],"block":[1,1,1]}}]}`,
			`kernel "late" starts`},
		// Issue 75: the writer's error named the output record 2, not the event.
		{"long name", `{` + a100 + `,"traceEvents":[` + launch1 + `,{"ph":"X","cat":"kernel","name":"` + strings.Repeat("k", trace.MaxString+1) + `","pid":0,"tid":7,"ts":2,"dur":3,"args":{"correlation":1,"grid":[1,1,1],"block":[1,1,1]}}]}`,
			`x.json: event 1 (byte 1049028): kernel "kkkk`},
		{"device option", kernelDoc(`{"correlation":1,"grid":[1,1,1],"block":[1,1,1]}`), "no kernel events on device 4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := DefaultOptions()
			if tc.name == "device option" {
				o.Device = 4
			}
			_, err := Read(strings.NewReader(tc.doc), "x.json", discard{}, o)
			var e *Error
			if !errors.As(err, &e) || !strings.Contains(err.Error(), tc.want) || tc.name == "long name" && !strings.HasSuffix(err.Error(), "has a name of 1048577 bytes; a trace holds at most 1048576 (2^20)") {
				t.Fatalf("err = %v (%T), want an *Error containing %q", err, err, tc.want)
			}
		})
	}
}

// TestMissingFile keeps the fs error reachable.
func TestMissingFile(t *testing.T) {
	_, err := Convert("testdata/no-such.json", discard{}, DefaultOptions())
	var e *Error
	if !errors.As(err, &e) || !strings.Contains(err.Error(), "no-such.json") {
		t.Fatalf("err = %v", err)
	}
}

// TestSinkError passes the sink's error through unchanged.
func TestSinkError(t *testing.T) {
	full := errors.New("disk full")
	_, err := Convert("testdata/triton_example.json", failing{full}, DefaultOptions())
	if err != full {
		t.Fatalf("err = %v, want %v", err, full)
	}
}

type failing struct{ err error }

func (f failing) Write(trace.Record) error { return f.err }
