MemcpyHtoD,0x00007f4000000000,16384
kernel-1.traceg
