MemcpyHtoD,0x00007f7000000000,256
MemcpyHtoD,0x00007f7000100000,16384
kernel-1.traceg
kernel-2.traceg
