package trace

// ReadOptions tell a Reader what its consumer does without, so that it
// spends no time on it: records it need not build at all, records whose
// storage it may reuse from one call of Next to the next. Each is a saving
// the consumer asks for, never a change to what a record it is given
// says: a Source that takes no options (SetReadOptions) gives the same
// records, fresh and all of them, and the consumer reads it unchanged.
//
// The zero value reads every record into storage of its own, as a Reader
// does until told otherwise.
type ReadOptions struct {
	// Skip makes Next pass over records of these kinds instead of
	// returning them. A reader that needs only some records (the
	// replay's host-launch cursor wants only launches) then spends no
	// time building the rest. Skipped records still count in record
	// numbers and still fail on a truncated or corrupt stream; their
	// fields are not checked further.
	Skip []Kind
	// SkipDeviceLaunches makes Next pass over device launch records
	// too, returning only host launches among launch records: what a
	// reader that follows the host, not the launch trees, needs.
	SkipDeviceLaunches bool
	// ReuseRecords lets Next return the same launch, cta and kernel
	// record values on every call, overwritten by the next call (like
	// encoding/csv's ReuseRecord), for readers that copy what they keep:
	// it saves an allocation per record on the records a trace has most
	// of (a launch-heavy trace declares a kernel per launch). Slices in
	// the records (warp_cycles, after) are still fresh and may be kept,
	// unless ReuseWarpCycles says otherwise.
	ReuseRecords bool
	// ReuseWarpCycles lets Next decode every cta record's warp_cycles
	// into the same slice, overwritten by the next call, for readers that
	// copy the few they keep: nearly every cta record has them, so this
	// saves another allocation per record.
	ReuseWarpCycles bool
}

// SetOptions makes r read under o from its next record on, in place of
// the options it read under before.
func (r *Reader) SetOptions(o ReadOptions) {
	r.skip = 0
	for _, k := range o.Skip {
		r.skip |= 1 << k
	}
	r.skipDevice = o.SkipDeviceLaunches
	r.reuse = o.ReuseRecords
	r.warps = nil
	if o.ReuseWarpCycles {
		r.warps = make([]int64, 0, 32)
	}
}

// SetReadOptions has src read under o where it takes options (a Reader;
// a binary file Open returns) and reports whether it does. Any other
// Source (a JSONL file, a converter's records, a Validator or Prefetcher
// over a Reader: set the Reader's options before wrapping it) reads as
// before, which ReadOptions' consumers are written to accept.
func SetReadOptions(src Source, o ReadOptions) bool {
	s, ok := src.(interface{ SetOptions(ReadOptions) })
	if ok {
		s.SetOptions(o)
	}
	return ok
}
