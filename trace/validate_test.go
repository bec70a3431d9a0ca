package trace

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
)

// Lines of the tiny traces below. Buffer 1 has 3 pages; kernels 1-3 have 2
// CTAs of 2 warps each.
const (
	hdr  = `{"type":"header","version":1,"clock_mhz":706}`
	buf1 = `{"type":"buffer","id":1,"base":0,"bytes":10000,"role":"input"}`
	k1   = `{"type":"kernel","id":1,"name":"k","grid":[2,1,1],"block":[64,1,1],"regs":0,"smem":0}`
	k2   = `{"type":"kernel","id":2,"name":"k","grid":[2,1,1],"block":[64,1,1],"regs":0,"smem":0}`
	k3   = `{"type":"kernel","id":3,"name":"k","grid":[2,1,1],"block":[64,1,1],"regs":0,"smem":0}`
	l1   = `{"type":"launch","kernel":1,"t":0,"stream":0}`
	l2   = `{"type":"launch","kernel":2,"t":0,"stream":0}`
	l3   = `{"type":"launch","kernel":3,"t":0,"stream":0}`
	c10  = `{"type":"cta","kernel":1,"cta":0,"cycles":1}`
	c11  = `{"type":"cta","kernel":1,"cta":1,"cycles":1}`
	c20  = `{"type":"cta","kernel":2,"cta":0,"cycles":1}`
	c21  = `{"type":"cta","kernel":2,"cta":1,"cycles":1}`
	// d2 launches kernel 2 from lane 0 of warp 0 of CTA 0 of kernel 1.
	d2 = `{"type":"launch","kernel":2,"parent":{"kernel":1,"cta":0,"warp":0,"lane":0,"at":0},"workload":1,"inline_cycles":1}`
)

// base is a header, a buffer and kernel 1 launched (lines 1-4).
var base = []string{hdr, buf1, k1, l1}

// with returns base followed by lines.
func with(lines ...string) []string {
	return append(append([]string(nil), base...), lines...)
}

func validate(lines []string) ([]Record, error) {
	return ReadAll(NewValidator(NewJSONLReader(strings.NewReader(strings.Join(lines, "\n")))))
}

func TestValidatorAccepts(t *testing.T) {
	tests := map[string][]string{
		"minimal":                           {hdr},
		"complete tree":                     with(c10, c11),
		"ctas in any order":                 with(c11, c10),
		"device launch":                     with(k2, d2, c10, c20, c21, c11),
		"next kernel declared late":         with(c10, c11, k2, l2, c20, c21),
		"memcpy between trees":              with(c10, c11, `{"type":"memcpy","dir":"d2h","buffer":1,"bytes":10000,"stream":0,"t":5}`),
		"unlaunched kernel":                 with(c10, c11, k2),
		"after host kernel":                 with(c10, c11, k2, `{"type":"launch","kernel":2,"t":0,"stream":1,"after":[1]}`, c20, c21),
		"warp cycles":                       with(`{"type":"cta","kernel":1,"cta":0,"cycles":5,"warp_cycles":[5,0]}`, c11),
		"demand at its bounds":              with(`{"type":"cta","kernel":1,"cta":0,"cycles":5,"insts":20,"dram_bytes":10240}`, c11),
		"last page":                         with(`{"type":"pages","kernel":1,"cta":0,"buffer":1,"r":[2],"w":[0]}`, c10, c11),
		"last byte":                         with(`{"type":"access","kernel":1,"cta":1,"buffer":1,"lo":0,"hi":9999,"mode":"rw"}`, c10, c11),
		"ordered: host CTAs, then trees":    ordered(c10, c11, k2, d2, c20, c21, k3, d3from(1), `{"type":"cta","kernel":3,"cta":0,"cycles":1}`, `{"type":"cta","kernel":3,"cta":1,"cycles":1}`),
		"ordered: depth first":              ordered(c10, k2, d2, c20, c21, c11, k3, d3from(1), `{"type":"cta","kernel":3,"cta":1,"cycles":1}`, `{"type":"cta","kernel":3,"cta":0,"cycles":1}`),
		"ordered: one tree, host CTA later": ordered(c10, k2, d2, c20, c21, c11),
		"at within the CTA's cycles": with(`{"type":"cta","kernel":1,"cta":0,"cycles":5}`, `{"type":"pages","kernel":1,"cta":0,"buffer":1,"r":[0],"at":5}`,
			`{"type":"access","kernel":1,"cta":0,"buffer":1,"lo":0,"hi":9,"mode":"r","at":3}`, c11),
		"at before the cta record": with(`{"type":"pages","kernel":1,"cta":0,"buffer":1,"r":[0],"at":5}`, `{"type":"cta","kernel":1,"cta":0,"cycles":5}`, c11),
		"a buffer's pages at several points": with(`{"type":"cta","kernel":1,"cta":0,"cycles":10}`, `{"type":"pages","kernel":1,"cta":0,"buffer":1,"r":[0]}`,
			`{"type":"pages","kernel":1,"cta":0,"buffer":1,"r":[1],"at":4}`, `{"type":"pages","kernel":1,"cta":0,"buffer":1,"w":[2],"at":10}`, c11),
		// Apart from its cta record an at is held only to 2^40 (validate_at.go).
		"at apart from its cta record": with(c10, c11, `{"type":"pages","kernel":1,"cta":0,"buffer":1,"r":[0],"at":1000}`),
		"large pages": {`{"type":"header","version":1,"clock_mhz":706,"page_bytes":65536}`, buf1, k1, l1,
			`{"type":"pages","kernel":1,"cta":0,"buffer":1,"w":[0]}`, c10, c11},
		// A created stream is used after the launch that created it, in
		// its CTA; another CTA may create a stream of the same id.
		"created stream, then used":          with(k2, k3, `{"type":"launch","kernel":2,"parent":{"kernel":1,"cta":0,"warp":0,"lane":0,"at":1},"stream_kind":"created","stream":4,"creates_stream":true}`, `{"type":"launch","kernel":3,"parent":{"kernel":1,"cta":0,"warp":0,"lane":0,"at":1},"stream_kind":"created","stream":4}`, c20, c21, `{"type":"cta","kernel":3,"cta":0,"cycles":1}`, `{"type":"cta","kernel":3,"cta":1,"cycles":1}`, c10, c11),
		"one stream id, created by two CTAs": with(k2, k3, `{"type":"launch","kernel":2,"parent":{"kernel":1,"cta":0,"warp":0,"lane":0,"at":1},"stream_kind":"created","stream":4,"creates_stream":true}`, `{"type":"launch","kernel":3,"parent":{"kernel":1,"cta":1,"warp":0,"lane":0,"at":0},"stream_kind":"created","stream":4,"creates_stream":true}`, c20, c21, `{"type":"cta","kernel":3,"cta":0,"cycles":1}`, `{"type":"cta","kernel":3,"cta":1,"cycles":1}`, c10, c11),
		// Records of device kernels other than the one looked up last,
		// and a launch after such a lookup (treeGet).
		"device kernels interleaved": with(k2, d2, k3, d3from(1), `{"type":"cta","kernel":2,"cta":1,"cycles":1}`, `{"type":"cta","kernel":3,"cta":0,"cycles":1}`,
			c20, `{"type":"kernel","id":4,"name":"k","grid":[1,1,1],"block":[1,1,1]}`, `{"type":"launch","kernel":4,"parent":{"kernel":2,"cta":0,"warp":0,"lane":0,"at":0}}`,
			`{"type":"cta","kernel":3,"cta":1,"cycles":1}`, `{"type":"cta","kernel":4,"cta":0,"cycles":1}`, c10, c11),
	}
	for name, lines := range tests {
		if recs, err := validate(lines); err != nil || len(recs) != len(lines) {
			t.Errorf("%s: %d records, %v; want %d records, no error", name, len(recs), err, len(lines))
		}
	}
}

