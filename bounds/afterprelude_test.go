package bounds_test

import (
	"strings"
	"testing"

	"github.com/gpureplay/gpureplay/bounds"
	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/policies/policytest"
	"github.com/gpureplay/gpureplay/replay"
	"github.com/gpureplay/gpureplay/trace"
)

// The work after the prelude, by hand, for crcsorder.txt's first case:
// pages of 1000 cycles to read and 100 to copy, so the prelude ends at
// 2000. The CTA (1000 cycles) starts at 1100, stops at its second page
// 1500..2100 and ends at 2700: after 2000 it runs 2700 − 2000 less the 100
// cycles of its stop after 2000, 600, with 3 warp instructions a cycle
// alone (3000 over 1000), 1800, and two warps, 1200 warp-cycles. Its output page comes back at 2800 and
// takes 1000 cycles to write.
func TestAfterPrelude(t *testing.T) {
	const src = `{"type":"header","version":1,"clock_mhz":1000,"page_bytes":1024}
{"type":"buffer","id":1,"name":"in","base":0,"bytes":2048,"role":"input"}
{"type":"buffer","id":2,"name":"out","base":4096,"bytes":1024,"role":"output"}
{"type":"kernel","id":1,"name":"k","grid":[1,1,1],"block":[64,1,1],"regs":0,"smem":0}
{"type":"launch","kernel":1,"t":0,"stream":0}
{"type":"cta","kernel":1,"cta":0,"cycles":1000,"insts":3000}
{"type":"access","kernel":1,"cta":0,"buffer":1,"lo":0,"hi":1023,"mode":"r"}
{"type":"access","kernel":1,"cta":0,"buffer":1,"lo":1024,"hi":2047,"mode":"r","at":400}
{"type":"access","kernel":1,"cta":0,"buffer":2,"lo":0,"hi":1023,"mode":"w","at":900}`
	cfg, err := model.Preset("gk110-64")
	if err != nil {
		t.Fatal(err)
	}
	for kv, v := range map[string]string{"gpu.sms": "2", "gpu.clock_mhz": "1000", "lat.host_issue": "0", "lat.host_launch": "0",
		"lat.kernel_dispatch": "0", "io.ssd_mbps": "1024", "io.pcie_gbps": "10.24", "crcs.profile_cycles": "0",
		"crcs.l1_flush": "0", "model.contention": "off"} {
		if err := cfg.Set(kv, v); err != nil {
			t.Fatal(err)
		}
	}
	pol := replay.Policy{Name: "crcs", IO: replay.IOPaged, ExclusiveSMs: true}
	after := &bounds.AfterPrelude{}
	open := func() (trace.Source, error) { return trace.NewJSONLReader(strings.NewReader(src)), nil }
	st, err := replay.Run(open, replay.Options{Config: cfg, Policy: pol, Analyses: []replay.Analysis{after}}, &policytest.Recorder{})
	if err != nil {
		t.Fatal(err)
	}
	want := bounds.AfterPreludeWork{CTACycles: 600, WarpCycles: 2 * 600, Insts: 1800, PostludeCycles: 1000}
	if got := after.Result(st); got != want || st.MakespanCycles != 3800 {
		t.Errorf("after the prelude %+v (makespan %d), want %+v (3800)", got, st.MakespanCycles, want)
	}
}
