// cdpstreams: which device stream a child goes into. The parent has 6
// CTAs of 128 threads (4 warps); in each of the first W warps (W = 2 by
// default, up to 4) lane 0 launches one child of G CTAs of 64 threads.
// Each child thread runs a dependent chain of FMAs (ITERS of them), a
// few thousand cycles per child CTA.
//
//   cdpstreams MODE [W] [G] [ITERS]
//   MODE default: no stream argument, so the launch goes into the CTA's
//                 default (NULL) stream and the CTA's children run one
//                 after another, in launch order;
//        created: each launching thread creates its own stream with
//                 cudaStreamCreateWithFlags(cudaStreamNonBlocking) and
//                 launches into it, so the children can overlap;
//        percta:  warp 0 lane 0 creates one stream, shared through
//                 __shared__ after __syncthreads(), and every launch of
//                 the CTA goes into it (in order again, but not the
//                 default stream).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

__global__ void child(float *data, int base, int iters) {
  int i = base + blockIdx.x * blockDim.x + threadIdx.x;
  float v = data[i];
  for (int k = 0; k < iters; k++) v = fmaf(v, 0.999f, 0.5f);
  data[i] = v;
}

__global__ void parent(float *data, int mode, int launchers, int g, int iters) {
  __shared__ cudaStream_t shared_stream;
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  // A little work of the parent's own before the launches.
  float acc = 0;
  for (int k = 0; k < 16; k++) acc += data[(blockIdx.x * 128 + threadIdx.x + k * 7) % (6 * 128)];
  data[blockIdx.x * 128 + threadIdx.x] = acc;
  if (mode == 2) {
    // Created into a local variable, then shared: GPGPU-Sim's
    // cudaStreamCreateWithFlags takes pStream in local memory only.
    if (threadIdx.x == 0) {
      cudaStream_t s;
      cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
      shared_stream = s;
    }
    __syncthreads();
  }
  if (warp < launchers && lane == 0) {
    int base = 6 * 128 + (blockIdx.x * 4 + warp) * g * 64;
    if (mode == 0) {
      child<<<g, 64>>>(data, base, iters);
    } else if (mode == 1) {
      cudaStream_t s;
      cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
      child<<<g, 64, 0, s>>>(data, base, iters);
    } else {
      child<<<g, 64, 0, shared_stream>>>(data, base, iters);
    }
  }
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: cdpstreams default|created|percta [warps 1-4] [child CTAs] [iters]\n");
    return 2;
  }
  int mode;
  if (!strcmp(argv[1], "default")) mode = 0;
  else if (!strcmp(argv[1], "created")) mode = 1;
  else if (!strcmp(argv[1], "percta")) mode = 2;
  else {
    fprintf(stderr, "cdpstreams: bad mode %s\n", argv[1]);
    return 2;
  }
  int launchers = argc > 2 ? atoi(argv[2]) : 2;
  int g = argc > 3 ? atoi(argv[3]) : 3;
  int iters = argc > 4 ? atoi(argv[4]) : 400;
  if (launchers < 1 || launchers > 4 || g < 1) {
    fprintf(stderr, "cdpstreams: need 1-4 warps and at least 1 child CTA\n");
    return 2;
  }
  int n = 6 * 128 + 6 * 4 * g * 64;
  float *h = (float *)malloc(n * sizeof(float)), *d;
  for (int i = 0; i < n; i++) h[i] = 1.0f;
  cudaMalloc(&d, n * sizeof(float));
  cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice);
  parent<<<6, 128>>>(d, mode, launchers, g, iters);
  cudaDeviceSynchronize();
  cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost);
  double sum = 0;
  for (int i = 6 * 128; i < n; i++) sum += h[i];
  printf("cdpstreams mode=%s warps=%d g=%d iters=%d sum=%.3f err=%d\n", argv[1], launchers, g, iters, sum,
         (int)cudaGetLastError());
  return 0;
}
