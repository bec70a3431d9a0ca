# Kineto captures of host loops that wait on the GPU, made with PyTorch's
# profiler on the lent GPU (gpureplay issue 72). Two programs:
#   frontier: a loop whose next launch is sized by a value read back with
#     .item() (a cudaMemcpyAsync to pageable memory and a stream sync);
#   streams:  two streams ordered by an event (record, wait_event), the host
#     waiting on the event, then on a stream, then on the device.
import sys, time, torch
from torch.profiler import profile, ProfilerActivity

dev = "cuda"
torch.backends.cuda.matmul.allow_tf32 = False
x = torch.randn(4096, 4096, device=dev)

def frontier(levels):
    c = torch.ones(1, device=dev, dtype=torch.int64)
    for i in range(levels):
        k = int(c.item())                      # the host reads the count back
        m = 256 * (1 + k)                      # and sizes the next launch by it
        y = x[:m] @ x[:m].T
        c = (y[0, :8].abs().argmax() + i * 5) % 15
    torch.cuda.synchronize()

def streams(iters):
    s1, s2 = torch.cuda.Stream(), torch.cuda.Stream()
    ev = torch.cuda.Event()
    for i in range(iters):
        with torch.cuda.stream(s1):
            a = x @ x
            ev.record(s1)
            b = x[:1024] @ x[:1024].T          # after the record: not waited for
        s2.wait_event(ev)
        with torch.cuda.stream(s2):
            d = a[: 1024 * (1 + i % 3)] @ x
        ev.synchronize()
        s2.synchronize()
    torch.cuda.synchronize()

for name, fn, arg in (("frontier", frontier, 12), ("streams", streams, 4)):
    fn(2)  # warm up: cuBLAS handles, kernels loaded
    torch.cuda.synchronize()
    # enable_cuda_sync_events: the profiler's cuda_sync events, which name
    # the stream and event each sync and wait is for.
    cfg = torch._C._profiler._ExperimentalConfig(enable_cuda_sync_events=True)
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], experimental_config=cfg) as prof:
        fn(arg)
    prof.export_chrome_trace(f"{sys.argv[1]}/{name}.json")
    print(name, "exported")
print(torch.__version__, torch.version.cuda, torch.cuda.get_device_name())
