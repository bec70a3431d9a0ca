// laneloop: what one lane pays to loop over a child's threads, on a real GPU.
//
// The importer's inline=loop rule (docs/calibration.md, "The importer's lane
// loop") prices a child thread run inside its parent's lane at
// loop_share·(c − cta_once), c being the child CTA's cycles, with the two
// constants measured on GPGPU-Sim (Kepler). SPAWN's own estimate is
// loop_share 1 ("t_parent ← workload × t_warp", Algorithm 1 line 6). This
// program measures both sides on the GPU it runs on, for two kinds of child
// work shaped like Dragon_li's CDP children (our own code, the same
// operations):
//
//   sssp: an edge's target and weight loaded, the target's distance gathered,
//         atomicMin on it, and where it lowered, a slot claimed on the one
//         frontier counter (atomicAdd) and the vertex stored;
//   bfs:  an edge's target loaded and stored to the frontier.
//
// child: one CTA of n threads, a thread an edge; its cycles are clock64 from
//        the CTA's first instruction to its last thread past a barrier.
// loop:  one CTA of 32 threads in which `lanes` lanes each loop over n edges
//        of their own (lanes 1: the lone thread of a Reg parent).
//
// Output (TSV on stdout): code, memory (l2: 64K vertices, warm; dram: 64M
// vertices, the L2 flushed before each trial), n, lanes, the median over
// trials of the child CTA's cycles and of the loop's cycles.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cstdint>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
  fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)

struct Graph {
  int *col, *wt, *dist, *out, *count;
  int maxOut;
};

enum Code { SSSP = 0, BFS = 1 };

template <int code>
__device__ __forceinline__ void edge(const Graph g, int e) {
  int v = g.col[e];
  if (code == SSSP) {
    int w = g.wt[e];
    int d = g.dist[v];
    int nd = w;  // the source's distance is 0
    if (nd < d) {
      int prev = atomicMin(&g.dist[v], nd);
      if (nd < prev) {
        int off = atomicAdd(g.count, 1);
        if (*(volatile int *)g.count > g.maxOut) return;
        g.out[off] = v;
      }
    }
  } else {
    g.out[e] = v;
  }
}

template <int code>
__global__ void child(const Graph g, int base, long long *cycles) {
  long long t0 = clock64();
  edge<code>(g, base + threadIdx.x);
  __syncthreads();
  if (threadIdx.x == 0) *cycles = clock64() - t0;
}

template <int code>
__global__ void loop(const Graph g, int base, int n, int lanes, long long *cycles) {
  long long t0 = clock64();
  if (threadIdx.x < lanes) {
    int b = base + threadIdx.x * n;
    for (int i = 0; i < n; i++) edge<code>(g, b + i);
  }
  __syncthreads();
  if (threadIdx.x == 0) *cycles = clock64() - t0;
}

static long long median(std::vector<long long> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int main() {
  const int trials = 15;
  const int maxEdges = 1 << 16;  // enough for 32 lanes × 1024 edges
  cudaDeviceProp p;
  CHECK(cudaGetDeviceProperties(&p, 0));
  int clockKHz = 0;
  CHECK(cudaDeviceGetAttribute(&clockKHz, cudaDevAttrClockRate, 0));
  fprintf(stderr, "device %s, %d SMs, clock %d kHz, L2 %d bytes\n", p.name,
          p.multiProcessorCount, clockKHz, p.l2CacheSize);
  printf("# device\t%s\tsms\t%d\tclock_khz\t%d\tl2_bytes\t%d\n", p.name,
         p.multiProcessorCount, clockKHz, p.l2CacheSize);
  printf("code\tmemory\tn\tlanes\tchild_cta_cycles\tloop_cycles\n");

  size_t flushBytes = 512ull << 20;
  char *flush;
  CHECK(cudaMalloc(&flush, flushBytes));
  long long *dcyc;
  CHECK(cudaMalloc(&dcyc, sizeof(long long)));

  for (int mem = 0; mem < 2; mem++) {
    int V = mem == 0 ? 1 << 16 : 1 << 26;
    Graph g;
    g.maxOut = maxEdges;
    CHECK(cudaMalloc(&g.col, maxEdges * sizeof(int)));
    CHECK(cudaMalloc(&g.wt, maxEdges * sizeof(int)));
    CHECK(cudaMalloc(&g.out, maxEdges * sizeof(int)));
    CHECK(cudaMalloc(&g.count, sizeof(int)));
    CHECK(cudaMalloc(&g.dist, (size_t)V * sizeof(int)));
    std::vector<int> col(maxEdges), wt(maxEdges);
    srand(1);
    for (int i = 0; i < maxEdges; i++) {
      col[i] = (int)(((uint64_t)rand() * RAND_MAX + rand()) % V);
      wt[i] = 1 + rand() % 100;
    }
    CHECK(cudaMemcpy(g.col, col.data(), maxEdges * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(g.wt, wt.data(), maxEdges * sizeof(int), cudaMemcpyHostToDevice));

    auto reset = [&]() {
      CHECK(cudaMemset(g.dist, 0x7f, (size_t)V * sizeof(int)));
      CHECK(cudaMemset(g.count, 0, sizeof(int)));
      if (mem == 1) CHECK(cudaMemset(flush, mem, flushBytes));
    };
    auto read = [&]() {
      long long c;
      CHECK(cudaDeviceSynchronize());
      CHECK(cudaMemcpy(&c, dcyc, sizeof c, cudaMemcpyDeviceToHost));
      return c;
    };
    for (int code = 0; code < 2; code++) {
      for (int n = 32; n <= 1024; n *= 2) {
        for (int lanes = 1; lanes <= 32; lanes *= 32) {
          std::vector<long long> cc, lc;
          for (int t = 0; t < trials + 1; t++) {
            int base = (t * 7919) % (maxEdges - 1024);
            reset();
            if (code == SSSP) child<SSSP><<<1, n>>>(g, base, dcyc);
            else child<BFS><<<1, n>>>(g, base, dcyc);
            long long c = read();
            int lbase = (t * 104729) % (maxEdges - n * lanes + 1);
            reset();
            if (code == SSSP) loop<SSSP><<<1, 32>>>(g, lbase, n, lanes, dcyc);
            else loop<BFS><<<1, 32>>>(g, lbase, n, lanes, dcyc);
            long long l = read();
            if (t > 0) { cc.push_back(c); lc.push_back(l); }  // the first warms the code
          }
          printf("%s\t%s\t%d\t%d\t%lld\t%lld\n", code == SSSP ? "sssp" : "bfs",
                 mem == 0 ? "l2" : "dram", n, lanes, median(cc), median(lc));
          fflush(stdout);
        }
      }
    }
    cudaFree(g.col); cudaFree(g.wt); cudaFree(g.out); cudaFree(g.count); cudaFree(g.dist);
  }
  return 0;
}
