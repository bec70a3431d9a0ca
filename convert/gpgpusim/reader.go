package gpgpusim

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gpureplay/gpureplay/internal/tempfile"
	"github.com/gpureplay/gpureplay/trace"
)

// Reader reads a GPGPU-Sim log and returns its trace records in order,
// as trace.Reader does a trace: the header first, then each host launch
// tree once the log has shown all of it (the tree's CTAs have finished and
// its statistics block has been printed). It holds the trees still running
// and nothing of those already returned.
type Reader struct {
	name string
	opts Options
	in   *bufio.Reader
	line int
	text []byte // the current line, for errors
	// carry is the start of a simulation thread's line that a host
	// thread's line cut (hostLineAt); the rest of it begins the next line.
	carry []byte
	// dangling is a LIVENESS line's prefix ("GPGPU-Sim Cycle N: LIVENESS -
	// Core C - ") that ended its line: the host thread's output began with
	// a newline there (PTX_SIM_DEBUG's API lines), and the rest of the
	// line comes later, the next line to begin "GPGPU-Sim uArch:".
	dangling []byte
	// prevHostOp is the kind of the host's last call read: a launch or
	// a sync (idlePush).
	prevHostOp hostOpKind
	prevHostT  int64 // the cycle of the host's last launch
	states     streamStates

	opt      options
	optLine  map[string]int // the log line of each option read
	g        gpu
	header   bool // the header has been queued
	version  string
	out      []trace.Record
	err      error
	sum      Summary
	finished bool

	cycle    int64 // the last cycle a line was stamped with
	totCycle int64 // gpu_tot_sim_cycle of the last statistics block
	simCycle int64 // gpu_sim_cycle of the open statistics block; -1 until given
	exited   bool  // the end-of-run line (prefixExit) has been read

	res       map[string]resources // ptxas info by kernel name
	kernels   map[uint64]*kernel   // launched and not yet written
	running   map[string][]*kernel // kernels with CTAs to run, by name
	host      []*hostOp            // host operations not yet written, in program order
	waiting   *hostOp              // the sync call whose return line has not come
	hostClock int64                // when the host's last written operation returned
	nextUID   uint64
	resident  map[[2]int64]slot // (core, hardware CTA slot) -> CTA
	params    map[string]childShape
	// openParams are the parameter buffers allocated since the last
	// stamped line, whose hi that line gives.
	openParams []string
	param      childShape // the parameter buffer being described
	child      pendingLaunch
	lastSite   *site
	openSites  []*site         // sites whose hi is not known yet
	undecided  []undecided     // sites whose parent is one of several siblings until one finishes (siblings.go)
	created    map[uint64]bool // streams created ("Create stream U") and not yet launched into

	session      []uint64 // kernel uids of the open statistics block
	warpInsts    [2]int64 // gpgpu_n_tot_w_icount: before the block, in it
	dram         [2]int64 // DRAM reads + writes (atoms), likewise
	dramSeen     int      // how many of the two DRAM totals the block has given
	sessionOpen  bool
	stampedSince bool // a stamped line came since the last device launch
}

// resources is what ptxas reports for a kernel.
type resources struct {
	regs int
	smem int64
}

// slot is a CTA resident in a hardware CTA slot of a core.
type slot struct {
	k   *kernel
	cta uint64
}

// childShape is a child grid as cudaGetParameterBufferV2 reports it.
type childShape struct {
	name        string
	grid, block [3]uint32
	smem        int64
	// hi is the cycle of the first stamped line after the
	// cudaGetParameterBufferV2 call that allocated the buffer (an upper
	// bound on the call's cycle); -1 while no stamp has come since.
	hi int64
}

// pendingLaunch is a cudaLaunchDeviceV2 being reported, line by line.
type pendingLaunch struct {
	active bool
	shape  childShape
	parent *kernel
	cta    uint64
	tid    uint64
	cands  []siteCand // the siblings parent was chosen among, where several (parentOf)
}

