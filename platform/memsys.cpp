#include "platform/memsys.h"

#include <algorithm>
#include <cstring>
#include <memory>

extern "C" {
#include "base/addrmap.h"
#include "mem/dram.h"
#include "memside/memside.h"
}

namespace strata {

std::vector<std::string> split_list(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i <= s.size()) {
    size_t j = s.find(sep, i);
    if (j == std::string::npos) j = s.size();
    std::string t = s.substr(i, j - i);
    const size_t a = t.find_first_not_of(" \t"), b = t.find_last_not_of(" \t");
    t = a == std::string::npos ? std::string() : t.substr(a, b - a + 1);
    if (!t.empty() || j < s.size()) out.push_back(t);
    i = j + 1;
  }
  return out;
}

namespace {

const char* const kKindKey[3] = {"addrmap.dram_size", "addrmap.nvm_size", "addrmap.scm_size"};

std::string kinds_text(const std::vector<unsigned>& k) {
  std::string s;
  for (unsigned x : k) s += (s.empty() ? "" : ", ") + std::string(dram_kind_name(x));
  return s;
}

}  // namespace

// mem.device's preset with the config's mem.timing.<field> / mem.energy.<field>
// overrides, validated by dram_validate. When the result is inconsistent, the
// key blamed is the first override whose preset value alone makes it valid
// again (else the first override): with tRAS = 50 on hbm2 (tRC 47) that is
// mem.timing.tRAS.
static std::shared_ptr<dram_preset> overridden_device(const Config& C, const dram_preset* base,
                                                      std::vector<std::string>* keys) {
  auto p = std::make_shared<dram_preset>(*base);
  std::vector<const dram_field*> set;
  for (size_t i = 0; i < dram_field_count(); ++i) {
    const dram_field* f = dram_field_at(i);
    const std::string key = (f->energy ? kMemEnergyPrefix : kMemTimingPrefix) + std::string(f->name);
    if (!C.has(key)) continue;
    if (dram_field_set(p.get(), f, C.f(key)) != 0)  // the schema's range keeps values settable
      C.fail(key, f->energy ? "expected a number >= 0, got " + C.s(key) : "expected a cycle count >= 0, got " + C.s(key));
    set.push_back(f);
    keys->push_back(key);
  }
  char why[256];
  if (!set.empty() && dram_validate(p.get(), why, sizeof why) != 0) {
    size_t blame = 0;
    for (size_t k = 0; k < set.size(); ++k) {
      dram_preset trial = *p;
      dram_field_set(&trial, set[k], dram_field_get(base, set[k]));
      if (dram_validate(&trial, nullptr, 0) == 0) {
        blame = k;
        break;
      }
    }
    const std::string& key = (*keys)[blame];
    C.fail(key, "expected a value that keeps mem.device (" + std::string(base->name) + ") consistent, got " +
                    C.s(key) + " (" + why + ")");
  }
  return p;
}

// An empty rank slot ("gddr5_1250+none": a channel of one device on a platform of mem.ranks = 2): a copy of
// the channel's rank-0 preset named "none" that draws nothing (no background power, no refresh, no command
// energy); init_address_map leaves it out of every part, so no request reaches it.
static const dram_preset* empty_slot(MemDevices* md, const dram_preset* base) {
  for (const auto& q : md->adjusted)
    if (std::strcmp(q->name, "none") == 0 && std::strcmp(q->desc, base->name) == 0) return q.get();
  auto q = std::make_shared<dram_preset>(*base);
  q->name = "none";
  q->desc = base->name;  // the interface it copies (the stats name the slot "none")
  q->t.REFI = q->t.RFC = 0;
  q->e = dram_energy{};
  md->adjusted.push_back(q);
  return q.get();
}

