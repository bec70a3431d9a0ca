package samples

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
)

// TestJoinIssueCases runs the hand-worked cases of testdata/joinissue.txt:
// the paths' instruction counts, the issue and refetch terms, and
// join_main CTAs costed at given rates.
func TestJoinIssueCases(t *testing.T) {
	const path = "testdata/joinissue.txt"
	runCommandCases(t, path, joinIssueCase)
}

// joinIssueCase runs one command of testdata/joinissue.txt.
func joinIssueCase(cmd string) (string, error) {
	op, args, err := commandArgs(cmd)
	if err != nil {
		return "", err
	}
	num := func(name string, def int) (int, error) {
		v, ok := args[name]
		if !ok {
			if def < 0 {
				return 0, fmt.Errorf("%s: want %s=", op, name)
			}
			return def, nil
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return 0, fmt.Errorf("%s=%q: want an integer", name, v)
		}
		return n, nil
	}
	var v int64
	switch op {
	case "insts":
		block, err := num("block", 128)
		if err != nil {
			return "", err
		}
		switch args["kernel"] {
		case "prefix":
			v = joinPrefixInsts(block)
		case "blocks":
			v = joinScanBlocksInsts(block)
		case "totals":
			ctas, err := num("ctas", -1)
			if err != nil {
				return "", err
			}
			v = joinScanTotalsInsts(ctas, block)
		case "distribute":
			v = joinScanDistributeInsts
		case "base":
			v = joinCTABaseInsts
		default:
			return "", fmt.Errorf("insts: kernel %q (prefix, blocks, totals, distribute, base)", args["kernel"])
		}
	case "issue":
		n, err := num("n", -1)
		if err != nil {
			return "", err
		}
		c, err := num("c", -1)
		if err != nil {
			return "", err
		}
		v = joinIssueAt(int64(n), float64(c)/100)
	case "refetch", "coldrefetch":
		lines, err := num("lines", -1)
		if err != nil {
			return "", err
		}
		v = joinRefetchCycles(lines)
		if op == "coldrefetch" {
			v = joinColdRefetchCycles(lines)
		}
	case "cta":
		return joinIssueCTACase(args, num)
	default:
		return "", fmt.Errorf("unknown command %q (insts, issue, refetch, coldrefetch, cta)", op)
	}
	return strconv.FormatInt(v, 10), nil
}

// joinIssueCTACase costs one join_main CTA over the sorted keys the case
// gives, warm, at its rates.
func joinIssueCTACase(args map[string]string, num func(string, int) (int, error)) (string, error) {
	keys := func(name string) ([]int32, error) {
		var out []int32
		for _, s := range strings.Split(args[name], ",") {
			k, err := strconv.Atoi(s)
			if err != nil || k < 0 || k > math.MaxInt32 {
				return nil, fmt.Errorf("cta: %s key %q: want a key", name, s)
			}
			if len(out) > 0 && int32(k) < out[len(out)-1] {
				return nil, fmt.Errorf("cta: %s keys not sorted at %d", name, k)
			}
			out = append(out, int32(k))
		}
		return out, nil
	}
	left, err := keys("left")
	if err != nil {
		return "", err
	}
	right, err := keys("right")
	if err != nil {
		return "", err
	}
	block, err := num("block", -1)
	if err != nil {
		return "", err
	}
	c, err := num("c", -1)
	if err != nil {
		return "", err
	}
	prefix, err := num("prefix", -1)
	if err != nil {
		return "", err
	}
	cfg := joinConfig{merge: true, grid: 1, block: block, threshold: joinOutputBlock, loopCycles: 40}
	tr := &mergeTrace{cfg: cfg, left: left, right: right, parts: mergePartitions(left, right, 1)}
	cta := tr.costCTA(tr.parts[0], 0, mergeRates{prefixStep: int64(prefix), issue: float64(c) / 100})
	return fmt.Sprintf("%d %d %d", cta.cycles, cta.insts, cta.outputs), nil
}

// TestJoinIssueFit holds joinIssueCycles to its fit: join_main's CTAs
// 56–203 of the fit's input, at the fitted rates, take the capture's
// mean (coldLaterCaptured at 706 MHz), within rounding; and the prefix
// step's refit beside it leaves the step none (its instructions and the
// refetch hold the warm scanBlocks).
func TestJoinIssueFit(t *testing.T) {
	got, _, _ := joinIssueFitCTAs(joinRates())
	want := float64(coldLaterCaptured) * 706 / 837
	t.Logf("issue %.3f cycles an instruction, prefix step %d; join_main's CTAs 56–203 %.1f cycles, captured %.1f", joinIssueCycles, joinPrefixStepCycles, got, want)
	if math.Abs(got-want) > 1 {
		t.Errorf("join_main's CTAs 56–203 take %.1f cycles at the fitted rates, the capture %.1f", got, want)
	}
	if joinPrefixStepCycles != 0 {
		t.Errorf("the prefix step is %d cycles past its instructions, docs/calibration.md says none", joinPrefixStepCycles)
	}
}

// TestJoinIssueRefit sets an invented constant the issue cost was fitted
// beside: the fit is solved again, join_main's later CTAs keep the
// capture's time, and the constant is back after the run.
func TestJoinIssueRefit(t *testing.T) {
	was := joinIssueCycles
	want := float64(coldLaterCaptured) * 706 / 837
	for _, set := range []string{"store_cycles=40", "gather_cycles=150", "search_step_cycles=15"} {
		p := mustParams(t, "join", set)
		done, err := p.gen.setCosts(p)
		if err != nil {
			t.Fatal(err)
		}
		got, _, _ := joinIssueFitCTAs(joinRates())
		c := joinIssueCycles
		done()
		if math.Abs(got-want) > 1 {
			t.Errorf("%s: join_main's CTAs 56–203 take %.1f cycles, the capture %.1f", set, got, want)
		}
		if c == was {
			t.Errorf("%s: the issue cost stayed %.3f", set, c)
		}
		if joinIssueCycles != was {
			t.Errorf("%s: after the run the issue cost is %.3f, want %.3f back", set, joinIssueCycles, was)
		}
	}
}
