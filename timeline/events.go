package timeline

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// A run's three processes (Writer.pid).
const (
	runProc = iota
	smProc
	queueProc
	procsPerRun
)

// Thread ids within a process: each SM has smLanes lanes' worth of ids;
// the run process's tracks are apart. They start at 1: Perfetto keeps
// tid 0 for the idle task, one thread whatever the pid.
const (
	smLanes   = 1000
	hostTID   = 1
	stageTID  = 1 << 20
	kernelTID = 2 << 20
	queueTID  = 1
	// syncTID is the first host thread's track of blocking calls:
	// thread t's is syncTID + t*syncLanes, for threads below maxThreads
	// (the engine numbers them from 0; a larger one shares the last).
	syncTID    = 3 << 20
	syncLanes  = 16
	maxThreads = 1 << 14
)

// pid is the current run's process of the given kind.
func (w *Writer) pid(proc int) int { return (w.runs-1)*procsPerRun + proc + 1 }

func (w *Writer) raw(s string) {
	if w.err == nil {
		_, w.err = w.w.WriteString(s)
	}
}

// jsonString is s as a JSON string. strconv.Quote, which the writer
// used, writes Go's escapes, which JSON has not: a kernel named with a
// control byte (\x01) or a non-printable rune past U+FFFF (\U000e0001)
// made a file no JSON reader opened. A printable-ASCII name with no quote
// or backslash (nearly every one) is quoted as it is; any other goes
// through encoding/json, without its HTML escapes, so a name reads back
// as given (a byte that is not UTF-8 becomes U+FFFD; the trace's strings
// are UTF-8).
func jsonString(s string) string {
	plain := true
	for i := 0; i < len(s) && plain; i++ {
		c := s[i]
		plain = c >= 0x20 && c < 0x80 && c != '"' && c != '\\'
	}
	if plain {
		return `"` + s + `"`
	}
	var b strings.Builder
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	e.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

// event writes one event object, given as its JSON members.
func (w *Writer) event(members string) {
	if w.n > 0 {
		w.raw(",\n")
	}
	w.n++
	w.raw("{" + members + "}")
}

func (w *Writer) meta(what string, pid, tid int, name string) {
	w.event(fmt.Sprintf(`"ph":"M","name":%s,"pid":%d,"tid":%d,"args":{"name":%s}`, jsonString(what), pid, tid, jsonString(name)))
}

// process names a process and sorts it by its pid, so a run's three
// groups stay together and runs keep their order.
func (w *Writer) process(pid int, name string) {
	w.meta("process_name", pid, 0, name)
	w.event(fmt.Sprintf(`"ph":"M","name":"process_sort_index","pid":%d,"args":{"sort_index":%d}`, pid, pid))
}

// ns is a cycle count in whole nanoseconds. Every time written goes
// through it, so slices that meet in cycles meet in the file, and a slice
// ending where the next begins never overlaps it by a rounding (which
// Perfetto would answer by dropping the later slice).
func (w *Writer) ns(cycles int64) int64 {
	mhz := w.mhz
	if mhz <= 0 {
		mhz = 1000
	}
	return int64(math.Round(float64(cycles) * 1000 / mhz))
}

// us formats nanoseconds as the microseconds the format counts in,
// exactly: Perfetto rounds ts*1000 back to the same nanosecond.
func us(ns int64) string {
	s := strconv.FormatInt(ns/1000, 10)
	if f := ns % 1000; f != 0 {
		frac := strconv.FormatInt(1000+f, 10)[1:]
		for frac[len(frac)-1] == '0' {
			frac = frac[:len(frac)-1]
		}
		s += "." + frac
	}
	return s
}

// slice writes a complete event on a thread from start to end cycles.
func (w *Writer) slice(pid, tid int, name string, start, end int64, args string) {
	a := fmt.Sprintf(`"start_cycle":%d,"end_cycle":%d`, start, end)
	if args != "" {
		a += "," + args
	}
	s := w.ns(start)
	w.event(fmt.Sprintf(`"ph":"X","pid":%d,"tid":%d,"ts":%s,"dur":%s,"name":%s,"args":{%s}`,
		pid, tid, us(s), us(w.ns(end)-s), jsonString(name), a))
}

// lane returns the thread of a slice from start to end on a track of
// lanes, naming the lane when it is new.
func (w *Writer) lane(pid, base int, l *lanes, name string, start, end int64) int {
	i, fresh := l.take(w.ns(start), w.ns(end))
	tid := base + i
	if fresh {
		label := name
		if i > 0 {
			label = fmt.Sprintf("%s (%d)", name, i+1)
		}
		w.meta("thread_name", pid, tid, label)
		w.event(fmt.Sprintf(`"ph":"M","name":"thread_sort_index","pid":%d,"tid":%d,"args":{"sort_index":%d}`, pid, tid, tid))
	}
	return tid
}

// flow writes one end of an arrow at ns on a thread: "s" its start,
// "f" its end, bound to the slice enclosing it ("bp":"e"). An arrow is a
// "launch" (to what a launch started) unless it is a "release" (from the
// kernel that ended a blocking host call's wait, flows.release).
func (w *Writer) flow(ph string, id uint64, pid, tid int, ns int64) {
	bind := ""
	if ph == "f" {
		bind = `,"bp":"e"`
	}
	name := `"name":"launch","cat":"launch"`
	if w.flows.release[id] {
		name = `"name":"release","cat":"sync"`
		if ph == "f" {
			delete(w.flows.release, id)
		}
	}
	w.event(fmt.Sprintf(`"ph":%q,"id":%d,"pid":%d,"tid":%d,"ts":%s,%s%s`,
		ph, id, pid, tid, us(ns), name, bind))
}

func (w *Writer) counter(pid int, name string, cycle int64, key string, v float64) {
	w.event(fmt.Sprintf(`"ph":"C","pid":%d,"name":%s,"ts":%s,"args":{%s:%s}`,
		pid, jsonString(name), us(w.ns(cycle)), jsonString(key), strconv.FormatFloat(v, 'g', 6, 64)))
}
