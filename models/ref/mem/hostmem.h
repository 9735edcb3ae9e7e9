/* hostmem: presets of the host-memory device (memory kind HOST, addrmap.h
 * AMAP_MEM_HOST): the CPU memory a GPU reaches over a host link (PCIe,
 * NVLink; link.h) under Unified Memory, and the SystemC device model
 * models/host/host_mem.h serves.
 *
 * The device is a bandwidth + latency service: one data path that requests
 * use one after another (bytes / bytes_per_s each, a link_chan without
 * headers), each answered latency_ps after its data has passed. Capacity is
 * the platform's choice (the host's memory size), not a preset's.
 */
#ifndef STRATA_HOSTMEM_H
#define STRATA_HOSTMEM_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hostmem_preset {
  const char *name;     /* lookup key, e.g. "hms_cpu" */
  const char *desc;     /* one line */
  uint64_t bytes_per_s; /* data bandwidth, reads and writes together */
  uint64_t latency_ps;  /* data passed -> response */
} hostmem_preset;

/* Find a preset by exact name (NULL when unknown); the table by index (NULL
 * when i >= count); comma-separated names (static string). */
const hostmem_preset *hostmem_find(const char *name);
size_t hostmem_count(void);
const hostmem_preset *hostmem_at(size_t i);
const char *hostmem_names(void);

#ifdef __cplusplus
}
#endif
#endif