// mem.leakage = capacity and mem.io_model = pod: every rank runs a copy of its
// preset with
//  - bg_mw, act_stby_mw and pd_mw x (rank bytes / bg_mib MiB): leakage per
//    capacity (hybrid graphics memory Sec. 3.1, Fig. 2: NVSim's leakage grows
//    with capacity; Sec. 5.2: "the reduced DRAM capacity results in
//    significant leakage power reduction"). A rank's bytes are its part's
//    (addrmap.<kind>_size; sim.max_footprint for a memory of one kind) over
//    the ranks of that kind. The ranks of an unbounded part that a
//    memory-side policy gates row by row (memside_ops.rank_background_j) keep
//    their preset: the policy charges bg_mw x row bytes / bg_mib per powered
//    row (md->policy_leakage).
//  - rd_pj and wr_pj with their I/O part (io_pj_bit per bit) replaced by POD
//    termination (Sec. 5.1: "The POD drivers uses a 40 ohm or 60 ohm impedance
//    that drives into a 60 ohm equivalent on-die-terminator (ODT) tied to
//    Vddq"): a 0 driven for one bit time t_bit = 1 / (clock x data rate)
//    draws VDDQ / (Ron + Rtt), a 1 nothing, so per bit
//    zero_fraction x VDDQ^2 / (Ron + Rtt) x t_bit (2.81 pJ at 4 Gb/s per pin,
//    2.25 pJ at 5 Gb/s with the defaults). Both directions terminate alike
//    (the controller's ODT on reads, the device's on writes).
// Ranks of one preset and one capacity share a copy; when every rank ran
// mem.device, iface becomes the copy (the engine keeps its one-preset path).
static void adjust_energy(const Config& C, MemDevices* md) {
  const bool cap = C.s("mem.leakage") == "capacity", pod = C.s("mem.io_model") == "pod";
  if (!cap && !pod) return;
  const memside_ops* pol = memside_find(C.s("memside.policy").c_str());
  const bool policy_gates = pol && pol->rank_background_j;
  unsigned nkind[3] = {0, 0, 0};
  for (size_t i = 0; i < md->dev.size(); ++i)
    if (md->empty.empty() || !md->empty[i]) nkind[dram_mem_kind(md->dev[i])]++;
  double rank_bytes[3] = {0, 0, 0};
  bool by_policy[3] = {false, false, false};
  for (unsigned k : md->kinds) {
    const std::string key = md->kinds.size() == 1 ? "sim.max_footprint" : kKindKey[k];
    const double bytes = static_cast<double>(C.size(key));
    if (bytes > 0) rank_bytes[k] = bytes / nkind[k];
    else if (policy_gates) by_policy[k] = true;
    else if (cap)
      C.fail("mem.leakage", "expected " + key + " > 0 with capacity (the capacity of the " + dram_kind_name(k) +
                                " ranks), got 0");
  }
  const double vddq = C.f("mem.pod.vddq"), r = C.f("mem.pod.ron_ohm") + C.f("mem.pod.rtt_ohm"),
               zeros = C.f("mem.pod.zero_fraction");
  struct Done { const dram_preset* from; double scale; const dram_preset* to; };
  std::vector<Done> done;
  const dram_preset* const iface0 = md->iface;
  bool all_iface = true;
  for (size_t i = 0; i < md->dev.size(); ++i) {
    const dram_preset*& p = md->dev[i];
    if (!md->empty.empty() && md->empty[i]) {  // an empty slot draws nothing either way
      all_iface = false;
      continue;
    }
    const unsigned k = dram_mem_kind(p);
    if (cap && (p->e.bg_mib <= 0))
      C.fail("mem.leakage", std::string("expected presets that give the capacity of their background power "
                                        "(bg_mib) with capacity, got '") + p->name + "'");
    if (pod && !p->io_pod)
      C.fail("mem.io_model", std::string("expected presets with a GDDR5 pseudo-open-drain data bus with pod, got '") +
                                 p->name + "' (" + p->desc + ")");
    const double scale = cap && !by_policy[k] ? rank_bytes[k] / (p->e.bg_mib * 1048576.0) : 1.0;
    all_iface = all_iface && p == iface0;
    const dram_preset* to = nullptr;
    for (const Done& d : done)
      if (d.from == p && d.scale == scale) to = d.to;
    if (!to) {
      auto q = std::make_shared<dram_preset>(*p);
      q->e.bg_mw *= scale, q->e.act_stby_mw *= scale, q->e.pd_mw *= scale;
      if (pod) {
        const double bits = 8.0 * q->atom_bytes, t_bit_s = 1.0 / (q->clk_mhz * 1e6 * q->data_rate);
        const double pod_pj = zeros * vddq * vddq / r * t_bit_s * 1e12;
        q->e.rd_pj += (pod_pj - q->e.io_pj_bit) * bits;
        q->e.wr_pj += (pod_pj - q->e.io_pj_bit) * bits;
        q->e.io_pj_bit = pod_pj;
      }
      md->adjusted.push_back(q);
      to = q.get();
      done.push_back({p, scale, to});
    }
    p = to;
  }
  for (unsigned k = 0; k < 3; ++k) md->policy_leakage = md->policy_leakage || (cap && by_policy[k]);
  if (all_iface && done.size() == 1) md->iface = done[0].to;  // one preset everywhere: stays unmixed
  else md->mixed = true;
  for (unsigned c = 0; c < md->channels; ++c) md->chan[c] = md->at(c, 0);
}

