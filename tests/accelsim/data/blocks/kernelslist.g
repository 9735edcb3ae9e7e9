MemcpyHtoD,0x0000000000010000,8192
kernel-1.traceg
