// cdpbalanced: a what-if pair, CDP against its flat twin. The parent has
// P CTAs of 128 threads; each does a little work of its own, then
//   cdp:  thread 0 launches one child of C CTAs x 128 threads (the CTA's
//         default stream), every child thread running ITERS dependent FMAs
//         on its own element;
//   flat: the parent CTA does the same work itself, each parent thread
//         looping over the C child threads it stands for.
// Every CTA's children are the same size (balanced).
//
//   cdpbalanced cdp|flat [P] [C] [ITERS]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

__device__ __forceinline__ void body(float *data, int i, int iters) {
  float v = data[i];
  for (int k = 0; k < iters; k++) v = fmaf(v, 0.999f, 0.5f);
  data[i] = v;
}

__global__ void child(float *data, int base, int iters) {
  body(data, base + blockIdx.x * blockDim.x + threadIdx.x, iters);
}

__global__ void parent(float *data, int flat, int c, int iters) {
  int base = blockIdx.x * c * 128;
  float acc = 0;
  for (int k = 0; k < 8; k++) acc += data[(base + threadIdx.x * 7 + k) % (gridDim.x * c * 128)];
  __syncthreads();
  if (flat) {
    for (int j = 0; j < c; j++) body(data, base + j * 128 + threadIdx.x, iters);
  } else if (threadIdx.x == 0) {
    child<<<c, 128>>>(data, base, iters);
  }
  if (acc == -1.0f) data[0] = acc;
}

int main(int argc, char **argv) {
  if (argc < 2 || (strcmp(argv[1], "cdp") && strcmp(argv[1], "flat"))) {
    fprintf(stderr, "usage: cdpbalanced cdp|flat [P] [C] [ITERS]\n");
    return 2;
  }
  int flat = !strcmp(argv[1], "flat");
  int p = argc > 2 ? atoi(argv[2]) : 32;
  int c = argc > 3 ? atoi(argv[3]) : 4;
  int iters = argc > 4 ? atoi(argv[4]) : 300;
  int n = p * c * 128;
  float *h = (float *)malloc(n * sizeof(float)), *d;
  for (int i = 0; i < n; i++) h[i] = 1.0f;
  cudaMalloc(&d, n * sizeof(float));
  cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice);
  parent<<<p, 128>>>(d, flat, c, iters);
  cudaDeviceSynchronize();
  cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost);
  double sum = 0;
  for (int i = 0; i < n; i++) sum += h[i];
  printf("cdpbalanced mode=%s p=%d c=%d iters=%d sum=%.3f err=%d\n", argv[1], p, c, iters, sum,
         (int)cudaGetLastError());
  return 0;
}
