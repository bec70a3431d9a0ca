"""grarcs: what rmat.py and uniform.py share, an undirected random graph's
arcs as a DIMACS shortest-path file (the .gr format Dragon_li's
benchmarks read)."""
import sys


def undirected_arcs(rng, edges, draw):
    """edges draws of an edge's ends (draw(), 0-based), each kept unless a
    self loop as both its arcs (1-based) at one weight in 1..100, sorted."""
    arcs = []
    for _ in range(edges):
        u, v = draw()
        if u != v:
            w = rng.randint(1, 100)
            arcs.append((u + 1, v + 1, w))
            arcs.append((v + 1, u + 1, w))
    arcs.sort()
    return arcs


def write(comment, n, arcs, out=sys.stdout):
    """The .gr file of n vertices and arcs, its first line comment."""
    out.write("c %s\n" % comment)
    out.write("p sp %d %d\n" % (n, len(arcs)))
    for u, v, w in arcs:
        out.write("a %d %d %d\n" % (u, v, w))
