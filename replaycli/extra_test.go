package replaycli

import (
	"testing"

	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/policies"
	"github.com/gpureplay/gpureplay/replay"
)

// A policy Register refuses stops Main before it runs anything.
func TestMainRefusesABadPolicy(t *testing.T) {
	taken := policies.Info{Name: "cdp", Doc: "again", New: func(model.Config) replay.Policy { return replay.Policy{} }}
	if code := Main([]string{"policies"}, taken); code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
}
