package policies

import (
	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/replay"
	"github.com/gpureplay/gpureplay/taskrun"
)

// The narrow-task policies of the Pagoda paper (§2, §6): host-launched
// kernels are tasks. HyperQ runs each as a kernel of its own stream on the
// hardware path (at most gpu.max_kernels at once, CTA granularity, a host
// launch per task); GeMTC and Pagoda hand them to a software runtime.

func init() {
	mustRegister(Info{
		Name:   "hyperq",
		Doc:    "each host-launched task is a kernel on its own stream: at most gpu.max_kernels run at once, CTA granularity, lat.host_issue per launch",
		Source: "Pagoda §2, §6 (CUDA-HyperQ)",
		Keys:   []string{"gpu.max_kernels", "lat.host_issue", "lat.host_launch", "lat.host_threads", "io.memcpy"},
		New: func(model.Config) replay.Policy {
			return replay.Policy{Name: "hyperq", OwnStreams: true}
		},
	})
	mustRegister(Info{
		Name:   "gemtc",
		Doc:    "tasks run in batches of gemtc.batch on a persistent SuperKernel whose warps take them through one locked queue (gemtc.dequeue_cycles) and return results through another (gemtc.result_cycles); a serial host with synchronous copies; a batch starts when the last has finished",
		Source: "Pagoda §6 (GeMTC); GeMTC's source, skrieder/gemtc",
		Keys:   []string{"gemtc.batch", "gemtc.threads", "gemtc.worker", "gemtc.dequeue_cycles", "gemtc.result_cycles", "gemtc.smem_slowdown"},
		New: func(model.Config) replay.Policy {
			return replay.Policy{Name: "gemtc", Tasks: func(cfg model.Config, l taskrun.Listener) (taskrun.Runtime, error) {
				return taskrun.NewGeMTC(cfg, l)
			}}
		},
	})
	mustRegister(Info{
		Name:   "pagoda",
		Doc:    "tasks are scheduled at warp granularity onto a persistent MasterKernel (TaskTable, scheduler warps, buddy shared memory, named barriers)",
		Source: "Pagoda §4–5",
		Keys:   []string{"pagoda.mtbs_per_sm", "pagoda.table_rows", "pagoda.spawn_cycles", "pagoda.sched_cycles", "pagoda.smem_per_mtb", "pagoda.spawn"},
		New: func(model.Config) replay.Policy {
			return replay.Policy{Name: "pagoda", Tasks: func(cfg model.Config, l taskrun.Listener) (taskrun.Runtime, error) {
				return taskrun.NewPagoda(cfg, l)
			}}
		},
	})
}
