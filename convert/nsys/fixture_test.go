package nsys

import (
	"database/sql"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	_ "modernc.org/sqlite" // the fixtures are written with SQLite itself
)

// table is a fixture table: its column declarations, as Nsight Systems
// 2024 declares them (a subset), and its rows by column name. Row values
// for columns the table does not declare are left out, so a test can drop
// a column without touching the rows.
type table struct {
	cols []string // "name TYPE ..."
	rows []map[string]any
}

// fixture is a small report: tables by name.
type fixture map[string]*table

// globalPid and globalTid are the serialized ids of the fixture's one
// process (pid 4242) and its main thread: hardware id 1 in the top bits,
// the pid above the low 24 bits, the tid in them.
const (
	globalPid = 1<<56 | 4242<<24
	globalTid = globalPid | 4243
)

// fixtureStrings are the StringIds rows.
var fixtureStrings = map[int64]string{
	1: "cudaMalloc_v3020", 2: "cudaMemcpyAsync_v3020", 3: "cudaLaunchKernel_v7000",
	4: "cudaLaunchKernel", 5: "cudaEventRecord_v3020", 6: "cudaStreamWaitEvent_v3020",
	7: "cudaMemsetAsync_v3020", 8: "cudaStreamSynchronize_v3020",
	9: "void gemm<float>(float const*, float*, int)", 10: "gemm",
	11: "relu(float*)", 12: "relu", 13: "reduce(float*)", 14: "reduce",
	15: "cudaMemcpy_v3020", 16: "cudaDeviceSynchronize_v3020", 17: "cudaEventSynchronize_v3020",
}