func TestValidatorAcceptsFixture(t *testing.T) {
	raw := fixture(t, "valid.jsonl")
	recs, err := ReadAll(NewValidator(&sliceSource{recs: raw}))
	if err != nil {
		t.Fatal(err)
	}
	for i := range raw {
		if recs[i] != raw[i] {
			t.Fatalf("record %d was not passed through unchanged", i+1)
		}
	}
}

func TestValidatorRejects(t *testing.T) {
	tests := []struct {
		name  string
		lines []string
		line  int64 // line of the bad record; 0 for the end of the trace
		want  string
	}{
		// header
		{"empty trace", nil, 0, "at end of trace: no header record"},
		{"no header", []string{buf1}, 1, "the first record must be the header, not a buffer record"},
		{"second header", []string{hdr, hdr}, 2, "second header"},
		{"version", []string{`{"type":"header","version":2,"clock_mhz":706}`}, 1, "unknown trace version 2"},
		{"zero clock", []string{`{"type":"header","version":1,"clock_mhz":0}`}, 1, "clock_mhz 0 must be between 0.001 and 1e+06"},
		{"negative clock", []string{`{"type":"header","version":1,"clock_mhz":-1}`}, 1, "clock_mhz -1 must be between 0.001 and 1e+06"},
		{"page bytes not a power of two", []string{`{"type":"header","version":1,"clock_mhz":1,"page_bytes":3000}`}, 1, "page_bytes 3000 must be a power of two"},
		{"negative page bytes", []string{`{"type":"header","version":1,"clock_mhz":1,"page_bytes":-4096}`}, 1, "page_bytes -4096 must be a power of two"},
		{"negative gpu spec", []string{`{"type":"header","version":1,"clock_mhz":1,"gpu_spec":{"sms":-1}}`}, 1, "gpu_spec.sms -1 is negative"},

		// buffer
		{"buffer twice", []string{hdr, buf1, buf1}, 3, "buffer 1 declared twice"},
		{"empty buffer", []string{hdr, `{"type":"buffer","id":2,"bytes":0,"role":"temp"}`}, 2, "buffer 2 has 0 bytes"},
		{"bad role", []string{hdr, `{"type":"buffer","id":2,"bytes":1,"role":"scratch"}`}, 2, `role "scratch"`},

		// memcpy
		{"bad dir", with(`{"type":"memcpy","dir":"h2h","buffer":1}`), 5, `memcpy dir "h2h"`},
		{"memcpy of undeclared buffer", with(`{"type":"memcpy","dir":"h2d","buffer":9}`), 5, "memcpy of undeclared buffer 9"},
		{"memcpy too big", with(`{"type":"memcpy","dir":"h2d","buffer":1,"bytes":10001}`), 5, "memcpy of 10001 bytes, outside 0..10000"},
		{"memcpy negative", with(`{"type":"memcpy","dir":"h2d","buffer":1,"bytes":-1}`), 5, "memcpy of -1 bytes"},
		{"memcpy before time", with(`{"type":"memcpy","dir":"d2h","buffer":1,"t":-1}`), 5, "memcpy at t -1"},
		{"memcpy stream 2^63", with(`{"type":"memcpy","dir":"h2d","buffer":1,"stream":9223372036854775808}`), 5, "memcpy on stream 9223372036854775808; want a stream id from 0 to 2^63-1"},

		// device streams
		{"host launch with a stream kind", []string{hdr, k1, `{"type":"launch","kernel":1,"t":0,"stream":0,"stream_kind":"cta"}`}, 3, `host launch of kernel 1 has stream_kind "cta" or creates_stream`},
		{"unknown stream kind", []string{hdr, k1, `{"type":"launch","kernel":1,"t":0,"stream_kind":"side"}`}, 3, `unknown stream_kind "side"`},
		{"creates a default stream", with(c10, c11, k2, `{"type":"launch","kernel":2,"parent":{"kernel":1,"cta":0,"warp":0,"lane":0,"at":0},"stream_kind":"cta","creates_stream":true}`), 8, `creates a stream but launches into stream_kind "cta"`},
		{"tail with an id", with(c10, c11, k2, `{"type":"launch","kernel":2,"parent":{"kernel":1,"cta":0,"warp":0,"lane":0,"at":0},"stream_kind":"tail","stream":3}`), 8, `names stream 3 with stream_kind "tail"`},
		{"an id on an own launch", with(c10, c11, k2, `{"type":"launch","kernel":2,"parent":{"kernel":1,"cta":0,"warp":0,"lane":0,"at":0},"stream":5}`), 8, `device launch of kernel 2 names stream 5 with stream_kind "own"; only a created stream has an id`},
		{"created stream never created", with(c10, c11, k2, `{"type":"launch","kernel":2,"parent":{"kernel":1,"cta":0,"warp":0,"lane":0,"at":0},"stream_kind":"created","stream":4}`), 8, "device launch of kernel 2 into created stream 4 of CTA 0 of kernel 1, which no launch before it created (creates_stream)"},
		{"created stream used before its creating record", with(c10, c11, k2, k3, `{"type":"launch","kernel":2,"parent":{"kernel":1,"cta":0,"warp":0,"lane":0,"at":0},"stream_kind":"created","stream":4}`, `{"type":"launch","kernel":3,"parent":{"kernel":1,"cta":0,"warp":0,"lane":0,"at":0},"stream_kind":"created","stream":4,"creates_stream":true}`), 9, "device launch of kernel 2 into created stream 4 of CTA 0 of kernel 1, which no launch before it created"},
		{"created stream used at a cycle before its creation", with(c10, c11, k2, k3, `{"type":"launch","kernel":2,"parent":{"kernel":1,"cta":0,"warp":0,"lane":0,"at":5},"stream_kind":"created","stream":4,"creates_stream":true}`, `{"type":"launch","kernel":3,"parent":{"kernel":1,"cta":0,"warp":0,"lane":0,"at":2},"stream_kind":"created","stream":4}`), 10, "device launch of kernel 3 at 2 into created stream 4 of CTA 0 of kernel 1, before the launch of kernel 2 created it at 5"},
		{"created stream created twice", with(c10, c11, k2, k3, `{"type":"launch","kernel":2,"parent":{"kernel":1,"cta":0,"warp":0,"lane":0,"at":0},"stream_kind":"created","stream":4,"creates_stream":true}`, `{"type":"launch","kernel":3,"parent":{"kernel":1,"cta":0,"warp":0,"lane":0,"at":1},"stream_kind":"created","stream":4,"creates_stream":true}`), 10, "device launch of kernel 3 creates stream 4 of CTA 0 of kernel 1, which the launch of kernel 2 created already; a CTA creates a stream once"},
		{"created stream of another CTA", with(c10, c11, k2, k3, `{"type":"launch","kernel":2,"parent":{"kernel":1,"cta":0,"warp":0,"lane":0,"at":0},"stream_kind":"created","stream":4,"creates_stream":true}`, `{"type":"launch","kernel":3,"parent":{"kernel":1,"cta":1,"warp":0,"lane":0,"at":0},"stream_kind":"created","stream":4}`), 10, "device launch of kernel 3 into created stream 4 of CTA 1 of kernel 1, which no launch before it created"},
		{"created stream 2^63", with(c10, c11, k2, `{"type":"launch","kernel":2,"parent":{"kernel":1,"cta":0,"warp":0,"lane":0,"at":0},"stream_kind":"created","stream":9223372036854775808}`), 8, "into created stream 9223372036854775808; want 0 to 2^63-1"},

		// kernel
		{"kernel twice", []string{hdr, k1, k1}, 3, "kernel 1 declared twice"},
		{"kernel redeclared after launch", with(c10, c11, k1), 7, "kernel 1 declared twice"},
		{"no name", []string{hdr, `{"type":"kernel","id":4,"grid":[1,1,1],"block":[1,1,1]}`}, 2, "kernel 4 has no name"},
		{"empty grid", []string{hdr, `{"type":"kernel","id":4,"name":"k","grid":[0,1,1],"block":[1,1,1]}`}, 2, "every dimension must be at least 1"},
		{"empty block", []string{hdr, `{"type":"kernel","id":4,"name":"k","grid":[1,1,1],"block":[1,1,0]}`}, 2, "every dimension must be at least 1"},
		{"wide block", []string{hdr, `{"type":"kernel","id":4,"name":"k","grid":[1,1,1],"block":[2000,1,1]}`}, 2, "block.x is 2000"},
		{"deep block", []string{hdr, `{"type":"kernel","id":4,"name":"k","grid":[1,1,1],"block":[1,1,1025]}`}, 2, "block.z is 1025"},
		{"too many threads", []string{hdr, `{"type":"kernel","id":4,"name":"k","grid":[1,1,1],"block":[32,33,1]}`}, 2, "1056 threads per CTA"},
		{"too many registers", []string{hdr, `{"type":"kernel","id":4,"name":"k","grid":[1,1,1],"block":[1,1,1],"regs":256}`}, 2, "256 registers"},
		{"negative registers", []string{hdr, `{"type":"kernel","id":4,"name":"k","grid":[1,1,1],"block":[1,1,1],"regs":-1}`}, 2, "-1 registers"},
		{"negative smem", []string{hdr, `{"type":"kernel","id":4,"name":"k","grid":[1,1,1],"block":[1,1,1],"smem":-1}`}, 2, "-1 bytes of shared memory"},
		{"grid beyond 2^64", []string{hdr, `{"type":"kernel","id":4,"name":"k","grid":[4294967295,4294967295,4294967295],"block":[1,1,1]}`}, 2, "has more than 2^32 CTAs"},
		{"grid beyond 2^32", []string{hdr, `{"type":"kernel","id":4,"name":"k","grid":[4294967295,65535,65535],"block":[1,1,1]}`}, 2, "kernel 4 grid [4294967295 65535 65535] has more than 2^32 CTAs"},

		// launch
		{"launch of undeclared kernel", []string{hdr, l1}, 2, "launch of undeclared kernel 1"},
		{"launched twice", with(c10, c11, l1), 7, "kernel 1 launched twice"},
		{"host launch before time", []string{hdr, k1, `{"type":"launch","kernel":1,"t":-5}`}, 3, "at t -5"},
		{"host launch on stream 2^64-1", []string{hdr, k1, `{"type":"launch","kernel":1,"t":0,"stream":18446744073709551615}`}, 3, "host launch of kernel 1 on stream 18446744073709551615; want a stream id from 0 to 2^63-1"},
		{"after unknown kernel", with(c10, c11, k2, `{"type":"launch","kernel":2,"after":[7]}`), 8, "after kernel 7, which is not a host-launched kernel"},
		{"after itself", with(c10, c11, k2, `{"type":"launch","kernel":2,"after":[2]}`), 8, "after kernel 2, which is not"},
		{"after device kernel", with(k2, d2, c10, c11, c20, c21, k3, `{"type":"launch","kernel":3,"after":[2]}`), 12, "after kernel 2, which is not a host-launched kernel"},
		{"parent undeclared", []string{hdr, k2, `{"type":"launch","kernel":2,"parent":{"kernel":9}}`}, 3, "device launch for undeclared kernel 9"},
		{"parent not launched", []string{hdr, k1, k2, d2}, 4, "device launch for kernel 1 before the kernel's launch"},
		{"parent CTA outside grid", with(k2, `{"type":"launch","kernel":2,"parent":{"kernel":1,"cta":2}}`), 6, "from CTA 2 of kernel 1, which has 2 CTAs"},
		{"parent warp outside CTA", with(k2, `{"type":"launch","kernel":2,"parent":{"kernel":1,"warp":2}}`), 6, "from warp 2; kernel 1 has 2 warps per CTA"},
		{"negative warp", with(k2, `{"type":"launch","kernel":2,"parent":{"kernel":1,"warp":-1}}`), 6, "from warp -1"},
		{"lane outside warp", with(k2, `{"type":"launch","kernel":2,"parent":{"kernel":1,"lane":32}}`), 6, "from lane 32"},
		{"negative at", with(k2, `{"type":"launch","kernel":2,"parent":{"kernel":1,"at":-1}}`), 6, "at -1 cycles into its parent warp"},
		{"negative workload", with(k2, `{"type":"launch","kernel":2,"parent":{"kernel":1},"workload":-1}`), 6, "workload -1"},
		{"negative inline cycles", with(k2, `{"type":"launch","kernel":2,"parent":{"kernel":1},"inline_cycles":-1}`), 6, "inline_cycles -1"},
		{"parent in an earlier tree", with(c10, c11, k3, l3, `{"type":"cta","kernel":3,"cta":0}`, k2, d2), 11,
			"device launch for kernel 1 appears after the host launch of record 8, but kernel 1 belongs to an earlier launch tree"},

		// cta
		{"cta before launch", []string{hdr, k1, c10}, 3, "cta for kernel 1 before the kernel's launch"},
		{"cta of undeclared kernel", []string{hdr, c10}, 2, "cta for undeclared kernel 1"},
		{"cta outside grid", with(`{"type":"cta","kernel":1,"cta":2}`), 5, "cta for CTA 2 of kernel 1, which has 2 CTAs"},
		{"negative cycles", with(`{"type":"cta","kernel":1,"cycles":-1}`), 5, "takes -1 cycles"},
		{"warp cycles count", with(`{"type":"cta","kernel":1,"warp_cycles":[1]}`), 5, "has 1 warp_cycles; the kernel has 2 warps per CTA"},
		{"negative warp cycles", with(`{"type":"cta","kernel":1,"warp_cycles":[1,-5]}`), 5, "warp 1 of CTA 0 of kernel 1 takes -5 cycles"},
		{"warp cycles beyond 2^40", with(`{"type":"cta","kernel":1,"cycles":5,"warp_cycles":[1099511627777,-5]}`), 5, "warp 0 of CTA 0 of kernel 1 takes 1099511627777 cycles; want 0 to 1099511627776 (2^40)"},
		{"too many insts", with(`{"type":"cta","kernel":1,"cycles":5,"insts":21}`), 5, "CTA 0 of kernel 1 issues 21 warp instructions in 5 cycles: more than its 2 warps can (2 a cycle each)"},
		{"too many bytes", with(`{"type":"cta","kernel":1,"cycles":7,"warp_cycles":[5,7],"dram_bytes":14337}`), 5, "CTA 0 of kernel 1 moves 14337 DRAM bytes in 7 cycles: more than its 2 warps can (1024 bytes a cycle each)"},
		{"stream time backwards", []string{hdr, `{"type":"kernel","id":1,"name":"k","grid":[1,1,1],"block":[32,1,1]}`, `{"type":"launch","kernel":1,"t":100,"stream":3}`, `{"type":"cta","kernel":1,"cta":0,"cycles":1}`,
			`{"type":"kernel","id":2,"name":"k","grid":[1,1,1],"block":[32,1,1]}`, `{"type":"launch","kernel":2,"t":50,"stream":3}`}, 6, "host launch of kernel 2 at t 50 on stream 3, before the stream's previous call at t 100"},
		{"cycles not the longest warp", with(`{"type":"cta","kernel":1,"cycles":5,"warp_cycles":[5,7]}`), 5, "CTA 0 of kernel 1 takes 5 cycles but its longest warp 7"},
		{"demand in no time", with(`{"type":"cta","kernel":1,"cycles":0,"insts":1}`), 5, "issues 1 warp instructions in 0 cycles"},
		{"cta twice", with(c10, c10), 6, "second cta record for CTA 0 of kernel 1"},
		{"cta after the next host launch", with(c10, c11, k2, l2, c20, c11), 10,
			"cta for kernel 1 appears after the host launch of record 8, but kernel 1 belongs to an earlier launch tree; a launch tree's records must come before the next host launch"},

		// access
		{"access before launch", []string{hdr, buf1, k1, `{"type":"access","kernel":1,"buffer":1,"mode":"r"}`}, 4, "access for kernel 1 before the kernel's launch"},
		{"access outside grid", with(`{"type":"access","kernel":1,"cta":7,"buffer":1,"mode":"r"}`), 5, "access for CTA 7 of kernel 1"},
		{"access of undeclared buffer", with(`{"type":"access","kernel":1,"buffer":2,"mode":"r"}`), 5, "access of undeclared buffer 2"},
		{"access backwards", with(`{"type":"access","kernel":1,"buffer":1,"lo":5,"hi":4,"mode":"r"}`), 5, "bytes 5..4 of buffer 1"},
		{"access past the end", with(`{"type":"access","kernel":1,"buffer":1,"hi":10000,"mode":"r"}`), 5, "bytes 0..10000 of buffer 1, which has 10000 bytes"},
		{"bad mode", with(`{"type":"access","kernel":1,"buffer":1,"mode":"x"}`), 5, `access mode "x"`},
		{"access at a negative time", with(`{"type":"access","kernel":1,"buffer":1,"mode":"r","at":-1}`), 5,
			"access of buffer 1 by CTA 0 of kernel 1 at -1 cycles; want 0 to 1099511627776 (2^40): at is cycles into the CTA's own run"},
		{"access after its CTA's end", with(`{"type":"cta","kernel":1,"cta":1,"cycles":7}`, `{"type":"access","kernel":1,"cta":1,"buffer":1,"mode":"w","at":8}`), 6,
			"access of buffer 1 by CTA 1 of kernel 1 at 8 cycles; want 0 to 7 (the CTA's cycles)"},

		// pages
		{"pages outside grid", with(`{"type":"pages","kernel":1,"cta":2,"buffer":1}`), 5, "pages for CTA 2 of kernel 1"},
		{"pages of undeclared buffer", with(`{"type":"pages","kernel":1,"buffer":2}`), 5, "pages of undeclared buffer 2"},
		{"read page past the end", with(`{"type":"pages","kernel":1,"buffer":1,"r":[3]}`), 5, "page 3 of buffer 1, which has 3 pages of 4096 bytes"},
		{"written page past the end", with(`{"type":"pages","kernel":1,"buffer":1,"r":[0],"w":[1,9]}`), 5, "page 9 of buffer 1"},
		{"pages at a negative time", with(`{"type":"pages","kernel":1,"buffer":1,"r":[0],"at":-5}`), 5, "pages of buffer 1 by CTA 0 of kernel 1 at -5 cycles; want 0 to"},
		{"pages beyond 2^40", with(`{"type":"pages","kernel":1,"buffer":1,"r":[0],"at":1099511627777}`), 5, "at 1099511627777 cycles; want 0 to 1099511627776 (2^40)"},
		{"pages after its CTA's end", with(`{"type":"cta","kernel":1,"cta":0,"cycles":5}`, `{"type":"pages","kernel":1,"cta":0,"buffer":1,"r":[0],"at":2}`,
			`{"type":"pages","kernel":1,"cta":0,"buffer":1,"w":[1],"at":6}`), 7, "pages of buffer 1 by CTA 0 of kernel 1 at 6 cycles; want 0 to 5 (the CTA's cycles)"},
		{"cta shorter than its records' at", with(`{"type":"pages","kernel":1,"cta":0,"buffer":1,"r":[0],"at":3}`, `{"type":"access","kernel":1,"cta":0,"buffer":1,"mode":"r","at":9}`,
			`{"type":"pages","kernel":1,"cta":0,"buffer":1,"r":[1],"at":4}`, `{"type":"cta","kernel":1,"cta":0,"cycles":5}`), 8,
			"CTA 0 of kernel 1 takes 5 cycles, but its access record of buffer 1 before this one says it first touches them at 9; at is cycles into the CTA's own run"},
		{"page past the end of large pages", []string{`{"type":"header","version":1,"clock_mhz":706,"page_bytes":8192}`, buf1, k1, l1,
			`{"type":"pages","kernel":1,"buffer":1,"w":[2]}`}, 5, "page 2 of buffer 1, which has 2 pages of 8192 bytes"},

		// launch trees
		{"tree incomplete at next host launch", with(c10, k2, l2), 7,
			"kernel 1 has cta records for 1 of its 2 CTAs (1 missing), but this host launch starts the next launch tree"},
		{"child incomplete at next host launch", with(k2, d2, c10, c11, c20, k3, l3), 11, "kernel 2 has cta records for 1 of its 2 CTAs (1 missing)"},
		{"tree incomplete at end", with(c10), 0, "at end of trace: kernel 1 has cta records for 1 of its 2 CTAs (1 missing)"},
		{"child never ran", with(k2, d2, c10, c11), 0, "at end of trace: kernel 2 has cta records for 0 of its 2 CTAs (2 missing)"},

		// ordered_trees (rule 4)
		{"ordered: host CTAs out of order", ordered(c11, c10), 6, "cta record for CTA 0 of host kernel 1 after a record of its CTA 1"},
		{"ordered: tree before its host CTA", ordered(k2, d2, c10, c11, c20, c21), 6, "launch of kernel 2 in the tree of CTA 0 of host kernel 1 before that CTA's cta record"},
		{"ordered: trees out of order", ordered(c10, c11, k3, d3from(1), `{"type":"cta","kernel":3,"cta":0,"cycles":1}`, `{"type":"cta","kernel":3,"cta":1,"cycles":1}`, k2, d2), 12,
			"launch of kernel 2 belongs to the tree of host CTA 0, after records of host CTA 1's tree"},
		{"ordered: child record after the next tree", ordered(c10, c11, k2, d2, c20, c21, k3, d3from(1), `{"type":"access","kernel":2,"cta":0,"buffer":1,"lo":0,"hi":1,"mode":"r"}`), 13,
			"or, with ordered_trees, to the tree of a host CTA this tree has moved past"},
		{"ordered: tree left incomplete", ordered(c10, c11, k2, d2, c20, k3, d3from(1)), 11, "kernel 2 has cta records for 1 of its 2 CTAs (1 missing) when launch of kernel 3 moved on to the tree of host CTA 1"},
		// kernel 3 reuses kernel 2's state, forgotten when the trees moved
		// on to host CTA 1: it starts with no cta records
		{"ordered: a reused kernel starts afresh", ordered(c10, c11, k2, d2, c20, c21, k3, d3from(1)), 0, "at end of trace: kernel 3 has cta records for 0 of its 2 CTAs (2 missing)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs, err := validate(tt.lines)
			var te *Error
			if !errors.As(err, &te) {
				t.Fatalf("got %v after %d records, want a *trace.Error", err, len(recs))
			}
			if !strings.Contains(te.Msg, tt.want) || te.Line != tt.line || te.Record != tt.line {
				t.Errorf("got %q (line %d, record %d), want %q at line %d", te, te.Line, te.Record, tt.want, tt.line)
			}
			if tt.line > 0 && te.Kind == 0 {
				t.Errorf("%q does not name the record kind", te)
			}
			passed := len(tt.lines) // an error at the end comes after every record
			if tt.line > 0 {
				passed = int(tt.line) - 1
			}
			if len(recs) != passed {
				t.Errorf("passed %d records before the error, want %d", len(recs), passed)
			}
		})
	}
}

