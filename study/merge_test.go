package study

import (
	"fmt"
	"testing"
	"time"

	"github.com/gpureplay/gpureplay/results"
	"github.com/gpureplay/gpureplay/tables"
)

// A replay whose rows wait for the merge, behind an earlier replay still
// running, is told so through OutputParking's park (on), and told again
// (off) once the merge has taken the earlier one's rows and goes on to
// its own: a caller running replays in lockstep lets it go meanwhile.
func TestOutputParkingTellsTheWait(t *testing.T) {
	defer func(n int64) { queueBytes = n }(queueBytes)
	queueBytes = 1
	w, err := results.Create(t.TempDir(), results.CSV)
	if err != nil {
		t.Fatal(err)
	}
	m := NewMerge(w, 2)
	calls := make(chan bool, 4)
	later := m.OutputParking(1, func(on bool) { calls <- on })
	done := make(chan error)
	go func() {
		later.Begin(tables.Run{Trace: "t", Policy: "later"})
		for i := range 1<<17 + 1 { // three batches: the second waits
			later.Kernel(tables.Kernel{KernelID: uint64(i), Name: "k", Origin: "host"})
		}
		later.Summary(tables.Summary{GPU: "g", MakespanCycles: 1})
		done <- later.Close()
	}()
	select {
	case on := <-calls:
		if !on {
			t.Fatal("the later replay's first park was off, want on")
		}
	case <-time.After(time.Minute):
		t.Fatal("the later replay waits for the merge and was not parked")
	}
	first := m.Output(0)
	first.Begin(tables.Run{Trace: "t", Policy: "first"})
	first.Summary(tables.Summary{GPU: "g", MakespanCycles: 1})
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	close(calls)
	var got []bool
	got = append(got, true)
	for on := range calls {
		got = append(got, on)
	}
	if len(got) < 2 || got[len(got)-1] {
		t.Errorf("parks %v, want on, then off last", got)
	}
	for i := 1; i < len(got); i++ {
		if got[i] == got[i-1] {
			t.Errorf("parks %v: %s twice in a row", got, fmt.Sprint(got[i]))
		}
	}
}
