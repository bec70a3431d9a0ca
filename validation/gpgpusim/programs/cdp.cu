// cdp: dynamic parallelism. Each CTA of the parent kernel sums the
// degrees of its rows; thread 0 then launches one child kernel whose size
// depends on the CTA (1 to 8 CTAs of 128 threads), each child CTA scaling
// its slice of the data. One launch per parent CTA on the CTA's default
// stream, so no child waits for a sibling.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void child(float *data, int base, int n) {
  int i = base + blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = data[i];
    for (int k = 0; k < 16; k++) v = v * 0.5f + 1.0f;
    data[i] = v;
  }
}

__global__ void parent(float *data, int n, int per) {
  __shared__ float s[64];
  float acc = 0;
  for (int k = 0; k < 8 * (blockIdx.x % 4 + 1); k++) acc += data[(blockIdx.x * 64 + threadIdx.x + k) % n];
  s[threadIdx.x] = acc;
  __syncthreads();
  if (threadIdx.x == 0) {
    int kids = blockIdx.x % 8 + 1;
    child<<<kids, 128>>>(data, blockIdx.x * per, n);
  }
}

int main(int argc, char **argv) {
  int ctas = argc > 1 ? atoi(argv[1]) : 64;
  int per = 8 * 128;
  int n = ctas * per;
  float *h = (float *)malloc(n * sizeof(float)), *d;
  for (int i = 0; i < n; i++) h[i] = 1.0f;
  cudaMalloc(&d, n * sizeof(float));
  cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice);
  parent<<<ctas, 64>>>(d, n, per);
  cudaDeviceSynchronize();
  cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost);
  int touched = 0;
  for (int i = 0; i < n; i++) touched += h[i] != 1.0f;
  printf("cdp ctas=%d touched=%d\n", ctas, touched);
  return 0;
}
