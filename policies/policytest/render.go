package policytest

import (
	"fmt"
	"sort"

	"github.com/gpureplay/gpureplay/bounds"
	"github.com/gpureplay/gpureplay/replay"
	"github.com/gpureplay/gpureplay/tables"
)

// Recorder is an in-memory tables.Sink whose rows Render prints.
type Recorder struct {
	Kernels     []tables.Kernel
	CTAs        []tables.CTA
	Launches    []tables.Launch
	Occupancies []tables.Occupancy
	Pages       []tables.Page
	Stages      []tables.Stage
	Syncs       []tables.Sync
}

func (r *Recorder) Kernel(x tables.Kernel)       { r.Kernels = append(r.Kernels, x) }
func (r *Recorder) CTA(x tables.CTA)             { r.CTAs = append(r.CTAs, x) }
func (r *Recorder) Launch(x tables.Launch)       { r.Launches = append(r.Launches, x) }
func (r *Recorder) Occupancy(x tables.Occupancy) { r.Occupancies = append(r.Occupancies, x) }
func (r *Recorder) Page(x tables.Page)           { r.Pages = append(r.Pages, x) }
func (r *Recorder) Stage(x tables.Stage)         { r.Stages = append(r.Stages, x) }
func (r *Recorder) Sync(x tables.Sync)           { r.Syncs = append(r.Syncs, x) }

