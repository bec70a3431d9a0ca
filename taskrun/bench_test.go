package taskrun

import "testing"

// benchTasks is 32768 tasks of 128 threads (Pagoda §6's 32K-task runs),
// warps of 5000–20000 cycles, spawned together.
func benchTasks() []Task {
	tasks := make([]Task, 32768)
	for i := range tasks {
		tasks[i] = task(uint64(i), 0, 4, int64(5000+i%4*5000), 20000)
	}
	return tasks
}

func runBench(b *testing.B, open func() Runtime) {
	tasks := benchTasks()
	b.ReportAllocs()
	for b.Loop() {
		rt := open()
		i := 0
		for {
			for i < len(tasks) && rt.Waiting() < 2 {
				if err := rt.Submit(tasks[i]); err != nil {
					b.Fatal(err)
				}
				if i++; i == len(tasks) {
					rt.Close()
				}
			}
			at, ok := rt.Next()
			if !ok {
				break
			}
			rt.Advance(at)
		}
	}
	b.ReportMetric(float64(b.N)*float64(len(tasks))/b.Elapsed().Seconds(), "tasks/s")
}

func BenchmarkPagoda32K(b *testing.B) {
	cfg := titanx(b, 3500, 1000, 5000)
	runBench(b, func() Runtime {
		p, err := NewPagoda(cfg, silent{})
		if err != nil {
			b.Fatal(err)
		}
		return p
	})
}

func BenchmarkGeMTC32K(b *testing.B) {
	cfg := titanx(b, 3500, 1000, 5000)
	runBench(b, func() Runtime {
		g, err := NewGeMTC(cfg, silent{})
		if err != nil {
			b.Fatal(err)
		}
		return g
	})
}
