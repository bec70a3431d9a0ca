package trace

// CheckedSink validates records on their way into a Sink, as a Validator
// does for a Source: an importer writing through it cannot produce a trace
// the replay would refuse (a 10^14-byte copy, a time past 2^40 cycles)
// without the conversion failing on the record at fault.
type CheckedSink struct {
	out Sink
	v   Validator
}

// NewCheckedSink returns a Sink that checks each record and passes the
// valid ones to out.
func NewCheckedSink(out Sink) *CheckedSink {
	return &CheckedSink{out: out, v: *NewValidator(nil)}
}

// Write checks r and writes it to the underlying sink; the first invalid
// record's *Error (naming its record number) is returned and sticks.
func (c *CheckedSink) Write(r Record) error {
	if c.v.err != nil {
		return c.v.err
	}
	c.v.record++
	if err := c.v.check(r); err != nil {
		c.v.err = &Error{Record: c.v.record, Offset: -1, Kind: kindOf(r), Msg: err.Error()}
		return c.v.err
	}
	return c.out.Write(r)
}

// Finish checks what only the end of the trace can show (every launched
// kernel's CTAs present, a header at all).
func (c *CheckedSink) Finish() error {
	if c.v.err != nil {
		return c.v.err
	}
	if err := c.v.finish(); err != nil {
		c.v.err = &Error{Offset: -1, Msg: "at end of trace: " + err.Error()}
		return c.v.err
	}
	return nil
}
