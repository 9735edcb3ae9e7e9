// The one schema of every Strata config key: type, default, range, meaning.
// Defaults are the HBM2 baseline (configs/baseline_hbm2.toml cites the sources).
// Workload knobs (workload.<name>.<knob>) come from the workload registry, memory-side policies'
// parameters (memside.<family>.<name>) from the policy registry (platform/policy_keys.h).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <set>

#include "platform/config.h"
#include "platform/memsys.h"
#include "platform/policy_keys.h"
#include "workloads/registry.h"

extern "C" {
#include "base/addrmap.h"
#include "blocks/blocks.h"
#include "mem/dram.h"
#include "power/gpu_power.h"
#include "mem/hostmem.h"
#include "mem/link.h"
#include "memside/memside.h"
#include "cache/repl.h"
}

namespace strata {

std::vector<const memside_params*> memside_families() {
  std::vector<const memside_params*> out;
  for (size_t i = 0; i < memside_count(); ++i)
    if (const memside_params* f = memside_at(i)->params; f && std::find(out.begin(), out.end(), f) == out.end())
      out.push_back(f);
  return out;
}

std::string memside_key(const memside_params& f, const memside_param& p) {
  return p.name[0] == '=' ? std::string(p.name + 1) : f.prefix + std::string(p.name);
}

static std::vector<std::string> split_choices(const char* c) {
  std::vector<std::string> out;
  std::string cur;
  for (; c && *c; ++c) {
    if (*c == '|') out.push_back(cur), cur.clear();
    else cur += *c;
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

std::vector<memside_value> memside_values(const Config& C, const memside_params& f) {
  std::vector<memside_value> v(f.count);
  for (uint32_t k = 0; k < f.count; ++k) {
    const memside_param& p = f.param[k];
    const std::string key = memside_key(f, p);
    switch (p.type) {
      case MEMSIDE_P_FLOAT: v[k].f = C.f(key); break;
      case MEMSIDE_P_BOOL: v[k].i = C.b(key); break;
      case MEMSIDE_P_ENUM: {
        const std::vector<std::string> c = split_choices(p.choices);
        v[k].i = std::find(c.begin(), c.end(), C.s(key)) - c.begin();
        break;
      }
      default: v[k].i = C.i(key); break;  // INT, SIZE
    }
  }
  return v;
}

memside_sys memside_sys_of(const Config& C) {
  memside_sys y{};
  y.channels = static_cast<uint32_t>(C.i("mem.channels"));
  y.nparts = std::max<uint32_t>(1, y.channels / static_cast<uint32_t>(C.i("memside.partition_channels")));
  y.l2_banks = std::max<uint32_t>(1, static_cast<uint32_t>(C.i("l2.banks")) / y.nparts);
  y.l2_assoc = static_cast<uint32_t>(C.i("l2.assoc"));
  y.l2_sets = static_cast<uint32_t>(C.size("l2.size") / static_cast<uint64_t>(C.i("l2.banks")) / y.l2_assoc / 128);
  y.seed = static_cast<uint64_t>(C.i("sim.seed"));
  return y;
}

// A policy parameter as a schema key.
static KeySpec memside_key_spec(const memside_params& f, const memside_param& p) {
  using T = KeyType;
  static const T type[] = {T::Int, T::Size, T::Float, T::Bool, T::Enum};
  const bool ranged = p.type == MEMSIDE_P_INT || p.type == MEMSIDE_P_SIZE || p.type == MEMSIDE_P_FLOAT;
  return {memside_key(f, p), type[p.type], p.def, ranged ? p.min : 1, ranged ? p.max : 0,
          p.type == MEMSIDE_P_ENUM ? split_choices(p.choices) : std::vector<std::string>{}, p.doc};
}

static std::string memside_policy_doc() {
  std::string d = "memory-side controller policy of every memory partition, one of the registry's "
                  "(models/ref/memside/memside.c):";
  for (size_t i = 0; i < memside_count(); ++i)
    d += std::string(i ? ";" : "") + " " + memside_at(i)->name + " = " + memside_at(i)->desc;
  return d;
}

static std::vector<KeySpec> build_schema() {
  using T = KeyType;
  std::vector<KeySpec> s = {
      // name, type, default, min, max, choices, description
      {"sim.seed", T::Int, "1", 0, 9.2e18, {}, "random seed of workloads and randomised policies"},
      {"sim.epoch_ns", T::Float, "1000", 1, 1e12, {}, "time-series sampling period (timeseries.csv, VCD), ns"},
      {"sim.max_time_us", T::Float, "0", 0, 1e12, {},
       "cap on simulated time, us: a run not finished by then stops there with sim.partial = 1 (0 = no cap); "
       "strata memtrace: the latest trace timestamp accepted (0 = 1 s)"},
      {"sim.max_footprint", T::Size, "4GiB", 4096, 1ull << 50, {},
       "largest workload footprint (all arrays, MemcpyHtoD copies) a run accepts, bytes; larger ones are rejected "
       "up front as bad input instead of exhausting host memory; raise it if you mean it"},
      {"sim.warmup_instructions", T::Int, "0", 0, 9.2e18, {},
       "measurement window: warm-up of this many warp instructions (all SMs), after which every stat restarts "
       "from zero while caches, queues and policy state stay warm; the stats cover what follows (0 = no warm-up; "
       "a workload that ends before it is an error). Thread instructions (gpu.instructions) are up to 32x more"},
      {"sim.max_instructions", T::Int, "0", 0, 9.2e18, {},
       "measurement window: stop after this many warp instructions counted after the warm-up, stats written "
       "there and marked as a window (sim.stop_reason = 4, exit 0); a workload that ends first completes "
       "normally (0 = run to completion)"},
      {"sim.fast_forward_instructions", T::Int, "0", 0, 9.2e18, {},
       "functional fast-forward: run this many warp instructions without timing before the detailed simulation, "
       "in the GPU's order, keeping the L1s and the L2 warm; the CTAs in flight continue in detail; the stats cover what follows "
       "(0 = none; memory-side policies that keep no per-access state only; a workload that ends before it is "
       "an error). Combine with sim.warmup_instructions for a detailed warm-up after it"},
      {"sim.fast_forward_warm", T::Bool, "true", 1, 0, {},
       "warm the L1s and the L2 during the fast-forward (false: they start cold, to measure what warming buys)"},
      {"sim.kernel_sampling", T::Bool, "false", 1, 0, {},
       "kernel sampling: the first sim.kernel_sampling_detailed launches of each signature (kernel name, grid, "
       "CTA size, warp-instruction bucket where known) in detail, the later ones functionally with the caches warm; "
       "sampling.est_cycles/est_ipc/est_seconds extrapolate the whole program (memory-side policy plain only; "
       "not with a window or a fast-forward)"},
      {"sim.kernel_sampling_detailed", T::Int, "1", 1, 1000000, {},
       "kernel sampling: detailed launches per signature before its later launches run functionally"},
      {"sim.check", T::Bool, "false", 1, 0, {}, "golden-memory checker: compare every load with a flat golden memory"},
      {"gpu.num_sms", T::Int, "21", 1, 1024, {}, "streaming multiprocessors"},
      {"gpu.core_clock_mhz", T::Float, "901", 1, 10000, {}, "SM clock, MHz"},
      {"sm.max_warps", T::Int, "64", 1, 256, {}, "warp slots per SM"},
      {"sm.max_ctas", T::Int, "32", 1, 256, {}, "resident CTAs per SM"},
      {"sm.issue_width", T::Int, "4", 1, 8, {}, "warp instructions issued per SM cycle (warp schedulers)"},
      {"sm.scheduler", T::Enum, "gto", 1, 0, {"gto", "lrr"}, "warp scheduler: greedy-then-oldest or loose round-robin"},
      {"sm.alu_latency", T::Int, "4", 1, 1000, {}, "ALU dependent-issue latency, core cycles"},
      {"sm.sfu_latency", T::Int, "20", 1, 1000, {}, "SFU latency, core cycles"},
      // Volta's shared-memory load latency measured by Jia et al., "Dissecting the NVIDIA Volta GPU
      // Architecture via Microbenchmarking" (2018): 19 cycles.
      {"sm.shared_latency", T::Int, "19", 1, 1000, {},
       "shared-memory access latency without bank conflict, core cycles (each extra pass adds one)"},
      {"sm.ldst_per_cycle", T::Int, "1", 1, 8, {}, "memory instructions accepted by the LD/ST unit per cycle"},
      // A GPU does not stall a warp on an atomic's return unless a later instruction uses the value
      // (the scoreboard tracks the destination register); 4, like the SM's load records per warp.
      {"sm.max_atomics_per_warp", T::Int, "4", 1, 8, {},
       "global atomic instructions in flight per warp (the warp stalls only on one that uses a returned value)"},
      {"l1.enabled", T::Bool, "true", 1, 0, {}, "L1 data cache present"},
      {"l1.size", T::Size, "128KiB", 1024, 16777216, {}, "L1 data cache capacity per SM, bytes"},
      {"l1.assoc", T::Int, "4", 1, 32, {}, "L1 associativity (at most 32: the cache model's way masks are 32 bits)"},
      {"l1.latency", T::Int, "15", 1, 1000, {}, "L1 hit latency, core cycles"},
      {"l1.mshrs", T::Int, "64", 1, 4096, {}, "L1 MSHRs (lines in flight) per SM"},
      {"l1.mshr_merge", T::Int, "8", 1, 64, {}, "requests merged per L1 MSHR"},
      {"l1.write_allocate", T::Bool, "false", 1, 0, {}, "allocate L1 lines on write misses (always write-through)"},
      {"noc.clock_mhz", T::Float, "901", 1, 10000, {}, "crossbar clock, MHz"},
      {"noc.latency", T::Int, "4", 1, 1000, {}, "crossbar traversal latency each direction, noc cycles"},
      {"noc.bytes_per_cycle", T::Int, "32", 1, 4096, {}, "bandwidth per crossbar port and direction, bytes/cycle"},
      {"noc.queue", T::Int, "16", 1, 4096, {}, "requests buffered per crossbar output port"},
      {"l2.clock_mhz", T::Float, "901", 1, 10000, {}, "L2 clock, MHz"},
      {"l2.banks", T::Int, "16", 1, 1024, {}, "L2 banks in total (a multiple of the memory partitions: mem.channels / memside.partition_channels)"},
      {"l2.size", T::Size, "8MiB", 4096, 1ull << 36, {}, "L2 capacity in total, bytes"},
      {"l2.assoc", T::Int, "16", 1, 32, {}, "L2 associativity (at most 32: the cache model's way masks are 32 bits)"},
      {"l2.latency", T::Int, "120", 1, 10000, {}, "L2 hit latency, L2 cycles"},
      {"l2.mshrs", T::Int, "64", 1, 4096, {}, "L2 MSHRs per bank"},
      {"l2.bytes_per_cycle", T::Int, "32", 1, 4096, {}, "L2 bank data-port bandwidth, bytes/cycle"},
      {"l2.atomic_latency", T::Int, "4", 0, 10000, {}, "L2 cycles a bank's atomic unit adds to a hit's latency "
       "(global atomics are performed at the L2; docs/l2_and_noc.md \"Atomics\")"},
      {"l2.policy", T::String, "lru", 1, 0, {}, "L2 replacement/insertion policy (see models/ref/cache/repl_registry.c)"},
      {"mem.device", T::String, "hbm2", 1, 0, {}, "device preset (models/ref/mem/dram.c); with mem.rank_devices the "
       "channel interface and bank geometry every listed preset must share, with mem.channel_devices the bank "
       "geometry (each channel runs its own interface)"},
      {"mem.rank_devices", T::String, "", 1, 0, {},
       "mixed technologies on a channel: comma-separated presets, rank r of every channel runs entry r (one per "
       "rank, e.g. \"hbm2, scm_mlc\": HMS DRAM rank + SCM rank); empty = every rank mem.device"},
      {"mem.channel_devices", T::String, "", 1, 0, {},
       "mixed technologies across channels: comma-separated entries, channel c runs entry c mod n (n divides "
       "mem.channels, e.g. \"ddr3_800, pcm_flrb\": a DRAM and a PCM channel per partition); an entry is one preset "
       "for every rank or one per rank joined by '+' sharing one interface (\"gddr5_1250, rram+sttram\": a 1.25 GHz "
       "GDDR5 channel and a 1 GHz NVM bus); a later rank may be 'none', an empty slot (\"gddr5_1250+none\": a channel of "
       "one device beside channels of mem.ranks devices; no device, no power, in no part of the map: memories of "
       "two or more kinds); empty = mem.device; not together with mem.rank_devices"},
      {"mem.channels", T::Int, "8", 1, 256, {}, "memory channels"},
      {"mem.ranks", T::Int, "1", 1, 16, {}, "ranks per channel"},
      {"mem.read_queue", T::Int, "128", 1, 4096, {}, "read queue entries (32 B accesses) per channel; at least 4 (one 128 B L2 line)"},
      {"mem.write_queue", T::Int, "128", 1, 4096, {}, "write queue entries (32 B accesses) per channel; at least 4 (one 128 B L2 line)"},
      {"mem.wq_high", T::Int, "112", 1, 4096, {}, "write-drain high watermark"},
      {"mem.wq_low", T::Int, "48", 0, 4096, {}, "write-drain low watermark"},
      {"mem.page_policy", T::Enum, "open", 1, 0, {"open", "closed"}, "row-buffer policy: open (keep rows open) or closed (precharge a row once no queued request hits it)"},
      {"mem.demand_priority", T::Bool, "false", 1, 0, {},
       "demand requests first: a legal demand column/row command goes before a legal one of a background class "
       "(write-back, fill, migration, probe, page moves) in another bank; false = FR-FCFS in arrival order"},
      {"mem.refresh", T::Bool, "true", 1, 0, {}, "DRAM refresh"},
      {"mem.refresh_mode", T::Enum, "per_bank", 1, 0, {"per_bank", "all_bank"},
       "per_bank: one bank every tREFI / banks, blocking only that bank for tRFC_PB, on devices whose standard has "
       "it (hbm2: JESD235 REFSB); all_bank otherwise, or always with all_bank (a REF per rank every tREFI, tRFC)"},
      {"mem.powerdown_idle_cycles", T::Int, "0", 0, 1000000000, {},
       "precharge power-down after this many memory cycles with a rank idle (all banks closed, nothing queued); "
       "0 = never (default: timing of existing studies unchanged; docs/memctrl.md)"},
      {"mem.nvm_power_gating", T::Bool, "false", 1, 0, {},
       "power-gate idle NVM ranks after the preset's tGATE_IDLE, woken by the next access after tWAKE"},
      {"mem.leakage", T::Enum, "rank", 1, 0, {"rank", "capacity"},
       "background (standby, power-down) power: rank = each rank draws its preset's bg_mw / act_stby_mw / pd_mw; "
       "capacity = those scaled by the rank's capacity over the preset's bg_mib (leakage per capacity, hybrid "
       "graphics memory Sec. 3.1 Fig. 2): a part's size (addrmap.<kind>_size) over its ranks, sim.max_footprint "
       "over all ranks for a memory of one kind, or per row when a memory-side policy gates rows (hgm)"},
      {"mem.io_model", T::Enum, "preset", 1, 0, {"preset", "pod"},
       "off-chip I/O energy of column reads and writes: preset = the preset's io_pj_bit (part of rd_pj / wr_pj); "
       "pod = GDDR5 pseudo-open-drain termination (hybrid graphics memory Sec. 5.1): a driven 0 draws "
       "mem.pod.vddq / (mem.pod.ron_ohm + mem.pod.rtt_ohm) for one bit time of the channel, a 1 nothing; POD "
       "presets only (the GDDR5-interface rows)"},
      {"mem.pod.vddq", T::Float, "1.5", 0.1, 5, {}, "mem.io_model = pod: I/O supply, V (Hynix GDDR5 datasheet: VDDQ 1.5 V)"},
      {"mem.pod.ron_ohm", T::Float, "40", 1, 1000, {}, "mem.io_model = pod: driver impedance, ohm (Sec. 5.1: 40 or 60 ohm)"},
      {"mem.pod.rtt_ohm", T::Float, "60", 1, 1000, {}, "mem.io_model = pod: on-die termination to VDDQ, ohm (Sec. 5.1: 60 ohm)"},
      {"mem.pod.zero_fraction", T::Float, "0.5", 0, 1, {},
       "mem.io_model = pod: share of transferred bits that are 0 (only a 0 draws current; 0.5 = random data, data "
       "bus inversion not modelled)"},
      {"mem.ideal", T::Enum, "none", 1, 0, {"none", "nvm_write", "nvm_read", "dram_write", "dram_read"},
       "idealise one latency away (HAC paper Sec. III-C, Fig. 3): on the NVM/SCM or the DRAM ranks, *_read sets "
       "tRCD, tRAS, tRC and the clean-row tRP to 0, *_write sets tWR and the dirty-row precharge (tRP_DIRTY, or "
       "tRP) to 0, and those precharges leave tRRD_PRE; CL, CWL, the data bus and the rest of the interface stay "
       "(models/ref/mem/mc.h, docs/memctrl.md). Needs mem.timing_check = false and ranks of that technology"},
      {"mem.timing_check", T::Bool, "true", 1, 0, {},
       "check every DRAM/NVM command against the device timing rules (models/ref/mem/tcheck.h, docs/timing_checker.md); "
       "the first violation stops the run with exit status 3"},
      {"mem.timing_check_device", T::String, "", 1, 0, {},
       "device preset the timing checker checks against (empty = mem.device; same bank geometry required)"},
      {"mem.scm_throttle.threshold_w", T::Float, "0", 0, 1e6, {},
       "SCM power throttling (HMS Sec. III-E): a memory stack whose SCM ranks averaged more than this many watts "
       "over the last window runs the next one with tRCD and tWR scaled (mem.scm_throttle.rcd_mult / wr_mult); "
       "0 = off"},
      {"mem.scm_throttle.window_us", T::Float, "1", 0.001, 1e6, {},
       "SCM throttling: window over which the SCM power is averaged and the decision taken, microseconds "
       "(Strata choice; the paper gives none)"},
      {"mem.scm_throttle.rcd_mult", T::Int, "2", 1, 16, {},
       "SCM throttling: tRCD multiplier while throttled (HMS Sec. III-E, Fig. 20: 2, \"doubled\"; 1 = tRCD kept)"},
      {"mem.scm_throttle.wr_mult", T::Int, "2", 1, 16, {},
       "SCM throttling: tWR multiplier while throttled (HMS Sec. III-E, Fig. 20: 2; 1 = tWR kept)"},
      {"mem.scm_throttle.stack_channels", T::Int, "8", 1, 256, {},
       "SCM throttling: consecutive channels per memory stack, the unit throttled together (an HBM2 stack has 8 "
       "channels); a divisor of mem.channels"},
      {"mem.scm_link", T::String, "none", 1, 0, {},
       "SCM behind a link (HMS Sec. III-A, IV-C: \"CXL-attached SCM\"): a link preset (models/ref/mem/link.c: "
       "cxl_hms, cxl_64, ...) for the port the whole SCM side shares; every channel whose ranks are all SCM is "
       "reached through a link of its own with 1/N of the preset's bandwidth (N = such channels) and the preset's "
       "latency, packets and energy (stats link.scm_link<c>.*); none = SCM channels attached directly"},
      {"mem.scm_link_queue", T::Int, "64", 1, 65536, {},
       "SCM link: transfers each direction of each SCM channel's link holds (its credits; back-pressure beyond)"},
      {"hostpath.link", T::String, "none", 1, 0, {},
       "host path: a link preset (models/ref/mem/link.c: pcie_hms, pcie_hms_64, nvlink_hms, ...; HMS Table I) to a "
       "host-memory device that every memory partition's policy may target as its last device (kind host; "
       "docs/architecture.md \"Links and host memory\"); none = no host path"},
      {"hostpath.device", T::String, "hms_cpu", 1, 0, {},
       "host path: host-memory preset (models/ref/mem/hostmem.c: hms_cpu = 46.6 GB/s, 0.135 us, HMS Table I)"},
      {"hostpath.size", T::Size, "16GiB", 4096, 1ull << 50, {}, "host path: host-memory capacity, bytes"},
      {"hostpath.queue", T::Int, "64", 1, 65536, {},
       "host path: transfers each link direction holds and requests the host memory holds (back-pressure beyond)"},
      {"hostpath.gbps", T::Float, "", 0.001, 10000, {},
       "host path: bandwidth of each link direction, GB/s (1e9 B/s), overriding hostpath.link's preset (unset: the "
       "preset's, e.g. pcie_hms 12.8); for sensitivity studies of the host interface (HMS Table I)"},
      {"hostpath.latency_ns", T::Float, "", 0, 1e6, {},
       "host path: latency of each link direction, ns, overriding hostpath.link's preset (unset: the preset's)"},
      {"um.enabled", T::Bool, "false", 1, 0, {},
       "Unified Memory (docs/um.md): the program's pages start in host memory behind hostpath.link; an access to a "
       "page not in device memory is a far fault the driver services in batches (HMS Sec. II-A, IV-A); off = every "
       "byte in device memory from the start"},
      {"um.rhbm", T::Float, "0.75", 0.01, 1e6, {},
       "Unified Memory: device memory relative to the program's footprint (RHBM, HMS Sec. IV-A: 0.75); the page "
       "frames are rhbm x the program's 4 KiB pages (>= 1: every page fits, compulsory faults only)"},
      {"um.frames", T::Int, "0", 0, 1ll << 40, {},
       "Unified Memory: device page frames of 4 KiB, overriding um.rhbm (0 = from um.rhbm); at least one 2 MiB "
       "region's 512 unless the program fits"},
      {"um.fault_us", T::Float, "20", 0, 1e6, {},
       "Unified Memory: far-fault handling latency per batch, microseconds (HMS Table I: 20 us, a lower bound)"},
      {"um.prefetch", T::Enum, "tree", 1, 0, {"tree", "none"},
       "Unified Memory: tree = tree-based neighbourhood prefetch and pre-eviction over 2 MiB regions of 64 KiB "
       "leaves (HMS ref. [46]); none = first touch, each fault moves its own 4 KiB page (HMS footnote 3)"},
      {"um.remote", T::Enum, "none", 1, 0, {"none", "counters"},
       "Unified Memory: none = every access to a page not in device memory faults; counters = it is served "
       "from host memory over the link at cacheline granularity and counted per 64 KiB, and a leaf whose count "
       "reaches um.counter_threshold moves in while frames are free (NVLink's access-counter scheme, HMS Sec. "
       "IV-A)"},
      {"um.counter_threshold", T::Int, "256", 1, 65535, {},
       "Unified Memory, um.remote = counters: remote accesses to a 64 KiB leaf that make it migrate (the NVIDIA "
       "driver's default access-counter threshold: 256)"},
      {"um.batch_max", T::Int, "256", 1, 1 << 20, {},
       "Unified Memory: faulted pages one batch services (the NVIDIA driver's fault batch: 256)"},
      {"addrmap.layout", T::String, "off:32 col:4 ch:8 bg:4 col:16 ba:4 row", 1, 0, {},
       "address layout, least significant field first (models/ref/base/addrmap.h); \"auto\" derives one from the "
       "device geometry (one 128 B line per channel chunk, channel, bank group, columns, bank, rank, row)"},
      {"addrmap.hash", T::Bool, "true", 1, 0, {}, "permute channel/bank-group/bank by low row bits"},
      {"addrmap.part_order", T::String, "dram, nvm, scm", 1, 0, {},
       "hybrid memory (devices of two or more kinds): order of the memory parts in the physical address space; "
       "each part is the addresses of one kind, served by the channels x ranks of that kind and decoded by "
       "addrmap.layout over them"},
      {"addrmap.dram_size", T::Size, "0", 0, 1ull << 50, {},
       "hybrid memory: bytes of the DRAM part (all its channels and ranks); 0 = unbounded (last part only)"},
      {"addrmap.nvm_size", T::Size, "0", 0, 1ull << 50, {}, "hybrid memory: bytes of the NVM (PCM, STT-RAM, RRAM) part; a memory of NVM only: its capacity, the S of "
       "nvm.lifetime_years (the map itself is unbounded)"},
      {"addrmap.scm_size", T::Size, "0", 0, 1ull << 50, {}, "hybrid memory: bytes of the SCM part"},
      {"addrmap.part_interleave", T::Size, "0", 0, 1ull << 40, {},
       "hybrid memory: 0 = parts one after the other (part_order, sizes); B = the parts alternate in blocks of B "
       "bytes (a multiple of 4 KiB) in the ratio of their sizes"},
      {"addrmap.part_pattern", T::Enum, "alternate", 1, 0, {"alternate", "scatter"},
       "hybrid memory with part_interleave > 0: alternate = every round of blocks lists the parts in part_order; "
       "scatter = each round's block order is rotated by a hash of the round number (the ratio is kept; no address "
       "stride meets one kind only, as with page frames handed out from both memories)"},
      {"memside.policy", T::String, memside_at(0)->name, 1, 0, {}, memside_policy_doc()},
      {"placement.mode", T::Enum, "none", 1, 0, {"none", "engine"},
       "data placement of the arrays: none = where the program puts them (from address 0); engine = the hybrid "
       "DRAM+PCM paper's compiler-directed placement (Sec. V): a profiling pass, the Placement Cost Graph solved "
       "for minimum EDP, each array in the DRAM or NVM part of the map per kernel, copies between kernels "
       "(docs/hybrid_dram_pcm.md 'Placement engine'; needs DRAM and NVM parts and a built-in workload)"},
      {"placement.migration_weight", T::Float, "1", 0, 1e6, {},
       "placement.mode = engine: factor on the migration costs in the Placement Cost Graph's edge weights (1 = the "
       "engine's estimate; 0 = free migrations, each kernel gets its own best placement: a sensitivity setting)"},
      {"placement.force", T::Enum, "none", 1, 0, {"none", "dram", "pcm"},
       "placement.mode = engine: none = the Placement Cost Graph's plan; dram / pcm = every array in that part at "
       "every kernel (a calibration setting: placement_plan.txt then has the models' prediction for one kind beside "
       "the simulation)"},
      {"memside.partition_channels", T::Int, "1", 1, 256, {},
       "channels per memory partition: one memory-side controller over k consecutive channels (a power of two "
       "dividing mem.channels), whose L2 banks serve all of them; 1 = a partition per channel. 2 with "
       "mem.channel_devices = \"hbm2, scm_mlc\" puts a DRAM channel and an SCM channel behind one controller (HMS "
       "Fig. 6b, the paper's Sep. DRAM&SCM)"},
      {"memside.mgr.page_counters", T::Int, "0", 0, 1 << 24, {},
       "GPU-wide memory-side manager (models/ref/memside/memside_mgr.h, shared by every partition's policy): 4 KiB-page "
       "access counters, 0 or a power of two from 16 (0 = none)"},
      {"memside.mgr.quantum_ns", T::Float, "0", 0, 1e12, {},
       "GPU-wide memory-side manager: the migration budget's quantum, ns (0 = no budget: every move granted)"},
      {"memside.mgr.budget_bytes", T::Size, "0", 0, 1ull << 40, {},
       "GPU-wide memory-side manager: bytes the policies of all partitions may move per quantum (> 0 with a quantum)"},
      {"workload.name", T::String, "stream", 1, 0, {}, "built-in workload (strata --list-workloads)"},
      {"workload.footprint", T::Size, "0", 0, 1ull << 40, {},
       "total array bytes of a kernel-library workload (docs/workload_library.md): its size knob is set to the "
       "largest value that fits; 0 = the workload's own size knobs"},
  };
  // Overrides of mem.device's timing and energy fields (models/ref/mem/dram.h
  // dram_field; applied and validated in mem_devices, platform/memsys.cpp).
  // No default: an unset key keeps the preset's value.
  for (size_t i = 0; i < dram_field_count(); ++i) {
    const dram_field* f = dram_field_at(i);
    const std::string what = "override of mem.device's " + std::string(f->name) + ": " + f->desc;
    if (f->energy)
      s.push_back({kMemEnergyPrefix + std::string(f->name), T::Float, "", 0, 1e12, {}, what});
    else if (std::strcmp(f->name, "CL") == 0 || std::strcmp(f->name, "CWL") == 0 || std::strcmp(f->name, "tBURST") == 0)
      // The engine keeps a slot per cycle a column command is in flight (mc.c ringcap: max(CL, CWL) + tBURST),
      // allocated up front: 100000 cycles is about 100 MiB for the platform; 1e9 cannot be allocated.
      s.push_back({kMemTimingPrefix + std::string(f->name), T::Int, "", 0, 100000, {},
                   what + " (at most 100000: the controller holds a slot per cycle of it)"});
    else
      s.push_back({kMemTimingPrefix + std::string(f->name), T::Int, "", 0, 1e9, {}, what});
  }
  // The GPU power model (models/ref/power/gpu_power.h GPW_PARAMS): gpu_power.enabled and one key per parameter.
  s.push_back({"gpu_power.enabled", T::Bool, "false", 1, 0, {},
               "activity-based GPU power (cores, caches, crossbar, memory controllers; models/ref/power/gpu_power.c): "
               "stats gpu.power_w (.core, .cache, .noc, .mc), sys.power_w (GPU + memory), sim.ips, sim.ips_per_w; "
               "defaults: an FX5800-class 65 nm GPU (hybrid graphics memory Table 1), estimates"});
  for (size_t i = 0; i < gpw_param_count(); ++i) {
    char def[32];
    std::snprintf(def, sizeof def, "%g", gpw_param_default(i));
    s.push_back({"gpu_power." + std::string(gpw_param_key(i)), T::Float, def, 0, 1e9, {},
                 std::string("gpu_power.enabled: ") + gpw_param_doc(i)});
  }
  // The swappable C blocks (models/ref/blocks/blocks.h): one implementation each by name; "c" = the C reference.
  const auto choices = [](std::string list) {  // "a, b" -> {"a", "b"}
    std::vector<std::string> v;
    for (size_t at = 0; at <= list.size();) {
      const size_t comma = std::min(list.find(", ", at), list.size());
      v.push_back(list.substr(at, comma - at));
      at = comma + 2;
    }
    return v;
  };
  const std::string later = "; a Verilated RTL implementation of the block is meant to register here (co-simulation, issue 29)";
  s.push_back({"blocks.bypass_scorer", T::Enum, "c", 1, 0, choices(blocks_bypass_scorer_names()),
               "implementation of the HMS bypass scorer (bps_ops) the DRAM cache calls: c = models/ref/blocks/bps.c" + later});
  s.push_back({"blocks.tag_cache", T::Enum, "c", 1, 0, choices(blocks_tag_cache_names()),
               "implementation of the Configurable Tag Cache (ctc_ops) the DRAM cache calls: c = models/ref/blocks/ctc.c" + later});
  s.push_back({"blocks.flrb", T::Enum, "c", 1, 0, choices(blocks_flrb_names()),
               "implementation of the FLRB descriptor engine (flrb_ops) a migration policy calls: c = models/ref/blocks/flrb.c" +
                   later});
  // Memory-side policies' parameters, declared in their own files, after memside.partition_channels.
  {
    std::vector<KeySpec> pk;
    std::set<std::string> seen;
    for (const KeySpec& k : s) seen.insert(k.name);
    for (const memside_params* f : memside_families())
      for (uint32_t k = 0; k < f->count; ++k) {
        pk.push_back(memside_key_spec(*f, f->param[k]));
        if (!seen.insert(pk.back().name).second)
          throw std::logic_error("memory-side parameter declared twice: " + pk.back().name);
      }
    auto at = std::find_if(s.begin(), s.end(), [](const KeySpec& k) { return k.name == "memside.partition_channels"; });
    s.insert(at + 1, pk.begin(), pk.end());
  }
  for (const WorkloadInfo& w : workload_registry())
    for (const KnobSpec& k : w.knobs)
      s.push_back({"workload." + w.name + "." + k.name, T::Int, std::to_string(k.def), static_cast<double>(k.min),
                   static_cast<double>(k.max), {}, k.desc});
  return s;
}

const std::vector<KeySpec>& Config::schema() {
  static const std::vector<KeySpec> s = build_schema();
  return s;
}

static std::vector<std::string> memside_policy_names() {
  std::vector<std::string> n;
  for (size_t i = 0; i < memside_count(); ++i) n.push_back(memside_at(i)->name);
  return n;
}

// A policy parameter that only one policy reads, set away from its default under another policy
// (memside_param.only). Checked on the loaded config, not after Config::derive (a derivation may
// switch the policy, e.g. a DRAM cache that becomes plain memory).
void Config::check_policy_keys() const {
  for (const memside_params* fam : memside_families()) {
    const std::vector<memside_value> v = memside_values(*this, *fam);
    std::vector<memside_value> d(fam->count);
    memside_param_defaults(fam, d.data());
    for (uint32_t k = 0; k < fam->count; ++k) {
      const memside_param& p = fam->param[k];
      if (!p.only || s("memside.policy") == p.only) continue;
      if (p.type == MEMSIDE_P_FLOAT ? v[k].f != d[k].f : v[k].i != d[k].i) {
        const std::string key = memside_key(*fam, p);
        fail(key, std::string("expected ") + p.def + " unless memside.policy = " + p.only +
                      (p.only_why ? std::string(" (") + p.only_why + ")" : std::string()) + ", got " + s(key));
      }
    }
  }
}

void Config::check_consistency() const {
  if (!find_workload(s("workload.name"))) {
    std::string names;
    std::vector<std::string> list;
    for (const WorkloadInfo& w : workload_registry()) {
      names += (names.empty() ? "" : ", ") + w.name;
      list.push_back(w.name);
    }
    fail("workload.name", "expected one of " + names + ", got '" + s("workload.name") + "'" +
                              did_you_mean(s("workload.name"), list));
  }
  if (!memside_find(s("memside.policy").c_str()))
    fail("memside.policy", std::string("expected one of ") + memside_names() + ", got '" + s("memside.policy") + "'" +
                               did_you_mean(s("memside.policy"), memside_policy_names()));
  for (const memside_params* fam : memside_families())  // checks across a policy family's keys
    if (fam->validate) {
      const std::vector<memside_value> v = memside_values(*this, *fam);
      const memside_sys sys = memside_sys_of(*this);
      uint32_t bad = 0;
      char err[256] = "";
      if (fam->validate(v.data(), &sys, &bad, err, sizeof err) != 0) fail(memside_key(*fam, fam->param[bad]), err);
    }
  if (const int64_t n = i("memside.mgr.page_counters"); n && (n < 16 || (n & (n - 1))))
    fail("memside.mgr.page_counters", "expected 0 or a power of two from 16, got " + std::to_string(n));
  if (f("memside.mgr.quantum_ns") > 0 && !size("memside.mgr.budget_bytes"))
    fail("memside.mgr.budget_bytes", "expected > 0 with a quantum (memside.mgr.quantum_ns), got 0");
  if (f("mem.scm_throttle.threshold_w") > 0) {
    if (i("mem.channels") % i("mem.scm_throttle.stack_channels") != 0)
      fail("mem.scm_throttle.stack_channels", "expected a divisor of mem.channels (" + std::to_string(i("mem.channels")) +
                                                  "), got " + std::to_string(i("mem.scm_throttle.stack_channels")));
    if (i("mem.scm_throttle.rcd_mult") == 1 && i("mem.scm_throttle.wr_mult") == 1)
      fail("mem.scm_throttle.wr_mult", "expected tRCD or tWR scaled (rcd_mult or wr_mult > 1) with throttling on, got 1 and 1");
  }
  if (!repl_find(s("l2.policy").c_str()))
    fail("l2.policy", std::string("expected one of ") + repl_names() + ", got '" + s("l2.policy") + "'");
  // One or more L2 banks per memory partition (memside.partition_channels channels behind one controller; the
  // bank's lines are the partition's: addrmap.h). mem.channels % partition_channels is checked below.
  if (i("memside.partition_channels") <= i("mem.channels") &&
      i("l2.banks") % std::max<int64_t>(1, i("mem.channels") / i("memside.partition_channels")) != 0)
    fail("l2.banks", "expected a multiple of the memory partitions (mem.channels / memside.partition_channels = " +
                         std::to_string(i("mem.channels") / i("memside.partition_channels")) + "), got " +
                         std::to_string(i("l2.banks")));
  const uint64_t per_bank_line = static_cast<uint64_t>(i("l2.banks")) * i("l2.assoc") * 128;
  if (size("l2.size") % per_bank_line != 0)
    fail("l2.size", "expected a multiple of l2.banks x l2.assoc x 128 B lines (" + std::to_string(per_bank_line) +
                        " bytes), got " + std::to_string(size("l2.size")));
  const repl_ops* pol = repl_find(s("l2.policy").c_str());
  if (const char* why = pol->check ? pol->check(static_cast<uint32_t>(size("l2.size") / per_bank_line),
                                                static_cast<uint32_t>(i("l2.assoc")))
                                   : nullptr)
    fail("l2.assoc", std::string("expected ") + why + " for l2.policy = " + s("l2.policy") + ", got " +
                         std::to_string(i("l2.assoc")));
  if (size("l1.size") % (static_cast<uint64_t>(i("l1.assoc")) * 128) != 0)
    fail("l1.size", "expected a multiple of l1.assoc x 128 B lines");
  if (!s("mem.timing_check_device").empty()) {
    const dram_preset* dev = dram_find(s("mem.device").c_str());
    const dram_preset* chk = dram_find(s("mem.timing_check_device").c_str());
    if (!chk)
      fail("mem.timing_check_device",
           std::string("expected one of ") + dram_names() + ", got '" + s("mem.timing_check_device") + "'");
    if (dev && (chk->bankgroups != dev->bankgroups || chk->banks_per_group != dev->banks_per_group))
      fail("mem.timing_check_device", "expected a preset with the bank geometry of mem.device (" + s("mem.device") +
                                          "), got '" + s("mem.timing_check_device") + "'");
  }
  {  // devices per channel and rank, and the address map over them (hybrid parts)
    const MemDevices md = mem_devices(*this);
    std::unique_ptr<amap> m(new amap);
    init_address_map(*this, md, m.get());
  }
  // A 128 B L2 line is 4 queue entries of 32 B (MemCtrl::try_accept): a queue of fewer entries can never
  // accept one and the platform would stall, so both the platform and memtrace refuse it.
  for (const char* q : {"mem.read_queue", "mem.write_queue"})
    if (i(q) < 4)
      fail(q, "expected at least 4 entries (one 128 B L2 line is 4 entries of 32 B; a smaller queue can never "
              "accept one), got " + std::to_string(i(q)));
  if (i("mem.wq_high") > i("mem.write_queue"))
    fail("mem.wq_high", "expected <= mem.write_queue (" + std::to_string(i("mem.write_queue")) + ")");
  if (s("placement.force") != "none" && s("placement.mode") != "engine")
    fail("placement.force", "expected none unless placement.mode = engine, got " + s("placement.force"));
  if (i("mem.wq_low") >= i("mem.wq_high"))
    fail("mem.wq_low", "expected < mem.wq_high (" + std::to_string(i("mem.wq_high")) + ")");
  if (s("mem.scm_link") != "none" && !link_find(s("mem.scm_link").c_str()))
    fail("mem.scm_link", std::string("expected none or one of ") + link_preset_names() + ", got '" + s("mem.scm_link") + "'");
  // The host path (models/host/host_path.h).
  if (!hostmem_find(s("hostpath.device").c_str()))
    fail("hostpath.device", std::string("expected one of ") + hostmem_names() + ", got '" + s("hostpath.device") + "'");
  if (s("hostpath.link") != "none") {
    if (!link_find(s("hostpath.link").c_str()))
      fail("hostpath.link",
           std::string("expected none or one of ") + link_preset_names() + ", got '" + s("hostpath.link") + "'");
    if (i("memside.partition_channels") >= MEMSIDE_MAX_DEVS)
      fail("hostpath.link", "expected memside.partition_channels below " + std::to_string(MEMSIDE_MAX_DEVS) +
                            " (a partition's channels and the host device), got " +
                            std::to_string(i("memside.partition_channels")));
  }
}

}  // namespace strata
