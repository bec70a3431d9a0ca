// eventstreams: two streams ordered by an event, and the host waiting on
// the event and then on a stream. Streams A and B come from
// cudaStreamCreate, the event from cudaEventCreate. Iteration i:
//
//   first<<<P, 128, 0, A>>>        writes x_i
//   cudaEventRecord(ev, A)         ev: A's work so far (first)
//   cudaStreamWaitEvent(B, ev)     B's next kernel waits for first
//   second<<<Q(i), 128, 0, B>>>    reads x_i; Q(i) = Q0 * (1 + i % 3)
//   third<<<R, 128, 0, A>>>        A's work after the record: runs
//                                  alongside second, not waited for by ev
//   cudaEventSynchronize(ev)       the host waits for first only
//   cudaStreamSynchronize(B)       then for second
//
// In mode "poll" the host waits by polling instead: cudaEventQuery(ev)
// until it is not cudaErrorNotReady, then cudaStreamQuery(B) likewise,
// sleeping 1 ms between polls. The waits mean the same; the mode exists
// because GPGPU-Sim 4.2 (667834cf) built with g++-11 -O3 does not wait in
// either call of mode "sync": cudaEventSynchronize's busy loop
// `while (!e->done());` has no side effect and is compiled away, and
// cudaStreamSynchronize returns at once for a stream other than the NULL
// stream (validation/gpgpusim/hostloop/README.md).
//
// Then, after the loop, cudaDeviceSynchronize and a blocking D2H
// cudaMemcpy for a checksum. Each iteration has slices of its own, so no
// kernel reads what a later one writes (the checksum does not depend on
// how the streams interleave). Each thread runs ITERS dependent FMAs.
//
// Host calls are marked on stdout with lines starting "hostloop:"
// (validation/gpgpusim/hostloop/README.md); stream=1 and stream=2 are
// A and B (GPGPU-Sim's stream numbers), event=1 is ev (GPGPU-Sim numbers
// events from 1 in creation order).
//
//   eventstreams [ITERATIONS] [P] [Q0] [R] [ITERS] [sync|poll]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include <vector>
#include <cuda_runtime.h>

// copy: a blocking cudaMemcpy between "hostloop:" markers.
static void copy(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind) {
  const char *dir = kind == cudaMemcpyHostToDevice ? "h2d" : "d2h";
  printf("hostloop: call memcpy dir=%s bytes=%zu stream=0 blocking=1\n", dir, bytes);
  cudaMemcpy(dst, src, bytes, kind);
  printf("hostloop: ret memcpy dir=%s\n", dir);
}

__global__ void first(float *x, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = x[i] + 1.0f;
  for (int k = 0; k < iters; k++) v = fmaf(v, 0.999f, 0.5f);
  x[i] = v;
}

__global__ void second(const float *x, int nx, float *y, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = x[i % nx];
  for (int k = 0; k < iters; k++) v = fmaf(v, 0.998f, 0.25f);
  y[i] = v;
}

__global__ void third(float *z, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = z[i] + 2.0f;
  for (int k = 0; k < iters; k++) v = fmaf(v, 0.997f, 0.125f);
  z[i] = v;
}

int main(int argc, char **argv) {
  int iterations = argc > 1 ? atoi(argv[1]) : 4;
  int p = argc > 2 ? atoi(argv[2]) : 64;
  int q0 = argc > 3 ? atoi(argv[3]) : 48;
  int r = argc > 4 ? atoi(argv[4]) : 64;
  int iters = argc > 5 ? atoi(argv[5]) : 200;
  bool poll = argc > 6 && strcmp(argv[6], "poll") == 0;
  size_t nx = (size_t)p * 128, ny = (size_t)3 * q0 * 128, nz = (size_t)r * 128;
  size_t n = iterations * (nx + ny + nz);
  std::vector<float> h(n, 0.0f);
  float *d;
  cudaMalloc(&d, n * sizeof(float));
  copy(d, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  float *dx = d, *dy = d + iterations * nx, *dz = dy + iterations * ny;
  cudaStream_t sa, sb;
  cudaStreamCreate(&sa);
  cudaStreamCreate(&sb);
  cudaEvent_t ev;
  cudaEventCreate(&ev);
  printf("hostloop: begin eventstreams iterations=%d p=%d q0=%d r=%d iters=%d\n", iterations, p, q0, r, iters);
  for (int i = 0; i < iterations; i++) {
    int q = q0 * (1 + i % 3);
    printf("hostloop: launch first iter=%d grid=%d block=128 stream=1\n", i, p);
    first<<<p, 128, 0, sa>>>(dx + i * nx, iters);
    printf("hostloop: record event=1 stream=1\n");
    cudaEventRecord(ev, sa);
    printf("hostloop: wait stream=2 event=1\n");
    cudaStreamWaitEvent(sb, ev, 0);
    printf("hostloop: launch second iter=%d grid=%d block=128 stream=2\n", i, q);
    second<<<q, 128, 0, sb>>>(dx + i * nx, (int)nx, dy + i * ny, iters);
    printf("hostloop: launch third iter=%d grid=%d block=128 stream=1\n", i, r);
    third<<<r, 128, 0, sa>>>(dz + i * nz, iters);
    printf("hostloop: call event-sync event=1\n");
    if (!poll) {
      cudaEventSynchronize(ev);
      printf("hostloop: ret event-sync event=1\n");
    } else {
      int polls = 1;
      for (; cudaEventQuery(ev) == cudaErrorNotReady; polls++) usleep(1000);
      printf("hostloop: ret event-sync event=1 polls=%d\n", polls);
    }
    printf("hostloop: call stream-sync stream=2\n");
    if (!poll) {
      cudaStreamSynchronize(sb);
      printf("hostloop: ret stream-sync stream=2\n");
    } else {
      int polls = 1;
      for (; cudaStreamQuery(sb) == cudaErrorNotReady; polls++) usleep(1000);
      printf("hostloop: ret stream-sync stream=2 polls=%d\n", polls);
    }
  }
  printf("hostloop: call device-sync\n");
  cudaDeviceSynchronize();
  printf("hostloop: ret device-sync\n");
  copy(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost);
  double sum = 0;
  for (size_t i = 0; i < n; i++) sum += h[i];
  int cerr = (int)cudaGetLastError();
  printf("eventstreams iterations=%d p=%d q0=%d r=%d iters=%d mode=%s sum=%.3f err=%d\n", iterations, p, q0, r, iters, poll ? "poll" : "sync", sum, cerr);
  return 0;
}
