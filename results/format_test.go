package results

import (
	"math"
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
	// The whole numbers' fast path gives strconv's text.
	for _, v := range []float64{1, -1, 999999, -999999, 1e6, 123456, math.Copysign(0, -1), 0.5, 1e6 - 0.5, 7e5} {
		want := strconv.FormatFloat(v, 'g', -1, 64)
		if !strings.ContainsAny(want, ".eIN") {
			want += ".0"
		}
		if got := string(appendFloatText(nil, v)); got != want {
			t.Errorf("floatText(%v) = %q, want %q", v, got, want)
		}
	}
}