// Summary says what a conversion made, and what it could not carry over.
type Summary struct {
	Kernels, DeviceKernels int    // kernels in all, and of those launched from the device
	CTAs                   uint64 // cta records
	Sites                  int    // warp-level device launch sites
	Sessions               int    // statistics blocks read
	Cycles                 int64  // the simulated run, from the last gpu_tot_sim_cycle
	DefaultStream          int    // device launches into their CTA's default stream
	CreatedStream          int    // device launches into a stream their CTA created
	StreamsCreated         int    // streams the device runtime created
	NoPTXInfo              int    // kernels without ptxas info (written with 0 registers and shared memory)
	Ambiguous              int    // device launches whose parent was one of several same-named kernels (see parentOf)
	Syncs                  int    // sync records written (Options.Syncs)
	EventSyncs             int    // of those, cudaEventSynchronize calls, written as device syncs (see sync.go)
	EventSyncsAtCall       int    // cudaEventSynchronize calls that returned at their call, not written (see sync.go)
	Events                 int    // event records and stream waits written (PTX_SIM_DEBUG=3 logs: events.go)
	EventsUnread           int    // records and waits whose stream the log's state did not single out
	Levels                 int    // level kernels written for the device launches (Options.Inline "levels")
}

func (s Summary) String() string {
	b := fmt.Sprintf("gpgpusim: %d kernels (%d launched from the device, at %d warp-level sites), %d CTAs, %d cycles simulated, %d statistics blocks",
		s.Kernels, s.DeviceKernels, s.Sites, s.CTAs, s.Cycles, s.Sessions)
	if s.DeviceKernels > 0 {
		b += fmt.Sprintf("; device streams: %d launches into their CTA's default stream, %d into %d created streams", s.DefaultStream, s.CreatedStream, s.StreamsCreated)
	}
	if s.Levels > 0 {
		b += fmt.Sprintf("; inline=levels: the device launches written as %d host kernels, one a launch depth of a host kernel's tree", s.Levels)
	}
	if s.Syncs > 0 {
		b += fmt.Sprintf("; %d host syncs", s.Syncs)
		if s.EventSyncs > 0 {
			b += fmt.Sprintf(" (%d cudaEventSynchronize, written as device syncs: the log names no event)", s.EventSyncs)
		}
	}
	if s.Events > 0 || s.EventsUnread > 0 {
		b += fmt.Sprintf("; %d event records and stream waits", s.Events)
		if s.EventsUnread > 0 {
			b += fmt.Sprintf(" (%d more whose stream the log does not single out, not written)", s.EventsUnread)
		}
	}
	if s.EventSyncsAtCall > 0 {
		b += fmt.Sprintf("; %d cudaEventSynchronize returned at their call, not written (the simulator did not wait)", s.EventSyncsAtCall)
	}
	if s.Ambiguous > 0 {
		b += fmt.Sprintf("; note: %d device launches named a parent CTA that several running kernels of one name had; each went to the first of those CTAs to finish after it", s.Ambiguous)
	}
	if s.NoPTXInfo > 0 {
		b += fmt.Sprintf("; note: %d kernels have no ptxas info in the log (0 registers and shared memory written)", s.NoPTXInfo)
	}
	return b
}

// NewReader reads the log r, whose name is used in errors.
func NewReader(r io.Reader, name string, o Options) *Reader {
	return &Reader{
		name: name, opts: o, in: bufio.NewReaderSize(newDialect322(r), 1<<16),
		opt: options{}, optLine: map[string]int{}, res: map[string]resources{}, kernels: map[uint64]*kernel{},
		running: map[string][]*kernel{}, nextUID: 1, resident: map[[2]int64]slot{},
		params: map[string]childShape{}, created: map[uint64]bool{},
		warpInsts: [2]int64{-1, -1}, dram: [2]int64{-1, -1},
	}
}

// Summary is what has been converted so far; complete once Next has
// returned io.EOF.
func (r *Reader) Summary() Summary { return r.sum }

// Next returns the next record, or io.EOF after the last.
func (r *Reader) Next() (trace.Record, error) {
	for len(r.out) == 0 {
		if r.err != nil {
			return nil, r.err
		}
		if r.finished {
			return nil, io.EOF
		}
		if err := r.step(); err != nil {
			r.err = err
			return nil, err
		}
	}
	rec := r.out[0]
	r.out[0] = nil
	r.out = r.out[1:]
	return rec, nil
}

// maxLine bounds one log line (the statistics' longest lines list every
// kernel of a block by name).
const maxLine = 64 << 20

