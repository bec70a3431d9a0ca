// streams: host-side concurrency. S streams (cudaStreamCreate), each
// given K small kernels back to back (B CTAs of 128 threads, ITERS
// dependent FMAs per thread), all launched before one
// cudaDeviceSynchronize. Kernels of one stream run in order; kernels of
// different streams may overlap, and whether they share an SM depends on
// the GPU (GPGPU-Sim's -gpgpu_concurrent_kernel_sm).
//
//   streams [S] [K] [B] [ITERS]
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void work(float *data, int base, int iters) {
  int i = base + blockIdx.x * blockDim.x + threadIdx.x;
  float v = data[i];
  for (int k = 0; k < iters; k++) v = fmaf(v, 0.999f, 0.5f);
  data[i] = v;
}

int main(int argc, char **argv) {
  int s = argc > 1 ? atoi(argv[1]) : 4;
  int k = argc > 2 ? atoi(argv[2]) : 4;
  int b = argc > 3 ? atoi(argv[3]) : 16;
  int iters = argc > 4 ? atoi(argv[4]) : 300;
  int n = s * b * 128;
  float *h = (float *)malloc(n * sizeof(float)), *d;
  for (int i = 0; i < n; i++) h[i] = 1.0f;
  cudaMalloc(&d, n * sizeof(float));
  cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice);
  cudaStream_t *st = (cudaStream_t *)malloc(s * sizeof(cudaStream_t));
  for (int j = 0; j < s; j++) cudaStreamCreate(&st[j]);
  for (int r = 0; r < k; r++)
    for (int j = 0; j < s; j++) work<<<b, 128, 0, st[j]>>>(d, j * b * 128, iters);
  cudaDeviceSynchronize();
  cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost);
  double sum = 0;
  for (int i = 0; i < n; i++) sum += h[i];
  printf("streams s=%d k=%d b=%d iters=%d sum=%.3f err=%d\n", s, k, b, iters, sum, (int)cudaGetLastError());
  return 0;
}
