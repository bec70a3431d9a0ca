package nsys

import (
	"bytes"
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/policies"
	"github.com/gpureplay/gpureplay/replay"
	"github.com/gpureplay/gpureplay/trace"
)

// TestReplayExports converts every *.sqlite in $NSYS_EXPORTS (public
// exports, none of which is in this repository: docs/importers/nsys.md
// lists them) and replays it as `replay --gpu=captured --policy=cdp`
// does, with the header's measured settings, once as converted and once
// without its sync records and copies' call fields (what the importer
// wrote before them). It logs the syncs written and both replays' GPU
// busy spans against the profile's, and fails where, on a profile busy
// span of 2 ms or more, the replay with syncs is more than 1% off.
func TestReplayExports(t *testing.T) {
	dir := os.Getenv("NSYS_EXPORTS")
	if dir == "" {
		t.Skip("NSYS_EXPORTS is not set")
	}
	paths, _ := filepath.Glob(filepath.Join(dir, "*.sqlite"))
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			var buf, bareBuf bytes.Buffer
			w, bw := trace.NewWriter(&buf), trace.NewWriter(&bareBuf)
			sum, err := Convert(path, tee{w, bareSink{bw}}, DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if err := bw.Close(); err != nil {
				t.Fatal(err)
			}
			start, end := exportBusy(t, path, sum.Device)
			span := float64(end-start) / 1e3
			with := replayHeader(t, buf.Bytes())
			without := replayHeader(t, bareBuf.Bytes())
			us := func(c int64) float64 { return float64(c) / sum.ClockMHz }
			ratio := us(with.BusyCycles) / span
			t.Logf("%d syncs, %d memcpys; profile busy %.1f µs; replay busy %.1f µs (%.4f), makespan %.1f µs; without syncs busy %.1f µs (%.4f), makespan %.1f µs",
				sum.Syncs, sum.Memcpys, span, us(with.BusyCycles), ratio, us(with.MakespanCycles),
				us(without.BusyCycles), us(without.BusyCycles)/span, us(without.MakespanCycles))
			if span >= 2000 && (ratio < 0.99 || ratio > 1.01) {
				t.Errorf("replayed busy span %.1f µs is %.2f%% off the profile's %.1f µs", us(with.BusyCycles), 100*(ratio-1), span)
			}
		})
	}
}

// exportBusy is device dev's busy span in the export: its first kernel
// or host↔device copy start to the last end (ns).
func exportBusy(t *testing.T, path string, dev int64) (start, end int64) {
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	q := `SELECT min(s), max(e) FROM (SELECT start s, "end" e FROM ` + tabKernel + ` WHERE deviceId = ?`
	var has int
	if db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE name = ?`, tabMemcpy).Scan(&has); has > 0 {
		q += ` UNION ALL SELECT start, "end" FROM ` + tabMemcpy + ` WHERE deviceId = ? AND copyKind IN (1, 2) AND bytes > 0)`
		err = db.QueryRow(q, dev, dev).Scan(&start, &end)
	} else {
		err = db.QueryRow(q+")", dev).Scan(&start, &end)
	}
	if err != nil {
		t.Fatal(err)
	}
	return start, end
}

// tee writes every record to two sinks.
type tee [2]trace.Sink

func (s tee) Write(r trace.Record) error {
	if err := s[0].Write(r); err != nil {
		return err
	}
	return s[1].Write(r)
}

// bareSink drops the sync records, the copies' blocking, pageable and
// ret, and the header's measured lat.host_sync.
type bareSink struct{ trace.Sink }

func (s bareSink) Write(r trace.Record) error {
	switch x := r.(type) {
	case *trace.Sync:
		return nil
	case *trace.Memcpy:
		c := *x
		c.Blocking, c.Pageable, c.Ret = false, false, 0
		r = &c
	case *trace.Header:
		h := *x
		h.Meta = map[string]string{}
		for k, v := range x.Meta {
			if k != model.SetPrefix+"lat.host_sync" {
				h.Meta[k] = v
			}
		}
		r = &h
	}
	return s.Sink.Write(r)
}

// replayHeader replays a binary trace with model.FromHeader's config, as
// --gpu=captured does.
func replayHeader(t *testing.T, bin []byte) *replay.Stats {
	t.Helper()
	open := func() (trace.Source, error) { return trace.NewReader(bytes.NewReader(bin)) }
	_, cfg := capturedHeader(t, bin)
	pol, err := policies.New("cdp", cfg)
	if err != nil {
		t.Fatal(err)
	}
	st, err := replay.Run(open, replay.Options{Config: cfg, Policy: pol}, &kernelRows{})
	if err != nil {
		t.Fatal(err)
	}
	return st
}
