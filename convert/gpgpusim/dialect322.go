package gpgpusim

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// GPGPU-Sim 3.x, the simulator the DTBL paper extended, prints a run in a
// dialect of its own; dialect322 rewrites it, line by line, into the 4.x
// lines the Reader reads, so the rest of the importer is shared. It is
// written against github.com/howardwangph/gpgpu-sim-dcc at 68e84ab
// (GPGPU-Sim 3.2.2 with CDP and DTBL's aggregated launches, the DTBL
// authors' simulator; validation/gpgpusim/dtbl-sim), whose source lines
// are quoted below. What differs from 4.x:
//
//   - No LIVENESS trace: a CTA's start is "GPGPU-Sim uArch: core: C, cta:
//     S, start_tid: A, end_tid: B, initialized @(N,M) kernel [U, I]"
//     (gpu-sim.cc:1979, N = gpu_sim_cycle, M = gpu_tot_sim_cycle) and its
//     end "GPGPU-Sim uArch: Shader C finished CTA #S [U, I] (N,M), K CTAs
//     running" (shader.cc:2266). Both become LIVENESS lines stamped N+M.
//   - The device runtime stamps its calls: "Calling cudaLaunchDeviceV2
//     Cycle L" (cuda_device_runtime.cc:1218, L = gpu_sim_cycle +
//     gpu_tot_sim_cycle). The launch is made at L, so the site's window is
//     closed on L exactly: a stamp L before the call's report and another
//     after the last lane reported at L.
//   - "child kernel launched by P, agg_group_id G, cta (...), thread
//     (...)" (cuda_device_runtime.cc:1351) names the aggregated group G of
//     the launching CTA (-1 outside one); the field is dropped.
//   - -cdp_latency has a sixth figure, cudaDeviceSynchronize's stall
//     (shader.cc:1090-1096 charge the first five as 4.x does); it is
//     dropped (the trace has no device-side synchronisation).
//   - Aggregated groups (-agg_blocks_support 1): a device launch whose
//     function has an unfinished grid becomes a group of that grid
//     (cuda_device_runtime.cc:1366-1390, "found launched grid with the
//     same function F, appended as aggregated blocks of kernel K, ...,
//     agg_group_id G, cta (...), thread (...)", K the launching kernel).
//     Each group is written as the device launch it was in the program (a
//     child kernel of the group's grid and block, with a number of its
//     own), so the trace holds the program and the replay's policy decides
//     what coalesces. Its CTAs run under F's number, counting from 0
//     again, after "DTBL: cycle N start disptaching agg group G" (sic);
//     they are given the group's number.
//   - Kernel numbers: the simulator numbers kernels, not groups, so with
//     groups every later kernel's number moves up by the groups before it.
//   - The statistics go to gpgpusim_stat.txt, which the capture appends
//     after the program's output (a "===== gpgpusim_stat.txt =====" line),
//     one block per simulation run with empty blocks (no kernels) around
//     them; the empty ones are dropped, and a group is listed with its
//     grid. Read from a file (Convert), the blocks are read ahead and each
//     is written where its run ends in the output (simEnd), so a program
//     of several runs (host launches waited for one after another) has
//     each wait return at its run's end; read from a stream (Read), they
//     are written where the file comes, which holds for one run only (a
//     log of several runs is refused there). The
//     appended kernel_stat.txt ("kernel U: NAME, parent P, launch L, start
//     S, end E, retire R" per device kernel; a host kernel's entry is
//     "kernel U: NAME" with no newline, kernelStatEntries) is checked
//     against the launches read: L must be the launch's cycle.
//   - No end-of-run line: the appended statistics file, written when the
//     program exits, stands for it.
type dialect322 struct {
	in  *bufio.Reader
	out []byte // translated text not yet read
	// on is set at a 3.x version banner; before it lines pass unchanged,
	// and off is set where the log is not 3.x's (another banner, or none
	// in its first lines): then the rest is read through.
	on, off bool
	eof     bool
	err     error
	line    int // the log's line being translated

	forkNext, ourNext uint64            // the next kernel number, the simulator's and ours
	ids               map[uint64]uint64 // simulator's kernel number -> ours
	names             map[uint64]string // simulator's kernel number -> its function
	groups            map[uint64][]uint64
	dispatching       map[uint64]uint64 // simulator's kernel -> our number of the group its CTAs are now
	launchAt          map[uint64]int64  // our kernel number -> its device launch's cycle
	stamp             int64             // the last stamp written; -1 before
	closeAt           int64             // a launch report at this cycle awaits its closing stamp; -1 if none
	lastCall          int64             // the cycle of the cudaLaunchDeviceV2 being reported
	section           string            // the appended file being read ("" before them)
	// parents is kernel_stat.txt's parent of each device kernel, by the
	// simulator's numbers, read ahead of the log (withForkParents); nil
	// where the log could not be read twice.
	parents   map[uint64]uint64
	skipBlock bool // inside an empty statistics block
	// blocks are gpgpusim_stat.txt's non-empty blocks, read ahead of the
	// log (withForkParents), each written where its simulation run ends
	// (simEnd); nil where the log could not be read twice, and then the
	// appended file's blocks are read where they come.
	blocks    []statBlock
	nextBlock int
	// simRuns counts the simulation runs that ended in the output
	// (gpgpu_simulation_time lines)
	simRuns int
}

