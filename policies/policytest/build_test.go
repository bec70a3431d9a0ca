package policytest

import (
	"strings"
	"testing"
)

func TestExpandKernels(t *testing.T) {
	for line, want := range map[string]string{
		`{"type":"header","version":1,"clock_mhz":706}`: `{"type":"header","version":1,"clock_mhz":706}`,
		`header clock_mhz=706`:                          `{"type":"header","version":1,"clock_mhz":706}`,
		`header clock_mhz=1000 page_bytes=1024`:         `{"type":"header","version":1,"clock_mhz":1000,"page_bytes":1024}`,
		`kernels id=3 cycles=500`: `{"type":"kernel","id":3,"name":"k","grid":[1,1,1],"block":[32,1,1],"regs":0,"smem":0}
{"type":"launch","kernel":3,"t":0,"stream":3}
{"type":"cta","kernel":3,"cta":0,"cycles":500}`,
		`kernels n=2 id=1 name=task block=256 regs=32 smem=64 ctas=2 cycles=7 t=5 stream=9`: `{"type":"kernel","id":1,"name":"task","grid":[2,1,1],"block":[256,1,1],"regs":32,"smem":64}
{"type":"launch","kernel":1,"t":5,"stream":9}
{"type":"cta","kernel":1,"cta":0,"cycles":7}
{"type":"cta","kernel":1,"cta":1,"cycles":7}
{"type":"kernel","id":2,"name":"task","grid":[2,1,1],"block":[256,1,1],"regs":32,"smem":64}
{"type":"launch","kernel":2,"t":5,"stream":9}
{"type":"cta","kernel":2,"cta":0,"cycles":7}
{"type":"cta","kernel":2,"cta":1,"cycles":7}`,
		`child id=2 parent=1 at=100`: `{"type":"kernel","id":2,"name":"child","grid":[1,1,1],"block":[32,1,1],"regs":0,"smem":0}
{"type":"launch","kernel":2,"parent":{"kernel":1,"cta":0,"warp":0,"lane":0,"at":100},"workload":0,"inline_cycles":0}
{"type":"cta","kernel":2,"cta":0,"cycles":1000}`,
		`child id=5 parent=4 cta=3 warp=2 lane=7 at=9 name=c block=64 regs=8 smem=16 ctas=2 cycles=50 workload=12 inline=300`: `{"type":"kernel","id":5,"name":"c","grid":[2,1,1],"block":[64,1,1],"regs":8,"smem":16}
{"type":"launch","kernel":5,"parent":{"kernel":4,"cta":3,"warp":2,"lane":7,"at":9},"workload":12,"inline_cycles":300}
{"type":"cta","kernel":5,"cta":0,"cycles":50}
{"type":"cta","kernel":5,"cta":1,"cycles":50}`,
	} {
		got, err := expand(line)
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		if g := strings.Join(got, "\n"); g != want {
			t.Errorf("%s:\n%s\nwant\n%s", line, g, want)
		}
	}
	for _, bad := range []string{"kernels n=2", "kernels id=1 cycles=-4", "kernels id=1 colour=red", "kernels id=1 stream=some", "kernels id=1 n", "header", "header clock_mhz=0", "header page_bytes=4", "header clock_mhz=1 clock_mhz=2", "header clock_mhz=706 ordered_trees=1", "child id=2 at=5", "child id=2 parent=1", "child id=2 parent=1 at=5 t=3", "child id=2 parent=1 at=-5"} {
		if _, err := expand(bad); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}