MemDevices mem_devices(const Config& C) {
  MemDevices md;
  const dram_preset* row = dram_find(C.s("mem.device").c_str());
  if (!row)
    C.fail("mem.device", std::string("expected one of ") + dram_names() + ", got '" + C.s("mem.device") + "'");
  md.own = overridden_device(C, row, &md.overrides);
  md.iface = md.own.get();
  md.channels = static_cast<unsigned>(C.i("mem.channels"));
  md.ranks = static_cast<unsigned>(C.i("mem.ranks"));
  const std::vector<std::string> rl = split_list(C.s("mem.rank_devices")), cl = split_list(C.s("mem.channel_devices"));
  if (!rl.empty() && !cl.empty())
    C.fail("mem.channel_devices", "expected either mem.rank_devices or mem.channel_devices, not both (mem.rank_devices "
                                  "is set at " + C.origin("mem.rank_devices") + ")");
  if (!rl.empty() && rl.size() != md.ranks)
    C.fail("mem.rank_devices", "expected one preset per rank (mem.ranks = " + std::to_string(md.ranks) + "), got " +
                                   std::to_string(rl.size()));
  if (cl.size() > md.channels)
    C.fail("mem.channel_devices", "expected at most mem.channels (" + std::to_string(md.channels) + ") presets, got " +
                                      std::to_string(cl.size()));
  if (!cl.empty() && md.channels % cl.size() != 0)
    C.fail("mem.channel_devices", "expected a list whose length divides mem.channels (" +
                                      std::to_string(md.channels) + "), got " + std::to_string(cl.size()));
  auto lookup = [&](const char* key, const std::string& name) {
    if (name == C.s("mem.device")) return md.iface;  // the overridden copy
    const dram_preset* p = dram_find(name.c_str());
    if (!p) C.fail(key, std::string("expected preset names from ") + dram_names() + ", got '" + name + "'");
    return p;
  };
  const std::string iface_name =
      std::string(md.iface->name) + (md.overrides.empty() ? "" : " with its mem.timing overrides");
  // mem.rank_devices: every channel has mem.device's interface, so each rank's preset must share it.
  std::vector<const dram_preset*> rdev;
  for (const std::string& n : rl) {
    const dram_preset* p = lookup("mem.rank_devices", n);
    char why[200];
    if (!dram_same_interface(md.iface, p, why, sizeof why))
      C.fail("mem.rank_devices", "expected presets with the channel interface and bank geometry of mem.device (" +
                                     iface_name + "), got '" + n + "' (" + why + ")");
    rdev.push_back(p);
  }
  // mem.channel_devices: entry i is channel i's presets, one for every rank or one per rank joined by '+'. A
  // channel's ranks share its interface (its rank 0's preset); channels share mem.device's bank geometry (the
  // address map decodes one), not its interface (each channel has its own controller and clock).
  std::vector<std::vector<const dram_preset*>> cdev;
  for (const std::string& e : cl) {
    const std::vector<std::string> names = split_list(e, '+');
    if (names.size() != static_cast<size_t>(std::count(e.begin(), e.end(), '+')) + 1)
      C.fail("mem.channel_devices", "expected a preset name on each side of every '+', got '" + e + "'");
    if (names.size() != 1 && names.size() != md.ranks)
      C.fail("mem.channel_devices", "expected one preset or one per rank (mem.ranks = " + std::to_string(md.ranks) +
                                        ") joined by '+' per channel, got '" + e + "'");
    std::vector<const dram_preset*> ch;
    for (const std::string& n : names) {
      if (n == "none") {  // an empty rank slot: a copy of the channel's rank 0 that no address reaches
        if (ch.empty())
          C.fail("mem.channel_devices", "expected a preset for rank 0 of channel entry '" + e + "', got 'none' (only "
                                        "a later rank may be an empty slot)");
        ch.push_back(empty_slot(&md, ch[0]));
        continue;
      }
      const dram_preset* p = lookup("mem.channel_devices", n);
      char why[200];
      if (!dram_same_geometry(md.iface, p, why, sizeof why))
        C.fail("mem.channel_devices", "expected presets with the bank geometry of mem.device (" + iface_name +
                                          "), got '" + n + "' (" + why + ")");
      if (!ch.empty() && !dram_same_interface(ch[0], p, why, sizeof why))
        C.fail("mem.channel_devices", "expected the ranks of channel entry '" + e + "' to share one interface, got '" +
                                          n + "' beside '" + ch[0]->name + "' (" + why + ")");
      ch.push_back(p);
    }
    cdev.push_back(ch);
  }
  md.dev.resize(static_cast<size_t>(md.channels) * md.ranks);
  md.chan.resize(md.channels);
  for (unsigned c = 0; c < md.channels; ++c) {
    for (unsigned r = 0; r < md.ranks; ++r) {
      const dram_preset* p = md.iface;
      if (!rdev.empty()) p = rdev[r];
      if (!cdev.empty()) {
        const std::vector<const dram_preset*>& ch = cdev[c % cdev.size()];
        p = ch[ch.size() == 1 ? 0 : r];
      }
      md.dev[c * md.ranks + r] = p;
      if (p != md.iface) md.mixed = true;
      if (std::strcmp(p->name, "none") == 0) {
        md.empty.resize(md.dev.size(), 0);
        md.empty[c * md.ranks + r] = 1;
      }
    }
    md.chan[c] = md.at(c, 0);
    if (md.chan[c] != md.iface && !dram_same_interface(md.iface, md.chan[c], nullptr, 0)) md.mixed_iface = true;
  }
  // Kinds present, in addrmap.part_order.
  bool present[3] = {false, false, false};
  for (const dram_preset* p : md.dev) present[dram_mem_kind(p)] = true;
  const std::vector<std::string> order = split_list(C.s("addrmap.part_order"));
  bool seen[3] = {false, false, false};
  for (const std::string& k : order) {
    unsigned x = 3;
    for (unsigned i = 0; i < 3; ++i)
      if (k == dram_kind_name(i)) x = i;
    if (x == 3) C.fail("addrmap.part_order", "expected a list of the kinds dram, nvm, scm, got '" + k + "'");
    if (seen[x]) C.fail("addrmap.part_order", "expected each kind once, got '" + k + "' twice");
    seen[x] = true;
    if (present[x]) md.kinds.push_back(x);
  }
  for (unsigned i = 0; i < 3; ++i)
    if (present[i] && !seen[i])
      C.fail("addrmap.part_order", "expected every memory kind of the devices, '" + std::string(dram_kind_name(i)) +
                                       "' is missing (got '" + C.s("addrmap.part_order") + "')");
  if (md.mixed && !C.s("mem.timing_check_device").empty())
    C.fail("mem.timing_check_device", "expected it empty with mem.rank_devices / mem.channel_devices (the checker "
                                      "uses each rank's own preset)");
  adjust_energy(C, &md);
  const std::string& chk = C.s("mem.timing_check_device");
  md.check = chk.empty() || chk == C.s("mem.device") ? md.iface : dram_find(chk.c_str());
  if (!md.check)  // Config::check_consistency names the presets first; kept for callers without it
    C.fail("mem.timing_check_device", std::string("expected one of ") + dram_names() + ", got '" + chk + "'");
  return md;
}

