package nsys

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gpureplay/gpureplay/trace"
)

// discard is a trace.Sink that keeps nothing.
type discard struct{}

func (discard) Write(trace.Record) error { return nil }

// TestErrors checks that bad reports give an *Error naming what was wrong
// and where: the table and the rowid (the fixture's kernel rows are gemm
// 1, relu 2, reduce 3 and device 1's kernel 4).
func TestErrors(t *testing.T) {
	kernel := func(row int, col string, v any) func(fixture) {
		return func(f fixture) { f.loosen(); f[tabKernel].rows[row][col] = v }
	}
	for _, tc := range []struct {
		name   string
		change func(fixture)
		want   string
		device int64
	}{
		{"no kernel table", func(f fixture) { delete(f, tabKernel) }, "report.sqlite: no table CUPTI_ACTIVITY_KIND_KERNEL: the report has no CUDA kernels", -1},
		{"no runtime table", func(f fixture) { delete(f, tabRuntime) }, "no table CUPTI_ACTIVITY_KIND_RUNTIME: the report has no CUDA API calls", -1},
		{"no strings", func(f fixture) { delete(f, tabStrings) }, "no table StringIds", -1},
		{"no gridY", func(f fixture) { f.drop(tabKernel, "gridY") }, "report.sqlite: CUPTI_ACTIVITY_KIND_KERNEL: no column gridY", -1},
		{"no names", func(f fixture) { f.drop(tabKernel, "demangledName"); f.drop(tabKernel, "shortName") }, "no column demangledName or shortName", -1},
		{"no copyKind", func(f fixture) { f.drop(tabMemcpy, "copyKind") }, "CUPTI_ACTIVITY_KIND_MEMCPY: no column copyKind", -1},
		{"no runtime correlationId", func(f fixture) { f.drop(tabRuntime, "correlationId") }, "CUPTI_ACTIVITY_KIND_RUNTIME: no column correlationId", -1},
		{"no launch", func(f fixture) {
			f[tabRuntime].rows = slices.DeleteFunc(f[tabRuntime].rows, func(r map[string]any) bool { return r["correlationId"] == int64(6) })
		}, `CUPTI_ACTIVITY_KIND_KERNEL row 2: kernel "relu(float*)" has no launch: no CUPTI_ACTIVITY_KIND_RUNTIME row with correlationId 6`, -1},
		{"launch of another process", func(f fixture) { f[tabKernel].rows[1]["globalPid"] = int64(4343 << 24) }, `row 2: kernel "relu(float*)" has no launch`, -1},
		{"no kernels", func(f fixture) { f[tabKernel].rows = nil }, "CUPTI_ACTIVITY_KIND_KERNEL: no kernels: nothing to convert", -1},
		{"zero grid", kernel(0, "gridX", 0), `row 1: kernel "void gemm<float>(float const*, float*, int)" has grid [0 1 1] and block [256 1 1]`, -1},
		{"negative grid", kernel(1, "gridZ", -2), "row 2: kernel \"relu(float*)\" has grid [2000 1 -2]", -1},
		{"big block", kernel(1, "blockX", 2000), "has grid [2000 1 1] and block [2000 1 1]", -1},
		{"too many threads", kernel(1, "blockY", 16), "has block [128 16 1], more than 1024 threads", -1},
		{"too many CTAs", kernel(1, "gridY", 1<<31), "more than 2^32 CTAs", -1},
		// Issue 75: started 2^62 ns after the copy issued after it in its
		// stream (row 9, at 70600 ns), its start was dropped with exit 0.
		{"starts past the ops after it", func(f fixture) { kernel(2, "start", 70600+1<<62)(f); kernel(2, "end", 70600+1<<62+1000)(f) },
			`CUPTI_ACTIVITY_KIND_KERNEL row 3: kernel "reduce(float*)" starts on the GPU 4611686018427457504 ns after the capture's first operation, more than a trace spans (2^40 cycles, 780 s at 1410 MHz)`, -1},
		{"ends before it starts", kernel(2, "end", 60000), `row 3: kernel "reduce(float*)" ends (60000 ns) before it starts (60500 ns)`, -1},
		{"NULL grid", kernel(0, "gridX", nil), "row 1: gridX is NULL", -1},
		{"text grid", kernel(0, "gridX", "lots"), `row 1: gridX is "lots", not an integer`, -1},
		{"fractional start", kernel(0, "start", 1.5), "row 1: start is 1.5, not an integer", -1},
		{"NULL stream", kernel(0, "streamId", nil), "row 1: streamId is NULL", -1},
		{"registers", kernel(0, "registersPerThread", 300), "has 300 registers per thread", -1},
		{"shared memory", kernel(0, "dynamicSharedMemory", -1), "has 1024 bytes of static and -1 of dynamic shared memory", -1},
		{"too big for an SM", kernel(0, "dynamicSharedMemory", 200000), `row 1: kernel "void gemm<float>(float const*, float*, int)" does not fit on an SM of the captured GPU (smem limit)`, -1},
		// Issue 75: the writer's error named an output record, not the row.
		{"long name", func(f fixture) {
			f.add("StringIds", map[string]any{"id": 98, "value": strings.Repeat("k", trace.MaxString+1)})
			kernel(0, "demangledName", 98)(f)
		}, "row 1: kernel has a name of 1048577 bytes; a trace holds at most 1048576 (2^20)", -1},
		{"no name", func(f fixture) { kernel(0, "demangledName", 99)(f); kernel(0, "shortName", nil)(f) }, "row 1: kernel has no name", -1},
		{"no GPU table", func(f fixture) { delete(f, tabGPU) }, "no table TARGET_INFO_GPU or TARGET_INFO_CUDA_GPU: the per-CTA estimate needs the device's SM count and limits (set the gpu option", -1},
		{"no GPU row", func(f fixture) { f[tabGPU].rows = f[tabGPU].rows[1:] }, "no row for device 0 in TARGET_INFO_GPU:", -1},
		{"no smCount", func(f fixture) { f.drop(tabGPU, "smCount") }, "TARGET_INFO_GPU row 1: device 0 has no usable smCount", -1},
		{"negative warps", func(f fixture) { f[tabGPU].rows[0]["maxWarpsPerSm"] = -64 }, "device 0 has no usable maxWarpsPerSm", -1},
		{"no row before 2022", func(f fixture) { olderGPUTables(f); f[tabCUDAGPU].rows[0]["deviceId"] = 1 }, "no row for device 0 in TARGET_INFO_GPU or TARGET_INFO_CUDA_GPU:", -1},
		{"no SM count before 2022", func(f fixture) { olderGPUTables(f); f.drop(tabCUDAGPU, "numMultiprocessors") }, "TARGET_INFO_CUDA_GPU row 1: device 0 has no usable numMultiprocessors", -1},
		{"bad copy stream", func(f fixture) { f.loosen(); f[tabMemcpy].rows[1]["streamId"] = nil }, "CUPTI_ACTIVITY_KIND_MEMCPY row 2: streamId is NULL", -1},
		{"huge copy", func(f fixture) { f[tabMemcpy].rows[0]["bytes"] = int64(1) << 50 }, "CUPTI_ACTIVITY_KIND_MEMCPY row 1: copy of 1125899906842624 bytes", -1},
		{"bad event id", func(f fixture) { f[tabEvent].rows[0]["eventId"] = "x" }, `CUPTI_ACTIVITY_KIND_CUDA_EVENT row 1: eventId is "x", not an integer`, -1},
		{"device option", func(f fixture) {}, "CUPTI_ACTIVITY_KIND_KERNEL: no kernels on device 5", 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := baseFixture()
			tc.change(f)
			o := DefaultOptions()
			o.Device = tc.device
			_, err := Convert(f.write(t), discard{}, o)
			t.Log(err)
			var e *Error
			if !errors.As(err, &e) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v (%T), want an *Error containing %q", err, err, tc.want)
			}
		})
	}
}

