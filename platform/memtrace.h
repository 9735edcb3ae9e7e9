// strata memtrace: the DRAM-level trace player. Replays a request trace straight
// into the memory-controller engines (models/ref/mem/mc.h, the same C engine the
// platform's MemCtrl runs) and reports bandwidth, read latency (mean and
// p50/p95/p99), row-hit rate and energy in the usual stats.json/stats.txt.
// A memory side that is more than its device controllers (a memory-side
// policy other than plain, a host path, SCM throttling) is built with the
// platform's builder (platform/memory_side.h) and replayed through it under
// SystemC instead (docs/memtrace.md "Through the memory side").
//
// Trace formats (one request per line; blank lines and `#` comments skipped):
//   stl       DRAMSys:   `CYCLE:\t[(LEN)\t]read|write\tADDR[\tDATA]` (StlPlayer's order; ADDR
//                        hex, 0x optional); also `CYCLE: read|write [(LEN)] ADDR [(LEN)] [DATA]`
//   rstl      DRAMSys relative: as stl, CYCLE counted from the previous request
//                        (auto: a file named *.rstl or *.rstl.gz)
//   addr      Ramulator: `0xADDR R|W`; Ramulator 2: `LD|ST 0xADDR`, `R|W 0xADDR` (no timestamps)
//   dramsim3  DRAMsim3:  `0xADDR READ|WRITE CYCLE`
// Timestamps are in cycles of the trace clock (default: the memory command
// clock). A request enters its controller at max(its timestamp, the cycle its
// queue has room); requests enter in trace order (a full queue holds back the
// requests behind it, as in the DRAMSys and Ramulator trace front-ends). Without
// timestamps, requests enter as fast as the controllers accept them.
// A request covers [addr, addr + LEN) (LEN default --request-bytes, 64 B): one
// column access per device atom touched, split by channel (address map from the
// config); it completes when its last access completes.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "platform/config.h"

namespace strata {

enum class TraceFormat { Auto, Stl, Rstl, Addr, DramSim3 };

struct MemTraceOptions {
  std::string trace;           // path (plain, or gzip-compressed)
  TraceFormat format = TraceFormat::Auto;
  unsigned request_bytes = 64; // length of requests that do not give one
  double trace_clock_mhz = 0;  // 0 = memory command clock
  std::string out_dir;
  bool quiet = false;
  bool wrap_addresses = false;  // fold addresses beyond the configured capacity into it (else exit 2)
};

// One parsed trace request.
struct TraceReq {
  uint64_t cycle = 0;   // trace-clock cycle (0 when the format has none)
  uint64_t addr = 0;
  uint32_t bytes = 0;
  bool write = false;
  bool timed = false;
};

// Streaming reader (constant memory whatever the trace size). Errors throw
// ConfigError "FILE:LINE: what was expected, got '...'".
class TraceReader {
 public:
  TraceReader(const std::string& path, TraceFormat fmt, unsigned default_bytes);
  ~TraceReader();
  TraceReader(const TraceReader&) = delete;
  TraceReader& operator=(const TraceReader&) = delete;
  // Next request; false at the end of the file.
  bool next(TraceReq* r);
  TraceFormat format() const { return fmt_; }
  uint64_t line() const { return line_; }
  static const char* format_name(TraceFormat f);
  // "stl" | "addr" | "dramsim3" | "auto"; false when unknown.
  static bool parse_format(const std::string& s, TraceFormat* f);

 private:
  bool next_line(const char** b, const char** e);
  [[noreturn]] void fail(const std::string& what, const char* b, const char* e) const;
  void parse_stl(const char* b, const char* e, TraceReq* r);
  void parse_addr(const char* b, const char* e, TraceReq* r);
  void parse_cmd_addr(const char* b, const char* e, TraceReq* r);
  void parse_dramsim3(const char* b, const char* e, TraceReq* r);
  void detect(const char* b, const char* e);

  std::string path_;
  void* gz_ = nullptr;  // gzFile
  std::vector<char> buf_;
  size_t pos_ = 0, len_ = 0;
  bool eof_ = false;
  uint64_t line_ = 0;
  uint64_t last_cycle_ = 0;  // rstl: the previous request's absolute cycle
  TraceFormat fmt_;
  unsigned default_bytes_;
};

// Run the player on a validated config. Returns an ExitCode (platform.h).
// Bad input (trace lines, options) throws ConfigError.
int run_memtrace(const Config& cfg, const MemTraceOptions& opt);

}  // namespace strata