McCfg mc_setup(const Config& C, const MemDevices& md, unsigned ch) {
  McCfg m;
  mc_cfg& e = m.engine;
  e.dev = md.interface_of(ch);  // its own clock and bus (mem.channel_devices), else mem.device's
  e.ranks = md.ranks;
  e.rank_devs = md.mixed ? md.rank_devs(ch) : nullptr;  // mixed technologies: a preset per rank
  e.rq_size = static_cast<uint32_t>(C.i("mem.read_queue"));
  e.wq_size = static_cast<uint32_t>(C.i("mem.write_queue"));
  e.wq_high = static_cast<uint32_t>(C.i("mem.wq_high"));
  e.wq_low = static_cast<uint32_t>(C.i("mem.wq_low"));
  e.open_page = C.s("mem.page_policy") == "open" ? 1 : 0;
  e.refresh = C.b("mem.refresh") ? 1 : 0;
  e.refresh_per_bank = C.s("mem.refresh_mode") == "per_bank" ? 1 : 0;
  e.pd_idle = static_cast<uint32_t>(C.i("mem.powerdown_idle_cycles"));
  e.nvm_gating = C.b("mem.nvm_power_gating") ? 1 : 0;
  e.demand_first = C.b("mem.demand_priority") ? 1 : 0;
  // Mixed ranks or channels: the checker runs each rank's own preset behind the channel's interface.
  m.check_dev = !C.b("mem.timing_check") ? nullptr : md.mixed ? e.dev : md.check;
  // mem.ideal (mc.h mc_ideal): an idealisation of ranks that exist, never checked against the real timing.
  const std::string ideal = C.s("mem.ideal");
  static const char* const kIdeal[] = {"none", "nvm_write", "nvm_read", "dram_write", "dram_read"};
  for (uint32_t k = 0; k < 5; ++k)
    if (ideal == kIdeal[k]) e.ideal = k;
  if (e.ideal != MC_IDEAL_NONE) {
    if (C.b("mem.timing_check"))
      C.fail("mem.ideal", "expected mem.timing_check = false with an idealised controller (the checker holds the "
                          "device's real timing), got mem.ideal = " + ideal);
    const bool nvm = e.ideal == MC_IDEAL_NVM_WRITE || e.ideal == MC_IDEAL_NVM_READ;
    bool present = false;
    for (const ::dram_preset* d : md.dev) present |= (d->tech == DRAM_TECH_NVM) == nvm;
    if (!present)
      C.fail("mem.ideal", std::string("expected ") + (nvm ? "NVM or SCM" : "DRAM") + " ranks to idealise, got " +
                              ideal + " on a memory without them");
  }
  return m;
}

