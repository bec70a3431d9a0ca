package samples

import (
	"github.com/gpureplay/gpureplay/internal/grfile"
	"github.com/gpureplay/gpureplay/internal/tempfile"
)

// grGraph is a graph read from a DIMACS shortest-path file (.gr), the
// format Dragon_li's tests read (util/graphFileGR.h) and its sample graph
// (graphs/sample.gr) is in: directed, weighted arcs, kept in the file's
// order within each source vertex as Dragon_li's CSR keeps them, so a
// vertex's neighbour list, and with it which of its edges a child kernel
// takes, is the benchmark's own (internal/grfile reads the file).
type grGraph struct {
	g       *csr    // directed: g.cols holds each arc once
	weights []int32 // parallel to g.cols
}

// maxGRVertices bounds the problem line's vertex count as scale=24 bounds
// a generated graph's; maxBFSEdges bounds the arcs.
const maxGRVertices = 1 << 24

// loadGR reads the .gr file at path (the format: grfile.Read).
func loadGR(path string) (*grGraph, error) {
	f, err := tempfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	g, err := grfile.Read(path, f, maxGRVertices, maxBFSEdges)
	if err != nil {
		return nil, err
	}
	return &grGraph{g: &csr{offsets: g.Offsets, cols: g.Heads, directed: true}, weights: g.Weights}, nil
}