// step reads one line, or finishes the log at its end.
func (r *Reader) step() error {
	b, err := r.in.ReadSlice('\n')
	for err == bufio.ErrBufferFull {
		// A long line: gather it whole, up to maxLine.
		long := append([]byte(nil), b...)
		for err == bufio.ErrBufferFull && len(long) <= maxLine {
			b, err = r.in.ReadSlice('\n')
			long = append(long, b...)
		}
		if len(long) > maxLine {
			return &Error{File: r.name, Line: r.line + 1, Msg: "a line longer than 64 MiB; not a GPGPU-Sim log?"}
		}
		b = long
	}
	if err == io.EOF {
		if len(b) == 0 {
			if len(r.carry) > 0 {
				// The log ends inside the line a host line cut.
				r.text, r.carry = r.carry, nil
				return r.parse(bytes.TrimLeft(r.text, " \t"))
			}
			return r.end()
		}
	} else if err != nil {
		return &Error{File: r.name, Line: r.line + 1, Msg: "reading the log", Err: err}
	}
	r.line++
	r.text = bytes.TrimRight(b, "\r\n")
	if len(r.carry) > 0 {
		r.text = append(r.carry, r.text...)
		r.carry = nil
	}
	if len(r.dangling) > 0 && bytes.HasPrefix(bytes.TrimLeft(r.text, " \t"), prefixUArch) {
		r.text = append(r.dangling, bytes.TrimLeft(r.text, " \t")...)
		r.dangling = nil
	}
	return r.parse(bytes.TrimLeft(r.text, " \t"))
}

func (r *Reader) errf(format string, a ...any) error {
	return lineError(r.name, r.line, r.text, format, a...)
}

// parse dispatches one line on its shape.
func (r *Reader) parse(b []byte) error {
	if i := hostLineAt(b); i > 0 {
		// A host thread's line inside one the simulation thread had begun:
		// read the host's, and join the rest to the next line.
		r.carry = append([]byte(nil), b[:i]...)
		b = b[i:]
	}
	switch {
	case len(b) == 0:
	case b[0] == '-' && !r.header:
		if name, ok := r.opt.parseOptionName(string(b)); ok {
			r.optLine[name] = r.line
		}
	case bytes.HasPrefix(b, prefixCycle):
		return r.stamped(b)
	case bytes.HasPrefix(b, prefixDevRT):
		return r.deviceRuntime(b[len(prefixDevRT):])
	case bytes.HasPrefix(b, prefixPush):
		return r.push(b)
	case bytes.HasPrefix(b, prefixPTXInfo):
		return r.ptxInfo(b)
	case bytes.HasPrefix(b, prefixVersion):
		r.version = strings.TrimSpace(strings.TrimSuffix(string(b[len(prefixVersion):]), "***"))
	case bytes.HasPrefix(b, prefixUIDs):
		return r.openSession(b[len(prefixUIDs):])
	case bytes.HasPrefix(b, prefixExit):
		r.exited = true
	case bytes.HasPrefix(b, prefixSyncLines):
		if r.eventLine(b) {
			return nil
		}
		_, err := r.syncLine(b)
		return err
	case !r.sessionOpen:
	case bytes.HasPrefix(b, prefixSimCycle):
		v, ok := lastInt(b, prefixSimCycle)
		if !ok {
			return r.errf("gpu_sim_cycle is not a cycle count")
		}
		r.simCycle = v
	case bytes.HasPrefix(b, prefixTotCycle):
		v, ok := lastInt(b, prefixTotCycle)
		if !ok {
			return r.errf("gpu_tot_sim_cycle is not a cycle count")
		}
		return r.setTotCycle(v)
	case bytes.HasPrefix(b, prefixWarpInst):
		v, ok := lastInt(b, prefixWarpInst)
		if !ok {
			return r.errf("gpgpu_n_tot_w_icount is not a count")
		}
		r.warpInsts[1] = v
	case bytes.HasPrefix(b, prefixDRAMRd), bytes.HasPrefix(b, prefixDRAMWr):
		v, ok := lastInt(b, prefixDRAMRd) // both prefixes are as long
		if !ok {
			return r.errf("a DRAM total is not a count")
		}
		if r.dramSeen == 0 {
			r.dram[1] = 0
		}
		r.dram[1] += v
		r.dramSeen++
	case bytes.Contains(b, markStatsEnd):
		return r.closeSession()
	}
	return nil
}

