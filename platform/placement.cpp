// The placement engine in the simulation (placement.h).
#include "platform/placement.h"

#include <systemc>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <fstream>

#include "common/payload.h"  // kLineBytes
#include "common/stats.h"

namespace strata {

namespace {

// The address map's part of memory kind `kind` (AMAP_MEM_*) as the engine's view of it.
bool part_of(const amap& map, const MemDevices& md, unsigned kind, plc_mem* out) {
  for (unsigned i = 0; i < map.nparts; ++i) {
    const amap_part& p = map.part[i];
    if (p.mem != kind) continue;
    out->dev = md.at(p.ch[0], p.ra[0]);
    out->channels = p.nch;
    out->ranks = p.nra ? p.nra : 1;
    out->base = p.base;
    out->capacity = p.bytes ? p.bytes : (1ull << 50);
    return true;
  }
  return false;
}

// Memory transactions of one array in one launch (Strata estimate; the paper's cache-less model of its ref. [8]
// counts every request, Strata's GPU has an L1 and an L2): the launch's distinct lines of the array -- what
// reaches the memory when the caches catch the re-references, as they do for the Table III analogues' neighbour
// and tile reuse (convsep 4 MiB: a launch moves its arrays' bytes about once) --, split into coalesced and
// uncoalesced in the requests' proportion.
uint64_t memory_transactions(uint64_t part, uint64_t requests, uint64_t lines) {
  if (!requests) return 0;
  return (part * lines + requests / 2) / requests;
}

// `arrays[a]`: the Program::arrays() index of the engine's array a.
plc_kernel_prof to_prof(const LaunchProfile& l, const std::vector<unsigned>& arrays) {
  plc_kernel_prof k{};
  k.insts = l.insts;
  k.syncs = l.syncs;
  k.warps = l.warps;
  k.warps_per_cta = l.warps_per_cta;
  for (size_t a = 0; a < arrays.size() && a < PLC_MAX_ARRAYS; ++a) {
    if (arrays[a] >= l.arrays.size()) continue;  // allocated after this launch
    const ArrayAccess& x = l.arrays[arrays[a]];
    const uint64_t rd = x.rd_coal + x.rd_uncoal, wr = x.wr_coal + x.wr_uncoal;
    k.arr[a] = {x.reads, x.writes, x.coal_insts, x.uncoal_insts,
                memory_transactions(x.rd_coal, rd, x.rd_lines), memory_transactions(x.rd_uncoal, rd, x.rd_lines),
                memory_transactions(x.wr_coal, wr, x.wr_lines), memory_transactions(x.wr_uncoal, wr, x.wr_lines)};
  }
  return k;
}

double now_s() { return sc_core::sc_time_stamp().to_seconds(); }

}  // namespace

PlacementEngine::PlacementEngine(const Config& C, const amap& map, const MemDevices& md, Program& prog,
                                 std::unique_ptr<Program> profile_copy, bstore* golden)
    : prog_(prog), golden_(golden) {
  const std::string key = "placement.mode";
  plc_cfg c{};
  if (map.interleave || !part_of(map, md, AMAP_MEM_DRAM, &c.dram) || !part_of(map, md, AMAP_MEM_NVM, &c.pcm))
    C.fail(key, "expected none unless the address map has a DRAM part and an NVM part side by side "
                "(addrmap.part_order with addrmap.dram_size and addrmap.nvm_size, addrmap.part_interleave = 0), got "
                "engine");
  // The controller's power states and write drain, as the engine's models need them (placement.h plc_mem, plc_cfg).
  for (plc_mem* m : {&c.dram, &c.pcm}) {
    m->powerdown = C.i("mem.powerdown_idle_cycles") > 0 ? 1 : 0;
    m->gating = C.b("mem.nvm_power_gating") ? 1 : 0;
  }
  c.drain_atoms = static_cast<uint32_t>(C.i("mem.wq_high") - C.i("mem.wq_low"));
  const std::string force = C.s("placement.force");
  c.force = force == "dram" ? PLC_FORCE_DRAM : force == "pcm" ? PLC_FORCE_PCM : PLC_FORCE_NONE;
  dram_dev_ = *c.dram.dev;
  pcm_dev_ = *c.pcm.dev;
  c.dram.dev = &dram_dev_;
  c.pcm.dev = &pcm_dev_;
  // Three kinds of program: a built-in one moves its arrays between kernels (the whole Sec. V); one that
  // allocates while it runs (a CUDA program) takes each allocation where the plan says but keeps it there
  // (its host code holds the pointers: the graph without migration edges); a trace's addresses are fixed.
  migrate_ = prog.relocatable();
  dynamic_ = !migrate_ && prog.set_alloc_placer(AllocPlacer{});
  if (!migrate_ && !dynamic_)
    C.fail(key, "expected none for a program whose array addresses are fixed (" + prog.name() +
                    ": a trace or a program that does not read its arrays' bases at launch), got engine");
  if (dynamic_) {  // device pointers are never 0 (cudaMalloc): a part at address 0 starts a page later
    for (plc_mem* m : {&c.dram, &c.pcm})
      if (m->base < 4096) {
        m->capacity -= 4096 - m->base;
        m->base = 4096;
      }
    profile_copy->stdout_to_stderr();
  }
  if (!dynamic_ && (prog.arrays().empty() || prog.arrays().size() > PLC_MAX_ARRAYS))
    C.fail(key, "expected a program of 1 to " + std::to_string(PLC_MAX_ARRAYS) + " arrays for engine, got " +
                    std::to_string(prog.arrays().size()) + " (workload " + prog.name() + ")");
  // 1. Profiling pass (Sec. V-A): a functional run of a second instance of the program.
  bstore scratch;
  bstore_init(&scratch);
  try {
    profile_copy->init(&scratch, nullptr);
    launches_ = profile_launches(*profile_copy);
  } catch (...) {
    bstore_free(&scratch);
    throw;
  }
  bstore_free(&scratch);
  if (!profile_copy->run_error().empty())
    C.fail(key, "expected a program the profiling pass runs to its end, got: " + profile_copy->run_error());
  if (launches_.empty() || launches_.size() > PLC_MAX_KERNELS)
    C.fail(key, "expected a program of 1 to " + std::to_string(PLC_MAX_KERNELS) + " kernel launches for engine, got " +
                    std::to_string(launches_.size()) + " (workload " + prog.name() + ")");
  // The engine's arrays: a built-in program's, in order; of a program that allocates while it runs, its
  // PLC_MAX_ARRAYS allocations of most memory transactions in the profile (the paper's programs "typically use
  // less than ten arrays", Sec. V-B; the graph has 2^A nodes per kernel), in allocation order.
  const std::vector<ArrayInfo>& all = dynamic_ ? profile_copy->arrays() : prog.arrays();
  std::vector<unsigned> planned;
  if (dynamic_) {
    std::vector<uint64_t> traffic(all.size(), 0);
    for (const LaunchProfile& l : launches_)
      for (size_t a = 0; a < l.arrays.size() && a < all.size(); ++a) {
        const ArrayAccess& x = l.arrays[a];
        traffic[a] += x.rd_coal + x.rd_uncoal + x.wr_coal + x.wr_uncoal;
      }
    std::vector<unsigned> order(all.size());
    for (unsigned i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](unsigned x, unsigned y) { return traffic[x] > traffic[y]; });
    order.resize(std::min<size_t>(order.size(), PLC_MAX_ARRAYS));
    std::sort(order.begin(), order.end());
    planned = order;
    if (planned.empty())
      C.fail(key, "expected a program that allocates device memory for engine, got none (" + prog.name() + ")");
    slot_.assign(all.size(), -1);
    for (size_t a = 0; a < planned.size(); ++a) slot_[planned[a]] = static_cast<int>(a);
  } else {
    for (unsigned i = 0; i < all.size(); ++i) planned.push_back(i);
  }
  for (const LaunchProfile& l : launches_) {
    prof_.push_back(to_prof(l, planned));
    kernel_names_.push_back(l.name);
  }
  for (unsigned i : planned) array_names_.push_back(all[i].name);
  for (const ArrayInfo& a : all) profile_allocs_.push_back(a.bytes);
  // 2. The engine (Sec. V-B, V-D) over the map's parts and the GPU.
  c.sms = static_cast<uint32_t>(C.i("gpu.num_sms"));
  c.max_warps = static_cast<uint32_t>(C.i("sm.max_warps"));
  c.core_mhz = C.f("gpu.core_clock_mhz");
  c.line_bytes = kLineBytes;
  c.narrays = static_cast<uint32_t>(planned.size());
  c.nkernels = static_cast<uint32_t>(launches_.size());
  c.align = 4096;  // Program::add_array's alignment; a page for a CUDA program's allocations
  c.static_only = migrate_ ? 0 : 1;  // plc_cfg.static_only: a program that can be placed but not moved
  c.migration_weight = C.f("placement.migration_weight");
  work_.assign(plc_workspace_bytes(&c) / sizeof(uint64_t) + 1, 0);
  char err[200] = "";
  if (plc_init(&st_, &c, prof_.data(), work_.data(), work_.size() * sizeof(uint64_t), err, sizeof err) != 0)
    C.fail(key, std::string("expected a platform the placement engine can model, got: ") + err);
  std::vector<int64_t> sizes;
  for (unsigned i : planned) sizes.push_back(static_cast<int64_t>(all[i].bytes));
  plc_get_size(&st_, sizes.data());
  if (plc_cal_place(&st_) != 0 && c.force != PLC_FORCE_NONE)
    C.fail("placement.force", "expected none, or a kind whose part holds every array (addrmap.dram_size, "
                              "addrmap.nvm_size), got " + force);
  if (!st_.solved)
    C.fail(key, "expected the arrays of " + prog.name() + " to fit the DRAM and NVM parts (addrmap.dram_size, "
                "addrmap.nvm_size) in some mix, got no legal placement");
  predicted_edp_ = st_.predicted_edp;
  all_pcm_edp_ = st_.all_pcm_edp;
  moves_.resize(c.narrays);
  if (dynamic_) {  // 3. mallocHyb (Sec. V-C) at each allocation of the run
    prog.set_alloc_placer(AllocPlacer{[this](unsigned i, uint64_t bytes, uint64_t align) { return place(i, bytes, align); },
                                      [this](unsigned i) { release(i); }});
    return;
  }
  // 3. mallocHyb (Sec. V-C): each array's base in its part for the first kernel.
  for (uint32_t a = 0; a < c.narrays; ++a) {
    uint64_t at = 0;
    if (plc_malloc_hyb(&st_, 0, a, &at) != 0)
      C.fail(key, "expected room for array " + array_names_[a] + " in the DRAM or NVM part, got none");
    prog.set_array_base(a, at);
    initial_dram_ += st_.in_dram[a];
  }
}