// ordered is base with an ordered_trees header, followed by lines.
func ordered(lines ...string) []string {
	l := with(lines...)
	l[0] = `{"type":"header","version":1,"clock_mhz":706,"ordered_trees":true}`
	return l
}

// d3from is a device launch of kernel 3 from CTA cta of kernel 1.
func d3from(cta int) string {
	return fmt.Sprintf(`{"type":"launch","kernel":3,"parent":{"kernel":1,"cta":%d,"warp":0,"lane":0,"at":0},"workload":1,"inline_cycles":1}`, cta)
}

func TestValidatorPositions(t *testing.T) {
	// A source without Pos: the validator counts records itself.
	src := &sliceSource{recs: []Record{&Header{Version: Version, ClockMHz: 1}, &Buffer{ID: 1, Bytes: 1, Role: RoleTemp}, (*CTA)(nil)}}
	_, err := ReadAll(NewValidator(src))
	var te *Error
	if !errors.As(err, &te) || te.Record != 3 || te.Offset != -1 || te.Line != 0 || !strings.Contains(te.Msg, "nil") {
		t.Errorf("got %#v, want a nil-record error at record 3 without offset", err)
	}

	// A binary reader: the error carries its record number and offset.
	var sink sliceSink
	syntheticTrace(t, &sink, 100, 0)
	sink.recs = append(sink.recs, &CTA{Kernel: 0, CTA: 5})
	r, err := NewReader(bytes.NewReader(encodeBinary(t, sink.recs)))
	if err != nil {
		t.Fatal(err)
	}
	_, err = ReadAll(NewValidator(r))
	rec, off := r.Pos()
	if !errors.As(err, &te) || te.Record != int64(len(sink.recs)) || te.Record != rec || te.Offset != off || te.Line != 0 {
		t.Errorf("got %v, want an error at record %d, offset %d", err, len(sink.recs), off)
	}
}