// setTotCycle takes a statistics block's gpu_tot_sim_cycle, the end of
// the run so far, after checking it against the cycles around it: the
// simulator adds the block's gpu_sim_cycle to the previous block's total
// and prints both, its stamps count cycles from the run's start, so the
// total is never before the last stamp (the block's kernels finished by
// then), and the next stamp is never before it (checked in stamped). A
// total that disagrees would move every later host launch (r.now).
func (r *Reader) setTotCycle(v int64) error {
	if r.simCycle >= 0 && v != r.totCycle+r.simCycle {
		return r.errf("gpu_tot_sim_cycle %d is not the previous block's %d plus this block's gpu_sim_cycle %d", v, r.totCycle, r.simCycle)
	}
	if v < r.cycle {
		return r.errf("gpu_tot_sim_cycle %d is before cycle %d, stamped on a line above", v, r.cycle)
	}
	if v < r.totCycle {
		return r.errf("gpu_tot_sim_cycle %d is before the previous block's %d; the run's total never goes back", v, r.totCycle)
	}
	r.totCycle = v
	return nil
}

// start queues the header once the simulator's options are known: at the
// first line about the run itself.
func (r *Reader) start() error {
	if r.header {
		return nil
	}
	r.header = true
	if r.opts.Config != "" {
		f, err := tempfile.Open(r.opts.Config)
		if err != nil {
			return &Error{File: r.opts.Config, Msg: "cannot open the simulator config", Err: err}
		}
		err = r.opt.readConfigFile(r.opts.Config, f)
		f.Close()
		if err != nil {
			return err
		}
	}
	g, err := r.opt.gpu(r.name, r.optLine)
	if err != nil {
		return err
	}
	r.g = g
	r.out = append(r.out, r.headerRecord())
	return nil
}

// now is the current simulated cycle: the last stamp, or the end of the
// last statistics block's run when no stamp has come since.
func (r *Reader) now() int64 { return max(r.cycle, r.totCycle) }

// ptxInfo reads "GPGPU-Sim PTX: Kernel 'NAME' : regs=R, lmem=L, smem=S, cmem=C".
func (r *Reader) ptxInfo(b []byte) error {
	c := newCursor(b[len(prefixPTXInfo):])
	name := c.until("'")
	c.past("regs=")
	regs := c.int(0, 255)
	c.past("smem=")
	smem := c.int(0, 1<<40)
	if !c.ok || name == "" {
		return r.errf("ptxas info not as GPGPU-Sim prints it (Kernel 'NAME' : regs=R, lmem=L, smem=S, cmem=C)")
	}
	r.res[name] = resources{regs: int(regs), smem: smem}
	return nil
}

// push reads a host launch: "GPGPU-Sim PTX: pushing kernel 'NAME' to
// stream S, gridDim= (x,y,z) blockDim = (x,y,z)". GPGPU-Sim numbers
// kernels in the order it creates them, host and device alike.
func (r *Reader) push(b []byte) error {
	if err := r.start(); err != nil {
		return err
	}
	c := newCursor(b[len(prefixPush):])
	name := c.until("'")
	c.skip("to stream")
	stream := c.int(0, 1<<62)
	c.past("gridDim=")
	grid := c.dim3(false)
	c.past("blockDim =")
	block := c.dim3(false)
	if !c.ok || name == "" {
		return r.errf("kernel push not as GPGPU-Sim prints it (pushing kernel 'NAME' to stream S, gridDim= (x,y,z) blockDim = (x,y,z))")
	}
	k, err := r.newKernel(r.nextUID, childShape{name: name, grid: grid, block: block})
	if err != nil {
		return err
	}
	k.host, k.stream, k.t = true, uint64(stream), r.now()
	r.endState() // a record or a wait before it is written first
	r.pushSyncs(k)
	return nil
}

// traceString is a string of the log (a kernel's name, the simulator's
// version) as a trace record holds it. A trace's strings are UTF-8 (the
// writer refuses others, naming its output record, not the log's line); a
// byte that is not, which no compiler's mangled name nor GPGPU-Sim's
// banner has but a damaged log may, is written as U+FFFD, as the Accel-Sim
// importer writes one. The reader matches names as the log spells them.
func traceString(s string) string { return strings.ToValidUTF8(s, string(utf8.RuneError)) }

