package trace

import (
	"strings"
	"testing"
)

// A CheckedSink passes valid records on, stops at the first invalid one
// with its record number, and checks the end of the trace in Finish.
func TestCheckedSink(t *testing.T) {
	var got []Record
	out := sinkFunc(func(r Record) error { got = append(got, r); return nil })
	c := NewCheckedSink(out)
	for _, r := range []Record{
		&Header{Version: 1, ClockMHz: 706},
		&Kernel{ID: 1, Name: "k", Grid: [3]uint32{2, 1, 1}, Block: [3]uint32{32, 1, 1}},
		&Launch{Kernel: 1},
		&CTA{Kernel: 1, CTA: 0, Cycles: 5},
	} {
		if err := c.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Finish(); err == nil || !strings.Contains(err.Error(), "kernel 1 has cta records for 1 of its 2 CTAs") {
		t.Errorf("Finish: %v", err)
	}
	if len(got) != 4 {
		t.Errorf("%d records passed on, want 4", len(got))
	}
	c = NewCheckedSink(out)
	c.Write(&Header{Version: 1, ClockMHz: 706})
	err := c.Write(&Buffer{ID: 1, Name: "b", Bytes: 1e14, Role: RoleInput})
	if err == nil || !strings.Contains(err.Error(), "record 2 (buffer)") || c.Write(&Header{}) != err {
		t.Errorf("invalid buffer: %v (and the error must stick)", err)
	}
}

type sinkFunc func(Record) error

func (f sinkFunc) Write(r Record) error { return f(r) }
