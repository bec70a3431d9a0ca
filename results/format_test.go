package results

import (
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