// An allocation of a program that allocates while it runs: the planned ones by mallocHyb (the plan's part, else
// the other, Sec. V-C); one the plan does not hold (beyond the planned arrays, or not as the profile saw it: a
// program whose allocations depend on the run) in the PCM part, where Table II's data starts, else in DRAM,
// first fit from the part's top so that it stays clear of mallocHyb's, which fills from the bottom.
uint64_t PlacementEngine::place(unsigned index, uint64_t bytes, uint64_t align) {
  ++allocations_;
  const int slot = index < slot_.size() ? slot_[index] : -1;
  if (slot >= 0 && bytes == profile_allocs_[index] && align <= st_.cfg.align && !st_.allocated[slot]) {
    uint64_t at = 0;
    if (plc_malloc_hyb(&st_, 0, static_cast<uint32_t>(slot), &at) == 0) {
      if (!overlaps_extra(at, bytes)) {
        slot_addr_[index] = at;
        initial_dram_ += st_.in_dram[slot];
        return at;
      }
      plc_finalize(&st_, static_cast<uint32_t>(slot));
    }
  }
  ++unplanned_;
  for (const plc_mem* m : {&st_.cfg.pcm, &st_.cfg.dram}) {
    const uint64_t at = top_fit(*m, bytes, std::max<uint64_t>(align, 128));
    if (at) {
      extra_[at] = bytes;
      extra_index_[index] = at;
      return at;
    }
  }
  return 0;
}

