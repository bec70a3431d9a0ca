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
	} {
		got, err := expand(line)
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		if g := strings.Join(got, "\n"); g != want {
			t.Errorf("%s:\n%s\nwant\n%s", line, g, want)
		}
	}
	for _, bad := range []string{"kernels n=2", "kernels id=1 cycles=-4", "kernels id=1 colour=red", "kernels id=1 stream=some", "kernels id=1 n", "header", "header clock_mhz=0", "header page_bytes=4", "header clock_mhz=1 clock_mhz=2", "header clock_mhz=706 ordered_trees=1"} {
		if _, err := expand(bad); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}
