MemcpyHtoD,0x1000,128
kernel-9.traceg
