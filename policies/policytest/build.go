package policytest

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
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
//	child id=2 parent=1 cta=0 warp=0 lane=0 at=100 name=child block=32 regs=0 smem=0 ctas=1 cycles=1000 workload=0 inline=0
//
// is a device kernel: its kernel record, its launch by lane lane of warp
// warp of CTA cta of kernel parent, at cycles into that warp's run
// (with its workload and inline_cycles), and its ctas CTAs of cycles
// cycles each. id, parent and at must be given; the other keys have the
// defaults shown.
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

// childDefaults are the child builder's keys and their defaults ("":
// required).
var childDefaults = map[string]string{
	"id": "", "parent": "", "cta": "0", "warp": "0", "lane": "0", "at": "",
	"name": "child", "block": "32", "regs": "0", "smem": "0", "ctas": "1", "cycles": "1000",
	"workload": "0", "inline": "0",
}

// expand returns the JSONL records a trace line stands for: the line
// itself where it is a record, else its builder's records.
func expand(line string) ([]string, error) {
	f := strings.Fields(line)
	if len(f) == 0 {
		return []string{line}, nil
	}
	switch f[0] {
	case "header":
		return header(f[1:])
	case "kernels":
		return kernels(f[1:])
	case "child":
		return child(f[1:])
	}
	return []string{line}, nil
}

// builderArgs parses a builder's key=value fields over its defaults; a
// key whose default is "" must be given. Every key is a count but those
// in text.
func builderArgs(builder string, kvs []string, defaults map[string]string, text ...string) (map[string]string, map[string]int64, error) {
	args := map[string]string{}
	for k, v := range defaults {
		args[k] = v
	}
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if _, known := defaults[k]; !ok || !known {
			keys := slices.Sorted(maps.Keys(defaults))
			return nil, nil, fmt.Errorf("%s: %q is not one of key=value with a key of %s", builder, kv, strings.Join(keys, ", "))
		}
		args[k] = v
	}
	nums := map[string]int64{}
	// In sorted order: the first key missing is named, the same every time.
	for _, k := range slices.Sorted(maps.Keys(defaults)) {
		if slices.Contains(text, k) {
			continue
		}
		if args[k] == "" {
			return nil, nil, fmt.Errorf("%s: %s= must be given", builder, k)
		}
		v, err := strconv.ParseInt(args[k], 10, 64)
		if err != nil || v < 0 {
			return nil, nil, fmt.Errorf("%s: %s=%q is not a count", builder, k, args[k])
		}
		nums[k] = v
	}
	return args, nums, nil
}

// child is the records of a child line.
func child(kvs []string) ([]string, error) {
	args, n, err := builderArgs("child", kvs, childDefaults, "name")
	if err != nil {
		return nil, err
	}
	name, _ := json.Marshal(args["name"])
	out := []string{
		fmt.Sprintf(`{"type":"kernel","id":%d,"name":%s,"grid":[%d,1,1],"block":[%d,1,1],"regs":%d,"smem":%d}`,
			n["id"], name, n["ctas"], n["block"], n["regs"], n["smem"]),
		fmt.Sprintf(`{"type":"launch","kernel":%d,"parent":{"kernel":%d,"cta":%d,"warp":%d,"lane":%d,"at":%d},"workload":%d,"inline_cycles":%d}`,
			n["id"], n["parent"], n["cta"], n["warp"], n["lane"], n["at"], n["workload"], n["inline"]),
	}
	for c := range n["ctas"] {
		out = append(out, fmt.Sprintf(`{"type":"cta","kernel":%d,"cta":%d,"cycles":%d}`, n["id"], c, n["cycles"]))
	}
	return out, nil
}

// kernels is the records of a kernels line.
func kernels(kvs []string) ([]string, error) {
	args, nums, err := builderArgs("kernels", kvs, kernelsDefaults, "name", "stream")
	if err != nil {
		return nil, err
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