// errSource fails after its records.
type errSource struct {
	sliceSource
	err error
}

func (s *errSource) Next() (Record, error) {
	if s.i == len(s.recs) {
		return nil, s.err
	}
	return s.sliceSource.Next()
}

func TestValidatorPassesSourceErrors(t *testing.T) {
	want := errors.New("source broke")
	v := NewValidator(&errSource{sliceSource{recs: []Record{&Header{Version: Version, ClockMHz: 1}}}, want})
	if _, err := ReadAll(v); err != want {
		t.Errorf("got %v, want the source's error", err)
	}
	if _, err := v.Next(); err != want {
		t.Errorf("error is not sticky: %v", err)
	}
}

// The validator forgets a launch tree once it ends: after many host kernels
// it holds only the last tree.
func TestValidatorForgetsFinishedTrees(t *testing.T) {
	recs := []Record{&Header{Version: Version, ClockMHz: 1}}
	for id := uint64(0); id < 1000; id++ {
		recs = append(recs,
			&Kernel{ID: id, Name: "k", Grid: [3]uint32{1, 1, 1}, Block: [3]uint32{1, 1, 1}},
			&Launch{Kernel: id},
			&CTA{Kernel: id})
	}
	v := NewValidator(&sliceSource{recs: recs})
	for {
		if _, err := v.Next(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if v.tree.Len() > 1 || len(v.order) > 1 || v.pending.Len() > 1 {
			t.Fatalf("at record %d it holds %d tree kernels, %d ordered, %d pending", v.record, v.tree.Len(), len(v.order), v.pending.Len())
		}
	}
	if n := len(v.declared.chunks); n > 2 {
		t.Errorf("1000 dense kernel ids take %d chunks", n)
	}
}

// Under ordered_trees the validator forgets a host CTA's device kernels
// when the trace moves on to the next host CTA's tree.
func TestValidatorForgetsOrderedTrees(t *testing.T) {
	const n = 2000
	recs := []Record{&Header{Version: Version, ClockMHz: 1, OrderedTrees: true},
		&Kernel{ID: 0, Name: "host", Grid: [3]uint32{n, 1, 1}, Block: [3]uint32{32, 1, 1}},
		&Launch{Kernel: 0}}
	for i := uint64(0); i < n; i++ {
		recs = append(recs, &CTA{Kernel: 0, CTA: i})
	}
	for i := uint64(0); i < n; i++ {
		id := 1 + i
		recs = append(recs,
			&Kernel{ID: id, Name: "child", Grid: [3]uint32{1, 1, 1}, Block: [3]uint32{1, 1, 1}},
			&Launch{Kernel: id, Parent: &Parent{Kernel: 0, CTA: i}},
			&CTA{Kernel: id})
	}
	v := NewValidator(&sliceSource{recs: recs})
	tree, order := 0, 0
	for {
		if _, err := v.Next(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		tree, order = max(tree, v.tree.Len()), max(order, len(v.order))
	}
	if tree > 2 || order > 1100 {
		t.Errorf("it held up to %d tree kernels (%d in order) of a tree of %d host CTAs with one child each", tree, order, n)
	}
}

func TestIDSet(t *testing.T) {
	var s idSet
	ids := []uint64{0, 1, 63, 64, 511, 512, 1 << 40, ^uint64(0), 5}
	for _, id := range ids {
		if s.has(id) || !s.add(id) {
			t.Fatalf("%d: in the set before being added", id)
		}
	}
	for _, id := range ids {
		if !s.has(id) || s.add(id) {
			t.Errorf("%d: not in the set after being added", id)
		}
	}
	for _, id := range []uint64{2, 65, 513, 1<<40 + 1, ^uint64(0) - 1} {
		if s.has(id) {
			t.Errorf("%d: in the set but never added", id)
		}
	}
	if s.len() != uint64(len(ids)) {
		t.Errorf("len() = %d, want %d", s.len(), len(ids))
	}
}

// idSet holds what a map would, for ids in order (from 0, as CTAs come,
// or later, as kernel ids do), out of order, repeated and far apart, in
// every mix, each in the one set cleared (clear) after the last.
func TestIDSetIsMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	var s idSet
	for run := range 200 {
		s.clear()
		m := map[uint64]bool{}
		next := []uint64{0, 1, 700}[run/4%3]
		for range rng.IntN(3000) {
			var id uint64
			switch r := rng.IntN(100); {
			case r < 80 || run%4 == 0: // in order, as cta records come
				id = next
				next++
			case r < 90: // one already added, or about to be
				id = rng.Uint64N(next + 2)
			case r < 97:
				id = next + rng.Uint64N(1100)
			default:
				id = rng.Uint64()
			}
			if got, want := s.add(id), !m[id]; got != want {
				t.Fatalf("run %d: add(%d) = %v, want %v", run, id, got, want)
			}
			m[id] = true
		}
		for range 2000 {
			id := rng.Uint64N(next + 1100)
			if s.has(id) != m[id] {
				t.Fatalf("run %d: has(%d) = %v, want %v", run, id, s.has(id), m[id])
			}
		}
		if s.len() != uint64(len(m)) {
			t.Fatalf("run %d: len() = %d, want %d", run, s.len(), len(m))
		}
	}
}

func Example_validate() {
	in := strings.Join([]string{hdr, k1, l1, c10}, "\n")
	_, err := ReadAll(NewValidator(NewJSONLReader(strings.NewReader(in))))
	fmt.Println(err)
	_, err = ReadAll(NewValidator(NewJSONLReader(strings.NewReader(hdr + "\n" + c10))))
	fmt.Println(err)
	// Output:
	// trace: at end of trace: kernel 1 has cta records for 1 of its 2 CTAs (1 missing)
	// trace: record 2 (cta), line 2: cta for undeclared kernel 1
}

// A run of ids may end at the largest id and go on from 0.
func TestIDSetRunWraps(t *testing.T) {
	var s idSet
	for _, id := range []uint64{^uint64(0) - 1, ^uint64(0), 0, 1} {
		if !s.add(id) || !s.has(id) {
			t.Fatalf("%d: not added", id)
		}
	}
	if s.has(2) || s.has(^uint64(0)-2) || s.len() != 4 || len(s.chunks) != 0 {
		t.Errorf("has(2) %v, has(2^64-3) %v, len %d, %d chunks; want false, false, 4, 0", s.has(2), s.has(^uint64(0)-2), s.len(), len(s.chunks))
	}
}

// withinDemand's integer comparison answers as the float one it stands in
// for, at the bounds and off them, for every span a checked record has.
func TestWithinDemandIsFloat(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 100000 {
		cycles, warps := rng.Int64N(MaxCycles+1), rng.IntN(33)
		if rng.IntN(4) == 0 {
			cycles = MaxCycles - rng.Int64N(3)
		}
		span := uint64(cycles) * uint64(warps)
		near := func(bound uint64) uint64 {
			switch rng.IntN(4) {
			case 0:
				return rng.Uint64()
			case 1:
				return 1<<53 - 2 + rng.Uint64N(4)
			}
			return bound - 2 + rng.Uint64N(5)
		}
		insts, bytes := near(maxInstsPerWarpCycle*span), near(maxBytesPerWarpCycle*span)
		if rng.IntN(2) == 0 {
			bytes = rng.Uint64N(maxBytesPerWarpCycle*span + 1)
		}
		fspan := float64(cycles) * float64(warps)
		want := float64(insts) <= maxInstsPerWarpCycle*fspan && float64(bytes) <= maxBytesPerWarpCycle*fspan
		if got := withinDemand(cycles, insts, bytes, warps); got != want {
			t.Fatalf("withinDemand(%d, %d, %d, %d) = %v, want %v", cycles, insts, bytes, warps, got, want)
		}
	}
}
