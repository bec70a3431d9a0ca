// Package taskrun models two narrow-task runtimes of the Pagoda paper as
// deterministic, I/O-free event machines that an outer replay loop drives:
// Pagoda's MasterKernel (Pagoda §4–5) and GeMTC's batch SuperKernel, the
// baseline of Pagoda §6. Each is a Runtime: the driver submits tasks in
// host order, asks for the next event's cycle and advances; the runtime
// reports what happens to a Listener in cycle order. Events are ordered by
// (cycle, sequence number), so the same tasks give the same calls.
//
// Memory is bounded by the tasks in flight: a runtime keeps a task from
// Submit to TaskFinished and nothing after. A Listener must not call back
// into the runtime.
//
// # Pagoda
//
// Each choice below names the part of the paper it follows. Costs come
// from model.Config (pagoda.*, lat.*).
//
// Host and TaskTable (§4.2):
//   - lat.host_threads spawner threads (Fig. 1a spawns from OpenMP tasks)
//     take tasks in submit order. A spawn starts when a thread is free, at
//     max(task.Spawn, the thread's previous spawn's end), costs the task's
//     copy calls (Task.HostCycles) and then pagoda.spawn_cycles; the
//     thread's next spawn starts right after (pipelined, §4.2.1: one
//     cudaMemcpy per entry in the steady state).
//   - pagoda.spawn=pipelined (the default; pagoda_spawn.go quotes the
//     paper for each step): the host first launches the MasterKernel
//     (§4.1; the call holds it lat.host_issue, the kernel is resident
//     lat.host_launch + lat.kernel_dispatch later and no entry is read
//     before); a task is visible to its MTB's scheduler warp, and
//     reported TaskSpawned, once the next spawn's entry has arrived
//     (§4.2.1's ready-field indirection, Fig. 2b: "TA gets scheduled
//     only after TB is spawned") and its input with it; a host thread
//     with nothing to spawn now (the queue empty or its head not yet
//     due) and no spawn under way flushes the held task (§4.2.2: it
//     "copies back the status of the last task ... and copies it to the
//     GPU": lat.host_launch + pagoda.spawn_cycles; the paper gives no
//     timeout, so at once; after a copy-back that found the table full,
//     pagoda.spawn_cycles alone); and once the trace is over and every task
//     spawned, the host's waitAll copies the TaskTable back to back
//     (lat.host_launch each) and the run ends with the first copy-back
//     ending after the last task (Listener.Drained). pagoda.spawn=direct
//     is the reading before: the MasterKernel resident from cycle 0, each
//     task visible when its own spawn completes, nothing after the last.
//   - The TaskTable has pagoda.table_rows entries per column and one
//     column per MTB. The host fills it row by row — round-robin over the
//     columns, starting after the last column used, skipping columns it
//     sees full (§4.2: each column belongs to one MTB; §4.2.2's example
//     puts consecutive tasks TA, TB in different columns). Column c is MTB
//     c, on SM c mod gpu.sms (thread blocks are dispatched round-robin),
//     so consecutive tasks land on different SMs.
//   - An entry frees when its task's last warp finishes (Algorithm 1,
//     lines 41–42: the last executor warp resets the ready field), not
//     when the task is scheduled.
//   - The host sees frees only through a copy-back ("lazy aggregate
//     updates", §4.2.2): it spawns while its own view shows a free entry
//     anywhere, and when every entry looks taken a thread copies the whole
//     table back (the other threads wait for it), which costs
//     lat.host_launch (one PCIe round trip, like a launch reaching the
//     GPU); the view becomes the GPU's table as of the
//     copy's arrival. A copy-back that finds nothing free is repeated
//     back-to-back until one does.
//   - wait() and its timeout (§4.2.2) are not modelled: Fig. 1a's
//     per-task wait is charged as the output copy's synchronous wait
//     before the spawn. Close marks the trace over, for the flush and
//     waitAll.
//
// MasterKernel and scheduling (§4.1, §4.3, Algorithms 1–2):
//   - pagoda.mtbs_per_sm MTBs per SM, each 1024 threads (32 warps) at 32
//     registers a thread with pagoda.smem_per_mtb bytes of shared memory;
//     NewPagoda fails if that many do not fit on an SM (§4.1: the
//     MasterKernel must be resident). Warp 0 is the scheduler warp, warps
//     1–31 execute tasks.
//   - All warps of a task run in its column's MTB (§4.3).
//   - The scheduler warp handles its column's spawned tasks one at a time
//     in spawn order (FIFO). It spends pagoda.sched_cycles reading the
//     entry, then takes a named barrier if the task syncs, then a
//     shared-memory block if it needs one, then places its warps.
//   - A task blocked on a barrier, shared memory or warps blocks the tasks
//     behind it in that MTB (head-of-line): the single scheduler warp
//     spins in the allocSM do-while (Algorithm 1, lines 21–24) and in
//     pSched's loop until every warp is placed (Algorithm 2), so it never
//     looks at later entries meanwhile. Other MTBs are unaffected.
//   - Warps are placed at warp granularity on the free executor warps,
//     lowest first, as they free (Algorithm 2 checks exec flags; §6.4): a
//     task may start on warps another task has released before that task
//     has finished, and a task without Sync starts each warp as soon as it
//     is placed — even one with more than 31 warps, which runs in waves.
//   - A Sync task starts when all its warps are placed (docs/design.md §4); its
//     placed warps sit reserved and idle until then and are not counted
//     as busy. A Sync task wider than 31 warps is rejected by Submit.
//   - Named barriers (§5.2): 16 per MTB, the lowest free one taken at
//     scheduling and released when the task's last warp finishes
//     (Algorithm 1, line 39); a 17th Sync task waits for one.
//   - Shared memory (§5.1, Figs. 3–4): a buddy allocator of 512-byte
//     leaves over the MTB's heap, a tree of marked/unmarked nodes as the
//     paper describes; a request takes the smallest power-of-two block
//     holding it, the lowest-addressed free one (the scheduler warp's
//     threads search a level in parallel; the lowest wins). A request that
//     cannot be met waits. Freeing is lazy: the task's last warp only
//     marks its block (Algorithm 1, line 37) and the scheduler warp frees
//     every marked block just before its next allocation attempt
//     (deallocMarkedSM, line 22), retrying whenever a warp of the MTB
//     finishes. Submit rejects a request larger than pagoda.smem_per_mtb.
//   - WarpsBusy counts executor warps running task work; scheduler warps
//     and reserved-but-waiting warps are not counted.
//
// # GeMTC
//
// From GeMTC's source, skrieder/gemtc at commit c313f84 (file:line below),
// as Pagoda §6 ran it:
//   - The SuperKernel is persistent: launched once (gemtc.cu:193), it is
//     resident lat.host_issue + lat.host_launch + lat.kernel_dispatch
//     after the start, and its launch call holds the host for
//     lat.host_issue. Its blocks have gemtc.threads threads at 32
//     registers (Pagoda §6.1), as many as fit: gpu.sms ×
//     GPU.CTAsPerSM(gemtc.threads, 32, 0) (§6.2: 100% occupancy from 64
//     threads on; 16 blocks of 128 on the Titan X).
//   - Workers are warps (gemtc.worker=warp): lane 0 of every warp takes a
//     task for its warp (SuperKernel.cu:48–63), and the task runs on that
//     warp's lanes (SuperKernel.cu:67), so a task of W warps runs its
//     warps' work one after another on the one warp: 1536 workers on the
//     Titan X. gemtc.worker=block makes a whole block one worker whose
//     warp j runs task warps j, j+B, j+2B, … (B = the block's warps), the
//     reading before this model. Worker w is on SM w mod gpu.sms.
//   - Takes: FrontAndDequeueJob (Queues/QueueJobs.cu:308–328) takes the
//     task queue's one lock, an atomicCAS spin (QueueHelpers.cu:25–28),
//     and holds it gemtc.dequeue_cycles; takes serialise GPU-wide.
//     Waiting workers are served longest-waiting first (the hardware's
//     CAS order is unspecified; FIFO keeps the replay deterministic).
//   - Results: EnqueueResult (Queues/QueueJobs.cu:330–349) takes the
//     result queue's own lock for gemtc.result_cycles; results
//     serialise GPU-wide. A task ends (TaskFinished) when its result is
//     in; its worker then takes the next task (SuperKernel.cu:59–72).
//   - The host is one timeline whatever lat.host_threads: every copy
//     holds memcpyLock (DataMovement.cu:18) and every push enqueueLock
//     (gemtc.cu:262). Each copy is synchronous (cudaSafeMemcpy,
//     DataMovement.cu:14–28: cudaMemcpyAsync then cudaStreamSynchronize):
//     a task's copy calls cost Task.HostCycles, and the host waits for
//     its input to cross the copy engine before going on.
//   - gemtcPush (gemtc.cu:261–277) only buffers the task on the host; a
//     buffer of 100 (inMax, gemtc.cu:130) goes to the GPU queue with one
//     EnqueueJobBatch (QueueJobs.cu:83–144): 5 synchronous copies of
//     lat.host_issue + lat.host_launch each (the call and its PCIe trip).
//     A partial buffer is sent by the flusher thread once nothing has
//     been pushed for 100 µs (gemtc.cu:93–106). TaskSpawned is the
//     buffer's arrival in the GPU queue.
//   - Batches: the host pushes gemtc.batch tasks, then polls until all of
//     them have finished before pushing more (the drivers' push-then-poll
//     loop, e.g. Tests/gemtc-benchmarking/APITestMain.cu:26–47 with 1000;
//     Pagoda §6.6: "no new tasks are spawned until all tasks in the
//     previous batch finish"). The polling's own copies (a descriptor
//     read per result, QueueJobs.cu:220–224) are not modelled.
//   - Shared memory: GeMTC has none (Pagoda §6.2); a task that declares
//     some runs gemtc.smem_slowdown's factor for its kernel name longer
//     (its per-cycle demand unchanged), Sync is ignored.
//   - WarpsBusy counts worker warps running task work.
package taskrun