// statBlock is one non-empty statistics block of gpgpusim_stat.txt: its
// kernels (the simulator's numbers) and the lines of it the Reader reads.
type statBlock struct {
	uids  []uint64
	lines [][]byte
}

var (
	prefix3Banner   = []byte("*** GPGPU-Sim Simulator Version 3.")
	prefix3CTA      = []byte("GPGPU-Sim uArch: core:")
	prefix3Shader   = []byte("GPGPU-Sim uArch: Shader ")
	infix3Finished  = []byte(" finished CTA #")
	prefix3Dispatch = []byte("DTBL: cycle ")
	prefix3Transfer = []byte("kernel ")
	prefix3Section  = []byte("===== ")
	infix3Transfer  = []byte("' transfer to GPU hardware scheduler")
	call3Launch     = []byte("Calling cudaLaunchDeviceV2 Cycle ")
	prefix3SimTime  = []byte("gpgpu_simulation_time = ")
)

// bannerLines is how far into a log its version banner must come for the
// 3.x dialect to be read (it is the third line of every committed log).
const bannerLines = 1000

func newDialect322(r io.Reader) *dialect322 {
	var parents map[uint64]uint64
	var blocks []statBlock
	if h, ok := r.(*forkParents); ok {
		r, parents, blocks = h.Reader, h.parents, h.blocks
	}
	return &dialect322{parents: parents, blocks: blocks,
		in: bufio.NewReaderSize(r, 1<<16), forkNext: 1, ourNext: 1,
		ids: map[uint64]uint64{}, names: map[uint64]string{}, groups: map[uint64][]uint64{},
		dispatching: map[uint64]uint64{}, launchAt: map[uint64]int64{},
		stamp: -1, closeAt: -1,
	}
}

// Read returns translated text.
func (d *dialect322) Read(p []byte) (int, error) {
	for len(d.out) == 0 {
		if d.off {
			return d.in.Read(p)
		}
		if d.err != nil {
			return 0, d.err
		}
		if d.eof {
			return 0, io.EOF
		}
		d.step()
	}
	n := copy(p, d.out)
	d.out = d.out[n:]
	return n, nil
}

func (d *dialect322) emit(s ...[]byte) {
	for _, b := range s {
		d.out = append(d.out, b...)
	}
}

func (d *dialect322) emitf(format string, a ...any) {
	d.out = fmt.Appendf(d.out, format, a...)
}

// fail ends the translation with a line the Reader refuses, naming what
// was wrong (the Reader reports it with its line number).
func (d *dialect322) fail(format string, a ...any) {
	d.err = fmt.Errorf("gpgpusim 3.x, line %d of the log: %s", d.line, fmt.Sprintf(format, a...))
}

