// libFuzzer target: the DRAM-trace reader of `strata memtrace` (platform/memtrace.cpp
// TraceReader) in every format. The first input byte picks the format and the
// file name (.stl / .rstl decide relative time under auto); the rest is the file
// (plain or gzip).
#include "fuzz/fuzz_common.h"
#include "platform/memtrace.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  static const strata::TraceFormat kFormats[] = {strata::TraceFormat::Auto, strata::TraceFormat::Stl,
                                                 strata::TraceFormat::Rstl, strata::TraceFormat::Addr,
                                                 strata::TraceFormat::DramSim3};
  const strata::TraceFormat fmt = kFormats[data[0] % 5];
  const std::string path = strata_fuzz::write_file(data[0] & 0x80 ? "case.rstl" : "case.stl", data + 1, size - 1);
  try {
    strata::TraceReader rd(path, fmt, 64);
    strata::TraceReq r;
    for (int n = 0; n < 100000 && rd.next(&r); ++n) {
    }
  } catch (const strata::ConfigError&) {
  }
  return 0;
}
