// Command ownpolicy is the replay command with one policy of its own,
// "mine" (mine.go): every flag, sweep, table, study, timeline and report
// of gpureplay's replay, built from a module outside the repository
// through the public API. See docs/policies.md.
//
//	go run . --policy=mine,cdp --sweep mine.k=1,2,4 TRACE
package main

import (
	"os"

	"github.com/gpureplay/gpureplay/replaycli"
)

func main() { os.Exit(replaycli.Main(os.Args[1:], Mine)) }
