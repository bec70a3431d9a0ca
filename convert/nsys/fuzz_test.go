package nsys

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/gpureplay/gpureplay/trace"
)

// errTooMany stops a fuzzed conversion whose grids would take long to
// write out.
var errTooMany = errors.New("too many records")

// collect is a trace.Sink that keeps at most 10000 records.
type collect struct{ recs []trace.Record }

func (c *collect) Write(r trace.Record) error {
	if len(c.recs) == 10000 {
		return errTooMany
	}
	c.recs = append(c.recs, r)
	return nil
}

// FuzzConvert feeds reports to the importer: it must never panic, every
// failure must be an *Error, and a report it accepts must become a trace
// that passes trace.NewValidator. Each input is tried twice: its bytes
// as the file (most are not SQLite; mutated seeds exercise SQLite's
// corruption checks), and the base fixture with the first kernel's
// fields, the GPU's clock rate and the stream wait's event replaced by
// the fuzzed numbers (bit i of nulls makes the i-th of them NULL; bit 10
// describes the GPU in the tables of some older exports).
//
//	go test ./convert/nsys -fuzz FuzzConvert
func FuzzConvert(f *testing.F) {
	valid, err := os.ReadFile(baseFixture().write(f))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(valid, int64(216), int64(256), int64(3000), int64(33000), int64(32), int64(3072), int64(7), int64(1410000000), int64(1), uint16(0))
	f.Add([]byte(Magic), int64(0), int64(0), int64(5), int64(4), int64(-1), int64(-1), int64(-7), int64(0), int64(0), uint16(0))
	f.Add([]byte("{}"), int64(1<<32), int64(1025), int64(-1<<63), int64(1<<63-1), int64(256), int64(1<<41), int64(1<<40), int64(-1), int64(2), uint16(0))
	f.Add([]byte{}, int64(-3), int64(32), int64(0), int64(0), int64(0), int64(0), int64(13), int64(1530), int64(1), uint16(0x3ff))
	f.Add(valid[:len(valid)/2], int64(65535), int64(1024), int64(1<<62), int64(-1<<62), int64(255), int64(0), int64(0), int64(1<<62), int64(1), uint16(0x155))
	f.Add([]byte{}, int64(216), int64(256), int64(3000), int64(33000), int64(32), int64(3072), int64(7), int64(1410000), int64(1), uint16(1<<10))
	// Issue 75: a kernel starting 2^62 ns after the ops issued after it.
	f.Add([]byte{}, int64(216), int64(256), int64(3000+1<<62), int64(33000+1<<62), int64(32), int64(3072), int64(7), int64(1410000000), int64(1), uint16(0))
	blocking, err := os.ReadFile(blockingFixture().write(f))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(blocking, int64(216), int64(256), int64(3000), int64(33000), int64(32), int64(3072), int64(7), int64(1410000000), int64(5), uint16(0))
	f.Add(blocking[:len(blocking)*3/4], int64(1), int64(1), int64(0), int64(0), int64(0), int64(0), int64(0), int64(0), int64(invalidID), uint16(1<<8))
	// A device sync that returns before the end of the kernel it waited for.
	skew, err := os.ReadFile(skewFixture().write(f))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(skew, int64(216), int64(256), int64(3000), int64(33000), int64(32), int64(3072), int64(7), int64(1410000000), int64(5), uint16(0))
	measured, err := os.ReadFile(measuredFixture().write(f))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(measured, int64(216), int64(256), int64(3000), int64(33000), int64(32), int64(3072), int64(7), int64(1410000000), int64(1), uint16(0))
	f.Fuzz(func(t *testing.T, file []byte, grid, block, start, end, regs, smem, stream, rate, event int64, nulls uint16) {
		if len(file) > 0 {
			path := filepath.Join(t.TempDir(), "fuzz.sqlite")
			if err := os.WriteFile(path, file, 0o644); err != nil {
				t.Fatal(err)
			}
			check(t, path)
		}
		fx := baseFixture()
		g, rateCol := fx[tabGPU].rows[0], "clockRate"
		if nulls&(1<<10) != 0 {
			olderGPUTables(fx)
			g, rateCol = fx[tabCUDAGPU].rows[0], "coreClockRate"
		}
		fx.loosen()
		k, e := fx[tabKernel].rows[0], fx[tabSync].rows[0]
		fields := []struct {
			row map[string]any
			col string
			v   int64
		}{
			{k, "gridX", grid}, {k, "blockX", block}, {k, "start", start}, {k, "end", end},
			{k, "registersPerThread", regs}, {k, "dynamicSharedMemory", smem}, {k, "streamId", stream},
			{g, rateCol, rate}, {e, "eventId", event}, {k, "correlationId", 3},
		}
		for i, fd := range fields {
			fd.row[fd.col] = fd.v
			if nulls&(1<<i) != 0 {
				fd.row[fd.col] = nil
			}
		}
		check(t, fx.write(t))
	})
}

// check converts the report at path and checks the fuzz invariants.
func check(t *testing.T, path string) {
	var c collect
	_, err := Convert(path, &c, DefaultOptions())
	if errors.Is(err, errTooMany) {
		return
	}
	if err != nil {
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("error %v is a %T, not an *Error", err, err)
		}
		return
	}
	v := trace.NewValidator(&slice{recs: c.recs})
	w := trace.NewJSONLWriter(io.Discard) // what a file must hold besides: strings UTF-8 and at most MaxString
	for {
		rec, err := v.Next()
		if err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("accepted report converts to an invalid trace: %v", err)
		}
		if err := w.Write(rec); err != nil {
			t.Fatalf("accepted report converts to a trace no file can hold: %v", err)
		}
	}
}

// slice is a trace.Source over records in memory.
type slice struct{ recs []trace.Record }

func (s *slice) Next() (trace.Record, error) {
	if len(s.recs) == 0 {
		return nil, io.EOF
	}
	r := s.recs[0]
	s.recs = s.recs[1:]
	return r, nil
}
