package replay

import (
	"testing"

	"github.com/gpureplay/gpureplay/trace"
)

// ordered's one test holds the three ordered kinds, consecutive.
func TestOrderedKinds(t *testing.T) {
	for k := trace.DeviceStream(0); k < 8; k++ {
		want := k == trace.CTAStream || k == trace.CreatedStream || k == trace.TailStream
		if ordered(k) != want {
			t.Errorf("ordered(%d) = %v, want %v", k, ordered(k), want)
		}
	}
}
