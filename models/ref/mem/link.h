/* link: timing, energy and busy monitor of one direction of a point-to-point
 * link (GPU to memory stack, stack to stack, GPU to host over PCIe/NVLink),
 * the C reference behind the SystemC module models/link/tlm_link.h.
 *
 * A link is a pair of unidirectional channels, each with its own bandwidth
 * (TOM, tom-ndp-offload-and-mapping.txt Sec. 3.1.1 / Fig. 1: "unidirectional
 * high speed links similar to the Hybrid Memory Cube": TX from the GPU to the
 * stack, RX back; Table 1: 80 GB/s per GPU-stack link, 40 GB/s per
 * stack-stack link). One `link_chan` models one direction (the
 * type is not called `link`: POSIX has a function of that name):
 *
 *  - Packets. A transfer of D data bytes is split into packets of at most
 *    max_payload_bytes (0: one packet); every packet carries header_bytes of
 *    header, tail and CRC and is padded to whole flits of flit_bytes (HMC-style
 *    16 B flits; 0 or 1: no padding). A transfer without data (a read request,
 *    a write acknowledgement) is one header-only packet.
 *  - Serialisation. The wire is one FIFO resource: a transfer sent at time t
 *    starts at max(t, the end of the previous one) and holds the wire for
 *    ceil(wire_bytes x 1e12 / bytes_per_s) ps; its last bit reaches the
 *    receiver latency_ps after it left (flight time + SerDes). Rounding is per
 *    transfer, up to the next picosecond.
 *  - Energy (TOM Sec. 5.1: "the off-chip link consumes 2 pJ/bit for packet
 *    transfer, and 1.5 pJ/bit/cycle when it is idle"; HMS Sec. IV-A: 8 pJ/bit
 *    for PCIe or NVLink): traffic_pj_per_bit for every bit put on the wire
 *    (headers and padding included, counted when the transfer is sent), and
 *    idle_pj_per_bit for every bit time the wire is idle (idle time x
 *    bandwidth in bits: the lanes keep toggling training patterns).
 *  - Busy monitor (TOM Sec. 4.1 "Channel Busy Monitor": the utilisation of
 *    each TX/RX channel against a threshold): the busy fraction of the last
 *    window_ps, computed at query time from counters. The window is cut into
 *    LINK_WINDOW_SLOTS slots; the busy time up to each slot boundary is
 *    recorded when a transfer is sent (nothing runs between transfers), so a
 *    query reads the busy time between the oldest boundary inside the window
 *    and now: a window between window_ps x (1 - 1/LINK_WINDOW_SLOTS) and
 *    window_ps long (shorter at the start of the run).
 *
 * Times are picoseconds since 0. Calls must come with non-decreasing times.
 * No allocation, no printing, no globals.
 */
#ifndef STRATA_LINK_H
#define STRATA_LINK_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LINK_WINDOW_SLOTS 16
#define LINK_MIN_BYTES_PER_S 1000000ull       /* 1 MB/s */
#define LINK_MAX_BYTES_PER_S 10000000000000ull /* 10 TB/s */
#define LINK_MAX_TRANSFER_BYTES (1ull << 40)   /* one transfer's data */
#define LINK_ERR UINT64_MAX

typedef struct link_cfg {
  uint64_t bytes_per_s;       /* wire bandwidth of this direction (LINK_MIN.. LINK_MAX_BYTES_PER_S) */
  uint64_t latency_ps;        /* last bit sent -> last bit at the receiver (flight + SerDes) */
  uint32_t header_bytes;      /* per packet: header + tail + CRC */
  uint32_t flit_bytes;        /* packets are padded to whole flits (0 or 1: byte granularity) */
  uint32_t max_payload_bytes; /* data bytes per packet; larger transfers are split (0: no limit) */
  double traffic_pj_per_bit;  /* energy per bit on the wire */
  double idle_pj_per_bit;     /* energy per bit time the wire is idle */
  uint64_t window_ps;         /* busy-monitor window: a multiple of LINK_WINDOW_SLOTS ps, > 0 */
} link_cfg;