// Render prints the rows of the tables show names (summary, kernels,
// ctas, launches, pages, stages, syncs, occupancy, utilization, cdpfloor, blind,
// occupancy-avg, grids: each kernel's CTAs and threads per CTA), in a stable order (kernels by id, CTAs by kernel and
// index, launches by cycle, parent and lane) so cases read naturally.
func (r *Recorder) Render(st *replay.Stats, b bounds.Bounds, show []string) []string {
	var out []string
	for _, s := range show {
		switch s {
		case "summary":
			line := fmt.Sprintf("summary makespan=%d kernels=%d device_kernels=%d ctas=%d sites=%d launched=%d inlined=%d stall=%d",
				st.MakespanCycles, st.Kernels, st.DeviceKernels, st.CTAs, st.LaunchSites, st.Launched, st.Inlined, st.StallCycles)
			if st.Coalesced > 0 {
				line += fmt.Sprintf(" coalesced=%d", st.Coalesced)
			}
			out = append(out, line)
		case "cdpfloor":
			out = append(out, fmt.Sprintf("cdpfloor floor=%d", b.CDPFloor))
		case "blind":
			out = append(out, fmt.Sprintf("blind sites=%d of %d floor=%d", st.BlindSites, st.LaunchSites, b.BlindFloor))
		case "kernels":
			ks := append([]tables.Kernel(nil), r.Kernels...)
			sort.Slice(ks, func(i, j int) bool { return ks[i].KernelID < ks[j].KernelID })
			for _, k := range ks {
				parent := "-"
				if k.ParentKernelID != nil {
					parent = fmt.Sprint(*k.ParentKernelID)
				}
				line := fmt.Sprintf("kernel %d %s parent=%s launch=%d ready=%d start=%d end=%d wait=%d",
					k.KernelID, k.Origin, parent, k.LaunchCycle, k.ReadyCycle, k.StartCycle, k.EndCycle, k.WaitCycles)
				if k.CoalescedGroups > 0 {
					line += fmt.Sprintf(" groups=%d", k.CoalescedGroups)
				}
				out = append(out, line)
			}
		case "grids":
			ks := append([]tables.Kernel(nil), r.Kernels...)
			sort.Slice(ks, func(i, j int) bool { return ks[i].KernelID < ks[j].KernelID })
			for _, k := range ks {
				out = append(out, fmt.Sprintf("grid %d ctas=%d threads=%d", k.KernelID, k.CTAs, k.ThreadsPerCTA))
			}
		case "ctas":
			cs := append([]tables.CTA(nil), r.CTAs...)
			sort.Slice(cs, func(i, j int) bool {
				if cs[i].KernelID != cs[j].KernelID {
					return cs[i].KernelID < cs[j].KernelID
				}
				if gi, gj := group(cs[i]), group(cs[j]); gi != gj {
					return gi < gj
				}
				return cs[i].CTA < cs[j].CTA
			})
			for _, c := range cs {
				name := fmt.Sprintf("%d/%d", c.KernelID, c.CTA)
				if c.GroupID != nil {
					name = fmt.Sprintf("%d/g%d/%d", c.KernelID, *c.GroupID, c.CTA)
				}
				line := fmt.Sprintf("cta %s sm=%d dispatch=%d start=%d end=%d stall=%d",
					name, c.SM, c.DispatchCycle, c.StartCycle, c.EndCycle, c.StallCycles)
				if c.Slowdown != nil {
					line += fmt.Sprintf(" slowdown=%.3f", *c.Slowdown)
				}
				out = append(out, line)
			}
		case "launches":
			for _, l := range r.Launches {
				line := fmt.Sprintf("site %d cycle=%d parent=%d/%d warp=%d lane=%d child=%d workload=%d %s %s",
					l.SiteID, l.Cycle, l.ParentKernelID, l.ParentCTA, l.Warp, l.Lane, l.ChildKernelID, l.Workload, l.Decision, l.Outcome)
				if l.TargetKernelID != nil {
					line += fmt.Sprintf(" target=%d", *l.TargetKernelID)
				}
				if l.EstChildCycles != nil && l.EstParentCycles != nil {
					line += fmt.Sprintf(" est_child=%.0f est_parent=%.0f", *l.EstChildCycles, *l.EstParentCycles)
				}
				out = append(out, line)
			}
		case "pages":
			for _, p := range r.Pages {
				k := "-"
				if p.KernelID != nil {
					k = fmt.Sprint(*p.KernelID)
				}
				out = append(out, fmt.Sprintf("page %d/%d %s kernel=%s cycle=%d", p.Buffer, p.Page, p.Event, k, p.Cycle))
			}
		case "stages":
			for _, s := range r.Stages {
				out = append(out, fmt.Sprintf("stage %s %d..%d", s.Stage, s.StartCycle, s.EndCycle))
			}
		case "syncs":
			for _, s := range r.Syncs {
				line := fmt.Sprintf("sync %d %s thread=%d", s.Seq, s.Call, s.Thread)
				if s.Stream != nil {
					line += fmt.Sprintf(" stream=%d", *s.Stream)
				}
				if s.Event != nil {
					line += fmt.Sprintf(" event=%d", *s.Event)
				}
				line += fmt.Sprintf(" call=%d return=%d captured=%d", s.CallCycle, s.ReturnCycle, s.CapturedReturn)
				if s.LastKernel != nil {
					line += fmt.Sprintf(" last=%d", *s.LastKernel)
				}
				out = append(out, line)
			}
		case "utilization":
			if st.Contention {
				out = append(out, fmt.Sprintf("utilization issue=%.4f dram=%.4f", st.IssueUtilization, st.DRAMUtilization))
			} else {
				out = append(out, "utilization off")
			}
		case "occupancy-avg":
			out = append(out, fmt.Sprintf("avg_occupancy=%.4f", st.AvgOccupancy))
		case "occupancy":
			for _, o := range r.Occupancies {
				out = append(out, fmt.Sprintf("occ sm=%d cycle=%d width=%d warps=%.3f ctas=%.3f",
					o.SM, o.Cycle, o.WindowCycles, o.ActiveWarps, o.ActiveCTAs))
			}
		}
	}
	return out
}

// group is a CTA's aggregated group id, 0 for a native CTA (sorted first).
func group(c tables.CTA) uint64 {
	if c.GroupID == nil {
		return 0
	}
	return *c.GroupID
}
