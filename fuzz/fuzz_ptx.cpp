// libFuzzer target: the PTX front end (models/ptx, docs/ptx.md). The input is a PTX module:
// it is parsed and decoded; every kernel that can run is then launched as one CTA of 64
// threads (parameters zero, a 64 KiB global memory at 0x10000) and stepped warp by warp for at
// most 20000 warp instructions. Bad input must end in a one-line error (parse, kernel lookup,
// launch or run-time fault); a crash, a sanitizer report, a leak or a hang is a finding.
#include <cstdint>
#include <cstring>
#include <vector>

extern "C" {
#include "ptx.h"
}

namespace {

constexpr uint64_t kBase = 0x10000, kSize = 0x10000;
uint8_t g_mem[kSize];

int fz_load(void*, ptx_space, uint64_t a, void* d, unsigned n) {
  if (a < kBase || a + n > kBase + kSize) return 1;
  std::memcpy(d, g_mem + (a - kBase), n);
  return 0;
}
int fz_store(void*, uint64_t a, const void* s, unsigned n) {
  if (a < kBase || a + n > kBase + kSize) return 1;
  std::memcpy(g_mem + (a - kBase), s, n);
  return 0;
}

bool one_line(const char* s) { return s[0] != 0 && std::strchr(s, '\n') == nullptr; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ptx_module* m = nullptr;
  char err[512];
  if (ptx_parse(reinterpret_cast<const char*>(data), size, "fuzz.ptx", &m, err, sizeof err) != 0) {
    if (m != nullptr || !one_line(err)) __builtin_trap();
    return 0;
  }
  ptx_module_set_base(m, PTX_SPACE_GLOBAL, kBase);
  ptx_module_set_base(m, PTX_SPACE_CONST, kBase + kSize / 2);
  for (unsigned i = 0; i < ptx_module_kernel_count(m) && i < 4; ++i) {
    const ptx_kernel* k0 = ptx_module_kernel_at(m, i);
    ptx_kernel_info ki = ptx_kernel_get_info(k0);
    const ptx_kernel* k = ptx_kernel_find(m, ki.name, err, sizeof err);
    if (k == nullptr) {
      if (!one_line(err)) __builtin_trap();
      continue;
    }
    if (ki.local_per_thread > (1u << 16) || ki.shared_static > (1u << 20) || ki.regs > 20000) continue;
    std::memset(g_mem, 0, sizeof g_mem);
    std::vector<uint8_t> params(ki.param_bytes + 1, 0);
    ptx_launch l;
    std::memset(&l, 0, sizeof l);
    l.kernel = k;
    l.grid[0] = l.grid[1] = l.grid[2] = 1;
    l.block[0] = 64;
    l.block[1] = l.block[2] = 1;
    l.params = params.data();
    l.params_size = ki.param_bytes;
    l.dyn_shared = 256;
    l.mem.load = fz_load;
    l.mem.store = fz_store;
    ptx_cta* c = nullptr;
    uint32_t id[3] = {0, 0, 0};
    if (ptx_cta_init(&c, &l, id, err, sizeof err) != 0) {
      if (!one_line(err)) __builtin_trap();
      continue;
    }
    static ptx_winst wi;
    bool live[2] = {true, true};
    for (int n = 0; n < 20000 && (live[0] || live[1]); ++n) {
      unsigned w = static_cast<unsigned>(n) & 1;
      if (!live[w]) continue;
      ptx_step_status s = ptx_warp_step(c, w, &wi);
      if (s == PTX_STEP_ERROR) {
        if (!one_line(ptx_cta_error(c))) __builtin_trap();
        break;
      }
      if (s == PTX_STEP_EXITED) live[w] = false;
    }
    ptx_cta_free(c);
  }
  ptx_free(m);
  return 0;
}
