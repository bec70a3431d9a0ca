package trace

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The hot paths test a record with one condition (kernelOK, alikeOK,
// ownStreamOK) where the full rules make errors (kernelError,
// launchError). These tests pair each fast check with its rule on the
// edges of every field, so that a rule added to one and not the other
// fails here, not only in a fuzz run that happens on it.

// edgeU32 and edgeInt are values on and around the rules' limits.
var (
	edgeU32 = []uint32{0, 1, 2, 31, 32, 33, 1023, 1024, 1025, 1 << 16, math.MaxUint32}
	edgeInt = []int64{math.MinInt64, -1, 0, 1, 255, 256, MaxCycles - 1, MaxCycles, MaxCycles + 1, math.MaxInt64}
)

// randomKernel is a declaration whose fields are drawn from the edges.
func randomKernel(r *rand.Rand) *Kernel {
	k := &Kernel{ID: r.Uint64N(1 << 20), Regs: int(edgeInt[r.IntN(len(edgeInt))]), Smem: edgeInt[r.IntN(len(edgeInt))]}
	if r.IntN(8) > 0 {
		k.Name = "k"
	}
	for i := range 3 {
		k.Grid[i] = edgeU32[r.IntN(len(edgeU32))]
		k.Block[i] = edgeU32[r.IntN(len(edgeU32))]
	}
	if r.IntN(2) == 0 { // most drawn blocks break a rule: keep half of them small
		k.Block = [3]uint32{uint32(1 + r.IntN(32)), uint32(1 + r.IntN(32)), 1}
	}
	if r.IntN(2) == 0 {
		k.Regs = r.IntN(256)
		k.Smem = r.Int64N(1 << 16)
	}
	return k
}

func TestKernelOKIsKernelError(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	ok := 0
	for range 200_000 {
		k := randomKernel(r)
		want := kernelError(k) == nil
		if got := kernelOK(k); got != want {
			t.Fatalf("kernelOK(%+v) = %v; kernelError says %v", *k, got, kernelError(k))
		}
		if want {
			ok++
		}
	}
	if ok == 0 {
		t.Fatal("no declaration drawn keeps to the rules: the test checks only one side")
	}
}

// alikeOK stands for kernelOK on a declaration that differs from one
// that kept to the rules in grid x alone (Child.Alike).
func TestAlikeOKIsKernelOK(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	n := 0
	for n < 50_000 {
		prev := randomKernel(r)
		if !kernelOK(prev) {
			continue
		}
		n++
		k := *prev
		k.ID++
		k.Grid[0] = edgeU32[r.IntN(len(edgeU32))]
		if got, want := alikeOK(&k, k.CTAs()), kernelOK(&k); got != want {
			t.Fatalf("alikeOK(%+v) = %v; kernelOK says %v", k, got, want)
		}
	}
}

// ownStreamOK is launchError's verdict on a device launch into a stream
// of its own that creates none, and false for every other launch (Next
// takes those): with a stream id too it is false (issue 75: an own
// launch's id was taken without a word).
func TestOwnStreamOKIsLaunchError(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	ok := 0
	for range 200_000 {
		l := &Launch{
			Kernel:        r.Uint64N(1 << 20),
			Workload:      edgeInt[r.IntN(len(edgeInt))],
			InlineCycles:  edgeInt[r.IntN(len(edgeInt))],
			DeviceStream:  DeviceStream(r.IntN(int(numDeviceStreams) + 1)),
			CreatesStream: r.IntN(4) == 0,
			Stream:        uint64(r.IntN(3)),
			Parent:        &Parent{}, // a device launch, as Child's are
		}
		if r.IntN(2) == 0 {
			l.DeviceStream, l.CreatesStream = OwnStream, false
		}
		got := ownStreamOK(l)
		own := l.DeviceStream == OwnStream && !l.CreatesStream
		if want := own && launchError(l) == nil; got != want {
			t.Fatalf("ownStreamOK(%+v) = %v; launchError says %v", *l, got, launchError(l))
		}
		if got {
			ok++
		}
	}
	if ok == 0 {
		t.Fatal("no launch drawn passes: the test checks only one side")
	}
}
