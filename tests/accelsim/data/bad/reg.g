MemcpyHtoD,0x1000,128
reg.traceg
