// frontier: a host-driven frontier loop (level-synchronous BFS). The host
// launches one expand kernel per level, sized by the current frontier
// count; the kernel counts the next frontier into a device counter with
// atomicAdd; the host copies that counter back with a blocking
// cudaMemcpy (D2H) and sizes the next launch from it, until the frontier
// is empty. So every launch waits for the previous kernel through the
// host, and the launch sizes are only known at run time.
//
// The graph is generated here from SEED with a fixed LCG (the same graph
// on every machine): N vertices, vertex v has 1 + (r % (2*DEG-1)) arcs
// to random vertices (mean DEG), so BFS from vertex 0 grows about
// DEG-fold a level, then shrinks as the graph is used up. The defaults
// give 10 levels of 1, 5, 19, 78, 289, 729, 673, 190, 19 and 1 vertices.
// One warp expands one frontier vertex: its lanes share the vertex's
// arcs and each runs ITERS dependent FMAs (the per-vertex work that makes
// a level's kernel long enough for the SM count to matter). CTAs are 128
// threads (4 vertices), so the largest level has 183 CTAs. The program
// checks the level sizes against a BFS on the CPU (err=1 if they differ).
//
// Host calls are marked on stdout with lines starting "hostloop:" (see
// validation/gpgpusim/hostloop/README.md): GPGPU-Sim prints nothing for
// a cudaMemcpy unless PTX_SIM_DEBUG >= 3.
//
//   frontier [N] [DEG] [ITERS] [SEED]
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

// copy: a blocking cudaMemcpy between "hostloop:" markers.
static void copy(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind) {
  const char *dir = kind == cudaMemcpyHostToDevice ? "h2d" : "d2h";
  printf("hostloop: call memcpy dir=%s bytes=%zu stream=0 blocking=1\n", dir, bytes);
  cudaMemcpy(dst, src, bytes, kind);
  printf("hostloop: ret memcpy dir=%s\n", dir);
}

__global__ void expand(const int *rowptr, const int *col, const int *cur,
                       int count, int *level, int depth, int *next,
                       int *nextCount, float *acc, int iters) {
  int w = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  int lane = threadIdx.x & 31;
  if (w >= count) return;
  int v = cur[w];
  float x = acc[v] + lane;
  for (int k = 0; k < iters; k++) x = fmaf(x, 0.999f, 0.5f);
  for (int e = rowptr[v] + lane; e < rowptr[v + 1]; e += 32) {
    int u = col[e];
    if (atomicCAS(&level[u], -1, depth + 1) == -1) next[atomicAdd(nextCount, 1)] = u;
  }
  if (lane == 0) acc[v] = x;
}

static unsigned lcg(unsigned &s) { return s = s * 1664525u + 1013904223u; }

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 2048;
  int deg = argc > 2 ? atoi(argv[2]) : 4;
  int iters = argc > 3 ? atoi(argv[3]) : 64;
  unsigned seed = argc > 4 ? (unsigned)atoi(argv[4]) : 1;
  // CSR graph.
  std::vector<int> rowptr(n + 1, 0), col;
  for (int v = 0; v < n; v++) {
    int d = 1 + (lcg(seed) >> 8) % (2 * deg - 1);
    for (int j = 0; j < d; j++) col.push_back((lcg(seed) >> 8) % n);
    rowptr[v + 1] = (int)col.size();
  }
  // CPU BFS: the expected level sizes.
  std::vector<int> lev(n, -1), want;
  std::vector<int> cur(1, 0);
  lev[0] = 0;
  while (!cur.empty()) {
    want.push_back((int)cur.size());
    std::vector<int> nx;
    for (int v : cur)
      for (int e = rowptr[v]; e < rowptr[v + 1]; e++)
        if (lev[col[e]] < 0) { lev[col[e]] = lev[v] + 1; nx.push_back(col[e]); }
    cur.swap(nx);
  }
  int m = (int)col.size();
  int *d_rowptr, *d_col, *d_level, *d_a, *d_b, *d_counts;
  float *d_acc;
  cudaMalloc(&d_rowptr, (n + 1) * sizeof(int));
  cudaMalloc(&d_col, m * sizeof(int));
  cudaMalloc(&d_level, n * sizeof(int));
  cudaMalloc(&d_a, n * sizeof(int));
  cudaMalloc(&d_b, n * sizeof(int));
  cudaMalloc(&d_counts, (n + 2) * sizeof(int));
  cudaMalloc(&d_acc, n * sizeof(float));
  std::vector<int> h_level(n, -1), zeros(n + 2, 0);
  h_level[0] = 0;
  std::vector<float> h_acc(n, 1.0f);
  int src = 0;
  copy(d_rowptr, rowptr.data(), (n + 1) * sizeof(int), cudaMemcpyHostToDevice);
  copy(d_col, col.data(), m * sizeof(int), cudaMemcpyHostToDevice);
  copy(d_level, h_level.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  copy(d_counts, zeros.data(), (n + 2) * sizeof(int), cudaMemcpyHostToDevice);
  copy(d_acc, h_acc.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  copy(d_a, &src, sizeof(int), cudaMemcpyHostToDevice);
  printf("hostloop: begin frontier n=%d arcs=%d deg=%d iters=%d\n", n, m, deg, iters);
  // The loop: launch, copy the count back (blocking), size the next launch.
  int count = 1, depth = 0, err = 0;
  std::vector<int> got;
  while (count > 0) {
    if (depth > n || cudaGetLastError() != cudaSuccess) {  // never on a good run
      err = 2;
      break;
    }
    got.push_back(count);
    int blocks = (count * 32 + 127) / 128;
    printf("hostloop: launch expand level=%d count=%d grid=%d block=128 stream=0\n", depth, count, blocks);
    expand<<<blocks, 128>>>(d_rowptr, d_col, d_a, count, d_level, depth, d_b,
                            d_counts + depth + 1, d_acc, iters);
    copy(&count, d_counts + depth + 1, sizeof(int), cudaMemcpyDeviceToHost);
    int *t = d_a; d_a = d_b; d_b = t;
    depth++;
  }
  copy(h_acc.data(), d_acc, n * sizeof(float), cudaMemcpyDeviceToHost);
  double sum = 0;
  for (int i = 0; i < n; i++) sum += h_acc[i];
  if (got != want) err = 1;
  printf("frontier levels=%d sizes=", depth);
  for (size_t i = 0; i < got.size(); i++) printf("%s%d", i ? "," : "", got[i]);
  printf(" sum=%.3f err=%d cuda=%d\n", sum, err, (int)cudaGetLastError());
  return 0;
}
