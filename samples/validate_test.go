package samples

import (
	"io"
	"testing"

	"github.com/gpureplay/gpureplay/trace"
)

// sliceSource yields records from a slice.
type sliceSource struct{ recs []trace.Record }

func (s *sliceSource) Next() (trace.Record, error) {
	if len(s.recs) == 0 {
		return nil, io.EOF
	}
	r := s.recs[0]
	s.recs = s.recs[1:]
	return r, nil
}

// TestTraceValidator runs generated traces through the trace package's
// validator, which enforces the schema and the streaming rule independently
// of this package's own checks.
func TestTraceValidator(t *testing.T) {
	cases := [][]string{{"bfs"}, {"bfs", "block=100", "site_threshold=0"}}
	for _, g := range List() {
		cases = append(cases, append([]string{g.Name}, smallParams[g.Name]...))
	}
	for _, c := range cases {
		recs := generate(t, c[0], c[1:]...)
		v := trace.NewValidator(&sliceSource{recs: recs})
		n := 0
		for {
			_, err := v.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%v: %v", c, err)
			}
			n++
		}
		if n != len(recs) {
			t.Errorf("%v: validator passed %d of %d records", c, n, len(recs))
		}
	}
}
