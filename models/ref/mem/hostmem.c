/* hostmem: the host-memory preset table; see hostmem.h. */
#include "hostmem.h"

#include <stdio.h>
#include <string.h>

static const hostmem_preset k_hosts[] = {
    /* HMS (hms-dram-cache-over-scm.txt) Table I, "Unified Memory-related
     * latency and BW": NVLink "Latency for CPU memory access (cacheline
     * size): 0.135 us", "CPU memory BW of 46.6 GB/s" (the Grace Hopper ratio
     * of CPU memory to NVLink bandwidth, Sec. IV-A). The 0.135 us is the whole
     * access as the GPU sees it; the host link presets (link.c pcie_hms,
     * nvlink_hms) add only their serialisation. Table I gives no PCIe access
     * latency (a page fault costs 20 us there, the Unified Memory model's
     * part); the PCIe baselines use the same device. */
    {"hms_cpu", "host CPU memory of the HMS baselines: 46.6 GB/s, 135 ns per access (HMS Table I)",
     46600000000ull, 135000ull},
};
#define N_HOSTS (sizeof k_hosts / sizeof k_hosts[0])

size_t hostmem_count(void) { return N_HOSTS; }

const hostmem_preset *hostmem_at(size_t i) { return i < N_HOSTS ? &k_hosts[i] : NULL; }

const hostmem_preset *hostmem_find(const char *name) {
  if (!name) return NULL;
  for (size_t i = 0; i < N_HOSTS; ++i)
    if (strcmp(k_hosts[i].name, name) == 0) return &k_hosts[i];
  return NULL;
}

const char *hostmem_names(void) {
  static char buf[128]; /* built once from the constant table */
  if (!buf[0]) {
    size_t n = 0;
    for (size_t i = 0; i < N_HOSTS && n + 1 < sizeof buf; ++i) {
      int w = snprintf(buf + n, sizeof buf - n, "%s%s", i ? ", " : "", k_hosts[i].name);
      if (w < 0) break;
      n += (size_t)w;
    }
  }
  return buf;
}
