MemcpyHtoD,0x00007f6000000000,464
kernel-3.traceg
