// The memory side of a config (see memory_side.h): built here for the
// platform and for `strata memtrace`.
#include "platform/memory_side.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <stdexcept>

#include "common/sched.h"
#include "host/host_path.h"
#include "link/tlm_link.h"
#include "memctrl/mem_ctrl.h"
#include "memctrl/scm_throttle.h"
#include "memside/mem_side.h"
#include "memside/um_driver.h"
#include "platform/module_cfg.h"
#include "platform/policy_keys.h"

extern "C" {
#include "mem/dram.h"
}

namespace strata {

namespace {
// Memory kinds (AMAP_MEM_*) as the config keys name them (addrmap.<kind>_size).
const char* const kKindName[] = {"dram", "nvm", "scm"};

std::vector<memside_value> policy_values(const Config& cfg, const memside_ops* ops) {
  return ops->params ? memside_values(cfg, *ops->params) : std::vector<memside_value>{};
}
}  // namespace

bool derive_memside_config(Config& cfg, const MemDevices& md, const MemSideProgram& prog, DerivedStat* stat) {
  const memside_ops* ops = memside_find(cfg.s("memside.policy").c_str());
  if (!ops->derive) return false;
  const std::vector<memside_value> param = policy_values(cfg, ops);
  memside_plan in{};
  in.param = param.empty() ? nullptr : param.data();
  in.sys = memside_sys_of(cfg);
  in.footprint_bytes = prog.footprint_bytes;
  in.program_end = prog.end;
  in.row_bytes = md.iface->row_bytes;
  for (unsigned c = 0; c < md.channels; ++c) {
    bool has[3] = {};
    for (unsigned r = 0; r < md.ranks; ++r) has[dram_mem_kind(md.at(c, r))] = true;
    for (unsigned k = 0; k < 3; ++k) in.kind_channels[k] += has[k];
  }
  for (unsigned k = 0; k < 3; ++k) in.part_bytes[k] = cfg.size(std::string("addrmap.") + kKindName[k] + "_size");
  memside_derivation out{};
  uint32_t bad = 0;
  char err[256] = "";
  if (ops->derive(&in, &out, &bad, err, sizeof err) != 0) cfg.fail(memside_key(*ops->params, ops->params->param[bad]), err);
  if (out.stat_name) {
    stat->name = out.stat_name;
    stat->desc = out.stat_desc;
    stat->value = out.stat_value;
  }
  if (!out.n) return false;
  std::vector<std::pair<std::string, std::string>> v;
  for (uint32_t k = 0; k < out.n; ++k) v.emplace_back(out.kv[k].key, out.kv[k].value);
  cfg.derive(v, out.reason);
  return true;
}

bool memside_is_plain(const Config& cfg) {
  return cfg.s("memside.policy") == "plain" && cfg.s("hostpath.link") == "none" && cfg.s("mem.scm_link") == "none" &&
         !(cfg.f("mem.scm_throttle.threshold_w") > 0);
}

MemorySide::MemorySide(const Config& cfg, PayloadPool& pool, StatsRegistry& stats)
    : cfg_(cfg), pool_(pool), stats_(stats) {}

MemorySide::~MemorySide() {
  for (bstore& d : device_) bstore_free(&d);
}

std::vector<MemCtrl*> MemorySide::ctrls() const {
  std::vector<MemCtrl*> v;
  for (auto& m : mcs_) v.push_back(m.get());
  return v;
}

std::vector<MemSide*> MemorySide::sides() const {
  std::vector<MemSide*> v;
  for (auto& s : sides_) v.push_back(s.get());
  return v;
}

// Per channel a device controller over its own contents (by device address);
// the host path; the manager; per memory partition (memside.partition_channels
// consecutive channels, one by default) a memory-side controller running
// memside.policy over the partition's channels, device d = its d-th channel,
// and the host memory as its last device when there is a host path.
void MemorySide::build(const MemDevices& md, const ::amap* map, unsigned upstream, const MemSideProgram& prog) {
  const Config& cfg = cfg_;
  map_ = map;
  const unsigned nch = md.channels;
  device_.resize(nch);
  for (bstore& d : device_) bstore_init(&d);
  for (unsigned c = 0; c < nch; ++c) {
    const McCfg mc = mc_setup(cfg, md, c);  // presets (mem.device with its overrides), queues, policies, checker
    mcs_.emplace_back(new MemCtrl(("mem_ch" + std::to_string(c)).c_str(), c, mc, &device_[c], pool_, stats_));
  }
  build_scm_links(md);
  if (cfg.b("um.enabled")) {  // before the partitions' policies see the host device
    if (cfg.s("hostpath.link") == "none")
      cfg.fail("um.enabled", "expected hostpath.link set (pages start in host memory behind it), got none");
  }
  const memside_ops* ops = memside_find(cfg.s("memside.policy").c_str());
  const dram_preset* g = md.iface;
  const unsigned pch = static_cast<unsigned>(cfg.i("memside.partition_channels")), nparts = nch / pch;
  if (pch > MEMSIDE_MAX_DEVS)
    cfg.fail("memside.partition_channels", "expected at most " + std::to_string(MEMSIDE_MAX_DEVS) +
                                               " channels per partition, got " + std::to_string(pch));
  blocks_ = {blocks_bypass_scorer(cfg.s("blocks.bypass_scorer").c_str()), blocks_tag_cache(cfg.s("blocks.tag_cache").c_str()),
             blocks_flrb(cfg.s("blocks.flrb").c_str())};  // the schema's choices are the registered names
  if (HostPathCfg hc; host_path_cfg(cfg, &hc)) {
    try {
      host_.reset(new HostPath(hc, stats_));
    } catch (const std::invalid_argument& e) {
      cfg.fail("hostpath.link", e.what());
    }
  }
  const memside_sys sys = memside_sys_of(cfg);
  memside_mgr* const shared = build_mgr();
  build_um(prog);
  // The policy's parameters (declared in its own file), the same for every partition; init copies them.
  const std::vector<memside_value> param = policy_values(cfg, ops);
  for (unsigned p = 0; p < nparts; ++p) {
    memside_cfg m{};
    m.blocks = &blocks_;
    m.map = map;
    m.partition = p;
    m.ndevs = pch;
    for (unsigned d = 0; d < pch; ++d) {
      const unsigned c = p * pch + d;
      m.dev_channel[d] = c;
      char err[256];
      if (devaddr_init(&m.geom[d], md.ranks, g->bankgroups, g->banks_per_group, g->row_bytes / g->atom_bytes,
                       g->atom_bytes, err, sizeof err) != 0)
        throw ConfigError(std::string("mem.device: ") + err);
      for (unsigned r = 0; r < md.ranks; ++r) {
        m.rank_kind[d][r] = static_cast<uint8_t>(dram_mem_kind(md.at(c, r)));
        m.rank_tech[d][r] = md.at(c, r)->tech_id;
        m.rank_trcd[d][r] = md.at(c, r)->t.RCD;
        m.rank_twr[d][r] = md.at(c, r)->t.WR;
        m.rank_gate_idle[d][r] = md.at(c, r)->t.GATE_IDLE;
        m.rank_twake[d][r] = md.at(c, r)->t.WAKE;
      }
      m.dev_clk_mhz[d] = md.at(c, 0)->clk_mhz;
      m.dev_bytes_per_clk[d] = md.at(c, 0)->bus_bits / 8 * md.at(c, 0)->data_rate;
    }
    if (host_ && !um_) add_host_device(cfg, &m);  // (under Unified Memory the host is the shell's own device)
    m.sys = sys;
    m.footprint_bytes = prog.footprint_bytes;
    m.program_end = prog.end;
    m.mgr = shared;
    m.param = param.empty() ? nullptr : param.data();
    try {
      sides_.emplace_back(new MemSide(("memside_p" + std::to_string(p)).c_str(), ops, m, upstream, pool_, stats_));
    } catch (const std::invalid_argument& e) {
      throw ConfigError("key 'memside.policy' (" + cfg.s("memside.policy") + "): " + e.what());
    }
    for (unsigned d = 0; d < pch; ++d) connect_device(*sides_.back(), p * pch + d);
    if (ops->rank_background_j)  // the policy gates rows itself: it gives the ranks' background energy
      for (unsigned d = 0; d < pch; ++d) {
        MemCtrl* mc = mcs_[p * pch + d].get();
        const MemSide* side = sides_.back().get();
        const bool per_capacity = md.policy_leakage;  // mem.leakage = capacity (memsys.cpp adjust_energy)
        mc->set_background_source([side, mc, d, per_capacity](unsigned r) {
          const dram_energy& e = mc->rank_device(r).e;
          return side->rank_background_j(d, r, e.bg_mw * 1e-3, per_capacity ? e.bg_mib * 1048576.0 : 0.0);
        });
      }
    if (host_ && um_) {  // Unified Memory's host copies: the shell's own last device
      try {
        sides_.back()->attach_um(um_.get(), cfg.size("hostpath.size"));
      } catch (const std::invalid_argument& e) {
        cfg.fail("um.enabled", e.what());
      }
    }
    if (host_) sides_.back()->connect(host_->tsock(), host_->contents(), host_.get());  // the last device
  }
  if (um_) um_->attach(sides());
}

// mem.scm_link (HMS Sec. III-A: SCM devices "attached using external NVLink or CXL"; Sec. IV-C, Fig. 15a "CXL
// SCM"): every channel whose ranks are all SCM is reached through a link of its own between the memory-side
// controller and the channel's device controller. The preset is the one port the whole SCM side shares (the
// GPU's CXL host port); the SCM channels' traffic is interleaved across them by address, so each channel's
// link gets an equal 1/N of the port's bandwidth (N = the SCM channels; rounded down to the byte per second)
// and the port's latency, packets and energy. A channel mixing SCM with other ranks (HMS's own stacks) has no
// link of its own to give: one-line error.
void MemorySide::build_scm_links(const MemDevices& md) {
  const Config& cfg = cfg_;
  scm_links_.resize(md.channels);
  if (cfg.s("mem.scm_link") == "none") return;
  std::vector<unsigned> scm;
  for (unsigned c = 0; c < md.channels; ++c) {
    unsigned n = 0;
    for (unsigned r = 0; r < md.ranks; ++r) n += dram_mem_kind(md.at(c, r)) == AMAP_MEM_SCM;
    if (n == md.ranks)
      scm.push_back(c);
    else if (n)
      cfg.fail("mem.scm_link", "expected every channel's ranks all SCM or none (SCM on channels of its own, "
                               "mem.channel_devices), got channel " + std::to_string(c) + " with " +
                                   std::to_string(n) + " SCM ranks of " + std::to_string(md.ranks));
  }
  if (scm.empty()) cfg.fail("mem.scm_link", "expected SCM channels to put behind the link (mem.channel_devices), got none");
  LinkCfg lc = LinkCfg::from_preset(*link_find(cfg.s("mem.scm_link").c_str()),  // the schema checked the name
                                    static_cast<unsigned>(cfg.i("mem.scm_link_queue")));
  lc.req.bytes_per_s /= scm.size();
  lc.resp.bytes_per_s /= scm.size();
  for (unsigned c : scm) {
    try {  // same-time rank after the crossbar (Noc 0) and the host link (Noc 1)
      scm_links_[c].reset(new Link(("scm_link" + std::to_string(c)).c_str(), lc, stats_, {Stage::Noc, 2 + c}));
    } catch (const std::invalid_argument& e) {
      cfg.fail("mem.scm_link", std::string(e.what()) + " (the port's bandwidth / " + std::to_string(scm.size()) +
                                   " SCM channels)");
    }
    scm_links_[c]->isock.bind(mcs_[c]->tsock);
  }
  auto sum = [this](auto f) {
    double v = 0;
    for (auto& l : scm_links_)
      if (l) v += f(*l);
    return v;
  };
  stats_.formula("mem.scm_link.bytes", "bytes on the SCM links' wires, both directions (data + flit overhead)",
                 Unit::Byte, [sum] {
                   return sum([](const Link& l) {
                     return static_cast<double>(l.channel(Link::kReq).st.wire_bytes + l.channel(Link::kResp).st.wire_bytes);
                   });
                 });
  stats_.formula("mem.scm_link.data_bytes", "data bytes the SCM links carried, both directions", Unit::Byte, [sum] {
    return sum([](const Link& l) {
      return static_cast<double>(l.channel(Link::kReq).st.data_bytes + l.channel(Link::kResp).st.data_bytes);
    });
  });
  stats_.formula("mem.scm_link.energy_j", "energy of the SCM links, J", Unit::Joule,
                 [sum] { return sum([](const Link& l) { return l.energy_j(); }); });
}

// A partition's device d is channel c: its device controller, or the channel's SCM link in front of it.
void MemorySide::connect_device(MemSide& side, unsigned c) {
  if (Link* l = scm_links_[c].get())
    side.connect(l->tsock, &device_[c], mcs_[c].get());
  else
    side.connect(mcs_[c]->tsock, &device_[c], mcs_[c].get());
}

// Unified Memory (um.*, docs/um.md): the driver with the GPU-wide page table over the program's pages, every
// partition's shell attached to it. Its stats are um.*; the link's bytes and energy are link.host_link.*.
void MemorySide::build_um(const MemSideProgram& prog) {
  const Config& cfg = cfg_;
  if (!cfg.b("um.enabled")) return;
  UmCfg uc;
  // The pages tracked: the program's arrays; a CUDA program allocates as it runs (prog.end 0), inside its device
  // heap of sim.max_footprint bytes, so its footprint (and RHBM's frames) is not known yet: um.frames gives them.
  uc.model.pages = ((prog.end ? prog.end : cfg.size("sim.max_footprint")) + UM_PAGE - 1) / UM_PAGE;
  const int64_t frames = cfg.i("um.frames");
  const double rhbm = cfg.f("um.rhbm");
  if (!prog.end && !frames && rhbm < 1)
    cfg.fail("um.rhbm", "expected um.frames (rhbm x the program's footprint / 4096) or um.rhbm >= 1 for a program "
                        "that allocates as it runs (a CUDA program: its footprint is not known before it runs), got " +
                            cfg.s("um.rhbm"));
  uc.model.frames = frames ? static_cast<uint64_t>(frames)
                           : rhbm >= 1 ? uc.model.pages
                                       : static_cast<uint64_t>(std::floor(rhbm * static_cast<double>(uc.model.pages)));
  uc.model.prefetch = cfg.s("um.prefetch") == "none" ? UM_PREFETCH_NONE : UM_PREFETCH_TREE;
  uc.model.batch_max = static_cast<uint32_t>(cfg.i("um.batch_max"));
  if (cfg.s("um.remote") == "counters") {  // migrations of hot leaves into free frames; no prefetch, no eviction
    uc.model.counter_threshold = static_cast<uint32_t>(cfg.i("um.counter_threshold"));
    uc.model.prefetch = UM_PREFETCH_NONE;
  }
  uc.fault_ps = static_cast<uint64_t>(std::llround(cfg.f("um.fault_us") * 1e6));
  if (cfg.s("memside.policy") != "plain" && uc.model.frames < uc.model.pages && !uc.model.counter_threshold)
    cfg.fail(frames ? "um.frames" : "um.rhbm",
             "expected every page to fit (um.rhbm >= 1) with memside.policy = " + cfg.s("memside.policy") +
                 " (a page-out drains and reads only what memside.policy = plain places; eviction under a DRAM "
                 "cache or a migration policy is a later step), got " + std::to_string(uc.model.frames) + " frames for " +
                 std::to_string(uc.model.pages) + " pages");
  try {
    um_.reset(new UmDriver(uc, stats_));
  } catch (const std::invalid_argument& e) {
    std::string m = e.what();
    if (m.rfind("um.frames: ", 0) == 0) m = m.substr(11);
    if (!frames) m += " (um.rhbm " + cfg.s("um.rhbm") + " x " + std::to_string(uc.model.pages) + " pages)";
    cfg.fail(frames ? "um.frames" : "um.rhbm", m);
  }
  stats_.formula("um.host_link.bytes_in", "page bytes moved from host memory into device memory", Unit::Byte, [this] {
    double b = 0;
    for (auto& m : sides_) b += static_cast<double>(m->um_bytes_in());
    return b;
  });
  stats_.formula("um.host_link.bytes_out", "page bytes moved from device memory back to host memory", Unit::Byte,
                 [this] {
                   double b = 0;
                   for (auto& m : sides_) b += static_cast<double>(m->um_bytes_out());
                   return b;
                 });
  stats_.formula("um.l2_dirty_lines", "lines of leaving pages the L2 held dirty (their sectors went out with the page)",
                 Unit::Count, [this] {
                   double b = 0;
                   for (auto& m : sides_) b += static_cast<double>(m->um_l2_dirty_lines());
                   return b;
                 });
  if (HostPath* h = host_.get())
    stats_.formula("um.host_link.energy_j", "host link energy (Unified Memory's page moves are its only "
                   "traffic: the policies do not see the host), J", Unit::Joule, [h] { return h->link().energy_j(); });
}

void MemorySide::check_placement(uint64_t end, uint64_t flat_end) const {
  const memside_ops* ops = memside_find(cfg_.s("memside.policy").c_str());
  if (!ops->program_in_first_part) return;
  const std::vector<memside_value> param = policy_values(cfg_, ops);
  if (!ops->later_parts_flat || !ops->later_parts_flat(param.empty() ? nullptr : param.data()))
    end = std::max(end, flat_end);
  if (map_->nparts && map_->part[0].bytes && end > map_->part[0].bytes) {
    const std::string kind = kKindName[map_->part[0].mem];
    std::string upper = kind;
    for (char& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    throw ConfigError("key 'addrmap." + kind + "_size': expected the workload's arrays (up to " + std::to_string(end) +
                      " bytes) inside the " + upper + " part under memside.policy = " + cfg_.s("memside.policy") +
                      ", got " + std::to_string(map_->part[0].bytes) +
                      (ops->later_parts_flat && flat_end > map_->part[0].bytes
                           ? " (arrays in the DRAM part need memside.flrb.dram_offset beyond it, as configs/pc.toml)"
                           : ""));
  }
}

// The GPU-wide memory-side manager (models/ref/memside/memside_mgr.h; memside.mgr.*, none unless page counters or a
// budget quantum are set): one per memory side, reached by every partition's policy through memside_cfg.mgr, its
// clock the simulated time. Its stats are memside.mgr.*.
memside_mgr* MemorySide::build_mgr() {
  const Config& cfg = cfg_;
  memside_mgr_cfg mc{};
  mc.page_slots = static_cast<uint32_t>(cfg.i("memside.mgr.page_counters"));
  mc.quantum_ps = static_cast<uint64_t>(std::llround(cfg.f("memside.mgr.quantum_ns") * 1000.0));
  mc.budget_bytes = cfg.size("memside.mgr.budget_bytes");
  if (!mc.page_slots && !mc.quantum_ps) return nullptr;
  mc.now_ps = [](void*) { return static_cast<uint64_t>(std::llround(sim_now().to_seconds() * 1e12)); };
  mgr_.reset(new memside_mgr);
  mgr_mem_.assign((memside_mgr_bytes(&mc) + 7) / 8, 0);
  char err[256];
  if (memside_mgr_init(mgr_.get(), &mc, mgr_mem_.data(), err, sizeof err) != 0)
    cfg.fail(mc.page_slots ? "memside.mgr.page_counters" : "memside.mgr.quantum_ns", err);
  const memside_mgr* g = mgr_.get();
  stats_.counter("memside.mgr.accesses", "accesses the policies counted in the GPU-wide page counters", Unit::Count,
                 &g->st.accesses);
  stats_.level("memside.mgr.pages", "4 KiB pages with a GPU-wide access counter (at most memside.mgr.page_counters)",
               Unit::Count, [g] { return static_cast<double>(g->pages); });
  stats_.counter("memside.mgr.replaced", "pages whose counter gave way to another page's (table full around it)",
                 Unit::Count, &g->st.replaced);
  stats_.counter("memside.mgr.granted_bytes", "migration bytes the GPU-wide budget granted", Unit::Byte,
                 &g->st.granted_bytes);
  stats_.counter("memside.mgr.denied", "migration requests refused for the current quantum's budget", Unit::Count,
                 &g->st.denied);
  return mgr_.get();
}

// SCM throttling (HMS Sec. III-E; mem.scm_throttle.*, off unless a threshold is set): one window event for all
// stacks; the memory-side policy of the throttled channel's partition hears of every change (the DRAM cache's
// bypass numerators follow the SCM timing in force).
void MemorySide::build_scm_throttle() {
  const Config& cfg = cfg_;
  if (!(cfg.f("mem.scm_throttle.threshold_w") > 0)) return;
  scmthr_cfg tc{};
  tc.threshold_w = cfg.f("mem.scm_throttle.threshold_w");
  tc.window_ps = static_cast<uint64_t>(std::llround(cfg.f("mem.scm_throttle.window_us") * 1e6));
  tc.rcd_mult = static_cast<uint32_t>(cfg.i("mem.scm_throttle.rcd_mult"));
  tc.wr_mult = static_cast<uint32_t>(cfg.i("mem.scm_throttle.wr_mult"));
  const unsigned k = static_cast<unsigned>(cfg.i("memside.partition_channels"));  // channels per partition
  MemorySide* ms = this;
  try {
    throttle_.reset(new ScmThrottle("scm_throttle", tc, static_cast<unsigned>(cfg.i("mem.scm_throttle.stack_channels")),
                                    ctrls(), stats_, [ms, k](unsigned ch, unsigned r, const dram_timing& t) {
                                      ms->sides_[ch / k]->timing_changed(ch % k, r, t.RCD, t.WR);  // partition, device
                                    }));
  } catch (const std::invalid_argument& e) {
    cfg.fail("mem.scm_throttle.threshold_w", e.what());
  }
}

void MemorySide::register_totals(StatsRegistry& stats, ProbeRegistry* probes) const {
  const std::vector<MemCtrl*> mcv = ctrls();
  MemCtrl::register_totals(stats, mcv);
  if (probes) MemCtrl::register_probes(*probes, mcv);
  MemSide::register_totals(stats, sides());
}

void MemorySide::write_functional(uint64_t pa, const unsigned char* src, size_t len) {
  sides_[partition_of(pa)]->write_functional(pa, src, len);
}

void MemorySide::kernel_boundary(uint32_t kernel, bool last) {
  for (auto& s : sides_) s->kernel_boundary(kernel, last);
}

void MemorySide::finish_timing_check() {
  for (auto& m : mcs_) m->finish_timing_check();
}

uint32_t MemorySide::l2_reserved_ways(uint32_t assoc) const {
  const memside_ops* ops = memside_find(cfg_.s("memside.policy").c_str());
  if (!ops->l2_reserved_ways) return 0;
  const std::vector<memside_value> param = policy_values(cfg_, ops);
  return ops->l2_reserved_ways(param.empty() ? nullptr : param.data(), assoc);
}

}  // namespace strata
