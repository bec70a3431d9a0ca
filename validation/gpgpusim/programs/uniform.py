#!/usr/bin/env python3
"""uniform.py VERTICES EDGEFACTOR SEED > graph.gr: a uniform random graph
(Erdos-Renyi G(n, m): each edge's two ends drawn uniformly) as a DIMACS
shortest-path file (the .gr format Dragon_li's benchmarks read):
VERTICES vertices, EDGEFACTOR x VERTICES directed arcs (both directions of
each generated edge, so half as many edges), self loops dropped, weights
1..100. Deterministic for a seed; the companion of rmat.py."""
import random
import sys

import grarcs

n, factor, seed = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(seed)
arcs = grarcs.undirected_arcs(rng, factor * n // 2, lambda: (rng.randrange(n), rng.randrange(n)))
grarcs.write("uniform random graph, %d vertices, edge factor %d, seed %d" % (n, factor, seed), n, arcs)
