package nsys

import (
	"database/sql"
	"regexp"
)

// countUnused adds to unused the rows of the tables the importer reads
// that the walk did not turn into records: other devices' activities,
// copies the trace cannot express, memsets, synchronizations other than
// stream waits, and API calls no activity points at.
func (r *report) countUnused(dev int64, unused map[string]int) error {
	counts := []struct {
		table, what, query string
		label              func(sql.NullInt64) string
	}{
		{tabKernel, "kernel (other device)", `SELECT NULL, COUNT(*) FROM ` + tabKernel + ` WHERE deviceId IS NOT ?1`, nil},
		{tabMemcpy, "memcpy (other device)", `SELECT NULL, COUNT(*) FROM ` + tabMemcpy + ` WHERE deviceId IS NOT ?1`, nil},
		{tabMemcpy, "memcpy:", `SELECT copyKind, COUNT(*) FROM ` + tabMemcpy + `
			WHERE deviceId = ?1 AND NOT COALESCE(copyKind IN (1, 2), 0) GROUP BY copyKind`, copyLabel},
		{tabMemcpy, "memcpy (no bytes)", `SELECT NULL, COUNT(*) FROM ` + tabMemcpy + `
			WHERE deviceId = ?1 AND copyKind IN (1, 2) AND NOT COALESCE(bytes > 0, 0)`, nil},
		{tabMemset, "memset (other device)", `SELECT NULL, COUNT(*) FROM ` + tabMemset + ` WHERE deviceId IS NOT ?1`, nil},
		{tabMemset, "memset", `SELECT NULL, COUNT(*) FROM ` + tabMemset + ` WHERE deviceId = ?1`, nil},
		{tabSync, "synchronization (other device)", `SELECT NULL, COUNT(*) FROM ` + tabSync + ` WHERE deviceId IS NOT ?1`, nil},
		{tabSync, "synchronization:", `SELECT syncType, COUNT(*) FROM ` + tabSync + `
			WHERE deviceId = ?1 AND NOT COALESCE(syncType = 2, 0) GROUP BY syncType`, syncLabel},
		{tabEvent, "cuda_event (other device)", `SELECT NULL, COUNT(*) FROM ` + tabEvent + ` WHERE deviceId IS NOT ?1`, nil},
	}
	for _, q := range counts {
		if !r.has(q.table) {
			continue
		}
		if err := r.count(q.table, q.query, dev, func(key sql.NullInt64, n int) {
			what := q.what
			if q.label != nil {
				what += q.label(key)
			}
			unused[what] += n
		}); err != nil {
			return err
		}
	}
	return r.countCalls(unused)
}

// count runs a (key, count) query and passes every non-zero count on.
func (r *report) count(table, query string, dev int64, add func(sql.NullInt64, int)) error {
	rows, err := r.db.Query(query, dev)
	if err != nil {
		return &Error{File: r.file, Table: table, Row: -1, Msg: "counting unused rows", Err: err}
	}
	for rows.Next() {
		var key sql.NullInt64
		var n int
		if err := rows.Scan(&key, &n); err != nil {
			rows.Close()
			return &Error{File: r.file, Table: table, Row: -1, Msg: "counting unused rows", Err: err}
		}
		if n > 0 {
			add(key, n)
		}
	}
	if err := closeRows(rows); err != nil {
		return &Error{File: r.file, Table: table, Row: -1, Msg: "counting unused rows", Err: err}
	}
	return nil
}

// versionSuffix is the _vNNNN the CUDA runtime appends to an API
// function's name in its callback ids (cudaLaunchKernel_v7000).
var versionSuffix = regexp.MustCompile(`_v[0-9]+$`)

// countCalls counts the API calls (runtime rows, one per correlation id)
// that no GPU activity row points at, by function name without its
// version suffix: cudaMalloc, cudaStreamSynchronize's call when the
// report has no synchronization rows, and so on.
func (r *report) countCalls(unused map[string]int) error {
	rows, err := r.db.Query(r.orphanCallsQuery())
	if err != nil {
		return &Error{File: r.file, Table: tabRuntime, Row: -1, Msg: "counting unused API calls", Err: err}
	}
	for rows.Next() {
		var name sql.NullString
		var n int
		if err := rows.Scan(&name, &n); err != nil {
			rows.Close()
			return &Error{File: r.file, Table: tabRuntime, Row: -1, Msg: "counting unused API calls", Err: err}
		}
		fn := versionSuffix.ReplaceAllString(name.String, "")
		if !name.Valid {
			fn = "(name not in " + tabStrings + ")"
		}
		unused["runtime:"+fn] += n
	}
	if err := closeRows(rows); err != nil {
		return &Error{File: r.file, Table: tabRuntime, Row: -1, Msg: "counting unused API calls", Err: err}
	}
	return nil
}

// orphanCallsQuery counts, by name id, the API calls (deduplicated by
// process and correlation id; calls without one each count) that no row
// of the activity tables shares a correlation id with. Where the process
// is unknown on either side the correlation id alone decides.
func (r *report) orphanCallsQuery() string {
	pid := "NULL"
	if r.hasCol(tabRuntime, "globalTid") {
		pid = "globalTid / 16777216"
	}
	used := ""
	for _, t := range []string{tabKernel, tabMemcpy, tabMemset, tabSync, tabEvent} {
		if !r.hasCol(t, "correlationId") {
			continue
		}
		if used != "" {
			used += " UNION ALL "
		}
		p := "NULL"
		if r.hasCol(t, "globalPid") {
			p = "globalPid / 16777216"
		}
		used += `SELECT correlationId AS corr, ` + p + ` AS pid FROM ` + t + ` WHERE correlationId IS NOT NULL`
	}
	return `WITH calls AS (
		SELECT correlationId AS corr, ` + pid + ` AS pid, nameId, MIN(start) FROM ` + tabRuntime + `
			WHERE correlationId IS NOT NULL GROUP BY corr, pid
		UNION ALL
		SELECT NULL, NULL, nameId, NULL FROM ` + tabRuntime + ` WHERE correlationId IS NULL),
	used AS MATERIALIZED (SELECT corr, pid FROM (` + used + `) GROUP BY corr, pid)
	SELECT s.value, COUNT(*) FROM calls c
	LEFT JOIN used u ON u.corr = c.corr AND (u.pid IS NULL OR c.pid IS NULL OR u.pid = c.pid)
	LEFT JOIN ` + tabStrings + ` s ON s.id = c.nameId
	WHERE u.corr IS NULL
	GROUP BY s.value ORDER BY s.value`
}

// exportVersion is the Nsight Systems version that exported the report
// (META_DATA_EXPORT's EXPORT_PRODUCT_VERSION), or "".
func (r *report) exportVersion() string {
	if !r.hasCol(tabMeta, "name") || !r.hasCol(tabMeta, "value") {
		return ""
	}
	var v sql.NullString
	err := r.db.QueryRow(`SELECT value FROM ` + tabMeta + ` WHERE name = 'EXPORT_PRODUCT_VERSION' LIMIT 1`).Scan(&v)
	if err != nil {
		return ""
	}
	return v.String
}
