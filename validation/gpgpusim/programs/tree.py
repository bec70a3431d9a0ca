#!/usr/bin/env python3
"""tree.py ROOT K1xC1 [K2xC2 ...] > graph.gr: an out-tree as a DIMACS
shortest-path file (the .gr format Dragon_li's benchmarks read), weight 1:
vertex 1 -> 2..ROOT+1; then for each KxC, the first K vertices of the last
level each get C new vertices, which form the next level. No vertex is
reached twice, so BFS's frontier holds each level once."""
import sys

root = int(sys.argv[1])
levels = [tuple(int(x) for x in a.split("x")) for a in sys.argv[2:]]
arcs = []
nxt = 2
level = list(range(nxt, nxt + root))
arcs += [(1, v) for v in level]
nxt += root
desc = ["vertex 1 -> 2..%d" % (root + 1)]
for k, c in levels:
    parents, new = level[:k], []
    for p in parents:
        kids = list(range(nxt, nxt + c))
        nxt += c
        arcs += [(p, v) for v in kids]
        new += kids
    desc.append("%d..%d -> %d new vertices each" % (parents[0], parents[-1], c))
    level = new
out = sys.stdout
out.write("c out-tree: %s; weight 1\n" % "; ".join(desc))
out.write("p sp %d %d\n" % (nxt - 1, len(arcs)))
for u, v in arcs:
    out.write("a %d %d 1\n" % (u, v))
