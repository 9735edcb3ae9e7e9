/* memside_mgr: the GPU-wide memory-side manager (memside_mgr.h). */
#include "memside_mgr.h"

#include <stdio.h>
#include <string.h>

size_t memside_mgr_bytes(const memside_mgr_cfg *cfg) {
  return (size_t)cfg->page_slots * (sizeof(uint64_t) + sizeof(uint32_t));
}

int memside_mgr_init(memside_mgr *m, const memside_mgr_cfg *cfg, void *mem, char *err, size_t errlen) {
  const uint32_t n = cfg->page_slots;
  if (n && (n < 16 || n > MGR_MAX_SLOTS || (n & (n - 1)))) {
    snprintf(err, errlen, "memside.mgr.page_counters: expected 0 or a power of two from 16 to %u, got %u",
             MGR_MAX_SLOTS, n);
    return -1;
  }
  if (cfg->quantum_ps && !cfg->now_ps) {
    snprintf(err, errlen, "memside.mgr.quantum_ns: a migration budget needs the platform's clock");
    return -1;
  }
  if (cfg->quantum_ps && !cfg->budget_bytes) {
    snprintf(err, errlen, "memside.mgr.budget_bytes: expected > 0 with a quantum (memside.mgr.quantum_ns), got 0");
    return -1;
  }
  memset(m, 0, sizeof *m);
  m->cfg = *cfg;
  if (n) {
    memset(mem, 0, memside_mgr_bytes(cfg));
    m->page = (uint64_t *)mem;
    m->count = (uint32_t *)(m->page + n);
  }
  return 0;
}

static uint32_t home_slot(const memside_mgr *m, uint64_t page) {
  return (uint32_t)((page * 0x9e3779b97f4a7c15ull) >> 40) & (m->cfg.page_slots - 1);
}

uint32_t memside_mgr_count(memside_mgr *m, uint64_t pa) {
  if (!m->cfg.page_slots) return 0;
  const uint64_t key = pa / MGR_PAGE_BYTES + 1;
  const uint32_t mask = m->cfg.page_slots - 1, h = home_slot(m, key - 1);
  uint32_t empty = UINT32_MAX, coldest = h;
  for (uint32_t i = 0; i < MGR_PROBE; ++i) {
    const uint32_t k = (h + i) & mask;
    if (m->page[k] == key) {
      ++m->st.accesses;
      if (m->count[k] != UINT32_MAX) ++m->count[k];
      return m->count[k];
    }
    if (!m->page[k] && empty == UINT32_MAX) empty = k;
    if (m->page[k] && m->count[k] < m->count[coldest]) coldest = k;
  }
  ++m->st.accesses;
  uint32_t k = empty;
  if (k == UINT32_MAX) { /* the window is full: the coldest page gives way */
    k = coldest;
    ++m->st.replaced;
  } else {
    ++m->pages;
  }
  m->page[k] = key;
  m->count[k] = 1;
  return 1;
}

uint32_t memside_mgr_page_count(const memside_mgr *m, uint64_t pa) {
  if (!m->cfg.page_slots) return 0;
  const uint64_t key = pa / MGR_PAGE_BYTES + 1;
  const uint32_t mask = m->cfg.page_slots - 1, h = home_slot(m, key - 1);
  for (uint32_t i = 0; i < MGR_PROBE; ++i)
    if (m->page[(h + i) & mask] == key) return m->count[(h + i) & mask];
  return 0;
}

void memside_mgr_decay(memside_mgr *m) {
  for (uint32_t k = 0; k < m->cfg.page_slots; ++k)
    if (m->page[k]) m->count[k] = m->count[k] / 2 + (m->count[k] & 1u);
}

int memside_mgr_take_budget(memside_mgr *m, uint64_t bytes) {
  if (!m->cfg.quantum_ps) {
    m->st.granted_bytes += bytes;
    return 1;
  }
  const uint64_t q = m->cfg.now_ps(m->cfg.clock_ctx) / m->cfg.quantum_ps;
  if (q != m->quantum) { /* a new quantum: the budget refills */
    m->quantum = q;
    m->spent = 0;
  }
  if (m->spent && m->spent + bytes > m->cfg.budget_bytes) { /* an unspent quantum grants any one request */
    ++m->st.denied;
    return 0;
  }
  m->spent += bytes;
  m->st.granted_bytes += bytes;
  return 1;
}

uint64_t memside_mgr_next_quantum_ps(const memside_mgr *m) {
  if (!m->cfg.quantum_ps) return UINT64_MAX;
  return (m->cfg.now_ps(m->cfg.clock_ctx) / m->cfg.quantum_ps + 1) * m->cfg.quantum_ps;
}