// TestNotSQLite checks the file-level errors: a missing file keeps its
// fs error; anything not starting with the SQLite magic, or SQLite in
// name only, is an *Error.
func TestNotSQLite(t *testing.T) {
	dir := t.TempDir()
	_, err := Convert(filepath.Join(dir, "missing.sqlite"), discard{}, DefaultOptions())
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: err = %v", err)
	}
	valid, err := os.ReadFile(baseFixture().write(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, want string
		data       []byte
	}{
		{"empty", "not an SQLite database; convert takes the SQLite export", nil},
		{"json", "not an SQLite database", []byte(`{"traceEvents": []}`)},
		{"magic only", "", []byte(Magic)},
		{"truncated", "", valid[:len(valid)/3]},
		{"corrupt", "", append(append([]byte{}, valid[:100]...), make([]byte, len(valid)-100)...)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.name+".sqlite")
			if err := os.WriteFile(path, tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Convert(path, discard{}, DefaultOptions())
			t.Log(err)
			var e *Error
			if !errors.As(err, &e) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v (%T), want an *Error containing %q", err, err, tc.want)
			}
		})
	}
	if _, err := Convert(dir, discard{}, DefaultOptions()); !errors.As(err, &e) {
		t.Errorf("directory: err = %v", err)
	}
}

// TestSinkError passes the sink's error through unchanged.
func TestSinkError(t *testing.T) {
	full := errors.New("disk full")
	if _, err := Convert(baseFixture().write(t), failing{full}, DefaultOptions()); err != full {
		t.Fatalf("err = %v, want %v", err, full)
	}
}

type failing struct{ err error }

func (f failing) Write(trace.Record) error { return f.err }