// step translates one line.
func (d *dialect322) step() {
	line, err := d.in.ReadBytes('\n')
	if err == io.EOF && len(line) == 0 {
		d.eof = true
		d.closeStamp()
		if d.on && d.section != "" {
			// The appended statistics are written when the program exits.
			d.emit(prefixExit, []byte("\n"))
		}
		return
	}
	if err != nil && err != io.EOF {
		d.err = err
		return
	}
	d.line++
	if !d.on {
		switch {
		case bytes.Contains(line, prefix3Banner):
			d.on = true
		case bytes.Contains(line, prefixVersion) || d.line >= bannerLines:
			d.off = true
		}
		d.emit(line)
		return
	}
	b := bytes.TrimSpace(line)
	if d.section != "" || bytes.HasPrefix(b, prefix3Section) {
		d.appended(line, b)
		return
	}
	switch {
	case len(b) > 0 && b[0] == '-':
		if name, value, ok := strings.Cut(string(b[1:]), " "); ok && name == "cdp_latency" {
			v, _, _ := strings.Cut(strings.TrimSpace(value), " ")
			if f := strings.Split(v, ","); len(f) == 6 {
				d.emitf("-cdp_latency %s\n", strings.Join(f[:5], ","))
				return
			}
		}
	case bytes.HasPrefix(b, prefix3CTA):
		d.ctaStart(b)
		return
	case bytes.HasPrefix(b, prefix3Shader) && bytes.Contains(b, infix3Finished):
		d.ctaEnd(b)
		return
	case bytes.HasPrefix(b, prefixPush):
		d.closeStamp()
		d.mapHost()
	case bytes.HasPrefix(b, prefix3Dispatch):
		d.groupDispatch(b)
	case bytes.HasPrefix(b, prefix3Transfer) && bytes.Contains(b, infix3Transfer):
		// "kernel U: 'NAME' transfer to GPU hardware scheduler"
		c := newCursor(b[len(prefix3Transfer):])
		u := c.int(1, 1<<62)
		c.skip(": '")
		name := c.until("'")
		if c.ok {
			d.names[uint64(u)] = name
		}
	case bytes.HasPrefix(b, prefixDevRT):
		d.deviceRuntime(line, b)
		return
	case bytes.HasPrefix(b, prefix3SimTime):
		d.emit(line)
		d.simEnd()
		return
	}
	d.emit(line)
}

// stampTo writes a cycle stamp n unless the last one was n.
func (d *dialect322) stampTo(n int64) {
	if n != d.stamp {
		d.emitf("%s%d: \n", prefixCycle, n)
		d.stamp = n
	}
}

// closeStamp ends the launch report at closeAt: the lanes reported at
// that cycle form one site, whose launch the stamp places at it.
func (d *dialect322) closeStamp() {
	if d.closeAt >= 0 {
		d.emitf("%s%d: \n", prefixCycle, d.closeAt)
		d.stamp, d.closeAt = d.closeAt, -1
	}
}

// at reads "(N,M)" and returns N+M, the run's cycle.
func at(c *cursor) int64 {
	c.skip("(")
	n := c.int(0, 1<<62)
	c.skip(",")
	m := c.int(0, 1<<62)
	c.skip(")")
	return n + m
}

// mapHost gives a host push the next number (the Reader's and the
// simulator's: a push takes the next free one).
func (d *dialect322) mapHost() {
	d.ids[d.forkNext] = d.ourNext
	d.forkNext++
	d.ourNext++
}

// ctaStart reads "GPGPU-Sim uArch: core: C, cta: S, start_tid: A,
// end_tid: B, initialized @(N,M) kernel [U, I]".
func (d *dialect322) ctaStart(b []byte) {
	c := newCursor(b[len(prefix3CTA):])
	core := c.int(0, 1<<30)
	c.skip(", cta:")
	slot := c.int(0, 1<<30)
	c.skip(", start_tid:")
	lo := c.int(0, 1<<40)
	c.skip(", end_tid:")
	hi := c.int(0, 1<<40)
	c.skip(", initialized @")
	t := at(&c)
	c.skip("kernel [")
	u := uint64(c.int(1, 1<<62))
	if !c.ok {
		d.fail("a CTA start not as GPGPU-Sim 3.x prints it (core: C, cta: S, start_tid: A, end_tid: B, initialized @(N,M) kernel [U, I]): %q", b)
		return
	}
	id, ok := d.dispatching[u]
	if !ok {
		if id, ok = d.ids[u]; !ok {
			d.fail("kernel %d starts a CTA, but the log shows no launch of it (a device launch is reported only at PTX_SIM_DEBUG=1): %q", u, b)
			return
		}
	}
	d.closeStamp()
	d.stamp = t
	d.emitf("%s%d: LIVENESS - Core %d - %scta: %d, start_tid: %d, end_tid: %d, initialized @(%d,0), kernel_uid:%d, kernel_name:%s\n",
		prefixCycle, t, core, prefixUArch, slot, lo, hi, t, id, d.names[u])
}

