package nsys

import (
	"errors"
	"slices"
	"strings"

	"github.com/gpureplay/gpureplay/convert/nsys/internal/sqlite"
)

// A query is what the importer reads of one table: the rows of the
// converted device that where keeps, in the order of their sort keys
// (then rowid), each as the values sel picks. Their sort keys and rowids
// are held (entry); a row's values are read again, by rowid, when the
// walk reaches it.
type query struct {
	name  string   // names the query in the report's cache
	table string   // the table read
	cols  []string // the table's columns where, order and sel see, in this order
	names []string // what sel's values are, for messages
	// where keeps a row (v: the cols' values; dev: the device).
	where func(v []any, dev int64) bool
	// order is a row's sort keys, given its API call's start (t; nil
	// when it has none).
	order func(v []any, t any) [3]any
	// sel is the row's values, in names' order.
	sel func(r *report, v []any, t any) []any
	// strings: sel looks names up in StringIds.
	strings bool
}

// entry is a row's place in its query's order.
type entry struct {
	k  [3]any
	id int64
}

// launchKey names an API call: its correlation id and process.
type launchKey struct{ corr, pid valueKey }

// callRec is what the importer keeps of the API call of a copy, a
// synchronization or an event record besides its start: when it
// returned (the latest end of its rows: an outer callback ends after the
// inner one) and its function's name id (the earliest row's, as for the
// unused counts).
type callRec struct{ end, name any }

// launches maps each (correlation id, process) that rows of table have
// to the earliest start of the API call rows sharing it: a call can
// appear twice under one correlation id (cudaLaunchKernel_v7000 and
// cudaLaunchKernel), and its time is when the host began issuing. For
// tables other than the kernels' it also keeps each call's callRec
// (r.calls).
func (r *report) launches(table string) (map[launchKey]any, error) {
	if m, ok := r.launchT[table]; ok {
		return m, nil
	}
	corrs := map[valueKey]bool{}
	err := r.scan(table, "reading rows", []string{"correlationId"}, func(_ int64, v []any) error {
		if v[0] != nil {
			corrs[keyOf(v[0])] = true
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	byPid := r.hasPid(table)
	m := map[launchKey]any{}
	var calls map[launchKey]callRec
	if table != tabKernel {
		calls = map[launchKey]callRec{}
	}
	err = r.scan(tabRuntime, "reading rows", []string{"correlationId", "start", "globalTid", "end", "nameId"}, func(_ int64, v []any) error {
		if v[0] == nil || !corrs[keyOf(v[0])] {
			return nil
		}
		var pid any
		if byPid {
			pid = perProcess(v[2])
		}
		k := launchKey{keyOf(v[0]), keyOf(pid)}
		t, seen := m[k]
		earliest := false
		switch {
		case v[1] != nil && (t == nil || compare(v[1], t) < 0):
			m[k], earliest = copyValue(v[1]), true
		case !seen:
			m[k], earliest = nil, true
		}
		if calls != nil {
			c := calls[k]
			if earliest {
				c.name = copyValue(v[4])
			}
			if v[3] != nil && (c.end == nil || compare(v[3], c.end) > 0) {
				c.end = copyValue(v[3])
			}
			calls[k] = c
		}
		return nil
	})
	r.launchT[table] = m
	if calls != nil {
		r.calls[table] = calls
	}
	return m, err
}

// callOf is the callRec of the API call of a row of table (one of
// launches' tables other than the kernels') with correlation id corr and
// global process id gpid; zero when there is none.
func (r *report) callOf(table string, corr, gpid any) callRec {
	if corr == nil {
		return callRec{}
	}
	var pid any
	if r.hasPid(table) {
		pid = perProcess(gpid)
	}
	return r.calls[table][launchKey{keyOf(corr), keyOf(pid)}]
}

// function is the name of an API function as the report's StringIds
// holds it under id, without the runtime's _vNNNN suffix ("" if unknown).
func (r *report) function(id any) string {
	if id == nil {
		return ""
	}
	s := scanString(r.strs[keyOf(id)])
	return versionSuffix.ReplaceAllString(s.String, "")
}

// launchOf is the start of the API call of a row of table with
// correlation id corr and global process id gpid (nil: none found).
func (r *report) launchOf(m map[launchKey]any, table string, corr, gpid any) any {
	if corr == nil {
		return nil
	}
	var pid any
	if r.hasPid(table) {
		pid = perProcess(gpid)
	}
	return m[launchKey{keyOf(corr), keyOf(pid)}]
}

// pid is a row's process as the queries select it: globalPid / 2^24
// where the row can be paired by process, else NULL.
func (r *report) pid(table string, gpid any) any {
	if r.hasPid(table) {
		return perProcess(gpid)
	}
	return nil
}

// entries returns q's rows for device dev in q's order.
func (r *report) entries(q *query, dev int64) ([]entry, error) {
	if q.strings {
		if _, err := r.stringIds(); err != nil {
			return nil, err
		}
	}
	m, err := r.launches(q.table)
	if err != nil {
		return nil, err
	}
	if es, ok := r.sorted[q.name]; ok {
		return es, nil
	}
	var es []entry
	ci, gi := slices.Index(q.cols, "correlationId"), slices.Index(q.cols, "globalPid")
	err = r.scan(q.table, "reading rows", q.cols, func(id int64, v []any) error {
		if !q.where(v, dev) {
			return nil
		}
		t := r.launchOf(m, q.table, v[ci], v[gi])
		k := q.order(v, t)
		for i := range k {
			k[i] = copyValue(k[i])
		}
		es = append(es, entry{k: k, id: id})
		return nil
	})
	slices.SortStableFunc(es, func(a, b entry) int {
		for i := range a.k {
			if c := compare(a.k[i], b.k[i]); c != 0 {
				return c
			}
		}
		return compareInt(a.id, b.id)
	})
	r.sorted[q.name] = es
	return es, err
}

// rows returns a function that reads q's rows for device dev in order,
// one a call; nil at the end.
func (r *report) rows(q *query, dev int64) (func() (*row, error), error) {
	es, err := r.entries(q, dev)
	if err != nil {
		return nil, err
	}
	m := r.launchT[q.table]
	t := r.tables[strings.ToLower(q.table)]
	idx, err := r.columnIndex(t, q.table, q.cols)
	if err != nil {
		return nil, err
	}
	rec := make([]any, len(t.Columns))
	v := make([]any, len(q.cols))
	ci, gi := slices.Index(q.cols, "correlationId"), slices.Index(q.cols, "globalPid")
	return func() (*row, error) {
		if len(es) == 0 {
			return nil, nil
		}
		e := es[0]
		es = es[1:]
		ok, err := t.Row(e.id, rec)
		if err == nil && !ok {
			err = &sqlite.Error{Msg: "a row read before is gone"}
		}
		if err != nil {
			var se *sqlite.Error
			if errors.As(err, &se) {
				return nil, &Error{File: r.file, Table: q.table, Row: e.id, Msg: "reading the row", Err: err}
			}
			return nil, err
		}
		for i, j := range idx {
			v[i] = nil
			if j >= 0 {
				v[i] = rec[j]
			}
		}
		lt := r.launchOf(m, q.table, v[ci], v[gi])
		return &row{file: r.file, table: q.table, id: e.id, names: q.names, vals: q.sel(r, v, lt)}, nil
	}, nil
}