void init_address_map(const Config& C, const MemDevices& md, amap* out) {
  const dram_preset* dev = md.iface;
  const unsigned nch = md.channels;
  const uint32_t ranks = md.ranks;
  // L2 banks per memory partition (memside.partition_channels channels each; l2.banks is a multiple of the channels)
  const uint32_t pch = static_cast<uint32_t>(C.i("memside.partition_channels"));
  if (nch % pch || (pch & (pch - 1)))
    C.fail("memside.partition_channels", "expected a power of two dividing mem.channels (" + std::to_string(nch) +
                                             "), got " + std::to_string(pch));
  const uint32_t l2pc = static_cast<uint32_t>(C.i("l2.banks")) / (nch / pch);
  const int hash = C.b("addrmap.hash") ? 1 : 0;
  std::string layout = C.s("addrmap.layout");
  char buf[256], err[256];
  if (md.kinds.size() <= 1) {
    if (!md.empty.empty())
      C.fail("mem.channel_devices", "expected devices of two or more kinds with an empty rank slot ('none'): a "
                                    "memory of one kind maps every rank");
    if (layout == "auto") {
      if (amap_default_layout(buf, sizeof buf, dev->atom_bytes, dev->row_bytes, nch, ranks, dev->bankgroups,
                              dev->banks_per_group) != 0)
        C.fail("addrmap.layout", "cannot derive a layout for " + C.s("mem.device"));
      layout = buf;
    }
    if (amap_init(out, layout.c_str(), nch, ranks, dev->bankgroups, dev->banks_per_group, dev->row_bytes, l2pc, hash,
                  err, sizeof err) != 0)
      C.fail("addrmap.layout", std::string(err) + (C.s("addrmap.layout") != "auto" && std::strstr(err, "geometry")
                                                       ? " (--set addrmap.layout=auto derives one from the geometry)"
                                                       : ""));
    if (out->atom_bytes != dev->atom_bytes)
      C.fail("addrmap.layout", "expected off:" + std::to_string(dev->atom_bytes) + " (bytes per column access of " +
                                   C.s("mem.device") + "), got off:" + std::to_string(out->atom_bytes));
    if (!md.kinds.empty()) amap_set_mem(out, md.kinds[0]);
    if (C.s("addrmap.part_pattern") == "scatter")
      C.fail("addrmap.part_pattern", "expected alternate: scatter needs a hybrid memory with interleaved parts "
                                     "(addrmap.part_interleave > 0), this memory has one kind");
    if (amap_set_partition_channels(out, pch, err, sizeof err) != 0) C.fail("memside.partition_channels", err);
    return;
  }
  // Hybrid memory: one part per kind, over the channels x ranks of that kind.
  const uint64_t inter = C.size("addrmap.part_interleave");
  if (inter % AMAP_PART_ALIGN)
    C.fail("addrmap.part_interleave", "expected 0 (parts one after the other) or a multiple of " +
                                          std::to_string(AMAP_PART_ALIGN) + " bytes, got " + std::to_string(inter));
  std::vector<amap_part_cfg> parts(md.kinds.size());
  std::vector<std::vector<uint32_t>> chs(md.kinds.size()), ras(md.kinds.size());
  for (size_t i = 0; i < md.kinds.size(); ++i) {
    const unsigned k = md.kinds[i];
    for (unsigned c = 0; c < nch; ++c)
      for (unsigned r = 0; r < ranks; ++r)
        if (!md.is_empty(c, r) && dram_mem_kind(md.at(c, r)) == k) {
          if (std::find(chs[i].begin(), chs[i].end(), c) == chs[i].end()) chs[i].push_back(c);
          if (std::find(ras[i].begin(), ras[i].end(), r) == ras[i].end()) ras[i].push_back(r);
        }
    std::sort(ras[i].begin(), ras[i].end());
    for (uint32_t c : chs[i])
      for (uint32_t r : ras[i])
        if (md.is_empty(c, r) || dram_mem_kind(md.at(c, r)) != k)
          C.fail(C.s("mem.rank_devices").empty() ? "mem.channel_devices" : "mem.rank_devices",
                 "expected the " + std::string(dram_kind_name(k)) + " ranks to form a channels x ranks grid");
    const char* key = kKindKey[k];
    const uint64_t bytes = C.size(key);
    if (bytes % AMAP_PART_ALIGN)
      C.fail(key, "expected a multiple of " + std::to_string(AMAP_PART_ALIGN) + " bytes, got " + std::to_string(bytes));
    if (!bytes && inter)
      C.fail(key, "expected a size > 0: interleaved parts (addrmap.part_interleave) alternate in the ratio of their "
                  "sizes");
    if (!bytes && i + 1 < md.kinds.size())
      C.fail(key, "expected a size > 0: the " + std::string(dram_kind_name(k)) +
                      " part is followed by another in addrmap.part_order (" + kinds_text(md.kinds) +
                      "; only the last may be 0 = unbounded)");
    parts[i] = amap_part_cfg{k, bytes, static_cast<uint32_t>(chs[i].size()), static_cast<uint32_t>(ras[i].size()),
                             chs[i].data(), ras[i].data()};
  }
  if (amap_init_parts(out, parts.data(), static_cast<unsigned>(parts.size()), inter, layout.c_str(), nch, ranks,
                      dev->bankgroups, dev->banks_per_group, dev->row_bytes, dev->atom_bytes, l2pc, hash, err,
                      sizeof err) != 0)
    C.fail(std::string(err).find("interleave") != std::string::npos ? "addrmap.part_interleave" : "addrmap.layout",
           err);
  if (amap_set_part_scatter(out, C.s("addrmap.part_pattern") == "scatter", err, sizeof err) != 0)
    C.fail("addrmap.part_pattern", "expected alternate: scatter needs interleaved parts, and addrmap.part_interleave "
                                   "is 0");
  if (amap_set_partition_channels(out, pch, err, sizeof err) != 0) C.fail("memside.partition_channels", err);
}

}  // namespace strata
