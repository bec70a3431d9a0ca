package samples

import (
	"math/rand/v2"
	"sync"
)

// The input cache keeps what the graph generators draw before their
// records — a graph, its weights — for a later generation of the same
// input in one process. An experiment's grid of unstated inputs
// generates each benchmark again at every point (samples/costparams.go:
// the invented costs are parameters), and a cost changes no input: at
// paper size sssp's graph of 2^22 vertices and its weights took a third
// of each generation (profile of `experiment dtbl-paper --cost-grid`).
//
// An input is a pure function of its parameters and of where the
// generator's PCG stood when it was drawn, so the key holds both, and a
// hit leaves the PCG where drawing would have left it: what the
// generator draws next, and so every record, is as without the cache.
// The cache is off (a zero budget) unless a process asks for it with
// KeepInputs; a kept input is never written after it is drawn.
var inputs inputCache

// KeepInputs lets the generators keep the inputs they draw, up to budget
// bytes in all, least recently used dropped first (0 turns the cache
// off and drops everything). It is for a process that generates the same
// inputs again and again, as cmd/experiment does.
func KeepInputs(budget int64) {
	inputs.mu.Lock()
	defer inputs.mu.Unlock()
	inputs.budget = budget
	inputs.evict()
}

type inputCache struct {
	mu      sync.Mutex
	budget  int64
	used    int64
	entries []keptInput // least recently used first
}

type keptInput struct {
	key   string
	val   any
	bytes int64
	after []byte // the PCG's state once the input was drawn
}

// seeded is a generator's source of randomness with its PCG in reach,
// so that the input cache can read and set where it stands.
type seeded struct {
	*rand.Rand
	pcg *rand.PCG
}

// newSeeded is newRand with its PCG kept.
func newSeeded(seed uint64) seeded {
	pcg := rand.NewPCG(seed, pcgStream)
	return seeded{rand.New(pcg), pcg}
}

// drawn returns draw's value for the input key names, from the cache
// where it holds the same input drawn from the same PCG state, else
// drawing it. Either way rng's PCG ends where draw leaves it. size is
// the value's bytes, for the budget.
func drawn[T any](key string, rng seeded, size func(T) int64, draw func() T) T {
	before, err := rng.pcg.MarshalBinary()
	if err != nil {
		panic("samples: PCG state: " + err.Error()) // PCG's MarshalBinary never fails
	}
	key += "\x00" + string(before)
	c := &inputs
	c.mu.Lock()
	if c.budget == 0 {
		c.mu.Unlock()
		return draw()
	}
	for i, e := range c.entries {
		if e.key != key {
			continue
		}
		c.entries = append(append(c.entries[:i:i], c.entries[i+1:]...), e)
		c.mu.Unlock()
		if err := rng.pcg.UnmarshalBinary(e.after); err != nil {
			panic("samples: PCG state: " + err.Error()) // written by MarshalBinary
		}
		return e.val.(T)
	}
	c.mu.Unlock()
	v := draw()
	after, err := rng.pcg.MarshalBinary()
	if err != nil {
		panic("samples: PCG state: " + err.Error())
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range c.entries {
		if e.key == key { // drawn meanwhile by another generation
			return v
		}
	}
	if n := size(v); n <= c.budget {
		c.entries = append(c.entries, keptInput{key: key, val: v, bytes: n, after: after})
		c.used += n
		c.evict()
	}
	return v
}

// evict drops the least recently used entries until the cache is within
// its budget.
func (c *inputCache) evict() {
	i := 0
	for c.used > c.budget && i < len(c.entries) {
		c.used -= c.entries[i].bytes
		i++
	}
	c.entries = append(c.entries[:0], c.entries[i:]...)
}
