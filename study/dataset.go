package study

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"

	"github.com/gpureplay/gpureplay/internal/tempfile"
	"github.com/gpureplay/gpureplay/results"
)

// A Dataset is the output directory of a sharded study: every replay
// writes its rows of each table to its own file,
//
//	OUT/<table>/policy=<policy>/shard=<i>/part-<id>.<format>
//
// a hive-partitioned layout that DuckDB, pandas (pyarrow) and polars read
// as one table per directory. A replay's summary part is renamed into
// place after its other parts, so it marks the replay done. OUT/_study
// keeps the study's own files: the manifest the dataset belongs to, the
// error of each failed replay, and the logs of Slurm array tasks.
type Dataset struct {
	Dir    string
	Format results.Format
}

// StudyDir is where a dataset keeps the study's own files.
func (d Dataset) StudyDir() string { return filepath.Join(d.Dir, "_study") }

func (d Dataset) manifestPath() string { return filepath.Join(d.StudyDir(), "manifest.jsonl") }

func (d Dataset) failedPath(id int) string {
	return filepath.Join(d.StudyDir(), "failed", fmt.Sprintf("%d.txt", id))
}

// Part is the file of one replay's rows of a table.
func (d Dataset) Part(table, policy string, shard, id int) string {
	return filepath.Join(d.Dir, table, "policy="+policy, fmt.Sprintf("shard=%d", shard), fmt.Sprintf("part-%d.%s", id, d.Format))
}

// Claim ties the dataset to plan: the first shard to run copies the
// manifest into OUT/_study; a later one checks that it runs the same
// study, so two studies never mix their rows in one directory.
func (d Dataset) Claim(plan []Replay) error {
	var buf bytes.Buffer
	if err := WriteManifest(&buf, plan); err != nil {
		return err
	}
	old, err := os.ReadFile(d.manifestPath())
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(d.StudyDir(), 0o777); err != nil {
			return err
		}
		return tempfile.WriteFile(d.manifestPath(), buf.Bytes())
	case err != nil:
		return err
	case !bytes.Equal(old, buf.Bytes()):
		return fmt.Errorf("%s holds the results of another study (%s differs from this manifest): choose another --out", d.Dir, d.manifestPath())
	}
	return nil
}

// Recorded reads the manifest a dataset belongs to.
func (d Dataset) Recorded() ([]Replay, error) {
	plan, err := ReadManifest(d.manifestPath())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s is not a study's output (no %s): run replay study run MANIFEST --out %s first", d.Dir, d.manifestPath(), d.Dir)
	}
	return plan, err
}

// Open starts the files of replay r, run as policy in shard. The summary
// part is written by the same Writer and renamed last.
func (d Dataset) Open(r Replay, policy string, shard int) (*results.Writer, error) {
	return results.CreateFiles(d.Format, func(table string) string { return d.Part(table, policy, shard, r.ID) })
}

// Elsewhere lists, for each replay of the shard, the parts an earlier
// run with another shard count left in other shards' directories: Settle
// removes them once the replay is written anew. It reads the dataset's
// directories once.
func (d Dataset) Elsewhere(mine []Replay, shard int) (map[int][]string, error) {
	ids := map[int]bool{}
	for _, r := range mine {
		ids[r.ID] = true
	}
	parts, err := d.parts()
	if err != nil {
		return nil, err
	}
	out := map[int][]string{}
	for _, p := range parts {
		if ids[p.id] && p.shard != shard {
			out[p.id] = append(out[p.id], p.path)
		}
	}
	return out, nil
}