// ctaEnd reads "GPGPU-Sim uArch: Shader C finished CTA #S [U, I] (N,M),
// K CTAs running".
func (d *dialect322) ctaEnd(b []byte) {
	c := newCursor(b[len(prefix3Shader):])
	core := c.int(0, 1<<30)
	c.skip("finished CTA #")
	slot := c.int(0, 1<<30)
	c.past("]")
	t := at(&c)
	if !c.ok {
		d.fail("a CTA end not as GPGPU-Sim 3.x prints it (Shader C finished CTA #S [U, I] (N,M), K CTAs running): %q", b)
		return
	}
	d.closeStamp()
	d.stamp = t
	d.emitf("%s%d: LIVENESS - Core %d - %sFinished CTA #%d (%d,0)\n", prefixCycle, t, core, prefixUArch, slot, t)
}

// groupDispatch reads "DTBL: cycle N start disptaching agg group G queue
// entry E" (gpu-sim.cc): the CTAs that follow under the group's grid are
// group G's. Which grid is not printed: it is the one whose groups
// number G, the only one with groups in every committed run; with several
// the last grid to create group G is taken.
func (d *dialect322) groupDispatch(b []byte) {
	c := newCursor(b[len(prefix3Dispatch):])
	c.int(0, 1<<62)
	if !bytes.Contains(c.b, []byte("start disptaching agg group ")) {
		return
	}
	c.past("agg group ")
	g := c.int(0, 1<<40)
	if !c.ok {
		d.fail("a group dispatch not as the DTBL simulator prints it (DTBL: cycle N start disptaching agg group G ...): %q", b)
		return
	}
	var grid uint64
	found := false
	for u, gs := range d.groups {
		if uint64(g) < uint64(len(gs)) && (!found || u > grid) {
			grid, found = u, true
		}
	}
	if !found {
		d.fail("group %d is dispatched, but no launch made it: %q", g, b)
		return
	}
	d.dispatching[grid] = d.groups[grid][g]
}

// deviceRuntime rewrites the device runtime's report lines that differ.
func (d *dialect322) deviceRuntime(line, b []byte) {
	rest := b[len(prefixDevRT):]
	if i := bytes.Index(rest, []byte(": ")); i >= 0 {
		rest = rest[i+2:]
	}
	switch {
	case bytes.HasPrefix(rest, call3Launch):
		c := newCursor(rest[len(call3Launch):])
		l := c.int(0, 1<<62)
		if !c.ok {
			d.fail("a cudaLaunchDeviceV2 call without its cycle: %q", b)
			return
		}
		if d.closeAt != l {
			d.closeStamp()
			d.stampTo(l)
		}
		d.closeAt, d.lastCall = l, l
		d.emitf("%s0: Calling cudaLaunchDeviceV2\n", prefixDevRT)
		return
	case bytes.HasPrefix(rest, []byte("child kernel launched by ")):
		// Drop ", agg_group_id G".
		i := bytes.Index(rest, []byte(", agg_group_id "))
		j := bytes.Index(rest, []byte(", cta"))
		if i < 0 || j < i {
			d.fail("a device launch's parent not as GPGPU-Sim 3.x prints it: %q", b)
			return
		}
		d.emitf("%s0: %s%s%s\n", prefixDevRT, rest[:i], rest[j:], d.hint(rest[i:j]))
		return
	case bytes.HasPrefix(rest, []byte("launching child kernel ")):
		c := newCursor(rest[len("launching child kernel "):])
		u := uint64(c.int(1, 1<<62))
		if !c.ok || u != d.forkNext {
			d.fail("child kernel %d launched where the simulator's next number is %d: %q", u, d.forkNext, b)
			return
		}
		id := d.ourNext
		d.mapHost()
		d.launchAt[id] = d.lastCall
		d.emitf("%s0: launching child kernel %d%s\n", prefixDevRT, id, c.b)
		return
	case bytes.HasPrefix(rest, []byte("found launched grid with the same function ")):
		d.group(b, rest)
		return
	}
	d.emit(line)
}

