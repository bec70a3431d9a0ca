// cdpnested: a what-if pair, CDP against its flat twin, with nested
// launches. The parent has P CTAs of 128 threads; each does a little work
// of its own, then
//   cdp:  thread 0 launches one child of C CTAs x 128 threads (the CTA's
//         default stream); each child thread runs ITERS dependent FMAs on
//         its own element, and thread 0 of each child CTA launches one
//         grandchild of 1 CTA x 128 threads doing the same on elements of
//         its own;
//   flat: the parent CTA does the children's and grandchildren's work
//         itself, each parent thread looping over the 2*C threads it
//         stands for.
//
//   cdpnested cdp|flat [P] [C] [ITERS]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

__device__ __forceinline__ void body(float *data, int i, int iters) {
  float v = data[i];
  for (int k = 0; k < iters; k++) v = fmaf(v, 0.999f, 0.5f);
  data[i] = v;
}

__global__ void grandchild(float *data, int base, int iters) {
  body(data, base + threadIdx.x, iters);
}

// A child covers C*128 elements at base; its grandchildren cover the next
// C*128 (one CTA of 128 each).
__global__ void child(float *data, int base, int iters) {
  body(data, base + blockIdx.x * blockDim.x + threadIdx.x, iters);
  if (threadIdx.x == 0) grandchild<<<1, 128>>>(data, base + gridDim.x * 128 + blockIdx.x * 128, iters);
}

__global__ void parent(float *data, int flat, int c, int iters) {
  int base = blockIdx.x * 2 * c * 128;
  float acc = 0;
  for (int k = 0; k < 8; k++) acc += data[(base + threadIdx.x * 7 + k) % (gridDim.x * 2 * c * 128)];
  __syncthreads();
  if (flat) {
    for (int j = 0; j < 2 * c; j++) body(data, base + j * 128 + threadIdx.x, iters);
  } else if (threadIdx.x == 0) {
    child<<<c, 128>>>(data, base, iters);
  }
  if (acc == -1.0f) data[0] = acc;
}

int main(int argc, char **argv) {
  if (argc < 2 || (strcmp(argv[1], "cdp") && strcmp(argv[1], "flat"))) {
    fprintf(stderr, "usage: cdpnested cdp|flat [P] [C] [ITERS]\n");
    return 2;
  }
  int flat = !strcmp(argv[1], "flat");
  int p = argc > 2 ? atoi(argv[2]) : 16;
  int c = argc > 3 ? atoi(argv[3]) : 2;
  int iters = argc > 4 ? atoi(argv[4]) : 300;
  int n = p * 2 * c * 128;
  float *h = (float *)malloc(n * sizeof(float)), *d;
  for (int i = 0; i < n; i++) h[i] = 1.0f;
  cudaMalloc(&d, n * sizeof(float));
  cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice);
  parent<<<p, 128>>>(d, flat, c, iters);
  cudaDeviceSynchronize();
  cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost);
  double sum = 0;
  for (int i = 0; i < n; i++) sum += h[i];
  printf("cdpnested mode=%s p=%d c=%d iters=%d sum=%.3f err=%d\n", argv[1], p, c, iters, sum,
         (int)cudaGetLastError());
  return 0;
}
