package study

import (
	"fmt"
	"io"
	"strings"
)

// A SlurmJob is a study as a Slurm job array: array task i runs shard i
// of N.
type SlurmJob struct {
	Replay   string // the replay binary, absolute
	Manifest string // absolute
	Out      Dataset
	Tasks    int // array tasks, the N of the shards
	Jobs     int // replays at once within a task (its CPUs)
	MemMB    int // memory a task asks for
	MemNote  string
	Name     string
	// Partition, Time and Extra (raw "#SBATCH" options, e.g. "--account=x")
	// are passed on when set.
	Partition string
	Time      string
	Extra     []string
	Groups    int
	Replays   int
}

// WriteScript writes the sbatch script.
func (j SlurmJob) WriteScript(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "#!/bin/bash\n")
	fmt.Fprintf(&b, "# gpureplay study: %d replays in %d groups, as %d Slurm array tasks (task i runs shard i/%d).\n", j.Replays, j.Groups, j.Tasks, j.Tasks)
	fmt.Fprintf(&b, "# Submit:            sbatch %s\n", "THIS_SCRIPT")
	fmt.Fprintf(&b, "# Progress:          %s study status %s\n", ShellQuote(j.Replay), ShellQuote(j.Out.Dir))
	fmt.Fprintf(&b, "# Rerun task 2 only: sbatch --array=2 THIS_SCRIPT   (it replaces only its own files)\n")
	if j.MemNote != "" {
		fmt.Fprintf(&b, "# Memory: %s\n", j.MemNote)
	}
	fmt.Fprintf(&b, "#SBATCH --job-name=%s\n", j.Name)
	fmt.Fprintf(&b, "#SBATCH --array=0-%d\n", j.Tasks-1)
	fmt.Fprintf(&b, "#SBATCH --ntasks=1\n")
	fmt.Fprintf(&b, "#SBATCH --cpus-per-task=%d\n", j.Jobs)
	fmt.Fprintf(&b, "#SBATCH --mem=%dM\n", j.MemMB)
	fmt.Fprintf(&b, "#SBATCH --output=%s/slurm/%%A_%%a.out\n", j.Out.StudyDir())
	if j.Partition != "" {
		fmt.Fprintf(&b, "#SBATCH --partition=%s\n", j.Partition)
	}
	if j.Time != "" {
		fmt.Fprintf(&b, "#SBATCH --time=%s\n", j.Time)
	}
	for _, x := range j.Extra {
		fmt.Fprintf(&b, "#SBATCH %s\n", x)
	}
	fmt.Fprintf(&b, "set -euo pipefail\n")
	fmt.Fprintf(&b, "exec %s study run %s --out %s --format %s --shard \"${SLURM_ARRAY_TASK_ID}/%d\" --jobs \"${SLURM_CPUS_PER_TASK:-%d}\"\n",
		ShellQuote(j.Replay), ShellQuote(j.Manifest), ShellQuote(j.Out.Dir), j.Out.Format, j.Tasks, j.Jobs)
	_, err := io.WriteString(w, b.String())
	return err
}

// ShellQuote quotes s for bash: as it is where it holds only characters
// no shell reads specially, else in single quotes.
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+=:,@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
