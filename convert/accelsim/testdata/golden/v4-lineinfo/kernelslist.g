MemcpyHtoD,0x00007f5000000000,512
kernel-7.traceg
