// contention: one kernel of CTAS CTAs x THREADS threads with a mixed
// compute and memory body, for the contention what-if pairs
// (validation/gpgpusim/whatif). Each iteration a thread loads one float
// (coalesced across the warp; consecutive iterations STRIDE floats apart,
// so no reuse), runs FMAS dependent FMAs on it, and every fourth
// iteration stores its running value (coalesced, strided like the loads).
// The CTAs resident per SM are set from outside (-gpgpu_shader_cta N), so
// the same program runs at several occupancies.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

template <int FMAS>
__global__ void mixed(const float *in, float *out, int iters, size_t stride) {
  size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  const float *p = in + tid;
  float *q = out + tid;
  float y = threadIdx.x * 0.001f, acc = 0;
  for (int k = 0; k < iters; k++) {
    float v = p[(size_t)k * stride];
#pragma unroll
    for (int j = 0; j < FMAS; j++) y = y * 0.999f + v;
    acc += y;
    if ((k & 3) == 3) q[(size_t)(k >> 2) * stride] = acc;
  }
  q[(size_t)(iters >> 2) * stride] = acc;
}

int main(int argc, char **argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: contention THREADS CTAS ITERS FMAS(4|16)\n");
    return 2;
  }
  int threads = atoi(argv[1]), ctas = atoi(argv[2]), iters = atoi(argv[3]), fmas = atoi(argv[4]);
  size_t n = (size_t)threads * ctas;
  float *in, *out;
  cudaMalloc(&in, n * iters * sizeof(float));
  cudaMalloc(&out, n * (iters / 4 + 1) * sizeof(float));
  if (fmas == 4)
    mixed<4><<<ctas, threads>>>(in, out, iters, n);
  else
    mixed<16><<<ctas, threads>>>(in, out, iters, n);
  cudaDeviceSynchronize();
  printf("contention threads=%d ctas=%d iters=%d fmas=%d err=%d\n", threads, ctas, iters, fmas, (int)cudaGetLastError());
  return 0;
}