// newKernel registers kernel id of the given shape.
func (r *Reader) newKernel(id uint64, s childShape) (*kernel, error) {
	if _, dup := r.kernels[id]; dup {
		return nil, r.errf("kernel %d launched twice", id)
	}
	for a := range s.block {
		if s.block[a] > 1024 || s.grid[a] == 0 || s.block[a] == 0 {
			return nil, r.errf("kernel %s has grid %v and block %v; want every dimension at least 1 and blocks of at most 1024 threads", s.name, s.grid, s.block)
		}
	}
	if n := len(traceString(s.name)); n > trace.MaxString {
		return nil, r.errf("kernel %d has a name of %d bytes; a trace holds at most %d (2^20)", id, n, trace.MaxString)
	}
	k := &kernel{id: id, name: s.name, grid: s.grid, block: s.block, line: r.line, started: -1}
	if k.threads() > 1024 {
		return nil, r.errf("kernel %s has %d threads per CTA; at most 1024", s.name, k.threads())
	}
	if res, ok := r.res[s.name]; ok {
		k.regs, k.smem = res.regs, res.smem
	} else {
		r.sum.NoPTXInfo++
	}
	k.smem += s.smem
	if err := r.fitsAnSM(k); err != nil {
		return nil, err
	}
	r.kernels[id] = k
	r.running[s.name] = append(r.running[s.name], k)
	if id >= r.nextUID {
		r.nextUID = id + 1
	}
	r.sum.Kernels++
	return k, nil
}

// fitsAnSM refuses a kernel whose CTA no SM of the simulated GPU can
// hold: GPGPU-Sim could not have run it, and the replay would refuse it
// later without naming this line.
func (r *Reader) fitsAnSM(k *kernel) error {
	s := r.g.spec
	warps := (k.threads() + 31) / 32
	switch {
	case k.threads() > int64(s.MaxThreadsPerSM):
		return r.errf("kernel %s has %d threads per CTA; an SM holds %d (-gpgpu_shader_core_pipeline)", k.name, k.threads(), s.MaxThreadsPerSM)
	case k.smem > s.SmemPerSM:
		return r.errf("kernel %s has %d bytes of shared memory per CTA; an SM has %d (-gpgpu_shmem_size)", k.name, k.smem, s.SmemPerSM)
	case int64(k.regs)*warps*32 > int64(s.RegsPerSM):
		return r.errf("kernel %s needs %d registers per CTA (%d a thread); an SM has %d (-gpgpu_shader_registers)", k.name, int64(k.regs)*warps*32, k.regs, s.RegsPerSM)
	}
	return nil
}

// stamped reads a line that starts "GPGPU-Sim Cycle N: ".
func (r *Reader) stamped(b []byte) error {
	c := newCursor(b[len(prefixCycle):])
	n := c.int(0, 1<<62)
	c.skip(":")
	if !c.ok {
		return r.errf("a cycle stamp that is not a cycle count")
	}
	if n < r.cycle {
		return r.errf("cycle %d comes after cycle %d; GPGPU-Sim's stamps never go back", n, r.cycle)
	}
	if n < r.totCycle {
		return r.errf("cycle %d comes after a statistics block whose gpu_tot_sim_cycle is %d; GPGPU-Sim's stamps never go back", n, r.totCycle)
	}
	r.cycle = n
	// The sites reported since the last stamp launched in the order the
	// log reports them (GPGPU-Sim numbers kernels in launch order), each
	// no later than the next: the last at n, each earlier one a cycle
	// before the next where the window has room. Taking n for all would
	// tie them, and the replay would order the tie its own way.
	for i, s := range r.openSites {
		s.hi = max(n-int64(len(r.openSites)-1-i), s.lo)
	}
	r.openSites = r.openSites[:0]
	for _, a := range r.openParams {
		if p, ok := r.params[a]; ok && p.hi < 0 {
			p.hi = n
			r.params[a] = p
		}
	}
	r.openParams = r.openParams[:0]
	r.stampedSince = true
	rest := c.b
	i := bytes.Index(rest, livenessCore)
	if i < 0 {
		return nil
	}
	c = newCursor(rest[i+len(livenessCore):])
	core := c.int(0, 1<<30)
	c.skip("-")
	if !c.ok {
		return r.errf("a LIVENESS line without its core")
	}
	c.b = bytes.TrimLeft(c.b, " ")
	if len(c.b) == 0 {
		// The line was cut after its core: its rest comes later.
		if len(r.dangling) > 0 {
			return r.errf("a LIVENESS line cut after its core while another cut one waits for its rest")
		}
		r.dangling = append([]byte(nil), b...)
		return nil
	}
	switch {
	case bytes.HasPrefix(c.b, livenessCTA):
		if err := r.start(); err != nil {
			return err
		}
		return r.ctaStart(core, c)
	case bytes.HasPrefix(c.b, livenessFinished):
		c.b = c.b[len(livenessFinished):]
		hw := c.int(0, 1<<30)
		if !c.ok {
			return r.errf("a Finished CTA line without its slot")
		}
		return r.ctaEnd(core, hw)
	}
	return nil
}