// baseFixture is a report of one process on two GPUs. On device 0 (an
// A100): an 8 KiB host-to-device copy on stream 7 (0.5 µs, the PCIe
// rate the replay model assumes); gemm (30 µs) on stream
// 7; an event recorded on stream 7 after it and waited for by stream 13;
// relu (20 µs, two waves) on stream 13, which must therefore follow gemm;
// a memset; reduce (10 µs) on stream 7; a 4000-byte device-to-host copy,
// a device-to-device copy and a stream synchronize. On device 1 (a T4):
// one kernel. Kernel launches appear twice in the runtime table
// (cudaLaunchKernel_v7000 and cudaLaunchKernel), and kernel, copy and
// synchronization tables carry greenContextId, which the importer does
// not read.
func baseFixture() fixture {
	f := fixture{
		"StringIds": {cols: []string{"id INTEGER NOT NULL PRIMARY KEY", "value TEXT NOT NULL"}},
		"TARGET_INFO_GPU": {cols: []string{"vmId INTEGER NOT NULL", "id INTEGER NOT NULL", "name TEXT",
			"busLocation TEXT", "clockRate INTEGER", "smCount INTEGER", "chipName TEXT", "cuDevice INTEGER",
			"maxRegistersPerBlock INTEGER", "maxShmemPerSm INTEGER", "maxRegistersPerSm INTEGER",
			"threadsPerWarp INTEGER", "maxWarpsPerSm INTEGER", "maxBlocksPerSm INTEGER",
			"computeMajor INTEGER", "computeMinor INTEGER"}},
		"META_DATA_EXPORT": {cols: []string{"name TEXT NOT NULL", "value TEXT"}},
		tabKernel: {cols: []string{"start INTEGER NOT NULL", "end INTEGER NOT NULL", "deviceId INTEGER NOT NULL",
			"contextId INTEGER NOT NULL", "greenContextId INTEGER", "streamId INTEGER NOT NULL",
			"correlationId INTEGER", "globalPid INTEGER", "demangledName INTEGER NOT NULL",
			"shortName INTEGER NOT NULL", "mangledName INTEGER", "registersPerThread INTEGER NOT NULL",
			"gridX INTEGER NOT NULL", "gridY INTEGER NOT NULL", "gridZ INTEGER NOT NULL",
			"blockX INTEGER NOT NULL", "blockY INTEGER NOT NULL", "blockZ INTEGER NOT NULL",
			"staticSharedMemory INTEGER NOT NULL", "dynamicSharedMemory INTEGER NOT NULL",
			"localMemoryPerThread INTEGER", "gridId INTEGER"}},
		tabRuntime: {cols: []string{"start INTEGER NOT NULL", "end INTEGER NOT NULL", "eventClass INTEGER NOT NULL",
			"globalTid INTEGER", "correlationId INTEGER", "nameId INTEGER NOT NULL", "returnValue INTEGER NOT NULL",
			"callchainId INTEGER"}},
		tabMemcpy: {cols: []string{"start INTEGER NOT NULL", "end INTEGER NOT NULL", "deviceId INTEGER NOT NULL",
			"contextId INTEGER NOT NULL", "greenContextId INTEGER", "streamId INTEGER NOT NULL",
			"correlationId INTEGER", "globalPid INTEGER", "bytes INTEGER NOT NULL", "copyKind INTEGER NOT NULL",
			"srcKind INTEGER", "dstKind INTEGER"}},
		tabMemset: {cols: []string{"start INTEGER NOT NULL", "end INTEGER NOT NULL", "deviceId INTEGER NOT NULL",
			"contextId INTEGER NOT NULL", "streamId INTEGER NOT NULL", "correlationId INTEGER",
			"globalPid INTEGER", "value INTEGER NOT NULL", "bytes INTEGER NOT NULL"}},
		tabSync: {cols: []string{"start INTEGER NOT NULL", "end INTEGER NOT NULL", "deviceId INTEGER NOT NULL",
			"contextId INTEGER NOT NULL", "greenContextId INTEGER", "streamId INTEGER NOT NULL",
			"correlationId INTEGER", "globalPid INTEGER", "syncType INTEGER NOT NULL", "eventId INTEGER NOT NULL"}},
		tabEvent: {cols: []string{"deviceId INTEGER NOT NULL", "contextId INTEGER NOT NULL",
			"streamId INTEGER NOT NULL", "correlationId INTEGER", "globalPid INTEGER", "eventId INTEGER NOT NULL"}},
	}
	for _, id := range slices.Sorted(maps.Keys(fixtureStrings)) {
		f.add("StringIds", map[string]any{"id": id, "value": fixtureStrings[id]})
	}
	f.add("META_DATA_EXPORT", map[string]any{"name": "EXPORT_PRODUCT_VERSION", "value": "2024.6.2.225"})
	f.add("TARGET_INFO_GPU", map[string]any{"vmId": 0, "id": 0, "name": "NVIDIA A100-SXM4-40GB",
		"busLocation": "0000:07:00.0", "clockRate": 1410000000, "smCount": 108, "chipName": "GA100",
		"cuDevice": 0, "maxRegistersPerBlock": 65536, "maxShmemPerSm": 167936, "maxRegistersPerSm": 65536,
		"threadsPerWarp": 32, "maxWarpsPerSm": 64, "maxBlocksPerSm": 32, "computeMajor": 8, "computeMinor": 0})
	f.add("TARGET_INFO_GPU", map[string]any{"vmId": 0, "id": 1, "name": "Tesla T4",
		"busLocation": "0000:3b:00.0", "clockRate": 1590000000, "smCount": 40, "chipName": "TU104",
		"cuDevice": 1, "maxRegistersPerBlock": 65536, "maxShmemPerSm": 65536, "maxRegistersPerSm": 65536,
		"threadsPerWarp": 32, "maxWarpsPerSm": 32, "maxBlocksPerSm": 16, "computeMajor": 7, "computeMinor": 5})

	f.call(1, 500, 1)       // cudaMalloc: no GPU activity
	f.call(2, 1000, 2)      // cudaMemcpyAsync
	f.call(3, 2000, 3, 4)   // cudaLaunchKernel, twice: gemm
	f.call(4, 2400, 5)      // cudaEventRecord
	f.call(5, 2500, 6)      // cudaStreamWaitEvent
	f.call(6, 2600, 3, 4)   // relu
	f.call(7, 2700, 7)      // cudaMemsetAsync
	f.call(8, 60000, 4)     // reduce (one row)
	f.call(9, 61000, 2)     // d2h copy
	f.call(10, 61500, 2)    // d2d copy
	f.call(11, 62000, 8)    // cudaStreamSynchronize
	f.call(12, 63000, 3, 4) // the kernel on device 1

	f.copy(2, 0, 7, 1300, 1800, 8192, copyHtoD)
	f.kernel(3, 0, 7, 3000, 33000, 9, [6]int64{216, 1, 1, 256, 1, 1}, 32, 1024, 3072)
	f.add(tabEvent, map[string]any{"deviceId": 0, "contextId": 1, "streamId": 7, "correlationId": 4, "globalPid": globalPid, "eventId": 1})
	f.sync(5, 0, 13, 2500, 2550, syncStreamWait, 1)
	f.kernel(6, 0, 13, 33500, 53500, 11, [6]int64{2000, 1, 1, 128, 1, 1}, 16, 0, 0)
	f.add(tabMemset, map[string]any{"start": 2800, "end": 2900, "deviceId": 0, "contextId": 1, "streamId": 13,
		"correlationId": 7, "globalPid": globalPid, "value": 0, "bytes": 4096})
	f.kernel(8, 0, 7, 60500, 70500, 13, [6]int64{4, 4, 2, 16, 16, 1}, 24, 0, 0)
	f.copy(9, 0, 7, 70600, 70700, 4000, copyDtoH)
	f.copy(10, 0, 7, 70800, 70900, 4000, 8)
	f.sync(11, 0, 7, 62000, 71000, 3, -1)
	f.kernel(12, 1, 7, 64000, 65000, 9, [6]int64{1, 1, 1, 32, 1, 1}, 8, 0, 0)
	return f
}

