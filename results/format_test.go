package results

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

func TestParseFormat(t *testing.T) {
	for _, f := range []Format{Parquet, Arrow, CSV} {
		got, err := ParseFormat(string(f))
		if err != nil || got != f {
			t.Errorf("ParseFormat(%q) = %q, %v", f, got, err)
		}
	}
	for _, s := range []string{"", "PARQUET", "feather", "csv "} {
		_, err := ParseFormat(s)
		if err == nil {
			t.Errorf("ParseFormat(%q) succeeded", s)
			continue
		}
		if !strings.Contains(err.Error(), "parquet, arrow, csv") {
			t.Errorf("ParseFormat(%q) error %q does not list the valid formats", s, err)
		}
	}
}

// A float's CSV text reads back exactly and never looks like an integer,
// so DuckDB's type sniffing cannot take a float column for BIGINT.
func TestFloatText(t *testing.T) {
	for v, want := range map[float64]string{
		0: "0.0", -3: "-3.0", 23.4832: "23.4832", 1e21: "1e+21", 1.5e-7: "1.5e-07",
		math.Inf(1): "+Inf", 2.0 / 3: "0.6666666666666666",
	} {
		if got := string(appendFloatText(nil, v)); got != want {
			t.Errorf("floatText(%v) = %q, want %q", v, got, want)
		}
	}
	if got := string(appendFloatText(nil, math.NaN())); got != "NaN" {
		t.Errorf("floatText(NaN) = %q", got)
	}
	// The whole numbers' fast path, and the 'f' form written from the
	// 'e' form's digits, give strconv's shortest 'g' text.
	vs := []float64{1, -1, 999999, -999999, 1e6, 123456, math.Copysign(0, -1), 0.5, 1e6 - 0.5, 7e5,
		1e-4, 1e-5, 9.99999e-5, 0.000123, -0.00012345678901234, 123456.5, 999999.9999999999, 1234567.5,
		1e5, 1e5 + 0.5, 100, 120000.25, 5e-324, math.MaxFloat64, -math.SmallestNonzeroFloat64, math.Inf(-1)}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		switch rng.IntN(3) {
		case 0: // any float
			vs = append(vs, math.Float64frombits(rng.Uint64()))
		case 1: // around the 'g' form's switch points
			vs = append(vs, (rng.Float64()-0.5)*math.Pow(10, float64(rng.IntN(14)-7)))
		default: // few digits, as many values are
			vs = append(vs, float64(rng.IntN(2000000)-1000000)/float64(int(1)<<rng.IntN(20)))
		}
	}
	for _, v := range vs {
		checkFloatText(t, v)
	}
}

// checkFloatText fails t unless v's CSV text is strconv's shortest 'g',
// with ".0" after a whole number.
func checkFloatText(t testing.TB, v float64) {
	t.Helper()
	want := strconv.FormatFloat(v, 'g', -1, 64)
	if !strings.ContainsAny(want, ".eIN") {
		want += ".0"
	}
	if got := string(appendFloatText([]byte("x"), v)[1:]); got != want {
		t.Fatalf("appendFloatText(%v) = %q, want %q", v, got, want)
	}
}