// ctaStart reads "cta: S, start_tid: A, end_tid: B, initialized @(N,M),
// kernel_uid:K, kernel_name:NAME". GPGPU-Sim hands a kernel's CTAs out in
// linear order, so the kernel's n-th started CTA is CTA n.
func (r *Reader) ctaStart(core int64, c cursor) error {
	c.skip(string(livenessCTA))
	hw := c.int(0, 1<<30)
	c.past("start_tid:")
	lo := c.int(0, 1<<40)
	c.past("end_tid:")
	hi := c.int(0, 1<<40)
	c.past("kernel_uid:")
	uid := c.int(1, 1<<62)
	c.past("kernel_name:")
	name := strings.TrimSpace(string(c.b))
	if !c.ok {
		return r.errf("a CTA start not as GPGPU-Sim prints it (cta: S, ..., kernel_uid:K, kernel_name:NAME)")
	}
	k := r.kernels[uint64(uid)]
	if k == nil {
		if r.g.cdp && !r.sawDeviceRuntime() {
			return r.errf("kernel %d (%s) starts a CTA, but the log shows no launch of it: a device launch, which the log reports only when the program ran with PTX_SIM_DEBUG=1", uid, name)
		}
		return r.errf("kernel %d (%s) starts a CTA, but the log shows no launch of it", uid, name)
	}
	if k.name != name {
		return r.errf("kernel %d starts a CTA as %s but was launched as %s", uid, name, k.name)
	}
	if hi-lo != k.threads() {
		// GPGPU-Sim gives a CTA start_tid..end_tid, its block's threads.
		return r.errf("kernel %d (%s) starts a CTA of threads %d to %d (%d), but its block %v has %d threads", uid, name, lo, hi, hi-lo, k.block, k.threads())
	}
	n := uint64(len(k.ctas))
	if n >= k.total() {
		return r.errf("kernel %d (%s) starts CTA %d of a grid of %d", uid, name, n+1, k.total())
	}
	key := [2]int64{core, hw}
	if old, busy := r.resident[key]; busy {
		return r.errf("core %d slot %d starts a CTA of kernel %d while CTA %d of kernel %d still holds it", core, hw, uid, old.cta, old.k.id)
	}
	r.resident[key] = slot{k, n}
	k.ctas = append(k.ctas, ctaRun{start: r.cycle, end: -1})
	if k.started < 0 {
		k.started = r.cycle
	}
	return nil
}

// sawDeviceRuntime reports whether any device-runtime line has been read.
func (r *Reader) sawDeviceRuntime() bool {
	return len(r.params) > 0 || r.sum.DeviceKernels > 0 || r.param.name != ""
}

// ctaEnd reads "Finished CTA #S (N,M), K CTAs running" on core.
func (r *Reader) ctaEnd(core, hw int64) error {
	key := [2]int64{core, hw}
	s, ok := r.resident[key]
	if !ok {
		return r.errf("core %d slot %d finishes a CTA it never started", core, hw)
	}
	delete(r.resident, key)
	s.k.ctas[s.cta].end = r.cycle
	s.k.ended++
	r.settleSites(s.k, s.cta)
	if s.k.finished() {
		r.dropRunning(s.k)
	}
	return nil
}

