package study

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// WriteManifest writes a plan as JSONL, one replay a line in id order.
func WriteManifest(w io.Writer, plan []Replay) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	for _, r := range plan {
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// ReadManifest reads a plan written by WriteManifest, checking that it is
// one: ids 0, 1, 2... in order, groups numbered from 0 as they first
// appear and each contiguous, every field a replay needs present. Errors
// name the file and line.
func ReadManifest(path string) ([]Replay, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var plan []Replay
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		var r Replay
		dec := json.NewDecoder(bytes.NewReader(text))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			return nil, fmt.Errorf("%s:%d: not a replay: %v", path, line, err)
		}
		if err := checkNext(plan, r); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, line, err)
		}
		plan = append(plan, r)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %v", path, line+1, err)
	}
	if len(plan) == 0 {
		return nil, fmt.Errorf("%s: the manifest lists no replay (write one with replay study plan)", path)
	}
	return plan, nil
}

// checkNext checks that r can follow plan.
func checkNext(plan []Replay, r Replay) error {
	switch {
	case r.ID != len(plan):
		return fmt.Errorf("replay id %d where %d was due: ids count 0, 1, 2... in order", r.ID, len(plan))
	case r.Trace == "" || r.Name == "" || r.GPU == "" || r.Policy == "":
		return fmt.Errorf("replay %d: trace, name, gpu and policy are required", r.ID)
	}
	want := 0
	if n := len(plan); n > 0 {
		want = plan[n-1].Group
		if r.Group != want {
			want++
		}
	}
	if r.Group != want {
		return fmt.Errorf("replay %d: group %d where %d was due: groups count up from 0 and each is contiguous", r.ID, r.Group, want)
	}
	return nil
}
