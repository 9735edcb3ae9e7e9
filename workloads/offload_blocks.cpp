// Offload-candidate blocks of an Accel-Sim SASS trace (see offload_blocks.h).
#include "offload_blocks.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>

namespace strata {

namespace {

std::string base_of(const char* opcode) {
  const char* dot = std::strchr(opcode, '.');
  return dot ? std::string(opcode, dot) : std::string(opcode);
}

// True if `opcode` has the modifier `mod` (".E" matches "LDG.E" and "LDG.E.64", not "LDG.EL").
bool has_mod(const char* opcode, const char* mod) {
  const size_t n = std::strlen(mod);
  for (const char* p = std::strstr(opcode, mod); p; p = std::strstr(p + 1, mod))
    if (p[n] == '.' || p[n] == 0) return true;
  return false;
}

bool in_list(const std::string& s, std::initializer_list<const char*> l) {
  for (const char* x : l)
    if (s == x) return true;
  return false;
}

void set_regs(std::bitset<256>* bs, unsigned r, unsigned n) {
  for (unsigned k = 0; k < n && r + k < 255u; ++k) bs->set(r + k);
}

}  // namespace

void sass_operand_regs(const SassInst& si, SassClass cls, std::bitset<256>* def, std::bitset<256>* use) {
  def->reset();
  use->reset();
  const bool mem = si.width > 0 && (cls == SassClass::GlobalLoad || cls == SassClass::GlobalStore ||
                                    cls == SassClass::GlobalAtomic || cls == SassClass::Shared ||
                                    cls == SassClass::Local);
  const unsigned data_regs = std::max(1u, (si.width + 3) / 4);
  if (mem) {
    // Address: a 64-bit register pair with the .E (extended address) modifier,
    // one register otherwise; data: one register per 4 bytes of mem_width.
    const unsigned areg = has_mod(si.opcode, ".E") ? 2 : 1;
    for (unsigned i = 0; i < si.nsrc; ++i)
      if (si.src[i] != 255) set_regs(use, si.src[i], i == 0 ? areg : data_regs);
    for (unsigned i = 0; i < si.ndst; ++i)
      if (si.dst[i] != 255) set_regs(def, si.dst[i], data_regs);
    return;
  }
  // 64-bit arithmetic reads and writes register pairs; .WIDE writes a pair
  // from 32-bit factors and a 64-bit addend (its third source).
  const bool wide = has_mod(si.opcode, ".WIDE");
  const bool d64 = has_mod(si.opcode, ".64") || has_mod(si.opcode, ".F64") || (si.opcode[0] == 'D' && cls == SassClass::FpAlu);
  for (unsigned i = 0; i < si.nsrc; ++i)
    if (si.src[i] != 255) set_regs(use, si.src[i], d64 || (wide && i == 2) ? 2 : 1);
  for (unsigned i = 0; i < si.ndst; ++i)
    if (si.dst[i] != 255) set_regs(def, si.dst[i], d64 || wide ? 2 : 1);
}

namespace {
// Fingerprint of an instruction's operand lists (same PC, same operands: nothing to merge).
uint64_t operand_print(const SassInst& si) {
  uint64_t h = mix64(static_cast<uint64_t>(si.ndst) << 40 | static_cast<uint64_t>(si.nsrc) << 32 | si.width);
  for (unsigned i = 0; i < si.ndst; ++i) h = mix64(h ^ si.dst[i]);
  for (unsigned i = 0; i < si.nsrc; ++i) h = mix64(h ^ (0x100u | si.src[i]));
  return h;
}
}  // namespace

void SassBlockDeriver::add(const SassInst& si) {
  // Hot path (every traced line): the previous instruction's latest successor
  // is usually this one again, so the PC lookup and the edge count are a
  // compare and an increment.
  uint32_t i = 0;
  bool found = false;
  if (prev_ >= 0) {
    Inst& p = insts_[static_cast<size_t>(prev_)];
    if (!p.succ.empty() && insts_[p.succ[p.last_succ].first].pc == si.pc) {
      i = p.succ[p.last_succ].first;
      found = true;
    }
  }
  if (!found) {
    auto it = idx_.find(si.pc);
    if (it == idx_.end()) {
      i = static_cast<uint32_t>(insts_.size());
      idx_.emplace(si.pc, i);
      insts_.emplace_back();
      Inst& n = insts_.back();
      n.pc = si.pc;
      n.cls = sass_classify(si.opcode);
      const std::string b = base_of(si.opcode);
      n.gload = n.cls == SassClass::GlobalLoad && si.width > 0;
      n.gstore = n.cls == SassClass::GlobalStore && si.width > 0;
      n.atomic = n.cls == SassClass::GlobalAtomic || b == "ATOMS";
      n.shared = n.cls == SassClass::Shared;
      // Sec. 3.1.4: barriers, memory barriers and other synchronisation.
      n.sync = n.cls == SassClass::Barrier || in_list(b, {"BAR", "MEMBAR", "FENCE", "ERRBAR", "CCTL", "CCTLL",
                                                          "ARRIVES", "DEPBAR", "WARPSYNC", "BSYNC", "SYNC",
                                                          "NANOSLEEP"});
      // Control that leaves the code region for good: exit, calls, returns, indirect jumps.
      n.leaves = n.cls == SassClass::Exit || in_list(b, {"CALL", "CAL", "JCAL", "RET", "PRET", "BRX", "JMX", "KILL",
                                                         "PEXIT", "BPT"});
      n.compare = in_list(b, {"ISETP", "FSETP", "DSETP", "HSETP2", "PSETP", "ISET", "FSET", "DSET", "HSET2", "ICMP",
                              "FCMP", "UISETP"});
      // The PTX tool's "simple add/subtract operation" of a loop counter.
      n.add_like = in_list(b, {"IADD", "IADD3", "IADD32I", "UIADD3", "ISCADD", "LEA", "ULEA"});
      sass_operand_regs(si, n.cls, &n.def, &n.use);
      n.const_def = n.use.none() && n.def.any() && (n.cls == SassClass::IntAlu || n.cls == SassClass::FpAlu);
      n.operands = operand_print(si);
    } else {
      i = it->second;
    }
  }
  Inst& x = insts_[i];
  if (found || x.operands != 0) {
    // The same PC traced again: it is the same instruction; if a tracer printed
    // its operands differently (RZ elided), take the union.
    const uint64_t fp = operand_print(si);
    if (fp != x.operands) {
      std::bitset<256> d, u;
      sass_operand_regs(si, x.cls, &d, &u);
      x.def |= d;
      x.use |= u;
      if (u.any()) x.const_def = false;
    }
  }
  if (prev_ < 0) {
    ++starts_[i];
  } else {
    Inst& p = insts_[static_cast<size_t>(prev_)];
    if (!p.succ.empty() && p.succ[p.last_succ].first == i) {
      ++p.succ[p.last_succ].second;
    } else {
      size_t k = 0;
      while (k < p.succ.size() && p.succ[k].first != i) ++k;
      if (k == p.succ.size()) p.succ.push_back({i, 0});
      ++p.succ[k].second;
      p.last_succ = static_cast<uint32_t>(k);
    }
  }
  prev_ = i;
}

namespace {

using Regs = std::bitset<256>;

struct Region {
  int a, b;  // positions (PC order), inclusive
  bool loop;
};

}  // namespace

void SassBlockDeriver::derive(std::vector<OffloadBlock>* blocks, std::unordered_map<uint64_t, uint16_t>* pc_block) const {
  blocks->clear();
  pc_block->clear();
  const int n = static_cast<int>(insts_.size());
  if (!n) return;
  // Static order by PC.
  std::vector<int> order(n), pos(n);
  for (int i = 0; i < n; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](int x, int y) { return insts_[x].pc < insts_[y].pc; });
  for (int p = 0; p < n; ++p) pos[order[p]] = p;
  auto I = [&](int p) -> const Inst& { return insts_[order[p]]; };
  // Edges in position space.
  struct Edge {
    int from, to;
    uint64_t count;
  };
  std::vector<Edge> edges;
  for (int i = 0; i < n; ++i)
    for (const auto& e : insts_[static_cast<size_t>(i)].succ) edges.push_back({pos[i], pos[static_cast<int>(e.first)], e.second});
  std::sort(edges.begin(), edges.end(), [](const Edge& x, const Edge& y) { return x.from != y.from ? x.from < y.from : x.to < y.to; });
  std::vector<std::vector<int>> succ(n);
  for (const Edge& e : edges) succ[e.from].push_back(e.to);
  std::vector<uint64_t> starts(n, 0);
  for (const auto& s : starts_) starts[pos[static_cast<int>(s.first)]] += s.second;