// add appends a row to a table.
func (f fixture) add(tab string, row map[string]any) { f[tab].rows = append(f[tab].rows, row) }

// call adds runtime rows under one correlation id, one per name, each a
// few ns after the previous (a launch seen by both the runtime's
// versioned and plain callbacks).
func (f fixture) call(corr, start int64, names ...int64) {
	for i, n := range names {
		s := start + 5*int64(i)
		f.add(tabRuntime, map[string]any{"start": s, "end": s + 200, "eventClass": 0, "globalTid": globalTid,
			"correlationId": corr, "nameId": n, "returnValue": 0})
	}
}

// kernel adds a kernel row; shape is grid then block.
func (f fixture) kernel(corr, dev, stream, start, end, name int64, shape [6]int64, regs, static, dynamic int64) {
	f.add(tabKernel, map[string]any{"start": start, "end": end, "deviceId": dev, "contextId": 1,
		"greenContextId": nil, "streamId": stream, "correlationId": corr, "globalPid": globalPid,
		"demangledName": name, "shortName": name + 1, "registersPerThread": regs,
		"gridX": shape[0], "gridY": shape[1], "gridZ": shape[2], "blockX": shape[3], "blockY": shape[4], "blockZ": shape[5],
		"staticSharedMemory": static, "dynamicSharedMemory": dynamic, "localMemoryPerThread": 0, "gridId": corr})
}

// copy adds a copy row whose host side (if any) is pinned memory; the
// memory kinds are ENUM_CUDA_MEM_KIND's (0 pageable, 1 pinned, 2 device).
func (f fixture) copy(corr, dev, stream, start, end, bytes, kind int64) {
	src, dst := 2, 2
	switch kind {
	case copyHtoD:
		src = 1
	case copyDtoH:
		dst = 1
	}
	f.add(tabMemcpy, map[string]any{"start": start, "end": end, "deviceId": dev, "contextId": 1,
		"streamId": stream, "correlationId": corr, "globalPid": globalPid, "bytes": bytes, "copyKind": kind,
		"srcKind": src, "dstKind": dst})
}

func (f fixture) sync(corr, dev, stream, start, end, kind, event int64) {
	f.add(tabSync, map[string]any{"start": start, "end": end, "deviceId": dev, "contextId": 1,
		"streamId": stream, "correlationId": corr, "globalPid": globalPid, "syncType": kind, "eventId": event})
}

// drop removes a column from a table's declaration.
func (f fixture) drop(tab, col string) {
	f[tab].cols = slices.DeleteFunc(f[tab].cols, func(c string) bool { return strings.Fields(c)[0] == col })
}

// write creates the report as an SQLite file in a fresh temporary
// directory and returns its path.
func (f fixture) write(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "report.sqlite")
	f.writeAt(t, path)
	return path
}

// writeAt creates the report as an SQLite file at path, which must not
// hold one already.
func (f fixture) writeAt(t testing.TB, path string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range slices.Sorted(maps.Keys(f)) {
		if err := f[name].create(tx, name); err != nil {
			t.Fatalf("fixture table %s: %v", name, err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// create makes the table and inserts its rows.
func (tb *table) create(tx *sql.Tx, name string) error {
	var names []string
	for _, c := range tb.cols {
		names = append(names, strings.Fields(c)[0])
	}
	if _, err := tx.Exec(`CREATE TABLE ` + name + ` (` + declare(tb.cols) + `)`); err != nil {
		return err
	}
	for _, r := range tb.rows {
		var cols, marks []string
		var vals []any
		for _, c := range names {
			if v, ok := r[c]; ok {
				cols, marks, vals = append(cols, `"`+c+`"`), append(marks, "?"), append(vals, v)
			}
		}
		if _, err := tx.Exec(`INSERT INTO `+name+` (`+strings.Join(cols, ", ")+`) VALUES (`+strings.Join(marks, ", ")+`)`, vals...); err != nil {
			return err
		}
	}
	return nil
}

// declare writes a column list as Nsight Systems does: a column a line,
// each followed by a comment whose commas, parentheses and apostrophes
// the reader must not take for SQL.
func declare(cols []string) string {
	const comment = "   -- Event's timestamp (ns), say.\n"
	var b strings.Builder
	for i, c := range cols {
		b.WriteString("\n    " + c)
		if i < len(cols)-1 {
			b.WriteString(",")
		}
		b.WriteString(comment)
	}
	return b.String()
}

// loosen drops the NOT NULL constraints, so a test can store NULLs where
// an export never would.
func (f fixture) loosen() {
	for _, tb := range f {
		for i, c := range tb.cols {
			tb.cols[i] = strings.ReplaceAll(c, " NOT NULL", "")
		}
	}
}