// dropRunning forgets k as a possible parent once all its CTAs have run.
func (r *Reader) dropRunning(k *kernel) {
	list := r.running[k.name]
	for i, x := range list {
		if x == k {
			list = append(list[:i], list[i+1:]...)
			break
		}
	}
	if len(list) == 0 {
		delete(r.running, k.name)
	} else {
		r.running[k.name] = list
	}
}

// openSession reads "kernel_launch_uid = U1 U2 ...": the kernels whose
// run the statistics block that follows covers.
func (r *Reader) openSession(b []byte) error {
	if r.sessionOpen {
		if err := r.closeSession(); err != nil {
			return err
		}
	}
	var uids []uint64
	for _, f := range bytes.Fields(b) {
		u, err := strconv.ParseUint(string(f), 10, 64)
		if err != nil {
			return r.errf("kernel_launch_uid lists %q, not a kernel id", f)
		}
		k := r.kernels[u]
		if k == nil {
			return r.errf("the statistics of kernel %d, which the log never launched (or listed twice)", u)
		}
		if !k.finished() {
			return r.errf("the statistics of kernel %d (%s) come before its CTA %d finished", u, k.name, len(k.ctas))
		}
		uids = append(uids, u)
	}
	r.session, r.sessionOpen, r.dramSeen, r.simCycle = uids, true, 0, -1
	return nil
}

// closeSession spreads the block's warp instructions and DRAM traffic
// over its kernels' CTAs by cycles, and writes every launch tree now
// complete.
func (r *Reader) closeSession() error {
	r.sessionOpen = false
	r.sum.Sessions++
	insts := delta(r.warpInsts)
	dram := delta(r.dram) * r.g.dramAtomBytes
	r.warpInsts[0], r.dram[0] = r.warpInsts[1], r.dram[1]
	var runs []*ctaRun
	for _, u := range r.session {
		k := r.kernels[u]
		k.stats = true
		for i := range k.ctas {
			runs = append(runs, &k.ctas[i])
		}
	}
	spread(runs, uint64(max(insts, 0)), uint64(max(dram, 0)))
	r.session = nil
	r.sum.Cycles = r.totCycle
	return r.flush()
}

// delta is a cumulative counter's growth over one block; a counter that
// went back (a simulator that resets it) counts from zero.
func delta(v [2]int64) int64 {
	switch {
	case v[1] < 0:
		return 0
	case v[0] < 0 || v[1] < v[0]:
		return v[1]
	}
	return v[1] - v[0]
}

// end finishes the log: the last statistics block, and the check that
// every launch tree was written.
func (r *Reader) end() error {
	r.endState()
	switch {
	case r.line == 0:
		return &Error{File: r.name, Msg: "the log is empty"}
	case !r.header && len(r.opt) == 0 && r.version == "":
		return &Error{File: r.name, Msg: fmt.Sprintf("not a GPGPU-Sim log: none of its %d lines is GPGPU-Sim's output (its options, version or cycle stamps)", r.line)}
	}
	if err := r.start(); err != nil {
		return err
	}
	if r.sessionOpen {
		if err := r.closeSession(); err != nil {
			return err
		}
	}
	if r.waiting != nil {
		return &Error{File: r.name, Line: r.waiting.line, Msg: fmt.Sprintf("the log ends while the host waits in %s called here: a log cut short, or a run that failed", r.waiting.what)}
	}
	if err := r.flush(); err != nil {
		return err
	}
	if len(r.host) > 0 {
		k := r.host[0].k
		for _, x := range r.kernels {
			if !x.finished() || !x.stats {
				k = x
				break
			}
		}
		what := "its statistics block"
		if !k.finished() {
			what = fmt.Sprintf("CTA %d of its %d", k.ended, k.total())
		}
		return &Error{File: r.name, Line: k.line, Msg: fmt.Sprintf("the log ends before kernel %d (%s) launched here has %s: a log cut short, or a run that failed", k.id, k.name, what)}
	}
	if !r.exited {
		// Every launch seen so far is whole, but the log may have been
		// cut between launch trees: only the simulator's last line says
		// the program ran to its end.
		return &Error{File: r.name, Line: r.line, Msg: fmt.Sprintf("the log ends without GPGPU-Sim's end-of-run line (%s) after %d kernels: a log cut short, or a run that failed", prefixExit, r.sum.Kernels)}
	}
	r.finished = true
	return nil
}
