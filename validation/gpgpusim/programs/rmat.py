#!/usr/bin/env python3
"""rmat.py SCALE EDGEFACTOR SEED > graph.gr: an R-MAT graph with Graph500's
parameters (a=0.57, b=0.19, c=0.19), as a DIMACS shortest-path file (the
.gr format Dragon_li's benchmarks read): 2^SCALE vertices, EDGEFACTOR x
2^SCALE directed arcs (both directions of each generated edge, so half as
many edges), self loops dropped, weights 1..100. Deterministic for a seed."""
import random
import sys

import grarcs

scale, factor, seed = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(seed)
n = 1 << scale


def draw():
    u = v = 0
    for bit in range(scale):
        r = rng.random()
        if r < 0.57:
            pass
        elif r < 0.76:
            v |= 1 << bit
        elif r < 0.95:
            u |= 1 << bit
        else:
            u |= 1 << bit
            v |= 1 << bit
    return u, v


arcs = grarcs.undirected_arcs(rng, factor * n // 2, draw)
grarcs.write("R-MAT scale %d edge factor %d seed %d (Graph500 a=0.57 b=0.19 c=0.19)" % (scale, factor, seed), n, arcs)
