// syncloop: a host loop of two kernels per iteration with a
// cudaDeviceSynchronize between them. Both kernels go to streams made
// with cudaStreamCreate (A for the first, B for the second), so what
// orders them is the synchronize, not the NULL stream's implicit
// blocking. Iteration i:
//
//   produce<<<P, 128, 0, A>>>        P CTAs, fixed
//   cudaDeviceSynchronize()          the host waits for A (and for B's
//                                    kernel of iteration i-1)
//   consume<<<C(i), 128, 0, B>>>     C(i) = C0 * (1 + i % 4) CTAs
//
// Nothing waits for consume before the next produce is launched, so
// consume(i) and produce(i+1) may run together on different SMs; the
// next synchronize waits for both. One final cudaDeviceSynchronize, then
// a blocking D2H cudaMemcpy of the data for a checksum. Each thread runs
// ITERS dependent FMAs on an element of its own.
//
// Host calls are marked on stdout with lines starting "hostloop:"
// (validation/gpgpusim/hostloop/README.md); stream=1 and stream=2 are
// A and B, GPGPU-Sim's stream numbers for the first two streams created.
//
//   syncloop [ITERATIONS] [P] [C0] [ITERS]
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

// produce(i) reads iteration i-1's slice of a and writes iteration i's,
// so a consume still reading slice i-1 does not race with it.
__global__ void produce(const float *prev, float *a, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = prev[i];
  for (int k = 0; k < iters; k++) v = fmaf(v, 0.999f, 0.5f);
  a[i] = v;
}

// consume reads what produce wrote (element i mod the produce size).
__global__ void consume(const float *a, int na, float *b, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = a[i % na];
  for (int k = 0; k < iters; k++) v = fmaf(v, 0.998f, 0.25f);
  b[i] += v;
}

int main(int argc, char **argv) {
  int iterations = argc > 1 ? atoi(argv[1]) : 6;
  int p = argc > 2 ? atoi(argv[2]) : 96;
  int c0 = argc > 3 ? atoi(argv[3]) : 40;
  int iters = argc > 4 ? atoi(argv[4]) : 200;
  int na = p * 128, nb = 4 * c0 * 128;
  std::vector<float> ha((size_t)(iterations + 1) * na, 1.0f), hb(nb, 0.0f);
  float *da, *db;  // da: iterations+1 slices of na, slice 0 the input
  cudaMalloc(&da, ha.size() * sizeof(float));
  cudaMalloc(&db, nb * sizeof(float));
  copy(da, ha.data(), ha.size() * sizeof(float), cudaMemcpyHostToDevice);
  copy(db, hb.data(), nb * sizeof(float), cudaMemcpyHostToDevice);
  cudaStream_t sa, sb;
  cudaStreamCreate(&sa);
  cudaStreamCreate(&sb);
  printf("hostloop: begin syncloop iterations=%d p=%d c0=%d iters=%d\n", iterations, p, c0, iters);
  for (int i = 0; i < iterations; i++) {
    int c = c0 * (1 + i % 4);
    printf("hostloop: launch produce iter=%d grid=%d block=128 stream=1\n", i, p);
    produce<<<p, 128, 0, sa>>>(da + (size_t)i * na, da + (size_t)(i + 1) * na, iters);
    printf("hostloop: call device-sync\n");
    cudaDeviceSynchronize();
    printf("hostloop: ret device-sync\n");
    printf("hostloop: launch consume iter=%d grid=%d block=128 stream=2\n", i, c);
    consume<<<c, 128, 0, sb>>>(da + (size_t)(i + 1) * na, na, db, iters);
  }
  printf("hostloop: call device-sync\n");
  cudaDeviceSynchronize();
  printf("hostloop: ret device-sync\n");
  copy(hb.data(), db, nb * sizeof(float), cudaMemcpyDeviceToHost);
  double sum = 0;
  for (int i = 0; i < nb; i++) sum += hb[i];
  printf("syncloop iterations=%d p=%d c0=%d iters=%d sum=%.3f err=%d\n", iterations, p, c0, iters, sum, (int)cudaGetLastError());
  return 0;
}
