/* link: one direction of a point-to-point link; see link.h. */
#include "link.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define PS_PER_S_HALF 1000000ull /* 1e12 = 1e6 x 1e6: the wire time is computed in two steps */

uint64_t link_lanes_bytes_per_s(uint32_t lanes, double gbps_per_lane) {
  const double b = (double)lanes * gbps_per_lane * 1e9 / 8.0;
  if (!(b > 0) || !isfinite(b)) return 0;
  if (b >= 1.8e19) return UINT64_MAX;
  return (uint64_t)(b + 0.5);
}

int link_init(link_chan *l, const link_cfg *cfg, char *err, size_t errlen) {
#define FAIL(...)                                          \
  do {                                                     \
    if (err && errlen) snprintf(err, errlen, __VA_ARGS__); \
    return -1;                                             \
  } while (0)
  if (!cfg) FAIL("no link configuration");
  if (cfg->bytes_per_s < LINK_MIN_BYTES_PER_S || cfg->bytes_per_s > LINK_MAX_BYTES_PER_S)
    FAIL("bandwidth %llu B/s outside 1 MB/s .. 10 TB/s", (unsigned long long)cfg->bytes_per_s);
  if (cfg->latency_ps > 1000000000000ull) FAIL("latency %llu ps above 1 s", (unsigned long long)cfg->latency_ps);
  if (cfg->header_bytes > 4096 || cfg->flit_bytes > 4096)
    FAIL("header %u B / flit %u B above 4096 B", cfg->header_bytes, cfg->flit_bytes);
  if (!isfinite(cfg->traffic_pj_per_bit) || cfg->traffic_pj_per_bit < 0 || !isfinite(cfg->idle_pj_per_bit) ||
      cfg->idle_pj_per_bit < 0)
    FAIL("energy per bit must be finite and >= 0");
  if (cfg->window_ps == 0 || cfg->window_ps % LINK_WINDOW_SLOTS)
    FAIL("busy-monitor window %llu ps: expected a multiple of %u ps, > 0", (unsigned long long)cfg->window_ps,
         LINK_WINDOW_SLOTS);
  memset(l, 0, sizeof *l);
  l->cfg = *cfg;
  l->slot_ps = cfg->window_ps / LINK_WINDOW_SLOTS;
  return 0;
#undef FAIL
}

uint64_t link_packets(const link_chan *l, uint64_t data_bytes) {
  const uint64_t m = l->cfg.max_payload_bytes;
  if (data_bytes == 0 || m == 0) return 1;
  return (data_bytes + m - 1) / m;
}

/* Bytes on the wire of one packet with d data bytes: header + data, padded to flits. */
static uint64_t packet_wire(const link_chan *l, uint64_t d) {
  const uint64_t b = l->cfg.header_bytes + d, f = l->cfg.flit_bytes;
  return f > 1 ? (b + f - 1) / f * f : b;
}

uint64_t link_wire_bytes(const link_chan *l, uint64_t data_bytes) {
  const uint64_t n = link_packets(l, data_bytes);
  if (n == 1) return packet_wire(l, data_bytes);
  const uint64_t m = l->cfg.max_payload_bytes;
  return (n - 1) * packet_wire(l, m) + packet_wire(l, data_bytes - (n - 1) * m);
}

uint64_t link_ser_ps(const link_chan *l, uint64_t wire_bytes) {
  /* ceil(wire x 1e12 / bps) without overflow for wire < 2^44 and bps <= 1e13:
   * a = wire x 1e6; a x 1e6 / bps = q x 1e6 + r x 1e6 / bps with r < bps. */
  const uint64_t bps = l->cfg.bytes_per_s;
  const uint64_t a = wire_bytes * PS_PER_S_HALF;
  const uint64_t q = a / bps, r = a % bps;
  return q * PS_PER_S_HALF + (r * PS_PER_S_HALF + bps - 1) / bps;
}

