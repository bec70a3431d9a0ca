// cdpmulti: dynamic parallelism with every shape of launch site. Each
// parent CTA has 128 threads (4 warps); in warps 0 and 2, lanes 0-3 each
// create a stream and launch a child of (lane + 1) CTAs, so one warp-level
// site launches four children at once. Each child's CTA 0 thread 0
// launches one grandchild of 2 CTAs when depth allows (nesting).
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void work(float *data, int base, int n, int depth) {
  int i = base + blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = data[i];
    for (int k = 0; k < 24; k++) v = v * 0.5f + 1.0f;
    data[i] = v;
  }
  if (depth > 0 && blockIdx.x == 0 && threadIdx.x == 0) {
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    work<<<2, 64, 0, s>>>(data, base, n, depth - 1);
  }
}

__global__ void parent(float *data, int n, int per) {
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  float acc = 0;
  for (int k = 0; k < 4 * (warp + 1); k++) acc += data[(blockIdx.x * 128 + threadIdx.x + k) % n];
  data[(blockIdx.x * 128 + threadIdx.x) % n] = acc;
  if ((warp == 0 || warp == 2) && lane < 4) {
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    work<<<lane + 1, 64, 0, s>>>(data, blockIdx.x * per + (warp * 4 + lane) * 320, n, warp == 0 ? 1 : 0);
  }
}

int main(int argc, char **argv) {
  int ctas = argc > 1 ? atoi(argv[1]) : 32;
  int per = 8 * 320;
  int n = ctas * per;
  float *h = (float *)malloc(n * sizeof(float)), *d;
  for (int i = 0; i < n; i++) h[i] = 1.0f;
  cudaMalloc(&d, n * sizeof(float));
  cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice);
  parent<<<ctas, 128>>>(d, n, per);
  cudaDeviceSynchronize();
  cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost);
  printf("cdpmulti ctas=%d err=%d\n", ctas, (int)cudaGetLastError());
  return 0;
}
