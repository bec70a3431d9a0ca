MemcpyHtoD,0x00007f1000000000,512
kernel-1.traceg