/* Busy time from 0 up to t, for t >= last_ps: everything sent after last_ps
 * lies in one stretch ending at free_ps (a transfer starts at the later of
 * its send time and the end of the one before). */
static uint64_t busy_through(const link_chan *l, uint64_t t) {
  return l->st.busy_ps - (l->free_ps > t ? l->free_ps - t : 0);
}

/* Record the busy time at the slot boundaries passed since the last call
 * (the last LINK_WINDOW_SLOTS + 1 of them are all a query can need). */
static void record_boundaries(link_chan *l, uint64_t now_ps) {
  const uint64_t b_now = now_ps / l->slot_ps;
  uint64_t b = l->hist_last + 1;
  if (b_now > LINK_WINDOW_SLOTS && b < b_now - LINK_WINDOW_SLOTS) b = b_now - LINK_WINDOW_SLOTS;
  for (; b <= b_now; ++b) l->hist[b % (LINK_WINDOW_SLOTS + 1)] = busy_through(l, b * l->slot_ps);
  if (b_now > l->hist_last) l->hist_last = b_now;
}

uint64_t link_send(link_chan *l, uint64_t now_ps, uint64_t data_bytes, uint64_t *start_ps) {
  if (now_ps < l->last_ps || data_bytes > LINK_MAX_TRANSFER_BYTES) return LINK_ERR;
  record_boundaries(l, now_ps);
  const uint64_t wire = link_wire_bytes(l, data_bytes);
  const uint64_t ser = link_ser_ps(l, wire);
  const uint64_t start = now_ps > l->free_ps ? now_ps : l->free_ps;
  l->free_ps = start + ser;
  l->last_ps = now_ps;
  l->st.transfers++;
  l->st.packets += link_packets(l, data_bytes);
  l->st.data_bytes += data_bytes;
  l->st.wire_bytes += wire;
  l->st.busy_ps += ser;
  if (start_ps) *start_ps = start;
  return start + ser + l->cfg.latency_ps;
}

uint64_t link_busy_ps(const link_chan *l, uint64_t now_ps) { return busy_through(l, now_ps); }

double link_busy_fraction(const link_chan *l, uint64_t now_ps) {
  if (now_ps == 0) return 0.0;
  const uint64_t w = l->cfg.window_ps;
  const uint64_t from = now_ps > w ? now_ps - w : 0;
  const uint64_t b0 = (from + l->slot_ps - 1) / l->slot_ps; /* oldest boundary inside the window */
  const uint64_t t0 = b0 * l->slot_ps;
  if (t0 >= now_ps) return 0.0; /* no boundary before now: cannot happen for now_ps > 0 (window >= 2 slots) */
  /* Boundaries up to hist_last were recorded; later ones lie after last_ps. */
  const uint64_t busy0 = b0 <= l->hist_last ? l->hist[b0 % (LINK_WINDOW_SLOTS + 1)] : busy_through(l, t0);
  return (double)(busy_through(l, now_ps) - busy0) / (double)(now_ps - t0);
}

double link_traffic_energy_j(const link_chan *l) {
  return (double)l->st.wire_bytes * 8.0 * l->cfg.traffic_pj_per_bit * 1e-12;
}

double link_idle_energy_j(const link_chan *l, uint64_t now_ps) {
  const uint64_t idle_ps = now_ps - busy_through(l, now_ps);
  /* idle bit times = idle seconds x bits per second */
  return (double)idle_ps * 1e-12 * (double)l->cfg.bytes_per_s * 8.0 * l->cfg.idle_pj_per_bit * 1e-12;
}

double link_energy_j(const link_chan *l, uint64_t now_ps) {
  return link_traffic_energy_j(l) + link_idle_energy_j(l, now_ps);
}

/* ------------------------------------------------------------------ presets
 * Conventions: bandwidth per direction; the busy monitor's window is 1 us
 * (estimate: TOM Sec. 4.1 names a threshold but no window; 1 us holds ~600
 * 128 B packets at 80 GB/s). */