// group reads "found launched grid with the same function F, appended as
// aggregated blocks of kernel K, launched by kernel X block B, agg_group_id
// G, cta (...), thread (...)" (cuda_device_runtime.cc:1381; K launched,
// F's own parent is X) and writes the launch of a child of the group's
// shape.
func (d *dialect322) group(b, rest []byte) {
	c := newCursor(rest[len("found launched grid with the same function "):])
	f := uint64(c.int(1, 1<<62))
	c.skip(", appended as aggregated blocks of kernel")
	k := uint64(c.int(1, 1<<62))
	c.past(", cta")
	where := c.b
	if !c.ok {
		d.fail("an aggregated group not as the DTBL simulator prints it (found launched grid with the same function F, appended as aggregated blocks of kernel K, ..., cta (...), thread (...)): %q", b)
		return
	}
	parent, ok := d.names[k]
	if _, known := d.ids[f]; !ok || !known {
		d.fail("an aggregated group of kernel %d launched by kernel %d, which the log has not started: %q", f, k, b)
		return
	}
	id := d.ourNext
	d.ourNext++
	d.groups[f] = append(d.groups[f], id)
	d.launchAt[id] = d.lastCall
	g := int64(-1)
	if i := bytes.Index(rest, []byte(", agg_group_id ")); i >= 0 {
		c := newCursor(rest[i+len(", agg_group_id "):])
		g = c.int(-1, 1<<40)
	}
	hint := d.ids[k]
	if g >= 0 && g < int64(len(d.groups[k])) {
		hint = d.groups[k][g]
	}
	d.emitf("%s0: child kernel launched by %s, cta%s, parent_uid %d\n", prefixDevRT, parent, where, hint)
	d.emitf("%s0: launching child kernel %d to default stream of the cta 0: 0x0\n", prefixDevRT, id)
}

// hint is ", parent_uid N" for a child launch (the next kernel the
// simulator numbers) whose parent kernel_stat.txt gives, N our number of
// that parent or of its aggregated group agg_group_id names (field:
// ", agg_group_id G"); "" where the log does not say.
func (d *dialect322) hint(field []byte) string {
	p, ok := d.parents[d.forkNext]
	if !ok {
		return ""
	}
	c := newCursor(bytes.TrimPrefix(field, []byte(", agg_group_id ")))
	g := c.int(-1, 1<<40)
	id, ok := d.ids[p]
	if !c.ok || !ok {
		return ""
	}
	if g >= 0 {
		if g >= int64(len(d.groups[p])) {
			return ""
		}
		id = d.groups[p][g]
	}
	return fmt.Sprintf(", parent_uid %d", id)
}

// forkParents is a log with kernel_stat.txt's parents and
// gpgpusim_stat.txt's non-empty blocks read ahead.
type forkParents struct {
	io.Reader
	parents map[uint64]uint64
	blocks  []statBlock
}

