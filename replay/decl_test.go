package replay

import (
	"testing"

	"github.com/gpureplay/gpureplay/trace"
)

// declCache hands kernels declared alike one kernelDecl, one after the
// other (declares) or not, and a kernel that differs in any field the
// declaration keeps its own.
func TestDeclCacheShares(t *testing.T) {
	base := trace.Kernel{ID: 1, Name: "child", Grid: [3]uint32{4, 1, 1}, Block: [3]uint32{64, 1, 1}, Regs: 32, Smem: 1024}
	var c declCache
	first := c.of(&base)
	alike := base
	alike.ID, alike.Grid = 2, [3]uint32{9, 1, 1} // id and grid are the Kernel's own
	if got := c.of(&alike); got != first {
		t.Fatalf("a kernel declared alike got %+v, not the first's", got)
	}
	for name, change := range map[string]func(*trace.Kernel){
		"name":  func(k *trace.Kernel) { k.Name = "other" },
		"block": func(k *trace.Kernel) { k.Block[2] = 2 },
		"regs":  func(k *trace.Kernel) { k.Regs = 33 },
		"smem":  func(k *trace.Kernel) { k.Smem = 0 },
	} {
		k := base
		change(&k)
		d := c.of(&k)
		if d == first || *d != declOf(&k) {
			t.Errorf("%s differs: got %+v, want a declaration of its own, %+v", name, d, declOf(&k))
		}
		if c.of(&base) != first {
			t.Errorf("after a kernel whose %s differs, the first's declaration is not shared", name)
		}
	}
}