typedef struct link_stats {
  uint64_t transfers;  /* link_send calls */
  uint64_t packets;    /* packets of them */
  uint64_t data_bytes; /* their data */
  uint64_t wire_bytes; /* their bytes on the wire: data + headers + flit padding */
  uint64_t busy_ps;    /* wire time of all transfers sent (also the part still ahead of now) */
} link_stats;

typedef struct link_chan {
  link_cfg cfg;
  uint64_t slot_ps;  /* window_ps / LINK_WINDOW_SLOTS */
  uint64_t free_ps;  /* the wire is free from here on (end of the last transfer) */
  uint64_t last_ps;  /* time of the last link_send */
  link_stats st;
  /* Busy time up to slot boundary b (time b x slot_ps) at index b % (SLOTS + 1),
   * for the boundaries up to hist_last (the last one at or before last_ps). */
  uint64_t hist[LINK_WINDOW_SLOTS + 1];
  uint64_t hist_last;
} link_chan;

/* Link presets (link.c: every number with its source). */
typedef struct link_preset {
  const char *name; /* lookup key, e.g. "pcie_hms" */
  const char *desc; /* one line */
  link_cfg cfg;     /* each direction alike */
} link_preset;
/* Find a preset by exact name (NULL when unknown); the table by index (NULL
 * when i >= count); comma-separated names for error messages (static string). */
const link_preset *link_find(const char *name);
size_t link_preset_count(void);
const link_preset *link_preset_at(size_t i);
const char *link_preset_names(void);

/* Bytes per second of `lanes` lanes of gbps_per_lane Gb/s each (PCIe: 16
 * lanes x 16 Gb/s; encoding overhead is the caller's: pass the data rate),
 * rounded to the nearest byte per second; 0 for a non-positive product. */
uint64_t link_lanes_bytes_per_s(uint32_t lanes, double gbps_per_lane);

/* Validate cfg and reset *l (idle wire, time 0, counters 0). Returns 0, or -1
 * with a one-line reason in err (l untouched). */
int link_init(link_chan *l, const link_cfg *cfg, char *err, size_t errlen);

/* Packets and wire bytes of a transfer of data_bytes (no state change). */
uint64_t link_packets(const link_chan *l, uint64_t data_bytes);
uint64_t link_wire_bytes(const link_chan *l, uint64_t data_bytes);
/* Wire time of wire_bytes, ps (rounded up). */
uint64_t link_ser_ps(const link_chan *l, uint64_t wire_bytes);

/* Send a transfer of data_bytes (<= LINK_MAX_TRANSFER_BYTES) at now_ps (>= the
 * previous call's time). It starts when the wire is free (max(now_ps,
 * free_ps); *start_ps gets that time when start_ps is not NULL) and holds the
 * wire for link_ser_ps(link_wire_bytes(data_bytes)). Returns the time its
 * last bit is at the receiver: start + wire time + latency_ps; or LINK_ERR
 * (nothing changed) when now_ps is earlier than the previous call's or the
 * transfer is too large. */
uint64_t link_send(link_chan *l, uint64_t now_ps, uint64_t data_bytes, uint64_t *start_ps);

/* Wire time spent from 0 up to now_ps (>= the last link_send's time), ps. */
uint64_t link_busy_ps(const link_chan *l, uint64_t now_ps);
/* Busy fraction of the window ending at now_ps (>= the last link_send's time),
 * 0..1 (see the header comment); 0 at now_ps 0. */
double link_busy_fraction(const link_chan *l, uint64_t now_ps);
/* Energy from 0 up to now_ps (>= the last link_send's time), joules: traffic
 * (every wire bit sent so far) and idle (idle time x bandwidth). */
double link_traffic_energy_j(const link_chan *l);
double link_idle_energy_j(const link_chan *l, uint64_t now_ps);
double link_energy_j(const link_chan *l, uint64_t now_ps);

#ifdef __cplusplus
}
#endif
#endif
