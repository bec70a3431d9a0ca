package replay

// eventKind says what an event does when it fires.
type eventKind uint8

const (
	evHostIssue  eventKind = iota + 1 // the host issues its next launch
	evArrive                          // a kernel reaches the Kernel Management Unit
	evReady                           // a kernel finishes dispatch into the Kernel Distributor
	evSite                            // a warp reaches its next launch site
	evCTAEnd                          // a CTA finishes
	evStart                           // a placed CTA starts after a delay
	evJoin                            // an aggregated group joins its kernel's pool
	evPageReady                       // a prelude page arrives on the GPU (CRCS)
	evCopyDone                        // an explicit host copy ends
	evShare                           // the contention model's wake-up for an SM
	evResume                          // a warp resumes progress after a site's API stall (contention model)
	evTouch                           // a CTA reaches the next pages it touches (CRCS, access order)
	evProfiled                        // a kernel's pre-profiler ends (CRCS)
	evLaunchSlot                      // pending launches have begun: warps held for room in the pool go on
	evOverflow                        // the replay ran out of events while warps are held: the oldest goes over the pool's limit
	evTasks                           // the narrow-task runtime's next event: it advances, the host hands it tasks
	evIssue                           // an SM's CTA issue hold ends: kernels waiting to place try again
)
