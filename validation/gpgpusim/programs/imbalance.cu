// imbalance: CTA i runs (i % 8 + 1) rounds of a dependent FMA loop, so CTAs
// of one kernel last from 1x to 8x the shortest; two kernels in a row on
// one stream, the second with half the rounds, test stream order.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void imbalance(float *out, int iters) {
  int rounds = blockIdx.x % 8 + 1;
  float x = threadIdx.x * 0.001f, y = 1.0f;
  for (int r = 0; r < rounds; r++)
    for (int k = 0; k < iters; k++) y = y * 0.999f + x;
  out[blockIdx.x * blockDim.x + threadIdx.x] = y;
}

int main(int argc, char **argv) {
  int ctas = argc > 1 ? atoi(argv[1]) : 240;
  int iters = argc > 2 ? atoi(argv[2]) : 64;
  float *d;
  cudaMalloc(&d, ctas * 128 * sizeof(float));
  imbalance<<<ctas, 128>>>(d, iters);
  imbalance<<<ctas, 128>>>(d, iters / 2);
  cudaDeviceSynchronize();
  float h;
  cudaMemcpy(&h, d, sizeof(float), cudaMemcpyDeviceToHost);
  printf("imbalance ctas=%d iters=%d out0=%f\n", ctas, iters, h);
  return 0;
}
