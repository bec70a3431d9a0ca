MemcpyHtoD,0x00007f3000000000,2048
kernel-1.traceg