// withForkParents reads the log at path once ahead, when it is a 3.x
// log with kernel_stat.txt appended, for each device kernel's parent:
// the log names a launch's parent kernel by function only, and where
// several kernels of one function run the same CTA index (a nested
// launch's siblings) the Reader would have to guess (Reader.parentOf).
// in is returned as it is otherwise.
func withForkParents(path string, in io.Reader) (io.Reader, error) {
	f, err := OpenLog(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<16)
	parents := map[uint64]uint64{}
	var blocks []statBlock
	var blk *statBlock // the non-empty block being read
	n, on, stat, stats := 0, false, false, false
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			for err == bufio.ErrBufferFull {
				_, err = br.ReadSlice('\n')
			}
			continue
		}
		n++
		switch {
		case !on && bytes.Contains(line, prefix3Banner):
			on = true
		case !on && (n >= bannerLines || bytes.Contains(line, prefixVersion)):
			return in, nil // not a 3.x log
		case on && bytes.HasPrefix(line, []byte("===== ")):
			stat = bytes.HasPrefix(line, []byte("===== kernel_stat.txt ====="))
			stats = bytes.HasPrefix(line, []byte("===== gpgpusim_stat.txt ====="))
			blk = nil
		case stats:
			// Keep a block's kernels and the lines the Reader reads of it.
			b := bytes.TrimSpace(line)
			switch {
			case bytes.HasPrefix(b, bytes.TrimSpace(prefixUIDs)):
				blk = nil
				var uids []uint64
				for _, f := range bytes.Fields(b[len(bytes.TrimSpace(prefixUIDs)):]) {
					if u, err := strconv.ParseUint(string(f), 10, 64); err == nil {
						uids = append(uids, u)
					}
				}
				if len(uids) > 0 {
					blocks = append(blocks, statBlock{uids: uids})
					blk = &blocks[len(blocks)-1]
				}
			case blk != nil && (bytes.HasPrefix(b, prefixSimCycle) || bytes.HasPrefix(b, prefixTotCycle) ||
				bytes.HasPrefix(b, prefixWarpInst) || bytes.HasPrefix(b, prefixDRAMRd) || bytes.HasPrefix(b, prefixDRAMWr)):
				blk.lines = append(blk.lines, append(append([]byte(nil), b...), '\n'))
			}
		case stat:
			// " kernel U: NAME, parent P, launch L, ..."
			for _, e := range kernelStatEntries(line) {
				c := newCursor(e)
				c.skip("kernel")
				u := c.int(1, 1<<62)
				c.past(", parent ")
				p := c.int(1, 1<<62)
				if c.ok {
					parents[uint64(u)] = uint64(p)
				}
			}
		}
		if err != nil {
			break // at the end, or an error the conversion will meet itself
		}
	}
	if !on || len(parents) == 0 && len(blocks) == 0 {
		return in, nil
	}
	return &forkParents{Reader: in, parents: parents, blocks: blocks}, nil
}

// appended reads the files the capture appends after the output.
func (d *dialect322) appended(line, b []byte) {
	// (a section line is "===== NAME =====": its head and tail apart, so
	// that "===== =====" is no section's, where the two overlap)
	if bytes.HasPrefix(b, prefix3Section) && bytes.HasSuffix(b, []byte(" =====")) && len(b) >= len(prefix3Section)+len(" =====") && !bytes.HasPrefix(b, []byte("====== ")) {
		d.closeStamp()
		d.section = string(bytes.TrimSpace(b[len(prefix3Section) : len(b)-len(" =====")]))
		d.skipBlock = false
		return
	}
	// A section line can end a file's last line that had no newline
	// (kernel_stat.txt's last entry ends "..._Z6parentPfiii===== bddream_stat.txt =====").
	if i := bytes.Index(b, prefix3Section); i > 0 && bytes.HasSuffix(b, []byte(" =====")) {
		d.appended(append(b[:i:i], '\n'), b[:i])
		d.appended(b[i:], b[i:])
		return
	}
	switch d.section {
	case "kernel_stat.txt":
		for _, e := range kernelStatEntries(b) {
			d.kernelStat(e)
		}
	case "gpgpusim_stat.txt":
		if d.blocks != nil {
			return // written where each run ended (simEnd)
		}
		if d.simRuns > 1 {
			d.fail("%d simulation runs ended, but read from a stream gpgpusim_stat.txt's blocks cannot be placed where each ended (convert the log from a file)", d.simRuns)
			return
		}
		if uids := bytes.TrimSpace(prefixUIDs); bytes.HasPrefix(b, uids) {
			var fork []uint64
			for _, f := range bytes.Fields(b[len(uids):]) {
				u, err := strconv.ParseUint(string(f), 10, 64)
				if err != nil {
					d.fail("gpgpusim_stat.txt lists kernel %q, which the log never launched", f)
					return
				}
				fork = append(fork, u)
			}
			out, ok := d.ourUIDs(fork)
			if !ok {
				return
			}
			d.skipBlock = len(out) == 0
			if !d.skipBlock {
				d.emitf("%s%s\n", prefixUIDs, strings.Join(out, " "))
			}
			return
		}
		if !d.skipBlock {
			d.emit(line)
		}
	}
}

