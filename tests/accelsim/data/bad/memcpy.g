MemcpyHtoD,0x1000
mode.traceg