  // Global liveness (backward, to a fixed point).
  std::vector<Regs> live_in(n);
  for (bool changed = true; changed;) {
    changed = false;
    for (int p = n - 1; p >= 0; --p) {
      Regs out;
      for (int s : succ[p]) out |= live_in[s];
      const Regs in = I(p).use | (out & ~I(p).def);
      if (in != live_in[p]) live_in[p] = in, changed = true;
    }
  }

  // Regions: outermost loops, straight pieces between them.
  std::vector<Region> regions;
  auto breaker = [&](int p) {
    const Inst& x = I(p);
    return x.sync || x.atomic || x.shared || x.leaves;
  };
  auto violates = [&](int a, int b) {
    for (int p = a; p <= b; ++p)
      if (breaker(p)) return true;
    for (const Edge& e : edges) {
      const bool fin = e.from >= a && e.from <= b, tin = e.to >= a && e.to <= b;
      if ((fin && !tin && e.to != b + 1) || (!fin && tin && e.to != a)) return true;
    }
    return false;
  };
  // partition [lo, hi] given the back edges that lie inside it.
  struct Back {
    int v, u;
  };
  std::vector<Back> all_back;
  for (const Edge& e : edges)
    if (e.to <= e.from) all_back.push_back({e.to, e.from});
  auto merge = [](const std::vector<Back>& back) {
    std::vector<std::pair<int, int>> iv, out;
    for (const Back& bk : back) iv.push_back({bk.v, bk.u});
    std::sort(iv.begin(), iv.end());
    for (const auto& x : iv) {
      if (!out.empty() && x.first <= out.back().second) out.back().second = std::max(out.back().second, x.second);
      else out.push_back(x);
    }
    return out;
  };
  auto straight = [&](int a, int b) {  // [a, b] cut at breakers
    int s = a;
    for (int q = a; q <= b + 1; ++q) {
      if (q == b + 1 || breaker(q)) {
        if (q > s) regions.push_back({s, q - 1, false});
        s = q + 1;
      }
    }
  };
  // Partition [lo, hi] with the back edges inside it: outermost loops and the
  // straight pieces between them; a loop that breaks a limit is partitioned
  // again with its inner back edges (depth-limited).
  std::function<void(int, int, const std::vector<Back>&, int)> part = [&](int lo, int hi, const std::vector<Back>& back,
                                                                         int depth) {
    int p = lo;
    for (const auto& L : merge(back)) {
      if (L.first > p) straight(p, L.first - 1);
      regions.push_back({L.first, L.second, true});
      if (depth < 8 && violates(L.first, L.second)) {
        std::vector<Back> inner;
        for (const Back& bk : back)
          if (bk.v >= L.first && bk.u <= L.second && !(bk.v == L.first && bk.u == L.second)) inner.push_back(bk);
        const auto im = merge(inner);
        if (!(im.size() == 1 && im[0] == L)) part(L.first, L.second, inner, depth + 1);  // else: no smaller loop
      }
      p = L.second + 1;
    }
    if (p <= hi) straight(p, hi);
  };
  part(0, n - 1, all_back, 0);
  // Drop regions without global memory instructions; parents before children.
  std::sort(regions.begin(), regions.end(), [](const Region& x, const Region& y) {
    return x.a != y.a ? x.a < y.a : x.b > y.b;
  });
  regions.erase(std::unique(regions.begin(), regions.end(),
                            [](const Region& x, const Region& y) { return x.a == y.a && x.b == y.b && x.loop == y.loop; }),
                regions.end());

