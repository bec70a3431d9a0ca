package replay

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/gpureplay/gpureplay/trace"
)

// The tree reader's window is bounded by what its messages file, not by
// their records alone: a message goes out once it has filed treeMsgBytes
// (by treeMsg.held's estimate), so a launch-heavy stretch makes more,
// smaller messages. Filing a trace the way startTreeAhead does, every
// message must stop at the first record past either line, and a trace of
// wide CTAs and many launches must reach the bytes' line before the
// records'. No message carries more than msgSpecs host CTA specs, nor
// keeps room for more, even where one record completes a host kernel's
// whole grid (its trees come after all its CTAs' records, or it has none):
// the grid goes out over as many messages as it takes, in CTA order.
func TestTreeMsgHeldBound(t *testing.T) {
	for _, c := range []struct {
		name   string
		params []string
		byHeld bool // some message must have gone out for its bytes
	}{
		{"bfs", []string{"scale=12"}, true},
		{"synth", []string{"kernels=2", "ctas=3000", "site_rate=0.9", "child_ctas=1"}, true},
		{"synth", []string{"kernels=3", "ctas=10000"}, false},
		{"synth", []string{"kernels=2", "ctas=20000", "site_rate=0.001"}, false},
	} {
		data := GenerateBytes(t, c.name, c.params...)
		src, err := trace.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		b := &treeReader{feed: recordFeed{src: trace.NewValidator(src)}}
		enough := func(m *treeMsg) bool { return m.records >= treeBatch || m.held >= treeMsgBytes }
		var msgs, byHeld, records, specs int
		var past uint64 // CTAs of the open host kernel handed over
		for {
			m := &treeMsg{}
			before := 0
			b.fill(m, func(m *treeMsg) bool {
				if enough(m) {
					return true
				}
				before = m.held
				return false
			})
			msgs++
			records += m.records
			if len(m.specs) > msgSpecs || cap(m.specs) > msgSpecs {
				t.Fatalf("%s: message %d carries %d specs in room for %d, want at most %d", c.name, msgs, len(m.specs), cap(m.specs), msgSpecs)
			}
			n := 0
			for _, ev := range m.events {
				switch {
				case ev.start != nil:
					past = 0
				case !ev.end:
					if ev.upTo <= past || ev.upTo-past < uint64(ev.specs) {
						t.Fatalf("%s: message %d hands over %d specs of CTAs %d up to %d", c.name, msgs, ev.specs, past, ev.upTo)
					}
					past = ev.upTo
					n += ev.specs
				}
			}
			if n != len(m.specs) {
				t.Fatalf("%s: message %d's events hand over %d specs, it carries %d", c.name, msgs, n, len(m.specs))
			}
			specs += n
			if before >= treeMsgBytes {
				t.Fatalf("%s: message %d went on past %d bytes filed", c.name, msgs, before)
			}
			if m.held >= treeMsgBytes && m.records < treeBatch {
				byHeld++
			}
			if m.err != nil {
				if !errors.Is(m.err, io.EOF) {
					t.Fatalf("%s: %v", c.name, m.err)
				}
				break
			}
			if m.held == 0 && len(m.specs) == 0 {
				t.Fatalf("%s: message %d of %d records filed and handed over nothing", c.name, msgs, m.records)
			}
		}
		if c.byHeld && byHeld == 0 {
			t.Errorf("%s: none of %d messages (%d records) went out for its bytes", c.name, msgs, records)
		}
		t.Logf("%s: %d records in %d messages, %d of them closed by bytes, %d specs handed over", c.name, records, msgs, byHeld, specs)
	}
}