#define WINDOW_1US 1000000ull
/* HMC-style packets (TOM Sec. 3.1.1: the links are "similar to the Hybrid
 * Memory Cube"): 16 B flits, one flit of header + tail per packet (HMC 8 B
 * header + 8 B tail), at most 128 B of data per packet (HMC 1.x largest
 * request). Estimates from the HMC specification; TOM models the links in
 * BookSim and gives neither. */
#define HMC_PACKETS .header_bytes = 16, .flit_bytes = 16, .max_payload_bytes = 128
/* TOM Sec. 5.1: "the off-chip link consumes 2 pJ/bit for packet transfer, and
 * 1.5 pJ/bit/cycle when it is idle". */
#define TOM_ENERGY .traffic_pj_per_bit = 2.0, .idle_pj_per_bit = 1.5
/* Estimate (TOM gives no link latency): 5 ns of SerDes and package trace per
 * direction, HMC-class. */
#define TOM_LATENCY_PS 5000ull
/* PCIe transaction-layer packets (estimate, PCIe 4.0 framing): 4 B STP token
 * (incl. the sequence number) + 16 B 4-DW header + 4 B LCRC per packet, at
 * most 256 B of data (a common Max_Payload_Size); byte granularity. The
 * 128b/130b line code is inside the paper's bandwidth figures. */
#define PCIE_PACKETS .header_bytes = 24, .flit_bytes = 0, .max_payload_bytes = 256
/* NVLink packets (estimate: NVLink 2.0 moves 16 B flits, one header flit per
 * packet, up to 256 B of data). */
#define NVLINK_PACKETS .header_bytes = 16, .flit_bytes = 16, .max_payload_bytes = 256
/* HMS Sec. IV-A: "8 pJ/bit PCIe or NVLink energy [37]"; no idle figure. HMS
 * Table I gives the latency of a whole host-memory access over NVLink
 * (0.135 us for a cacheline), which the host-memory presets (hostmem.c)
 * carry: the host links add only their serialisation. */
#define HOST_LINK_ENERGY .traffic_pj_per_bit = 8.0, .idle_pj_per_bit = 0.0
/* CXL.mem (CXL 2.0, 68 B flit mode): every flit is 64 B of slots (four 16 B
 * slots) plus 2 B protocol ID and 2 B CRC; CXL.mem moves 64 B lines. Modelled
 * as packets of at most 64 B of data with 4 B of per-flit overhead, padded to
 * 68 B flits: a 64 B line is one flit (94 % efficiency, the all-data flit), a
 * 32 B sector costs a whole flit (CXL.mem has no smaller access), a request
 * or acknowledgement without data one flit. Estimate: message headers are
 * taken to ride in the slots of flits shared with other messages (the link
 * model pads each transfer on its own and cannot pack several into a flit).
 * Latency: Pond (Li et al., ASPLOS 2023; summarised at
 * khale.github.io/mem-systems-w26/blog/pond): CXL.mem adds "roughly 70-90ns"
 * to a load over local DRAM; 80 ns per round trip = 40 ns per direction.
 * Bandwidth: CXL 2.0 runs over PCIe 5.0, whose x16 port moves 64 GB/s each
 * way, twice PCIe 4.0 x16. HMS Table I scales PCIe 4.0 x16 to 12.8 GB/s
 * (pcie_hms: Sec. IV-A keeps "constant ratios between SM count, L2 cache
 * capacity, memory channel count, and PCIe (or NVLink) lanes"); the same 1/5
 * of a PCIe 5.0 x16 port is twice that, 25.6 GB/s each way. The full-scale
 * port: cxl_64. */
#define CXL_PACKETS .header_bytes = 4, .flit_bytes = 68, .max_payload_bytes = 64
#define CXL_LATENCY_PS 40000ull

