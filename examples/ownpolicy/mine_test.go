package main

import (
	"testing"

	"github.com/gpureplay/gpureplay/policies"
	"github.com/gpureplay/gpureplay/policies/policytest"
)

// TestGolden replays the cases of testdata/*.txt, worked out by hand,
// under the registered policy (go test -rewrite writes what it gets).
func TestGolden(t *testing.T) {
	if err := policies.Register(Mine); err != nil {
		t.Fatal(err)
	}
	policytest.Files(t, "testdata/*.txt", policytest.Replay)
}
