package replaycli

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/gpureplay/gpureplay/trace"
)

const inspectSynopsis = `replay inspect — count what a trace holds

Usage:
  replay inspect TRACE [--json]

Reads and validates the whole trace and prints its header and counts:
records by type, host and device kernels, CTAs, launch sites, and the
host operations its host index lists (a binary trace's copy of its host
launches, memcpys and syncs, which the replay's host pass reads instead of the
whole trace; checked against the records here as in a replay). A trace
without one gets one from replay convert where host operations are
sparse in it.
`

// census is what inspect reports.
type census struct {
	Trace         string           `json:"trace"`
	Header        *trace.Header    `json:"header"`
	Records       int64            `json:"records"`
	ByType        map[string]int64 `json:"by_type"`
	HostKernels   int64            `json:"host_kernels"`
	DeviceKernels int64            `json:"device_kernels"`
	CTAs          int64            `json:"ctas"`
	LaunchSites   int64            `json:"launch_sites"`
	CTACycles     int64            `json:"cta_cycles"`
	// HostIndex is how many host operations the trace's host index lists,
	// nil (null) for a trace without one.
	HostIndex *int `json:"host_index"`
}

func runInspect(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("inspect", inspectSynopsis, stdout)
	asJSON := fs.Bool("json", false, "print the counts as one JSON object")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("inspect: want one TRACE")
	}
	c, err := take(fs.Arg(0))
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(c)
	}
	h := c.Header
	fmt.Fprintf(stdout, "trace        %s\n", c.Trace)
	fmt.Fprintf(stdout, "source       %s (gpu %s, %.0f MHz)\n", h.Source, h.GPU, h.ClockMHz)
	fmt.Fprintf(stdout, "records      %d\n", c.Records)
	for k := trace.KindHeader; k <= trace.KindSync; k++ {
		if n := c.ByType[k.String()]; n > 0 {
			fmt.Fprintf(stdout, "  %-10s %d\n", k, n)
		}
	}
	fmt.Fprintf(stdout, "kernels      %d host, %d device\n", c.HostKernels, c.DeviceKernels)
	fmt.Fprintf(stdout, "ctas         %d (%d cycles in all)\n", c.CTAs, c.CTACycles)
	fmt.Fprintf(stdout, "launch sites %d\n", c.LaunchSites)
	if c.HostIndex != nil {
		fmt.Fprintf(stdout, "host index   %d host operations\n", *c.HostIndex)
	} else {
		fmt.Fprintf(stdout, "host index   none\n")
	}
	return nil
}

// take reads the whole trace and counts it.
func take(path string) (*census, error) {
	src, err := trace.Open(path)
	if err != nil {
		return nil, badInput(inFile(path, err))
	}
	defer src.Close()
	c := &census{Trace: path, ByType: map[string]int64{}}
	index, err := trace.HostIndexOf(src)
	if err != nil {
		return nil, badInput(fmt.Errorf("%s: %w", path, err))
	}
	var body trace.Source = src
	if index != nil {
		n := index.Len()
		c.HostIndex = &n
		body = index.Check(src)
	}
	err = forEach(trace.NewValidator(body), func(r trace.Record) error {
		c.Records++
		c.ByType[r.Kind().String()]++
		switch r := r.(type) {
		case *trace.Header:
			c.Header = r
		case *trace.Launch:
			if r.Host() {
				c.HostKernels++
			} else {
				c.DeviceKernels++
				c.LaunchSites++
			}
		case *trace.CTA:
			c.CTAs++
			c.CTACycles += r.Cycles
		}
		return nil
	})
	return c, badInputIfTrace(inFile(path, err))
}
