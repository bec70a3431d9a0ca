package accelsim_test

import (
	"fmt"
	"os"

	"github.com/gpureplay/gpureplay/convert/accelsim"
	"github.com/gpureplay/gpureplay/trace"
)

// Convert a trace directory to JSONL with a changed cost model; write a
// *.trace.zst with trace.NewWriter instead.
func ExampleConvert() {
	opts := accelsim.DefaultOptions()
	if err := opts.Set("global_latency", "600"); err != nil {
		fmt.Println(err)
		return
	}
	w := trace.NewJSONLWriter(os.Stdout)
	if err := accelsim.Convert("testdata/golden/v4-lineinfo/kernelslist.g", onlyCTAs{w}, opts); err != nil {
		fmt.Println(err)
		return
	}
	w.Close()
	// Output:
	// {"type":"cta","kernel":7,"cta":0,"cycles":327,"insts":5,"dram_bytes":512}
	// {"type":"cta","kernel":7,"cta":1,"cycles":327,"insts":5,"dram_bytes":512}
}

// onlyCTAs passes on the cta records only, to keep the example short.
type onlyCTAs struct{ trace.Sink }

func (o onlyCTAs) Write(r trace.Record) error {
	if r.Kind() != trace.KindCTA {
		return nil
	}
	return o.Sink.Write(r)
}
