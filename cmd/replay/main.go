// Command replay replays GPU execution traces through a timing model under
// scheduling policies from the DTBL, SPAWN, CRCS/PPCS and Pagoda papers and
// writes the results as Parquet, Arrow or CSV tables. Everything it does is
// in package replaycli; run `replay --help` for the commands.
package main

import (
	"os"

	"github.com/gpureplay/gpureplay/replaycli"
)

func main() { os.Exit(replaycli.Main(os.Args[1:])) }
