#!/usr/bin/env python3
"""rodiniagraph.py NODES SEED > graph.txt: a random undirected graph in the
input format of Rodinia's BFS (cuda/bfs/bfs.cu reads: the node count; per
node "first-edge-index degree"; the source node; the edge count; per edge
"destination cost"). Like Rodinia's own generator (data/bfs/inputGen,
not in the mirror we built from), each node draws 2 to 4 edges to random
other nodes, each edge stored in both nodes' lists with a cost 1..10.
Deterministic for a seed. Source node 0."""
import random
import sys

n, seed = int(sys.argv[1]), int(sys.argv[2])
rng = random.Random(seed)
adj = [[] for _ in range(n)]
for u in range(n):
    for _ in range(rng.randint(2, 4)):
        v = rng.randrange(n)
        if v == u:
            continue
        w = rng.randint(1, 10)
        adj[u].append((v, w))
        adj[v].append((u, w))
out = [str(n)]
start = 0
for u in range(n):
    out.append("%d %d" % (start, len(adj[u])))
    start += len(adj[u])
out.append("")
out.append("0")
out.append("")
out.append(str(start))
for u in range(n):
    for v, w in adj[u]:
        out.append("%d %d" % (v, w))
sys.stdout.write("\n".join(out) + "\n")
