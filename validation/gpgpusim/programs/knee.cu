// knee: one kernel of a fixed CTA shape (64 threads) at k CTAs per SM:
// grid = sms * k, so the round-robin CTA scheduler puts k on each SM.
// mode 0 is compute-bound (a dependent FMA chain in registers); mode 1 is
// memory-bound (each thread streams its own slice of a large array with
// coalesced loads, no reuse).
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void compute(float *out, int iters) {
  float x = threadIdx.x * 0.001f, y = 1.0f, z = 2.0f;
  for (int k = 0; k < iters; k++) { y = y * 0.999f + x; z = z * 0.998f + y; }
  out[blockIdx.x * blockDim.x + threadIdx.x] = y + z;
}

__global__ void memory(const float *in, float *out, int iters, int stride) {
  const float *p = in + blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0;
  for (int k = 0; k < iters; k++) acc += p[(size_t)k * stride];
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

int main(int argc, char **argv) {
  int mode = atoi(argv[1]), sms = atoi(argv[2]), k = atoi(argv[3]), iters = atoi(argv[4]);
  int ctas = sms * k, threads = ctas * 64;
  float *out, *in = 0;
  cudaMalloc(&out, threads * sizeof(float));
  if (mode == 0) {
    compute<<<ctas, 64>>>(out, iters);
  } else {
    cudaMalloc(&in, (size_t)threads * iters * sizeof(float));
    memory<<<ctas, 64>>>(in, out, iters, threads);
  }
  cudaDeviceSynchronize();
  printf("knee mode=%d sms=%d k=%d iters=%d err=%d\n", mode, sms, k, iters, (int)cudaGetLastError());
  return 0;
}