void PlacementEngine::release(unsigned index) {
  auto s = slot_addr_.find(index);
  if (s != slot_addr_.end()) {
    plc_finalize(&st_, static_cast<uint32_t>(slot_[index]));
    slot_addr_.erase(s);
    return;
  }
  auto e = extra_index_.find(index);
  if (e != extra_index_.end()) {
    extra_.erase(e->second);
    extra_index_.erase(e);
  }
}

bool PlacementEngine::overlaps_extra(uint64_t at, uint64_t bytes) const {
  auto next = extra_.lower_bound(at);
  if (next != extra_.end() && next->first < at + bytes) return true;
  return next != extra_.begin() && std::prev(next)->first + std::prev(next)->second > at;
}

// The highest `align`-aligned address in part m where `bytes` fit clear of every live allocation, 0 if none.
uint64_t PlacementEngine::top_fit(const plc_mem& m, uint64_t bytes, uint64_t align) const {
  std::vector<std::pair<uint64_t, uint64_t>> busy(extra_.begin(), extra_.end());
  for (uint32_t a = 0; a < st_.cfg.narrays; ++a)
    if (st_.allocated[a]) busy.emplace_back(st_.addr[a], (st_.size[a] + st_.cfg.align - 1) & ~(st_.cfg.align - 1));
  std::sort(busy.begin(), busy.end());
  uint64_t hi = m.base + m.capacity;  // the gap below `hi`
  for (auto it = busy.rbegin();; ++it) {
    const uint64_t lo = it == busy.rend() ? m.base : std::max(m.base, it->first + it->second);
    if (hi >= lo + bytes && hi >= bytes) {
      const uint64_t at = (hi - bytes) / align * align;
      if (at >= lo) return at;
    }
    if (it == busy.rend()) return 0;
    if (it->first < hi) hi = std::max(m.base, it->first);
    if (hi <= m.base) return 0;
  }
}

