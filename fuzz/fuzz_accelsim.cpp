// libFuzzer target: the Accel-Sim trace reader (workloads/accelsim.cpp): a
// kernelslist.g, a line "%%", then kernel-1.traceg (listed as such in the
// kernelslist). Builds the program (indexes and validates every file), writes
// its initial data and launches its kernels, generating every warp's
// instructions (the lazy SASS decoding) of the first kernels.
#include <memory>

#include "fuzz/fuzz_common.h"
#include "common/input_error.h"
#include "workloads/accelsim.h"
#include "workloads/program.h"

extern "C" {
#include "base/bstore.h"
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<std::string> parts = strata_fuzz::split_parts(data, size);
  const std::string list = strata_fuzz::write_file(
      "kernelslist.g", reinterpret_cast<const uint8_t*>(parts[0].data()), parts[0].size());
  const std::string kernel = parts.size() > 1 ? parts[1] : std::string();
  strata_fuzz::write_file("kernel-1.traceg", reinterpret_cast<const uint8_t*>(kernel.data()), kernel.size());
  bstore golden;
  bstore_init(&golden);
  try {
    std::unique_ptr<strata::Program> prog = strata::make_accelsim_program(list, 1u << 24);
    prog->init(&golden, nullptr);
    uint64_t insts = 0;
    for (int k = 0; k < 4 && insts < 200000; ++k) {
      strata::Kernel* kern = prog->next_kernel();
      if (!kern) break;
      for (uint32_t c = 0; c < kern->ctas && c < 16; ++c)
        for (uint32_t w = 0; w < kern->warps_per_cta; ++w) {
          strata::WarpCtx ctx{};
          ctx.cta = c;
          ctx.warp = w;
          kern->warp_begin(ctx);
          strata::WarpInst inst{};
          do {
            kern->warp_next(ctx, inst);
          } while (++insts < 200000 && inst.op != strata::Op::Exit);
        }
    }
  } catch (const strata::ConfigError&) {
  }
  bstore_free(&golden);
  return 0;
}
