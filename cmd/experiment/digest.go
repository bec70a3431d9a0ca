package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"

	"github.com/gpureplay/gpureplay/samples"
	"github.com/gpureplay/gpureplay/trace"
)

// A point of the grid that sets one generator parameter (a cost constant,
// a loop's cycles) reruns every benchmark of that generator; but a
// constant the benchmark's code never charges (an idle warp's cycles
// where no warp idles, a flat variant's election where the code has
// none) leaves its traces as they were, and replaying them again would
// only repeat the replays already done. traceDigest tells those apart
// before anything is replayed: a benchmark whose traces have the digest
// of the experiment's own takes its outcomes (reuseSameTraces).

// traceDigest is a digest of every record b's traces hold (its flat
// variant's too) but the header's meta, which records the parameters.
func traceDigest(b benchmark) (string, error) {
	g, ok := samples.Lookup(b.gen)
	if !ok {
		return "", fmt.Errorf("no generator %q", b.gen)
	}
	h := sha256.New()
	variants := [][]string{b.params}
	if b.flatParams != nil {
		variants = append(variants, append(slices.Clone(b.params), b.flatParams...))
	}
	for _, kv := range variants {
		p, err := g.ParseParams(kv)
		if err != nil {
			return "", err
		}
		w := trace.NewWriter(h)
		if err := g.Run(p, metaless{w}); err != nil {
			return "", err
		}
		if err := w.Close(); err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// metaless passes records on with the header's meta left out.
type metaless struct{ trace.Sink }

func (m metaless) Write(r trace.Record) error {
	if h, ok := r.(*trace.Header); ok {
		c := *h
		c.Meta = nil
		r = &c
	}
	return m.Sink.Write(r)
}

// digests memoises traceDigest by the benchmark's generator and params.
type digests map[string]string

func (d digests) of(b benchmark) (string, error) {
	k := b.gen + "|" + fmt.Sprint(b.params, b.flatParams)
	if s, ok := d[k]; ok {
		return s, nil
	}
	s, err := traceDigest(b)
	if err == nil {
		d[k] = s
	}
	return s, err
}
