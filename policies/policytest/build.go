package policytest

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// A case's trace may hold, among its JSONL records, builder lines that
// stand for many records:
//
//	kernels n=33 id=1 name=k block=32 regs=0 smem=0 ctas=1 cycles=1000 t=0 stream=each
//
// is n host kernels with ids from id on, each with its kernel record
// (grid ctas×1×1, block block×1×1), its launch at t into stream (each:
// the kernel's id, so a stream of its own; else that stream id) and its
// ctas CTAs of cycles cycles each. Every key but n and id has the
// default shown; n defaults to 1, and id must be given.
//
//	header clock_mhz=706 page_bytes=1024
//
// is the trace's header record, version 1, with the trace's clock and,
// where given, its page size.

// kernelsDefaults are the builder's keys and their defaults.
var kernelsDefaults = map[string]string{
	"n": "1", "id": "", "name": "k", "block": "32", "regs": "0", "smem": "0",
	"ctas": "1", "cycles": "1000", "t": "0", "stream": "each",
}

// expand returns the JSONL records a trace line stands for: the line
// itself where it is a record, else its builder's records.
func expand(line string) ([]string, error) {
	f := strings.Fields(line)
	if len(f) > 0 && f[0] == "header" {
		return header(f[1:])
	}
	if len(f) == 0 || f[0] != "kernels" {
		return []string{line}, nil
	}
	args := map[string]string{}
	for k, v := range kernelsDefaults {
		args[k] = v
	}
	for _, kv := range f[1:] {
		k, v, ok := strings.Cut(kv, "=")
		if _, known := kernelsDefaults[k]; !ok || !known {
			return nil, fmt.Errorf("kernels: %q is not one of key=value with a key of n, id, name, block, regs, smem, ctas, cycles, t, stream", kv)
		}
		args[k] = v
	}
	nums := map[string]int64{}
	for _, k := range []string{"n", "id", "block", "regs", "smem", "ctas", "cycles", "t"} {
		v, err := strconv.ParseInt(args[k], 10, 64)
		if err != nil || v < 0 {
			return nil, fmt.Errorf("kernels: %s=%q is not a count", k, args[k])
		}
		nums[k] = v
	}
	name, _ := json.Marshal(args["name"])
	var out []string
	for i := range nums["n"] {
		id := nums["id"] + i
		stream := args["stream"]
		if stream == "each" {
			stream = strconv.FormatInt(id, 10)
		} else if _, err := strconv.ParseUint(stream, 10, 63); err != nil {
			return nil, fmt.Errorf("kernels: stream=%q is neither each nor a stream id", stream)
		}
		out = append(out,
			fmt.Sprintf(`{"type":"kernel","id":%d,"name":%s,"grid":[%d,1,1],"block":[%d,1,1],"regs":%d,"smem":%d}`,
				id, name, nums["ctas"], nums["block"], nums["regs"], nums["smem"]),
			fmt.Sprintf(`{"type":"launch","kernel":%d,"t":%d,"stream":%s}`, id, nums["t"], stream))
		for c := range nums["ctas"] {
			out = append(out, fmt.Sprintf(`{"type":"cta","kernel":%d,"cta":%d,"cycles":%d}`, id, c, nums["cycles"]))
		}
	}
	return out, nil
}

// header is the header record a header line stands for.
func header(kvs []string) ([]string, error) {
	rec := `{"type":"header","version":1`
	seen := map[string]bool{}
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		n, err := strconv.ParseInt(v, 10, 64)
		if !ok || (k != "clock_mhz" && k != "page_bytes") || seen[k] || err != nil || n <= 0 {
			return nil, fmt.Errorf("header: %q is not clock_mhz=N or page_bytes=N, each once", kv)
		}
		seen[k] = true
		rec += fmt.Sprintf(`,%q:%d`, k, n)
	}
	if !seen["clock_mhz"] {
		return nil, fmt.Errorf("header: clock_mhz=N is required")
	}
	return []string{rec + "}"}, nil
}
