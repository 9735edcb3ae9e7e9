# a 1 TiB host-to-device copy (issue 14): rejected at this file:line, not allocated
MemcpyHtoD,0x1000,1099511627776
kernel-1.traceg