unsigned PlacementEngine::kernels_estimate() const { return prog_.kernels_estimate(); }
uint64_t PlacementEngine::kernel_warp_insts(unsigned k) const {
  (void)k;
  return 0;  // copies interleave with the program's launches: progress in kernels
}

void PlacementEngine::begin_phase(const std::string& what) {
  Phase p;
  p.what = what;
  p.t0 = now_s();
  p.e0 = energy_now_ ? energy_now_() : 0;
  phases_.push_back(p);
}

void PlacementEngine::end_phase() {
  if (phases_.empty() || phases_.back().t1 > 0) return;
  phases_.back().t1 = now_s();
  phases_.back().e1 = energy_now_ ? energy_now_() : 0;
}

// The copy kernel of moves_[move_] (dataMigrate, Sec. V-C): one thread per 4-byte word (the allocation's
// 4 KiB slots hold the rounded-up tail), 8 warps per CTA; the load reads the old place, the store writes the
// golden memory and the devices' new place.
KernelIf* PlacementEngine::start_copy() {
  const plc_move& m = moves_[move_++];
  const uint64_t words = (m.bytes + 3) / 4, from = m.from, to = m.to;
  copy_.name = "placement_copy";
  copy_.golden = golden_;
  copy_.threads = words;
  copy_.cta_threads = 0;
  copy_.warps_per_cta = 8;
  copy_.ctas = static_cast<uint32_t>((words + 255) / 256);
  copy_.reads = {m.array};
  copy_.writes = {m.array};
  copy_.blocks.clear();
  copy_.body = [from, to](uint64_t tid, lib::Thread& t) { t.st(to + 4 * tid, t.ld(from + 4 * tid)); };
  copying_ = true;
  migrations_ += 1;
  migrated_bytes_ += static_cast<double>(m.bytes);
  begin_phase("copy " + array_names_[m.array] + (m.to_dram ? " -> DRAM" : " -> PCM") + " before kernel " +
              std::to_string(next_k_));
  return &copy_;
}

