package main

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
)

// The replay of every committed GPGPU-Sim capture stays within the
// tolerance docs/validation.md states: makespan within 6.5% of the
// simulator's (cdpmulti and cdpqueue 3%), host-only programs within 0.1%. It fails when the
// importer's sites, latencies or placement rule drift (without
// gpu.concurrent_kernel_sm=off, cdpmulti-lat0 is 35% off).
func TestValidationGPGPUSim(t *testing.T) {
	dir := t.TempDir()
	t.Chdir("../..")
	var out, log bytes.Buffer
	if err := run([]string{"validation-gpgpusim", "--out", dir}, &out, &log); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	rows := 0
	for _, line := range strings.Split(out.String(), "\n") {
		f := strings.Split(line, "|")
		if len(f) < 12 || !strings.HasSuffix(strings.TrimSpace(f[6]), "%") {
			continue
		}
		rows++
		name := strings.TrimSpace(f[1])
		e, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(f[6]), "%"), 64)
		if err != nil {
			t.Fatalf("%s: error cell %q", name, f[6])
		}
		limit := 6.5
		switch {
		case strings.Contains(f[2], "(0)"): // no device launches
			limit = 0.1
		case name == "cdpmulti" || strings.HasPrefix(name, "cdpqueue"):
			// Device kernels that wait out GPGPU-Sim's stream manager
			// together (docs/model.md, "The simulator's stream manager"):
			// -10.3% and -27.7% before the replay ran it (issue 74).
			limit = 3
		}
		if e > limit || e < -limit {
			t.Errorf("%s: makespan error %.1f%%, over %.1f%%", name, e, limit)
		}
	}
	if rows < 7 {
		t.Errorf("%d capture rows, want 7:\n%s", rows, out.String())
	}
}

// Every what-if prediction stays within its pair's tolerance
// (whatIfTolerance, or the wider one its named mechanism documents): a
// regression test of the model's predictions against GPGPU-Sim's runs of
// the thing predicted, not of the captures against themselves.
func TestValidationWhatIf(t *testing.T) {
	dir := t.TempDir()
	t.Chdir("../..")
	var out, log bytes.Buffer
	if err := run([]string{"validation-whatif", "--out", dir}, &out, &log); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	rows := 0
	for _, line := range strings.Split(out.String(), "\n") {
		f := strings.Split(line, "|")
		if len(f) < 12 || !strings.HasSuffix(strings.TrimSpace(f[7]), "%") {
			continue
		}
		from, to := strings.TrimSpace(f[2]), strings.TrimSpace(f[3])
		var pair *whatIf
		for i := range whatIfPairs {
			if whatIfPairs[i].from == from && whatIfPairs[i].to == to {
				pair = &whatIfPairs[i]
			}
		}
		if pair == nil {
			t.Fatalf("row %s -> %s is no pair of whatIfPairs", from, to)
		}
		rows++
		e, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(f[7]), "%"), 64)
		if err != nil {
			t.Fatalf("%s -> %s: error cell %q", from, to, f[7])
		}
		if e > pair.tolerance() || e < -pair.tolerance() {
			t.Errorf("%s -> %s: makespan error %.1f%%, over %.0f%%", from, to, e, pair.tolerance())
		}
	}
	if rows != len(whatIfPairs) {
		t.Errorf("%d pair rows, want %d:\n%s", rows, len(whatIfPairs), out.String())
	}
}