// Settle records how replay r ended: on success it removes the error of
// an earlier attempt and the stale parts Elsewhere found; on failure it
// keeps the error.
func (d Dataset) Settle(r Replay, runErr error, stale []string) error {
	if runErr != nil {
		if err := os.MkdirAll(filepath.Dir(d.failedPath(r.ID)), 0o777); err != nil {
			return err
		}
		return tempfile.WriteFile(d.failedPath(r.ID), []byte(runErr.Error()+"\n"))
	}
	for _, path := range append([]string{d.failedPath(r.ID)}, stale...) {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// part is one file of the dataset.
type part struct {
	path, table string
	format      results.Format
	shard, id   int
}

var partName = regexp.MustCompile(`^([a-z]+)/policy=[^/]+/shard=([0-9]+)/part-([0-9]+)\.([a-z]+)$`)

// parts lists the dataset's part files.
func (d Dataset) parts() ([]part, error) {
	var out []part
	for _, table := range results.Tables() {
		root := filepath.Join(d.Dir, table)
		err := filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil
				}
				return err
			}
			rel, _ := filepath.Rel(d.Dir, path)
			m := partName.FindStringSubmatch(filepath.ToSlash(rel))
			if e.IsDir() || m == nil {
				return nil
			}
			shard, _ := strconv.Atoi(m[2])
			id, _ := strconv.Atoi(m[3])
			out = append(out, part{path: path, table: m[1], format: results.Format(m[4]), shard: shard, id: id})
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// A Status says where each replay of a study stands.
type Status struct {
	Plan []Replay
	// Done are the ids whose summary part exists and whose part of every
	// table is whole (results.Check: a Parquet or Arrow footer, a CSV
	// header and final newline).
	Done   []int
	Failed map[int]string // id → the error of its last attempt
	// Corrupt are the ids whose summary part exists but one of whose
	// parts is missing or not whole (id → what is wrong): a file cut
	// short or overwritten after the replay wrote it. Rerunning the
	// replay's shard writes it anew.
	Corrupt    map[int]string
	Missing    []int // neither done, failed nor corrupt
	Duplicated []int // ids with parts in more than one shard
}

// Complete reports whether every replay is done, once.
func (s Status) Complete() bool {
	return len(s.Done) == len(s.Plan) && len(s.Duplicated) == 0
}

// Status reads where the replays of the dataset's study stand.
func (d Dataset) Status() (Status, error) {
	plan, err := d.Recorded()
	if err != nil {
		return Status{}, err
	}
	st := Status{Plan: plan, Failed: map[int]string{}, Corrupt: map[int]string{}}
	parts, err := d.parts()
	if err != nil {
		return st, err
	}
	done := map[int]bool{}
	shards := map[int]map[int]bool{}
	byID := map[int][]part{}
	for _, p := range parts {
		if p.id >= len(plan) {
			continue
		}
		if p.table == "summary" {
			done[p.id] = true
		}
		if shards[p.id] == nil {
			shards[p.id] = map[int]bool{}
		}
		shards[p.id][p.shard] = true
		byID[p.id] = append(byID[p.id], p)
	}
	for _, r := range plan {
		msg, err := os.ReadFile(d.failedPath(r.ID))
		switch {
		case err == nil:
			st.Failed[r.ID] = string(bytes.TrimSpace(msg))
		case !done[r.ID]:
			st.Missing = append(st.Missing, r.ID)
		default:
			if bad := unsound(byID[r.ID]); bad != "" {
				st.Corrupt[r.ID] = bad
			} else {
				st.Done = append(st.Done, r.ID)
			}
		}
		if len(shards[r.ID]) > 1 {
			st.Duplicated = append(st.Duplicated, r.ID)
		}
	}
	return st, nil // each list in plan order, so by id
}

// unsound says what is wrong with a done replay's parts: a table without
// a part, or a part that is not whole; "" when nothing is.
func unsound(parts []part) string {
	have := map[string]bool{}
	for _, p := range parts {
		if err := results.Check(p.path, p.table, p.format); err != nil {
			return err.Error()
		}
		have[p.table] = true
	}
	for _, table := range results.Tables() {
		if !have[table] {
			return "no part of table " + table
		}
	}
	return ""
}