KernelIf* PlacementEngine::next_kernel() {
  end_phase();
  if (copying_) {  // the copy has ended (kernels run back to back): the program uses the new place
    const plc_move& m = moves_[move_ - 1];
    prog_.relocate_array(m.array, m.to);
    copying_ = false;
  }
  if (move_ < nmoves_) return start_copy();
  if (migrate_ && !checked_k_ && next_k_ >= 1 && next_k_ < st_.cfg.nkernels) {  // dataMigrate before launch k
    checked_k_ = true;
    nmoves_ = plc_data_migrate(&st_, next_k_, moves_.data(), static_cast<uint32_t>(moves_.size()));
    move_ = 0;
    if (nmoves_) return start_copy();
  }
  Kernel* k = prog_.next_kernel();
  if (!k) {
    for (uint32_t a = 0; a < st_.cfg.narrays; ++a) plc_finalize(&st_, a);
    return nullptr;
  }
  begin_phase("kernel " + std::to_string(next_k_));
  ++next_k_;
  checked_k_ = false;
  return k;
}

void PlacementEngine::register_stats(StatsRegistry& S, std::function<double()> energy_now) {
  energy_now_ = std::move(energy_now);
  S.value("placement.migrations", "arrays moved between kernels by the placement engine (dataMigrate copies)",
          Unit::Count, &migrations_);
  S.value("placement.migrated_bytes", "bytes of the arrays moved between kernels (each read once and written once)",
          Unit::Byte, &migrated_bytes_);
  S.value("placement.predicted_edp", "the plan's EDP predicted by the engine's models: sum over kernels and "
          "migrations of energy x time (hybrid DRAM+PCM Sec. V-B)", Unit::JouleSecond, &predicted_edp_);
  S.value("placement.predicted_all_pcm_edp", "the same models' EDP with every array on PCM for every kernel",
          Unit::JouleSecond, &all_pcm_edp_);
  S.value("placement.initial_dram_arrays", "arrays mallocHyb placed in DRAM for the first kernel (a program that allocates while it runs: at "
          "their allocations)", Unit::Count,
          &initial_dram_);
  S.value("placement.allocations", "allocations the program made while it ran (a CUDA program's cudaMalloc, module "
          "variables, local memory), each placed by the engine; 0 for a built-in program", Unit::Count, &allocations_);
  S.value("placement.unplanned_allocations", "of those, the ones outside the plan (beyond the planned arrays, or "
          "unlike the profiling pass's allocation of that number), placed in the PCM part, else DRAM",
          Unit::Count, &unplanned_);
  S.level("placement.kernels", "kernel launches of the profiling pass (nodes groups of the Placement Cost Graph)",
          Unit::Count, [this] { return static_cast<double>(st_.cfg.nkernels); });
}

bool PlacementEngine::write_plan(const std::string& path) const {
  std::vector<const char*> kn, an;
  for (const std::string& s : kernel_names_) kn.push_back(s.c_str());
  for (const std::string& s : array_names_) an.push_back(s.c_str());
  const size_t n = plc_plan_text(&st_, kn.data(), an.data(), nullptr, 0);
  std::string text(n + 1, '\0');
  plc_plan_text(&st_, kn.data(), an.data(), &text[0], text.size());
  text.resize(n);
  std::ofstream o(path);
  o << text;
  if (!migrate_) o << "# program " << prog_.name() << " cannot move arrays between kernels: one placement for all\n";
  if (dynamic_) {
    o << "# allocations of the profiling pass: " << profile_allocs_.size() << " (" << array_names_.size()
      << " planned, by memory transactions); of the run: " << allocations_ << ", " << unplanned_
      << " outside the plan (PCM part, else DRAM)\n";
    for (const auto& e : extra_index_)
      o << "# unplanned allocation " << e.first << " at " << e.second << " (live at the end)\n";
  }
  o << "# simulated (sc time and mem.energy_j at each launch; copies are kernels of their own):\n";
  double sum_edp = 0;
  for (const Phase& p : phases_) {
    const double t = p.t1 - p.t0, e = p.e1 - p.e0;
    sum_edp += t * e;
    char line[256];
    std::snprintf(line, sizeof line, "simulated %-40s %.4g s %.4g J EDP %.4g J.s\n", p.what.c_str(), t, e, t * e);
    o << line;
  }
  char line[200];
  std::snprintf(line, sizeof line, "simulated EDP (sum over kernels and copies): %.6g J.s; predicted %.6g J.s\n",
                sum_edp, predicted_edp_);
  o << line;
  o.close();
  return !o.fail();
}

}  // namespace strata