static const link_preset k_links[] = {
    {"tom_gpu_stack", "GPU <-> memory stack link, 80 GB/s each way, HMC-style packets (TOM Table 1, Sec. 5.1)",
     {.bytes_per_s = 80000000000ull, /* TOM Table 1: GPU to Memory 80 GB/s per link (read as each direction) */
      .latency_ps = TOM_LATENCY_PS, HMC_PACKETS, TOM_ENERGY, .window_ps = WINDOW_1US}},
    {"tom_stack_stack", "memory stack <-> memory stack link, 40 GB/s each way (TOM Table 1, Sec. 5.1)",
     {.bytes_per_s = 40000000000ull, /* TOM Table 1: Memory to Memory 40 GB/s per link; Sec. 5.1: 0.5x GPU-stack */
      .latency_ps = TOM_LATENCY_PS, HMC_PACKETS, TOM_ENERGY, .window_ps = WINDOW_1US}},
    {"pcie_hms", "GPU <-> host PCIe link, 12.8 GB/s each way (HMS Table I: 1/5 of PCIe 4.0 x16)",
     {.bytes_per_s = 12800000000ull, /* HMS Table I: PCIe link BW 12.8 GB/s */
      .latency_ps = 0, PCIE_PACKETS, HOST_LINK_ENERGY, .window_ps = WINDOW_1US}},
    {"pcie_hms_64", "GPU <-> host PCIe link, 64 GB/s each way (HMS Table I / Sec. IV-C: full PCIe BW)",
     {.bytes_per_s = 64000000000ull, /* HMS Table I: "or 64 GB/s (Sec. IV-C)" */
      .latency_ps = 0, PCIE_PACKETS, HOST_LINK_ENERGY, .window_ps = WINDOW_1US}},
    {"nvlink_hms", "GPU <-> host NVLink, 76.8 GB/s each way (HMS Table I)",
     {.bytes_per_s = 76800000000ull, /* HMS Table I: NVLink BW 76.8 GB/s */
      .latency_ps = 0, NVLINK_PACKETS, HOST_LINK_ENERGY, .window_ps = WINDOW_1US}},
    {"cxl_hms", "CXL 2.0 port (PCIe 5.0 x16 at HMS's 1/5 scale), 25.6 GB/s each way, 68 B flits, 40 ns each way",
     {.bytes_per_s = 25600000000ull, /* 2 x HMS Table I's 12.8 GB/s: PCIe 5.0 doubles PCIe 4.0's lane rate */
      .latency_ps = CXL_LATENCY_PS, CXL_PACKETS, HOST_LINK_ENERGY, .window_ps = WINDOW_1US}},
    {"cxl_64", "CXL 2.0 port (PCIe 5.0 x16), 64 GB/s each way, 68 B flits, 40 ns each way",
     {.bytes_per_s = 64000000000ull, /* PCIe 5.0 x16: 32 GT/s x 16 lanes, 128b/130b, ~64 GB/s each way */
      .latency_ps = CXL_LATENCY_PS, CXL_PACKETS, HOST_LINK_ENERGY, .window_ps = WINDOW_1US}},
};
#define N_LINKS (sizeof k_links / sizeof k_links[0])

size_t link_preset_count(void) { return N_LINKS; }

const link_preset *link_preset_at(size_t i) { return i < N_LINKS ? &k_links[i] : NULL; }

const link_preset *link_find(const char *name) {
  if (!name) return NULL;
  for (size_t i = 0; i < N_LINKS; ++i)
    if (strcmp(k_links[i].name, name) == 0) return &k_links[i];
  return NULL;
}

const char *link_preset_names(void) {
  static char buf[256]; /* built once from the constant table */
  if (!buf[0]) {
    size_t n = 0;
    for (size_t i = 0; i < N_LINKS && n + 1 < sizeof buf; ++i) {
      int w = snprintf(buf + n, sizeof buf - n, "%s%s", i ? ", " : "", k_links[i].name);
      if (w < 0) break;
      n += (size_t)w;
    }
  }
  return buf;
}
