package nsys

import (
	"database/sql"
	"regexp"
)

// countUnused adds to unused the rows of the tables the importer reads
// that the walk did not turn into records: other devices' activities,
// copies the trace cannot express, memsets, and API calls no activity
// points at. (The walk counts the device's synchronizations and event
// records that became no sync record.)
func (r *report) countUnused(dev int64, unused map[string]int) error {
	var d any = dev
	other := func(v []any) bool { return !equal(v[0], d) } // deviceId IS NOT dev
	counts := []struct {
		table, what string
		cols        []string
		keep        func(v []any) bool // v: cols' values
		label       func(sql.NullInt64) string
	}{
		{tabKernel, "kernel (other device)", []string{"deviceId"}, other, nil},
		{tabMemcpy, "memcpy (other device)", []string{"deviceId"}, other, nil},
		{tabMemcpy, "memcpy:", []string{"deviceId", "copyKind"}, func(v []any) bool {
			return equal(v[0], d) && !(equal(v[1], int64(copyHtoD)) || equal(v[1], int64(copyDtoH)))
		}, copyLabel},
		{tabMemcpy, "memcpy (no bytes)", []string{"deviceId", "copyKind", "bytes"}, func(v []any) bool {
			return equal(v[0], d) && (equal(v[1], int64(copyHtoD)) || equal(v[1], int64(copyDtoH))) && !greater(v[2], int64(0))
		}, nil},
		{tabMemset, "memset (other device)", []string{"deviceId"}, other, nil},
		{tabMemset, "memset", []string{"deviceId"}, func(v []any) bool { return equal(v[0], d) }, nil},
		{tabSync, "synchronization (other device)", []string{"deviceId"}, other, nil},
		{tabEvent, "cuda_event (other device)", []string{"deviceId"}, other, nil},
	}
	for _, q := range counts {
		if !r.has(q.table) {
			continue
		}
		// Rows are counted by their grouping value (the kind a label
		// names), as SQL's GROUP BY would.
		n := map[valueKey]int{}
		keys := map[valueKey]any{}
		err := r.scan(q.table, "counting unused rows", q.cols, func(_ int64, v []any) error {
			if !q.keep(v) {
				return nil
			}
			var key any
			if q.label != nil {
				key = v[1]
			}
			k := keyOf(key)
			if _, ok := keys[k]; !ok {
				keys[k] = copyValue(key)
			}
			n[k]++
			return nil
		})
		if err != nil {
			return err
		}
		for k, c := range n {
			what := q.what
			if q.label != nil {
				kind, err := scanInt(keys[k])
				if err != nil {
					return &Error{File: r.file, Table: q.table, Row: -1, Msg: "counting unused rows", Err: err}
				}
				what += q.label(kind)
			}
			unused[what] += c
		}
	}
	return r.countCalls(unused)
}

// versionSuffix is the _vNNNN the CUDA runtime appends to an API
// function's name in its callback ids (cudaLaunchKernel_v7000).
var versionSuffix = regexp.MustCompile(`_v[0-9]+$`)

// countCalls counts the API calls that no GPU activity row points at, by
// function name without its version suffix: cudaMalloc,
// cudaStreamSynchronize's call when the report has no synchronization
// rows, and so on. A call is its runtime rows of one correlation id and
// process (its name from the earliest of them); a row without a
// correlation id is a call of its own. An activity row points at a call
// with its correlation id and, where both sides know it, its process.
func (r *report) countCalls(unused map[string]int) error {
	anyPid := map[valueKey]bool{} // correlation id → used by a row whose process is unknown
	used := map[launchKey]bool{}  // (correlation id, process) → used
	for _, t := range []string{tabKernel, tabMemcpy, tabMemset, tabSync, tabEvent} {
		if !r.hasCol(t, "correlationId") {
			continue
		}
		byPid := r.hasCol(t, "globalPid")
		err := r.scan(t, "counting unused API calls", []string{"correlationId", "globalPid"}, func(_ int64, v []any) error {
			if v[0] == nil {
				return nil
			}
			var pid any
			if byPid {
				pid = perProcess(v[1])
			}
			if pid == nil {
				anyPid[keyOf(v[0])] = true
			} else {
				used[launchKey{keyOf(v[0]), keyOf(pid)}] = true
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	type call struct{ start, name any }
	calls := map[launchKey]*call{}
	var loose []any // the name ids of calls without a correlation id
	byPid := r.hasCol(tabRuntime, "globalTid")
	err := r.scan(tabRuntime, "counting unused API calls", []string{"correlationId", "globalTid", "nameId", "start"}, func(_ int64, v []any) error {
		if v[0] == nil {
			loose = append(loose, copyValue(v[2]))
			return nil
		}
		var pid any
		if byPid {
			pid = perProcess(v[1])
		}
		k := launchKey{keyOf(v[0]), keyOf(pid)}
		c := calls[k]
		switch {
		case c == nil:
			calls[k] = &call{start: copyValue(v[3]), name: copyValue(v[2])}
		case v[3] != nil && (c.start == nil || compare(v[3], c.start) < 0):
			c.start, c.name = copyValue(v[3]), copyValue(v[2])
		}
		return nil
	})
	if err != nil {
		return err
	}
	strs, err := r.stringIds()
	if err != nil {
		return err
	}
	count := func(nameID any) {
		var name sql.NullString
		if nameID != nil {
			if s, ok := strs[keyOf(nameID)]; ok {
				name = scanString(s)
			}
		}
		fn := versionSuffix.ReplaceAllString(name.String, "")
		if !name.Valid {
			fn = "(name not in " + tabStrings + ")"
		}
		unused["runtime:"+fn]++
	}
	// A call is used by a row of its correlation id whose process is
	// unknown or is the call's; a call whose process is unknown, by any
	// row of its correlation id.
	var usedCorr map[valueKey]bool
	for k, c := range calls {
		if anyPid[k.corr] || used[k] {
			continue
		}
		if k.pid == (valueKey{}) {
			if usedCorr == nil {
				usedCorr = map[valueKey]bool{}
				for u := range used {
					usedCorr[u.corr] = true
				}
			}
			if usedCorr[k.corr] {
				continue
			}
		}
		count(c.name)
	}
	for _, id := range loose {
		count(id)
	}
	return nil
}

// exportVersion is the Nsight Systems version that exported the report
// (EXPORT_PRODUCT_VERSION in META_DATA_EXPORT, or in EXPORT_META_DATA as
// versions up to 2023.2 call the table), or "".
func (r *report) exportVersion() string {
	for _, tab := range []string{tabMeta, tabMetaOld} {
		if v := r.metaValue(tab, "EXPORT_PRODUCT_VERSION"); v != "" {
			return v
		}
	}
	return ""
}

// metaValue is the value of the first row of the name/value table tab
// called name, or "" if there is none or the table cannot be read.
func (r *report) metaValue(tab, name string) string {
	if !r.hasCol(tab, "name") || !r.hasCol(tab, "value") {
		return ""
	}
	var v sql.NullString
	found := false
	err := r.scan(tab, "reading the export's version", []string{"name", "value"}, func(_ int64, row []any) error {
		if !found && equal(row[0], name) {
			v, found = scanString(row[1]), true
		}
		return nil
	})
	if err != nil {
		return ""
	}
	return v.String
}
