package replaycli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/policies"
	"github.com/gpureplay/gpureplay/trace"
)

func runPolicies(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("policies", "replay policies — list the scheduling policies\n", stdout)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	for _, p := range policies.List() {
		name := p.Name
		if len(p.Aliases) > 0 {
			name += " (" + strings.Join(p.Aliases, ", ") + ")"
		}
		fmt.Fprintf(stdout, "%-22s %s [%s]", name, p.Doc, p.Source)
		if len(p.Keys) > 0 {
			fmt.Fprintf(stdout, "; keys: %s", strings.Join(p.Keys, ", "))
		}
		fmt.Fprintln(stdout)
		for _, k := range p.Params {
			v, _ := model.Config{}.Get(k.Name)
			fmt.Fprintf(stdout, "%-22s   %s = %s: %s\n", "", k.Name, v, k.Doc)
		}
	}
	return nil
}

func runGPUs(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("gpus", "replay gpus — list the GPU presets\n", stdout)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	for _, p := range model.Presets() {
		fmt.Fprintf(stdout, "%-12s %s\n", p.Name, p.Line)
	}
	return nil
}

// badInputIfTrace marks trace errors as the user's input problem.
func badInputIfTrace(err error) error {
	var te *trace.Error
	if errors.As(err, &te) {
		return badInput(err)
	}
	return err
}
