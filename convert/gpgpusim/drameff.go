package gpgpusim

import (
	"bufio"
	"fmt"
	"strconv"
	"strings"
)

// DRAMEfficiency is the mean over a log's DRAM channels of GPGPU-Sim's
// dram_eff (a channel's data transfers over its active cycles: the
// share of the peak its DRAM moves while a channel is active), read from
// the log at path (plain or compressed, as OpenLog reads it). The
// contention pairs and the capture tests scale the config's peak
// bandwidth by it (docs/calibration.md, "GPGPU-Sim's DRAM efficiency").
func DRAMEfficiency(path string) (float64, error) {
	rc, err := OpenLog(path)
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	var sum float64
	var n int
	sc := bufio.NewScanner(rc)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		_, v, ok := strings.Cut(sc.Text(), "dram_eff=")
		if !ok {
			continue
		}
		f, err := strconv.ParseFloat(strings.Fields(v + " ")[0], 64)
		if err != nil {
			return 0, fmt.Errorf("%s: dram_eff %q: %w", path, v, err)
		}
		sum, n = sum+f, n+1
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	if n == 0 {
		return 0, fmt.Errorf("%s: no dram_eff", path)
	}
	return sum / float64(n), nil
}
