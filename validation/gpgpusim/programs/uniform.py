#!/usr/bin/env python3
"""uniform.py VERTICES EDGEFACTOR SEED > graph.gr: a uniform random graph
(Erdos-Renyi G(n, m): each edge's two ends drawn uniformly) as a DIMACS
shortest-path file (the .gr format Dragon_li's benchmarks read):
VERTICES vertices, EDGEFACTOR x VERTICES directed arcs (both directions of
each generated edge, so half as many edges), self loops dropped, weights
1..100. Deterministic for a seed; the companion of rmat.py."""
import random
import sys

n, factor, seed = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(seed)
arcs = []
for _ in range(factor * n // 2):
    u, v = rng.randrange(n), rng.randrange(n)
    if u != v:
        w = rng.randint(1, 100)
        arcs.append((u + 1, v + 1, w))
        arcs.append((v + 1, u + 1, w))
arcs.sort()
out = sys.stdout
out.write("c uniform random graph, %d vertices, edge factor %d, seed %d\n" % (n, factor, seed))
out.write("p sp %d %d\n" % (n, len(arcs)))
for u, v, w in arcs:
    out.write("a %d %d %d\n" % (u, v, w))