// ourUIDs translates a statistics block's kernels (the simulator's
// numbers) to ours, each grid followed by its aggregated groups.
func (d *dialect322) ourUIDs(fork []uint64) ([]string, bool) {
	var out []string
	for _, u := range fork {
		id, ok := d.ids[u]
		if !ok {
			d.fail("gpgpusim_stat.txt lists kernel %d, which the log never launched", u)
			return nil, false
		}
		out = append(out, strconv.FormatUint(id, 10))
		for _, g := range d.groups[u] {
			out = append(out, strconv.FormatUint(g, 10))
		}
	}
	return out, true
}

// simEnd writes the next statistics block where a simulation run ends:
// "gpgpu_simulation_time = ..." (print_simulation_time,
// src/gpgpusim_entrypoint.cc:273 at 68e84ab), which the concurrent
// simulation thread prints after print_stats appended the run's block to
// gpgpusim_stat.txt, and only for a run that simulated cycles (:171-174:
// `g_the_gpu->print_stats(); if(sim_cycles) { ...
// print_simulation_time(); }`), so the n-th such line ends the run of
// the file's n-th non-empty block. A program waits for each run before
// its next host launch, and the Reader takes that wait's return from
// the block's gpu_tot_sim_cycle, so the block must come before the next
// run's lines, not after the whole output where the file is appended.
func (d *dialect322) simEnd() {
	d.simRuns++
	if d.blocks == nil {
		return
	}
	if d.nextBlock >= len(d.blocks) {
		d.fail("simulation run %d ends, but gpgpusim_stat.txt has %d blocks with kernels", d.nextBlock+1, len(d.blocks))
		return
	}
	blk := d.blocks[d.nextBlock]
	d.nextBlock++
	out, ok := d.ourUIDs(blk.uids)
	if !ok {
		return
	}
	d.closeStamp()
	d.emitf("%s%s\n", prefixUIDs, strings.Join(out, " "))
	for _, l := range blk.lines {
		d.emit(l)
	}
	d.emit(markStatsEnd, []byte("\n")) // the block ends here, its kernels' trees complete
}

// kernelStatEntries splits a line of kernel_stat.txt into its entries.
// The fork ends only a device kernel's entry with a newline: a host
// kernel's is " kernel U: NAME" alone (src/stream_manager.cc:277-284 at
// 68e84ab: `kernel_stat<< " kernel " << grid_uid << ": " <<
// kernel->name();`, and the "\n" only after ", retire R" in the
// `if(kernel->get_parent())` branch), so the entries of host kernels
// that finish before a device kernel share its line: " kernel 1: A
// kernel 2: B kernel 4: C, parent 3, launch ...". An entry starts at
// "kernel U: " after a space or at the line's start; a mangled name has
// no space.
func kernelStatEntries(line []byte) [][]byte {
	line = bytes.TrimSpace(line)
	var out [][]byte
	start := 0
	for i := 1; i < len(line); i++ {
		if line[i-1] == ' ' && isKernelStatEntry(line[i:]) {
			out = append(out, bytes.TrimSpace(line[start:i]))
			start = i
		}
	}
	if start < len(line) {
		out = append(out, line[start:])
	}
	return out
}

// isKernelStatEntry reports whether b starts "kernel U: " (U digits).
func isKernelStatEntry(b []byte) bool {
	const p = "kernel "
	if !bytes.HasPrefix(b, []byte(p)) {
		return false
	}
	i := len(p)
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i > len(p) && i+1 < len(b) && b[i] == ':' && b[i+1] == ' '
}

// kernelStat checks " kernel U: NAME, parent P, launch L, start S, end E,
// retire R" against the launch read for U.
func (d *dialect322) kernelStat(b []byte) {
	c := newCursor(b)
	c.skip("kernel")
	u := uint64(c.int(1, 1<<62))
	c.past(", launch ")
	l := c.int(0, 1<<62)
	if !c.ok {
		return // the host kernels' lines give no launch
	}
	id, ok := d.ids[u]
	want, launched := d.launchAt[id]
	if !ok || !launched {
		d.fail("kernel_stat.txt gives kernel %d a device launch, which the log does not show", u)
		return
	}
	if want != l {
		d.fail("kernel_stat.txt has kernel %d launched at cycle %d; its cudaLaunchDeviceV2 reported cycle %d", u, l, want)
	}
}
