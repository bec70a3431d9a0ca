// cdpqueue: device kernels queued in their CTA's default stream, with
// parents of unequal length and children of varying sizes (issue 74).
// The parent has P CTAs of 64 threads (2 warps). CTA b first runs a
// loop of its own whose length grows with b % 4, then lane 0 of each
// warp w launches child<<<b % 3 + 1, 64>>> with no stream argument, so
// both children go into the CTA's default stream and run one after the
// other; each child thread runs ITERS * (w + 1) + 10 * b dependent FMAs.
//
//   cdpqueue [P] [ITERS] [PARENT]
//   P      parent CTAs (default 8, at most 64)
//   ITERS  the child's FMA chain per launching warp (default 60)
//   PARENT the parent's own FMA chain per b % 4 step (default 150)
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void child(float *data, int base, int iters) {
  int i = base + blockIdx.x * blockDim.x + threadIdx.x;
  float v = data[i];
  for (int k = 0; k < iters; k++) v = fmaf(v, 0.999f, 0.5f);
  data[i] = v;
}

__global__ void parent(float *data, int iters, int own) {
  int b = blockIdx.x, warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  float acc = data[b * 64 + threadIdx.x];
  int n = own * (b % 4) + 8;
  for (int k = 0; k < n; k++) acc = fmaf(acc, 0.999f, 0.25f);
  data[b * 64 + threadIdx.x] = acc;
  if (lane == 0) {
    int g = b % 3 + 1;
    int base = gridDim.x * 64 + (b * 2 + warp) * 3 * 64;
    child<<<g, 64>>>(data, base, iters * (warp + 1) + 10 * b);
  }
}

int main(int argc, char **argv) {
  int p = argc > 1 ? atoi(argv[1]) : 8;
  int iters = argc > 2 ? atoi(argv[2]) : 60;
  int own = argc > 3 ? atoi(argv[3]) : 150;
  if (p < 1 || p > 64 || iters < 1 || own < 0) {
    fprintf(stderr, "usage: cdpqueue [parents 1-64] [iters >= 1] [parent iters >= 0]\n");
    return 2;
  }
  int n = p * 64 + p * 2 * 3 * 64;
  float *h = (float *)malloc(n * sizeof(float)), *d;
  for (int i = 0; i < n; i++) h[i] = 1.0f;
  cudaMalloc(&d, n * sizeof(float));
  cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice);
  parent<<<p, 64>>>(d, iters, own);
  cudaDeviceSynchronize();
  cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost);
  double sum = 0;
  for (int i = 0; i < n; i++) sum += h[i];
  printf("cdpqueue parents=%d iters=%d own=%d sum=%.3f err=%d\n", p, iters, own, sum, (int)cudaGetLastError());
  return 0;
}
