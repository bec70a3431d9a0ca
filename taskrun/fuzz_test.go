package taskrun

import (
	"errors"
	"strings"
	"testing"
)

// FuzzRuntimes feeds arbitrary task shapes to both runtimes on small
// configurations with every cost non-zero: nothing may panic, calls come in
// cycle order (the recorder checks), every accepted task finishes and every
// rejection is a TaskError.
func FuzzRuntimes(f *testing.F) {
	f.Add([]byte{4, 0, 10, 3, 1, 200, 9, 40, 0, 0, 1, 7, 31, 1, 255, 3, 2, 2, 64, 5})
	f.Add([]byte{1, 1, 1, 1, 1, 1, 255, 255, 255, 255, 0, 0, 0, 0, 0, 0, 33, 3, 128, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		var tasks []Task
		for i := 0; len(data) >= 5 && i < 64; i++ {
			b := data[:5]
			data = data[5:]
			threads := int(b[0])*5 - 20 // some invalid, some wider than 31 warps
			warps := max(0, (threads+31)/32)
			cycles := make([]int64, warps+int(b[1]%3)-1+boolInt(warps == 0))
			for j := range cycles {
				cycles[j] = int64(b[2]) * int64(1+j%3) * 7
			}
			tasks = append(tasks, Task{
				ID: uint64(i), Spawn: int64(b[3]) * 13, Threads: threads, Warps: warps,
				Smem: int64(b[4]&0x7f) * 300, Sync: b[4]&0x80 != 0, WarpCycles: cycles,
			})
		}
		c := oneMTB(t)
		c.GPU.SMs = 2
		c.Pagoda.TableRows, c.Pagoda.SpawnCycles, c.Pagoda.SchedCycles, c.Lat.HostLaunch = 2, 3, 2, 7
		c.Pagoda.SmemPerMTB = 8 << 10
		c.GeMTC.Batch, c.GeMTC.Threads, c.GPU.MaxCTAsPerSM = 3, 64, 2
		piped := c // and with the spawn lifecycle (oneMTB spawns directly)
		piped.Pagoda.Spawn = "pipelined"
		p := newPagoda(t, c, nil)
		pp := newPagoda(t, piped, nil)
		g := newGeMTC(t, c, nil)
		for _, rt := range []Runtime{p, pp, g} {
			r := newRecorder(t, executorWarps)
			switch rt := rt.(type) {
			case *Pagoda:
				rt.l = r
			case *GeMTC:
				rt.l = r
			}
			accepted := fuzzDrive(t, rt, tasks)
			for _, id := range accepted {
				if _, ok := r.ended[id]; !ok {
					t.Fatalf("%T: task %d accepted but never finished", rt, id)
				}
			}
		}
	})
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// fuzzDrive is drive that skips rejected tasks, returning the accepted.
func fuzzDrive(t *testing.T, rt Runtime, tasks []Task) []uint64 {
	var ok []uint64
	i := 0
	for {
		for i < len(tasks) && rt.Waiting() < 2 {
			err := rt.Submit(tasks[i])
			var te *TaskError
			switch {
			case err == nil:
				ok = append(ok, tasks[i].ID)
			case !errors.As(err, &te) || te.ID != tasks[i].ID:
				t.Fatalf("task %d: %v is not its TaskError", tasks[i].ID, err)
			}
			if i++; i == len(tasks) {
				rt.Close()
			}
		}
		at, more := rt.Next()
		if !more {
			if w := rt.Stuck(); w != nil || i < len(tasks) {
				t.Fatalf("%T stuck: %s", rt, strings.Join(w, "; "))
			}
			return ok
		}
		rt.Advance(at)
	}
}