  for (const Region& R : regions) {
    uint32_t ld = 0, st = 0, alu = 0, sfu = 0;
    bool shared = false, sync = false, atomic = false, leaves = false;
    Regs defs;
    for (int p = R.a; p <= R.b; ++p) {
      const Inst& x = I(p);
      if (x.gload) ++ld;
      else if (x.gstore) ++st;
      else if (x.cls == SassClass::Sfu || x.cls == SassClass::Texture) ++sfu;
      else ++alu;
      shared |= x.shared;
      sync |= x.sync;
      atomic |= x.atomic;
      leaves |= x.leaves;
      defs |= x.def;
    }
    if (ld + st == 0 || blocks->size() >= kNoBlock) continue;
    // Control leaves other than to the instruction after the block, or enters
    // other than at its first instruction: not converged (Sec. 3.1.4).
    bool divergent = leaves;
    Regs exit_live;
    uint64_t instances = 0, head_returns = 0;
    for (int p = R.a; p <= R.b; ++p) instances += starts[p];
    std::vector<int> entry_preds;
    for (const Edge& e : edges) {
      const bool fin = e.from >= R.a && e.from <= R.b, tin = e.to >= R.a && e.to <= R.b;
      if (fin && !tin) {
        exit_live |= live_in[e.to];
        if (e.to != R.b + 1) divergent = true;
      }
      if (!fin && tin) {
        instances += e.count;
        if (e.to != R.a) divergent = true;
        else entry_preds.push_back(e.from);
      }
      if (fin && tin && e.to == R.a) head_returns += e.count;
    }
    // Live-in: liveness restricted to the block (nothing is live after it).
    std::vector<Regs> lin(static_cast<size_t>(R.b - R.a + 1));
    for (bool changed = true; changed;) {
      changed = false;
      for (int p = R.b; p >= R.a; --p) {
        Regs out;
        for (int s : succ[p])
          if (s >= R.a && s <= R.b) out |= lin[static_cast<size_t>(s - R.a)];
        const Regs in = I(p).use | (out & ~I(p).def);
        if (in != lin[static_cast<size_t>(p - R.a)]) lin[static_cast<size_t>(p - R.a)] = in, changed = true;
      }
    }
    OffloadBlock B;
    char nm[48];
    std::snprintf(nm, sizeof nm, "%s@0x%llx", R.loop ? "loop" : "straight", static_cast<unsigned long long>(I(R.a).pc));
    B.name = nm;
    B.pc_begin = I(R.a).pc;
    B.pc_end = I(R.b).pc;
    B.live_in = static_cast<uint32_t>(lin[0].count());
    B.live_out = static_cast<uint32_t>((defs & exit_live).count());
    B.loads = ld;
    B.stores = st;
    B.alu = alu;
    B.sfu = sfu;
    B.limits = (shared ? OFL_LIMIT_SHARED : 0u) | (sync ? OFL_LIMIT_BARRIER : 0u) | (atomic ? OFL_LIMIT_ATOMIC : 0u) |
               (divergent ? OFL_LIMIT_DIVERGENT : 0u);
    if (R.loop) {
      // Trip count kind from the loop's exit compare: the last compare before
      // the last back edge to the head.
      int latch = -1;
      for (const Edge& e : edges)
        if (e.from >= R.a && e.from <= R.b && e.to == R.a) latch = std::max(latch, e.from);
      if (latch < 0) latch = R.b;
      int cmp = -1;
      for (int p = latch; p >= R.a && cmp < 0; --p)
        if (I(p).compare) cmp = p;
      TripKind kind = TripKind::Unknown;
      if (cmp >= 0) {
        bool ok = true, at_entry = false;
        std::vector<unsigned> ind;
        const Regs& cu = I(cmp).use;
        for (unsigned r = 0; r < 255 && ok; ++r) {
          if (!cu[r]) continue;
          if (!defs[r]) {
            at_entry = true;  // a bound computed before the loop
            continue;
          }
          // Every write of r in the loop must be r = r +/- (constant or loop-invariant).
          for (int p = R.a; p <= R.b && ok; ++p) {
            const Inst& x = I(p);
            if (!x.def[r]) continue;
            if (!x.add_like || !x.use[r]) ok = false;
            for (unsigned q = 0; q < 255 && ok; ++q)
              if (x.use[q] && q != r) {
                if (defs[q]) {
                  // a carry partner of a 64-bit induction pair is fine if it is itself an induction
                  const bool partner = (q == r + 1 || q + 1 == r);
                  if (!partner) ok = false;
                } else {
                  at_entry = true;  // step from a register: known at entry
                }
              }
          }
          ind.push_back(r);
        }
        if (ok) {
          // Static only if each induction variable starts from a constant: its
          // nearest definition before the loop (on every entry path) has no
          // register source.
          bool consts = !ind.empty() && !entry_preds.empty();
          for (unsigned r : ind) {
            for (int pred : entry_preds) {
              int q = pred;
              while (q >= 0 && !I(q).def[r]) --q;
              if (q < 0 || !I(q).const_def) consts = false;
            }
          }
          kind = at_entry || !consts ? TripKind::AtEntry : TripKind::Static;
        }
      }
      const uint64_t iterations = instances + head_returns;
      if (kind == TripKind::Static) {
        // The count itself is not in the trace (immediates / constant bank):
        // take the observed one, and only if every instance can have run it.
        if (instances && iterations % instances == 0 && iterations / instances <= 0xffffffffu)
          B.trips = static_cast<uint32_t>(iterations / instances);
        else kind = TripKind::AtEntry;
      }
      B.trip = kind;
    }
    const uint16_t id = static_cast<uint16_t>(blocks->size());
    blocks->push_back(B);
    for (int p = R.a; p <= R.b; ++p) (*pc_block)[I(p).pc] = id;  // inner regions come later: innermost wins
  }
}

}  // namespace strata
