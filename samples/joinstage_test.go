package samples

import (
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gpureplay/gpureplay/convert/gpgpusim"
	"github.com/gpureplay/gpureplay/trace"
)

// TestJoinStageCases runs the hand-worked cases of
// testdata/joinstage.txt: the staged copy's rounds and their cycles.
func TestJoinStageCases(t *testing.T) {
	runCommandCases(t, "testdata/joinstage.txt", joinStageCase)
}

// joinStageCase runs one command of testdata/joinstage.txt.
func joinStageCase(cmd string) (string, error) {
	op, args, err := commandArgs(cmd)
	if err != nil {
		return "", err
	}
	size, err := strconv.Atoi(args["size"])
	if err != nil || size < 1 {
		return "", fmt.Errorf("%s: want size=S, a positive integer", op)
	}
	var found []int
	for _, s := range strings.Split(args["found"], ",") {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 || n > size {
			return "", fmt.Errorf("%s: found %q: want counts from 0 to size", op, s)
		}
		found = append(found, n)
	}
	if len(found) > size {
		return "", fmt.Errorf("%s: %d counts for %d threads", op, len(found), size)
	}
	switch op {
	case "rounds":
		var b strings.Builder
		for i, r := range stageRounds(found, size, size) {
			if i > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, "%d/%d", r.loop, r.copied)
		}
		return b.String(), nil
	case "staged":
		trip, err := strconv.ParseInt(args["trip"], 10, 64)
		if err != nil {
			return "", fmt.Errorf("staged: want trip=T: %v", err)
		}
		cycles, trips := joinStagedCycles(found, size, trip)
		return fmt.Sprintf("%d %d", cycles, trips), nil
	default:
		return "", fmt.Errorf("unknown command %q (rounds, staged)", op)
	}
}

// joinRegCapture is a Reg capture of testJoin -l left -r 64 -m 16, its
// join_main CTAs' cycles (837 MHz) in CTA order, and the generator's
// flat join_main on the capture's own keys (glibcJoinKeys).
type joinRegCapture struct {
	recs  []trace.Record
	ctas  []int64
	model *mergeTrace
}

func readJoinRegCapture(t *testing.T, left int) joinRegCapture {
	t.Helper()
	var sink sliceSink
	path := filepath.Join(whatifDir, fmt.Sprintf("dragonli-join-%d-reg.log.xz", left))
	if _, err := gpgpusim.Convert(path, &sink, gpgpusim.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	c := joinRegCapture{recs: sink.recs}
	var main uint64
	for _, r := range sink.recs {
		switch r := r.(type) {
		case *trace.Kernel:
			if strings.Contains(r.Name, "MainJoinKernel") {
				main = r.ID
			}
		case *trace.CTA:
			if r.Kernel == main && main != 0 {
				c.ctas = append(c.ctas, r.Cycles)
			}
		}
	}
	cfg, err := parseJoin(mustParams(t, "join", "dist=uniform", "r_tuples="+strconv.Itoa(left), "s_tuples=64", "max_key=16", "variant=flat"))
	if err != nil {
		t.Fatal(err)
	}
	l, r := glibcJoinKeys(left)
	c.model = newMergeTrace(cfg, l, r)
	if len(c.ctas) != len(c.model.main) {
		t.Fatalf("%s: %d join_main CTAs, the model %d", path, len(c.ctas), len(c.model.main))
	}
	return c
}

// tripSlope is the least-squares cycles a trip, through the origin, of
// the capture's join_main CTAs (at 706 MHz) less the model's at no cost a
// trip, over each CTA's trips in turn.
func (c joinRegCapture) tripSlope() float64 {
	var sxx, sxy float64
	for i, m := range c.model.main {
		x := float64(m.stageTrips)
		y := float64(c.ctas[i])*706/837 - float64(m.cycles-m.stageTrips*joinStageTripCycles)
		sxx += x * x
		sxy += x * y
	}
	return sxy / sxx
}

// records is the model's trace of the capture's keys.
func (c joinRegCapture) records(t *testing.T) []trace.Record {
	t.Helper()
	var sink sliceSink
	if err := writeTallied(&sink, c.model.records, func() *trace.Header {
		return k20cHeader("gen:join", map[string]string{})
	}); err != nil {
		t.Fatal(err)
	}
	return sink.recs
}

// TestJoinStageTripFit holds joinStageTripCycles to its fit on
// dragonli-join-30720-reg (the flat join, testJoin -l 30720 -r 64 -m 16)
// and to the held-out dragonli-join-38400-reg's own slope; then the
// generator's flat join on each capture's own keys, replayed, against
// the capture: join_main and the makespan, both ways on the fitted
// capture and one way on the held-out one.
func TestJoinStageTripFit(t *testing.T) {
	fit := readJoinRegCapture(t, 30720)
	slope := fit.tripSlope()
	t.Logf("dragonli-join-30720-reg: %.2f cycles a trip at 706 MHz", slope)
	if math.Round(slope) != float64(joinStageTripCycles) {
		t.Errorf("dragonli-join-30720-reg's join_main CTAs give %.2f cycles a trip; joinStageTripCycles is %d", slope, joinStageTripCycles)
	}
	held := readJoinRegCapture(t, 38400)
	stated(t, "dragonli-join-38400-reg's own slope over the fit", held.tripSlope()/slope, 1.03, 1.07) // 1.05×
	for _, c := range []struct {
		name           string
		capture        joinRegCapture
		main, makespan float64 // today's error and a little, either way
	}{
		{"join-30720 reg (fitted)", fit, 1.05, 1.03},            // 1.03×, 1.01×
		{"join-38400 reg (held out)", held, 1 / 0.84, 1 / 0.91}, // 0.86×, 0.93×
	} {
		cfg := capturedConfig(t, c.capture.recs)
		want := joinRun(t, c.capture.recs, cfg)
		got := joinRun(t, c.capture.records(t), cfg)
		heldOutRows(t, c.name+" on its keys: ", []heldOutRow{
			{"the main join kernel", got.main, want.main, c.main},
			{"makespan", got.makespan, want.makespan, c.makespan},
		})
	}
}
