// strata memtrace: DRAM-level trace player (see memtrace.h).
//
// Direct replay (a memory side of device controllers only; otherwise the
// trace runs through the platform's memory side, run_through_memory_side).
// Event loop without SystemC: the engines are pure C and tell when they can
// next do something (mc_next_event), so the player jumps from event to event:
// feed every request that may enter now, then advance to the earliest of the
// engines' next events and the next timestamp. Nothing is allocated per
// request: parsed lines go straight into the engines, in-flight requests live
// in a fixed slot table, latencies in a fixed histogram.
#include "platform/memtrace.h"

#include <zlib.h>

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <memory>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>

#include "common/payload.h"
#include "common/sched.h"
#include "common/stats.h"
#include "memctrl/scm_throttle.h"
#include "memside/mem_side.h"
#include "platform/memory_side.h"
#include "platform/platform.h"

extern "C" {
#include "base/addrmap.h"
#include "mem/dram.h"
#include "mem/mc.h"
#include "mem/tcheck.h"
}

namespace strata {

namespace fs = std::filesystem;

// ------------------------------------------------------------------ reader

namespace {

constexpr size_t kBufBytes = 1u << 20;
constexpr uint32_t kMaxRequestBytes = 4096;
// Replay limit when sim.max_time_us is 0: one second of simulated time.
constexpr double kDefaultTraceLimitUs = 1e6;

// Character classes (one table lookup per character): hex digit value
// (0-15, 16 = not a hex digit) and field separators (space, tab, CR).
struct CharTab {
  uint8_t hex[256];
  uint8_t sep[256];
  constexpr CharTab() : hex(), sep() {
    for (int i = 0; i < 256; ++i) hex[i] = 16, sep[i] = 0;
    for (int i = 0; i < 10; ++i) hex['0' + i] = static_cast<uint8_t>(i);
    for (int i = 0; i < 6; ++i) hex['a' + i] = hex['A' + i] = static_cast<uint8_t>(10 + i);
    sep[' '] = sep['\t'] = sep['\r'] = 1;
  }
};
constexpr CharTab kChar;
inline uint8_t hexval(char c) { return kChar.hex[static_cast<uint8_t>(c)]; }
inline const char* skip_ws(const char* p, const char* e) {
  while (p < e && kChar.sep[static_cast<uint8_t>(*p)]) ++p;
  return p;
}
inline const char* token_end(const char* p, const char* e) {
  while (p < e && !kChar.sep[static_cast<uint8_t>(*p)]) ++p;
  return p;
}
// Unsigned number: 0x-prefixed hex or decimal, the whole token [b, e). False
// when malformed or above 2^64 - 1.
bool parse_u64(const char* b, const char* e, uint64_t* out) {
  if (b >= e) return false;
  uint64_t v = 0;
  if (e - b > 2 && b[0] == '0' && (b[1] == 'x' || b[1] == 'X')) {
    if (e - b > 18) return false;
    for (const char* p = b + 2; p < e; ++p) {
      const uint8_t h = hexval(*p);
      if (h > 15) return false;
      v = v << 4 | h;
    }
  } else {
    if (e - b > 20) return false;
    for (const char* p = b; p < e; ++p) {
      const unsigned d = static_cast<unsigned>(static_cast<uint8_t>(*p) - '0');
      if (d > 9) return false;
      if (e - b < 20) { /* at most 19 digits: below 2^64 */
        v = v * 10 + d;
      } else if (__builtin_mul_overflow(v, 10u, &v) || __builtin_add_overflow(v, d, &v)) {
        return false;
      }
    }
  }
  *out = v;
  return true;
}
bool token_is(const char* b, const char* e, const char* word) {
  const size_t n = std::strlen(word);
  return static_cast<size_t>(e - b) == n && std::memcmp(b, word, n) == 0;
}

}  // namespace

const char* TraceReader::format_name(TraceFormat f) {
  switch (f) {
    case TraceFormat::Stl: return "stl";
    case TraceFormat::Rstl: return "rstl";
    case TraceFormat::Addr: return "addr";
    case TraceFormat::DramSim3: return "dramsim3";
    default: return "auto";
  }
}

bool TraceReader::parse_format(const std::string& s, TraceFormat* f) {
  if (s == "stl") *f = TraceFormat::Stl;
  else if (s == "rstl") *f = TraceFormat::Rstl;
  else if (s == "addr") *f = TraceFormat::Addr;
  else if (s == "dramsim3") *f = TraceFormat::DramSim3;
  else if (s == "auto") *f = TraceFormat::Auto;
  else return false;
  return true;
}

// zlib's gzread ends quietly at bytes after a gzip member that are not another member: a damaged or
// wrongly concatenated file would replay only its first part. A gzip trace is therefore inflated once
// up front, member by member, and bytes after the last member are an error. Corrupt data is left to
// gzread, which reports it with the line it reached.
static void check_gzip_end(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return;  // gzopen reports it
  std::vector<unsigned char> in(1 << 16), out(1 << 16);
  size_t n = std::fread(in.data(), 1, in.size(), f);
  if (n < 2 || in[0] != 0x1f || in[1] != 0x8b) {
    std::fclose(f);
    return;
  }
  z_stream z{};
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {
    std::fclose(f);
    return;
  }
  uint64_t offset = 0;  // file offset of in[0]
  z.next_in = in.data();
  z.avail_in = static_cast<uInt>(n);
  for (;;) {
    if (z.avail_in == 0) {
      offset += n;
      n = std::fread(in.data(), 1, in.size(), f);
      if (n == 0) break;  // the end of the file inside or right after a member
      z.next_in = in.data();
      z.avail_in = static_cast<uInt>(n);
    }
    z.next_out = out.data();
    z.avail_out = static_cast<uInt>(out.size());
    const int r = inflate(&z, Z_NO_FLUSH);
    if (r == Z_STREAM_END) {
      // Another member must follow right away (its magic 1f 8b), or nothing: the rest moves to the
      // front of the buffer, topped up to see at least two bytes.
      const size_t used = static_cast<size_t>(z.next_in - in.data()), rem = z.avail_in;
      std::memmove(in.data(), z.next_in, rem);
      offset += used;
      n = rem + std::fread(in.data() + rem, 1, in.size() - rem, f);
      z.next_in = in.data();
      z.avail_in = static_cast<uInt>(n);
      if (n == 0) break;
      if (n < 2 || in[0] != 0x1f || in[1] != 0x8b) {
        inflateEnd(&z);
        std::fclose(f);
        throw ConfigError(path + ": expected nothing after the gzip stream, got trailing bytes at offset " +
                          std::to_string(offset) + " (a damaged or wrongly concatenated file)");
      }
      inflateReset(&z);
    } else if (r != Z_OK && r != Z_BUF_ERROR) {
      break;  // corrupt: gzread says so with the line
    }
  }
  inflateEnd(&z);
  std::fclose(f);
}

TraceReader::TraceReader(const std::string& path, TraceFormat fmt, unsigned default_bytes)
    : path_(path), fmt_(fmt), default_bytes_(default_bytes) {
  if (!fs::is_regular_file(path)) throw ConfigError(path + ": cannot open trace file (no such file)");
  check_gzip_end(path);
  gzFile g = gzopen(path.c_str(), "rb");  // reads plain files as they are
  if (!g) throw ConfigError(path + ": cannot open trace file");
  gzbuffer(g, 256 * 1024);
  gz_ = g;
  buf_.resize(kBufBytes);
}

TraceReader::~TraceReader() {
  if (gz_) gzclose(static_cast<gzFile>(gz_));
}

void TraceReader::fail(const std::string& what, const char* b, const char* e) const {
  // The offending text, at most 80 bytes, control characters and binary escaped (\xNN).
  std::string got;
  for (const char* p = b; p < b + std::min<ptrdiff_t>(e - b, 80); ++p) {
    const unsigned char c = static_cast<unsigned char>(*p);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      got += static_cast<char>(c);
    } else {
      char h[8];
      std::snprintf(h, sizeof h, "\\x%02x", c);
      got += h;
    }
  }
  throw ConfigError(path_ + ":" + std::to_string(line_) + ": " + what + ", got '" + got + "'");
}

// Next line as [*b, *e) without the newline; false at the end of the file.
// The view stays valid until the next call.
bool TraceReader::next_line(const char** b, const char** e) {
  for (;;) {
    if (pos_ < len_) {
      char* s = buf_.data() + pos_;
      const char* nl = static_cast<const char*>(std::memchr(s, '\n', len_ - pos_));
      if (nl) {
        *b = s;
        *e = nl;
        pos_ = static_cast<size_t>(nl - buf_.data()) + 1;
        ++line_;
        return true;
      }
    }
    if (eof_) {
      if (pos_ >= len_) return false;
      *b = buf_.data() + pos_;  // last line without a newline
      *e = buf_.data() + len_;
      pos_ = len_;
      ++line_;
      return true;
    }
    // Keep the partial line, refill behind it.
    const size_t rem = len_ - pos_;
    std::memmove(buf_.data(), buf_.data() + pos_, rem);
    pos_ = 0;
    len_ = rem;
    if (len_ == buf_.size()) {
      ++line_;
      fail("a line shorter than 1 MiB", buf_.data(), buf_.data() + 80);
    }
    const int n = gzread(static_cast<gzFile>(gz_), buf_.data() + len_, static_cast<unsigned>(buf_.size() - len_));
    int zerr = Z_OK;
    const char* zmsg = gzerror(static_cast<gzFile>(gz_), &zerr);
    if (n < 0 || (zerr != Z_OK && zerr != Z_STREAM_END))  // a cut gzip stream ends with Z_BUF_ERROR
    {
      std::string m = zmsg ? zmsg : "?";
      if (m.compare(0, path_.size() + 2, path_ + ": ") == 0) m.erase(0, path_.size() + 2);
      throw ConfigError(path_ + ": truncated or corrupt gzip trace (zlib: " + m + ")" +
                        (line_ ? ", after line " + std::to_string(line_) : std::string()));
    }
    if (n == 0) eof_ = true;
    len_ += static_cast<size_t>(n);
  }
}

void TraceReader::detect(const char* b, const char* e) {
  // stl: first token ends with ':'; dramsim3: three tokens; addr: two.
  const char* p = skip_ws(b, e);
  const char* t = token_end(p, e);
  if (t > p && t[-1] == ':') {
    // DRAMSys decides by the extension: .rstl timestamps are relative to the previous request.
    const bool rel = path_.size() >= 5 && (path_.compare(path_.size() - 5, 5, ".rstl") == 0 ||
                                           path_.find(".rstl.") != std::string::npos);
    fmt_ = rel ? TraceFormat::Rstl : TraceFormat::Stl;
    return;
  }
  int ntok = 0;
  for (const char* q = skip_ws(b, e); q < e; q = skip_ws(token_end(q, e), e)) ++ntok;
  if (ntok == 3) fmt_ = TraceFormat::DramSim3;
  else if (ntok == 2) fmt_ = TraceFormat::Addr;
  else
    fail("a request line of a known format (stl 'CYCLE: read 0xADDR', addr '0xADDR R', dramsim3 "
         "'0xADDR READ CYCLE'; or give --format)",
         b, e);
}

bool TraceReader::next(TraceReq* r) {
  const char *b, *e;
  for (;;) {
    if (!next_line(&b, &e)) return false;
    if (line_ == 1 && e - b >= 3 && std::memcmp(b, "\xEF\xBB\xBF", 3) == 0) b += 3;  // a UTF-8 byte-order mark
    const char* p = skip_ws(b, e);
    if (p == e || *p == '#') continue;
    if (fmt_ == TraceFormat::Auto) detect(p, e);
    r->bytes = default_bytes_;
    r->timed = false;
    r->cycle = 0;
    switch (fmt_) {
      case TraceFormat::Stl: parse_stl(p, e, r); break;
      case TraceFormat::Rstl:
        parse_stl(p, e, r);
        r->cycle = r->cycle > UINT64_MAX - last_cycle_ ? UINT64_MAX : last_cycle_ + r->cycle;  // the replay limit rejects the saturated value
        last_cycle_ = r->cycle;
        break;
      case TraceFormat::Addr: parse_addr(p, e, r); break;
      default: parse_dramsim3(p, e, r); break;
    }
    return true;
  }
}

// "(LEN)": a request length of 1..kMaxRequestBytes bytes.
static bool parse_len(const char* p, const char* t, uint64_t* len) {
  return t - p >= 3 && t[-1] == ')' && parse_u64(p + 1, t - 1, len) && *len > 0 && *len <= kMaxRequestBytes;
}

// An stl address: hex, "0x" optional (DRAMSys StlPlayer reads it base 16).
static bool parse_hex_addr(const char* p, const char* t, uint64_t* out) {
  if (t - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) p += 2;
  if (p >= t || t - p > 16) return false;
  uint64_t v = 0;
  for (; p < t; ++p) {
    const uint8_t h = hexval(*p);
    if (h > 15) return false;
    v = v << 4 | h;
  }
  *out = v;
  return true;
}

void TraceReader::parse_stl(const char* b, const char* e, TraceReq* r) {
  // DRAMSys (StlPlayer): CYCLE: [(LEN)] read|write ADDR [DATA]; also Strata's
  // earlier order CYCLE: read|write [(LEN)] ADDR [(LEN)] [DATA]. ADDR is hex
  // ("0x" optional); '#' starts a comment.
  const char* end = static_cast<const char*>(std::memchr(b, '#', static_cast<size_t>(e - b)));
  if (end) e = end;
  const char* colon = static_cast<const char*>(std::memchr(b, ':', static_cast<size_t>(e - b)));
  if (!colon) fail("'CYCLE: read|write 0xADDR' (DRAMSys .stl)", b, e);
  const char* te = colon;
  while (te > b && (te[-1] == ' ' || te[-1] == '\t')) --te;
  if (!parse_u64(b, te, &r->cycle)) fail("a cycle number before ':'", b, e);
  r->timed = true;
  const char* p = skip_ws(colon + 1, e);
  const char* t = token_end(p, e);
  bool have_addr = false, have_len = false;
  if (p < e && *p == '(') {  // DRAMSys: the length before the command
    uint64_t len;
    if (!parse_len(p, t, &len))
      fail("one length '(BYTES)' of 1.." + std::to_string(kMaxRequestBytes) + " bytes", p, e);
    r->bytes = static_cast<uint32_t>(len);
    have_len = true;
    p = skip_ws(t, e);
    t = token_end(p, e);
  }
  if (token_is(p, t, "read")) r->write = false;
  else if (token_is(p, t, "write")) r->write = true;
  else fail("command 'read' or 'write' after the cycle", p, e);
  for (p = skip_ws(t, e); p < e; p = skip_ws(t, e)) {
    t = token_end(p, e);
    if (*p == '(') {
      uint64_t len;
      if (have_len || !parse_len(p, t, &len))
        fail("one length '(BYTES)' of 1.." + std::to_string(kMaxRequestBytes) + " bytes", p, e);
      r->bytes = static_cast<uint32_t>(len);
      have_len = true;
    } else if (!have_addr) {
      if (!parse_hex_addr(p, t, &r->addr)) fail("an address (hex, '0x' optional, as DRAMSys reads it)", p, e);
      have_addr = true;
    } else {  // write data: hex digits, checked but not used (the player models timing)
      const char* q = p;
      if (t - q > 2 && q[0] == '0' && (q[1] == 'x' || q[1] == 'X')) q += 2;
      for (; q < t; ++q)
        if (hexval(*q) > 15) fail("data as hex digits after the address", p, e);
    }
  }
  if (!have_addr) fail("an address after the command", b, e);
}

// Ramulator 2: LD|ST ADDR (LoadStoreTrace) or R|W ADDR; ADDR 0x hex or decimal.
void TraceReader::parse_cmd_addr(const char* b, const char* e, TraceReq* r) {
  const char* t = token_end(b, e);
  if (token_is(b, t, "LD") || token_is(b, t, "R")) r->write = false;
  else if (token_is(b, t, "ST") || token_is(b, t, "W")) r->write = true;
  else fail("'0xADDR R|W' (Ramulator) or 'LD|ST|R|W 0xADDR' (Ramulator 2)", b, e);
  const char* p = skip_ws(t, e);
  const char* t2 = token_end(p, e);
  if (std::memchr(p, ',', static_cast<size_t>(t2 - p)))
    fail("a physical address (Ramulator 2 address vectors 'R 0,1,2,...' name DRAM coordinates, not supported)", p, e);
  if (!parse_u64(p, t2, &r->addr)) fail("an address (0x-prefixed hex or decimal) after the command", p, e);
  if (skip_ws(t2, e) != e) fail("nothing after the address", b, e);
}

void TraceReader::parse_addr(const char* b, const char* e, TraceReq* r) {
  // 0xADDR R|W, or Ramulator 2's command-first orders (parse_cmd_addr)
  if (b < e && (*b < '0' || *b > '9')) return parse_cmd_addr(b, e, r);
  // The usual line, "0x" and 1-16 hex digits up to a separator, in one pass;
  // anything else (decimal, too long, malformed) through the general token
  // parser, which gives the same value or the error.
  const char* t = b;
  uint64_t v = 0;
  if (e - b > 2 && b[0] == '0' && (b[1] == 'x' || b[1] == 'X')) {
    t = b + 2;
    for (uint8_t h; t < e && (h = hexval(*t)) <= 15; ++t) v = v << 4 | h;
  }
  if (t - b > 2 && t - b <= 18 && (t == e || kChar.sep[static_cast<uint8_t>(*t)])) {
    r->addr = v;
  } else {
    t = token_end(b, e);
    if (!parse_u64(b, t, &r->addr)) fail("'0xADDR R|W' (address first)", b, e);
  }
  const char* p = skip_ws(t, e);
  const char* t2 = p + 1;
  if (t2 <= e && (t2 == e || kChar.sep[static_cast<uint8_t>(*t2)]) && (*p == 'R' || *p == 'W')) {
    r->write = *p == 'W';
  } else {
    fail("'R' or 'W' after the address", p, e);
  }
  if (skip_ws(t2, e) != e) fail("nothing after 'R'/'W'", b, e);
}

void TraceReader::parse_dramsim3(const char* b, const char* e, TraceReq* r) {
  // 0xADDR READ|WRITE CYCLE
  const char* t = token_end(b, e);
  if (!parse_u64(b, t, &r->addr)) fail("'0xADDR READ|WRITE CYCLE' (address first)", b, e);
  const char* p = skip_ws(t, e);
  const char* t2 = token_end(p, e);
  if (token_is(p, t2, "READ")) r->write = false;
  else if (token_is(p, t2, "WRITE")) r->write = true;
  else fail("'READ' or 'WRITE' after the address", p, e);
  p = skip_ws(t2, e);
  const char* t3 = token_end(p, e);
  if (!parse_u64(p, t3, &r->cycle)) fail("a cycle number after READ/WRITE", p, e);
  if (skip_ws(t3, e) != e) fail("nothing after the cycle", b, e);
  r->timed = true;
}

// ------------------------------------------------------------------ player

namespace {

double host_seconds_now() {
  using clk = std::chrono::steady_clock;
  return std::chrono::duration<double>(clk::now().time_since_epoch()).count();
}

// What both replays check of a trace request (TraceLimits, check_request).
struct TraceLimits {
  double limit_us = 0;               // sim.max_time_us, else kDefaultTraceLimitUs
  uint64_t limit_trace_cycles = 0;   // the same in trace-clock cycles
  // The configured memory's capacity: the sum of a hybrid map's parts when
  // each has a size (addrmap.<kind>_size); 0 when unbounded (one kind, or a
  // last part of size 0). Addresses must lie below it, or are folded into it
  // with --wrap-addresses (counted in memtrace.wrapped_requests).
  uint64_t capacity = 0;
  std::string capacity_keys;
};

TraceLimits trace_limits(const Config& C, const MemDevices& md, double mem_mhz, const MemTraceOptions& opt) {
  TraceLimits L;
  const double trace_mhz = opt.trace_clock_mhz > 0 ? opt.trace_clock_mhz : mem_mhz;
  L.limit_us = C.f("sim.max_time_us") > 0 ? C.f("sim.max_time_us") : kDefaultTraceLimitUs;
  L.limit_trace_cycles = static_cast<uint64_t>(std::min(L.limit_us * trace_mhz, 1.8e19));
  if (md.kinds.size() > 1)
    for (unsigned k : md.kinds) {
      const std::string key = "addrmap." + std::string(dram_kind_name(k)) + "_size";
      if (C.size(key) == 0) {
        L.capacity = 0;
        L.capacity_keys.clear();
        break;
      }
      L.capacity += C.size(key);
      L.capacity_keys += (L.capacity_keys.empty() ? "" : " + ") + key;
    }
  return L;
}

[[noreturn]] __attribute__((cold, noinline)) void past_limit(const MemTraceOptions& opt, const TraceReader& rd,
                                                             const TraceLimits& L, const TraceReq& r) {
  char lim[32];
  std::snprintf(lim, sizeof lim, "%g", L.limit_us);
  throw ConfigError(opt.trace + ":" + std::to_string(rd.line()) + ": expected a timestamp within the replay " +
                    "limit of " + lim + " us (" + std::to_string(L.limit_trace_cycles) + " trace cycles; set " +
                    "sim.max_time_us to replay longer traces), got cycle " + std::to_string(r.cycle));
}

// A request at or past the configured capacity: exit 2 naming the line, or
// with --wrap-addresses folded into the capacity (a request that would run
// past the end ends there instead).
__attribute__((cold, noinline)) void beyond_capacity(const MemTraceOptions& opt, const TraceReader& rd,
                                                     const TraceLimits& L, TraceReq* r, uint64_t* wrapped) {
  if (!opt.wrap_addresses) {
    char h[24];
    std::snprintf(h, sizeof h, "%llx", static_cast<unsigned long long>(r->addr));
    throw ConfigError(opt.trace + ":" + std::to_string(rd.line()) + ": expected an address below the configured " +
                      "memory's capacity of " + std::to_string(L.capacity) + " bytes (" + L.capacity_keys +
                      "; --wrap-addresses folds larger addresses into it), got 0x" + h + " + " +
                      std::to_string(r->bytes) + " bytes");
  }
  r->addr %= L.capacity;
  if (r->bytes > L.capacity - r->addr) r->addr = L.capacity - r->bytes;
  ++*wrapped;
}

[[noreturn]] __attribute__((cold, noinline)) void past_2_64(const MemTraceOptions& opt, const TraceReader& rd,
                                                            const TraceReq& r) {
  char h[24];
  std::snprintf(h, sizeof h, "%llx", static_cast<unsigned long long>(r.addr));
  throw ConfigError(opt.trace + ":" + std::to_string(rd.line()) + ": address 0x" + h + " + " +
                    std::to_string(r.bytes) + " bytes is outside the device");
}

// A request's timestamp within the replay limit, its bytes within the
// capacity (or folded into it) and below 2^64.
inline void check_request(const MemTraceOptions& opt, const TraceReader& rd, const TraceLimits& L, TraceReq* r,
                          uint64_t* wrapped) {
  if (r->timed && r->cycle > L.limit_trace_cycles) past_limit(opt, rd, L, *r);
  if (L.capacity && (r->addr >= L.capacity || r->bytes > L.capacity - r->addr)) beyond_capacity(opt, rd, L, r, wrapped);
  if (r->addr + r->bytes < r->addr) past_2_64(opt, rd, *r);  // it would split into nothing
}

// Options only a platform run has, and --request-bytes.
void check_options(const Config& C, const MemTraceOptions& opt) {
  for (const char* k : {"sim.warmup_instructions", "sim.max_instructions", "sim.fast_forward_instructions"})  // GPU runs only
    if (C.i(k) != 0)
      C.fail(k, "expected 0 with strata memtrace (a DRAM trace has no instructions; use sim.max_time_us)");
  if (C.b("sim.kernel_sampling"))
    C.fail("sim.kernel_sampling", "expected false with strata memtrace (a DRAM trace has no kernel launches)");
  if (opt.request_bytes == 0 || opt.request_bytes > kMaxRequestBytes)
    throw ConfigError("--request-bytes: expected 1.." + std::to_string(kMaxRequestBytes) + ", got " +
                      std::to_string(opt.request_bytes));
}

// stats.json, stats.txt and config.txt (the effective configuration, as a
// platform run writes it), each complete or absent (write_file_atomic).
void write_stats(const MemTraceOptions& opt, const Config& C, StatsRegistry& S) {
  std::error_code ec;
  fs::create_directories(opt.out_dir, ec);
  if (ec) throw ConfigError("--out " + opt.out_dir + ": cannot create directory (" + ec.message() + ")");
  if (!write_file_atomic(opt.out_dir + "/stats.json", [&](const std::string& f) { return S.write_json(f); }) ||
      !write_file_atomic(opt.out_dir + "/stats.txt", [&](const std::string& f) { return S.write_txt(f); }) ||
      !write_file_atomic(opt.out_dir + "/config.txt", [&](const std::string& f) {
        std::ofstream o(f);
        o << "# effective configuration (key = value  # origin)\n" << C.dump();
        o.close();
        return !o.fail();
      }))
    throw ConfigError("--out " + opt.out_dir + ": cannot write stats files");
}

struct Slot {
  uint64_t enter = 0;     // cycle the request entered the controllers
  uint64_t done = 0;      // latest completion among its parts
  uint32_t parts = 0;     // channel parts still in flight
  uint32_t next = 0;      // free list
  bool write = false;
};

// Exact latency percentiles without per-request storage: a count per cycle
// up to kLatCycles, and the rare longer ones in log2 buckets (their
// percentile is then the bucket's lower bound, flagged in the docs).
constexpr uint32_t kLatCycles = 1u << 16;

// A request split into per-channel parts (atoms in address order).
struct Split {
  uint32_t nparts = 0;
  uint32_t ch[kMaxRequestBytes / 16];
  uint32_t first[kMaxRequestBytes / 16], count[kMaxRequestBytes / 16];
  mc_addr atoms[kMaxRequestBytes / 16 + 1];
};

// The player: run_memtrace calls its steps in order (set-up in the
// constructor, open_trace, replay, settle, register_stats, write_outputs,
// print_summary).
class Player {
 public:
  Player(const Config& C, const MemTraceOptions& opt);
  ~Player() {
    for (auto& m : mcs_) mc_free(&m);
    for (auto& t : tcs_) tcheck_free(&t);
  }
  Player(const Player&) = delete;
  Player& operator=(const Player&) = delete;

  void open_trace();
  int replay();  // kExitOk, or kExitCheckFailed on a timing violation (reported)
  int settle();  // the engines at the end of the run: stats, energy, final timing check
  void register_stats(StatsRegistry& S);
  void write_outputs(StatsRegistry& S) const;
  void print_summary(StatsRegistry& S) const;

 private:
  // set-up
  void build_engines();
  // replay steps
  void load_next();
  void split_request();
  bool fits() const;
  void sync(unsigned c, uint64_t t, unsigned iter);
  int wait_until_fits(uint64_t* t, unsigned* iter);
  void submit(uint64_t t);
  int drain();
  int timing_failed(unsigned c) const;
  [[noreturn]] void stalled(const char* what) const;
  // completions and latency
  static void on_done(void* ctx, uint64_t user, int, uint64_t cycle);
  double percentile(double q) const;

  const Config& C_;
  const MemTraceOptions& opt_;
  const double t_start_;
  const MemDevices md_;  // outlives the engines (they keep pointers to its per-rank presets)
  const dram_preset* dev_;
  const unsigned nch_;
  amap map_{};
  McCfg setup_;
  bool check_ = false;
  const dram_preset* chk_dev_ = nullptr;
  std::vector<mc> mcs_;
  std::vector<tcheck> tcs_;  // one command-timing checker per channel (mem.timing_check)
  std::vector<Slot> slots_;
  uint32_t free_slot_ = 0;

  // the trace and its clock
  std::unique_ptr<TraceReader> rd_;
  double mem_mhz_ = 0, trace_mhz_ = 0;
  bool same_clock_ = true;
  double t_setup_ = 0, t_end_ = 0;
  TraceLimits lim_;  // replay limit and capacity (trace_limits)
  uint64_t wrapped_ = 0;
  uint32_t ab_ = 0;            // bytes per column access (atom)
  uint64_t col_chunk_ = 0;     // amap_col_chunk_bytes
  bool ab_pow2_ = false, chunk_pow2_ = false;

  // the request waiting to enter, split by channel
  TraceReq req_;
  Split sp_;
  bool have_ = false;
  uint64_t req_cycle_ = 0;  // memory cycle at which it may enter
  struct ChSync {
    uint64_t t = 0;      // cycle the engine has been brought to (everything before it done)
    unsigned iter = 0;   // iterations of cycle t whose closing advance it has had
  };
  std::vector<ChSync> csync_;
  uint64_t cur_t_ = 0;     // cycle the last request entered
  unsigned cur_iter_ = 1;  // and the iteration of that cycle

  // counts
  std::vector<uint64_t> lat_hist_ = std::vector<uint64_t>(kLatCycles, 0);
  uint64_t lat_big_[64] = {};
  uint64_t lat_sum_ = 0, lat_n_ = 0;
  uint64_t last_done_ = 0;
  uint64_t reads_ = 0, writes_ = 0, nreq_ = 0, req_bytes_ = 0;
  uint64_t inflight_ = 0;

  // the end of the run (settle)
  uint64_t end_ = 0;
  struct ChStats {
    mc_stats st;
    mc_energy_j en;
  };
  std::vector<ChStats> cs_;
  std::deque<double> vals_;  // stable addresses of the registered values
};

// ---------------------------------------------------------------- set-up

Player::Player(const Config& C, const MemTraceOptions& opt)
    : C_(C), opt_(opt), t_start_(host_seconds_now()), md_(mem_devices(C)), dev_(md_.iface), nch_(md_.channels) {
  // The player steps every engine on one clock; channels of their own interface run through the memory side.
  for (unsigned c = 0; c < nch_; ++c)
    if (!dram_same_interface(dev_, md_.interface_of(c), nullptr, 0))
      C.fail("mem.channel_devices", "expected channels of mem.device's interface in a plain memtrace replay (channel " +
                                        std::to_string(c) + " runs " + md_.interface_of(c)->name + "); with a "
                                        "memory-side policy (memside.policy) each channel runs on its own clock");
  init_address_map(C, md_, &map_);
  check_options(C_, opt_);
  build_engines();
}

// One engine (and timing checker) per channel, set up as the platform's
// (mc_setup); the channels differ only in their rank presets (mixed
// technologies). Completions are recorded at issue (no completion events):
// on_done. Then the in-flight request slots, one per parent entry.
void Player::build_engines() {
  setup_ = mc_setup(C_, md_, 0);
  const mc_cfg& mcfg = setup_.engine;
  const uint32_t max_atoms = (kMaxRequestBytes + dev_->atom_bytes - 1) / dev_->atom_bytes + 1;
  if (std::min(mcfg.rq_size, mcfg.wq_size) <
      std::min<uint32_t>(max_atoms, (opt_.request_bytes + dev_->atom_bytes - 1) / dev_->atom_bytes + 1))
    C_.fail("mem.read_queue", "expected room for one request of --request-bytes");
  mcs_.resize(nch_);
  check_ = setup_.check_dev != nullptr;
  chk_dev_ = check_ ? setup_.check_dev : dev_;
  if (check_) tcs_.resize(nch_);
  char err[256];
  for (unsigned c = 0; c < nch_; ++c) {
    mc_cfg ce = mc_setup(C_, md_, c).engine;
    ce.done_at_issue = 1;
    if (mc_init(&mcs_[c], &ce, err, sizeof err) != 0) C_.fail("mem.device", err);
    mc_set_done(&mcs_[c], &Player::on_done, this);
    if (check_) {
      if (tcheck_init_ranks(&tcs_[c], chk_dev_, ce.rank_devs, ce.ranks, err, sizeof err) != 0)
        C_.fail("mem.timing_check_device", err);
      tcheck_expect_refresh(&tcs_[c], mcfg.refresh);
      mc_set_cmd_log(&mcs_[c], tcheck_cmd, &tcs_[c]);
    }
  }
  size_t nslots = 0;
  for (unsigned c = 0; c < nch_; ++c) nslots += mcs_[c].nparents;
  slots_.resize(nslots + 1);
  for (size_t i = 0; i < slots_.size(); ++i)
    slots_[i].next = i + 1 < slots_.size() ? static_cast<uint32_t>(i + 1) : UINT32_MAX;
  free_slot_ = 0;
  csync_.assign(nch_, ChSync{});
}

// The reader, the trace clock and the replay limit: timestamps past it
// (sim.max_time_us, else kDefaultTraceLimitUs) are bad input, the player
// would otherwise simulate idle refresh up to them.
void Player::open_trace() {
  mem_mhz_ = dev_->clk_mhz;
  trace_mhz_ = opt_.trace_clock_mhz > 0 ? opt_.trace_clock_mhz : mem_mhz_;
  same_clock_ = std::fabs(trace_mhz_ - mem_mhz_) < 1e-9;
  rd_.reset(new TraceReader(opt_.trace, opt_.format, opt_.request_bytes));
  t_setup_ = host_seconds_now();
  lim_ = trace_limits(C_, md_, mem_mhz_, opt_);
  ab_ = dev_->atom_bytes;
  // Layouts "off:A col:R ...": the R atoms of an A*R-byte chunk differ only in
  // the lowest column digit (no carry into other fields, row and hash
  // unchanged; the column index is built low piece first), so one decode per
  // chunk serves its atoms (addrmap.h).
  col_chunk_ = amap_col_chunk_bytes(&map_);
  // masks instead of divisions when the sizes are powers of two (the usual case)
  ab_pow2_ = (ab_ & (ab_ - 1)) == 0;
  chunk_pow2_ = col_chunk_ && (col_chunk_ & (col_chunk_ - 1)) == 0;
}

// ---------------------------------------------------------------- replay

// A request's last part completed: its read latency into the histogram, its
// slot back to the free list.
void Player::on_done(void* ctx, uint64_t user, int, uint64_t cycle) {
  Player* P = static_cast<Player*>(ctx);
  Slot& s = P->slots_[user];
  if (cycle > s.done) s.done = cycle;
  if (--s.parts) return;
  if (!s.write) {
    const uint64_t l = s.done - s.enter;
    P->lat_sum_ += l;
    ++P->lat_n_;
    if (l < kLatCycles) ++P->lat_hist_[l];
    else ++P->lat_big_[63 - __builtin_clzll(l)];
  }
  if (s.done > P->last_done_) P->last_done_ = s.done;
  s.next = P->free_slot_;
  P->free_slot_ = static_cast<uint32_t>(user);
  --P->inflight_;
}

// Cycle below which `q` of the read latencies lie (q in (0, 1]).
double Player::percentile(double q) const {
  if (!lat_n_) return 0;
  const uint64_t want = static_cast<uint64_t>(std::ceil(q * static_cast<double>(lat_n_)));
  uint64_t acc = 0;
  for (uint32_t l = 0; l < kLatCycles; ++l)
    if ((acc += lat_hist_[l]) >= want) return l;
  for (int k = 16; k < 64; ++k)
    if ((acc += lat_big_[k]) >= want) return static_cast<double>(1ull << k);
  return static_cast<double>(kLatCycles);
}

// The next trace request (have_ = false at the end): its entry cycle in
// memory cycles, split into per-channel parts.
inline void Player::load_next() {
  have_ = rd_->next(&req_);
  if (!have_) return;
  check_request(opt_, *rd_, lim_, &req_, &wrapped_);
  req_cycle_ = !req_.timed ? 0
               : same_clock_ ? req_.cycle
                             : static_cast<uint64_t>(std::ceil(static_cast<double>(req_.cycle) * mem_mhz_ / trace_mhz_ - 1e-9));
  split_request();
}

// The request's atoms in address order, grouped into runs of one channel.
inline void Player::split_request() {
  const uint64_t a0 = ab_pow2_ ? req_.addr & ~static_cast<uint64_t>(ab_ - 1) : req_.addr / ab_ * ab_;
  const uint64_t a1 = req_.addr + req_.bytes;  // below 2^64 (check_request)
  Split& sp = sp_;
  sp.nparts = 0;
  uint32_t n = 0;
  amap_loc l{};
  for (uint64_t a = a0; a < a1; a += ab_, ++n) {
    const uint64_t in_chunk = chunk_pow2_ ? a & (col_chunk_ - 1) : col_chunk_ ? a % col_chunk_ : 0;
    if (n && in_chunk) ++l.col;  // same chunk: only the low column digit moves
    else amap_decode(&map_, a, &l);
    sp.atoms[n] = mc_addr{l.ra, l.bg, l.ba, l.col, l.row, 0};
    if (sp.nparts && sp.ch[sp.nparts - 1] == l.ch) {
      ++sp.count[sp.nparts - 1];
    } else {
      sp.ch[sp.nparts] = l.ch;
      sp.first[sp.nparts] = n;
      sp.count[sp.nparts] = 1;
      ++sp.nparts;
    }
  }
}

// Admission: a free slot, and room in every channel the request touches. A
// request split into several parts of one channel (an address range that
// leaves and re-enters it) must fit as a whole: count atoms per channel.
inline bool Player::fits() const {
  if (free_slot_ == UINT32_MAX) return false;
  if (sp_.nparts == 1) { /* the usual case: one channel */
    const mc& m = mcs_[sp_.ch[0]];
    return mc_can_accept_fast(&m, req_.write, sp_.count[0]) && m.parent_free != UINT32_MAX;
  }
  for (uint32_t i = 0; i < sp_.nparts; ++i) {
    uint32_t need = 0;
    for (uint32_t j = 0; j < sp_.nparts; ++j)
      if (sp_.ch[j] == sp_.ch[i]) need += sp_.count[j];
    const mc& m = mcs_[sp_.ch[i]];
    if (!mc_can_accept_fast(&m, req_.write, need) || m.parent_free == UINT32_MAX) return false;
  }
  return true;
}

// Requests enter in trace order, each at the first cycle its channels have
// room (the DRAMSys and Ramulator front-ends behave the same way): at each
// event cycle t, feed the requests that fit in trace order, then advance
// every engine with something due at t, and repeat (iterations 1, 2, ...
// of cycle t) until nothing changes; then go to the next event. Apart from
// the trace order the channels are independent, so an engine is brought
// forward only when a request for it is due, and gets exactly the same
// submissions and advances in the same order as in that loop: a request
// entering in iteration i of cycle t finds its engine with everything
// before t done and advanced at t after each iteration before i (once per
// iteration that submitted to it; an advance without new submissions in
// between changes nothing).
//
// sync: channel c up to cycle t, before the feed of iteration `iter` of that cycle.
inline void Player::sync(unsigned c, uint64_t t, unsigned iter) {
  mc* m = &mcs_[c];
  ChSync& cs = csync_[c];
  if (t > cs.t) {
    for (uint64_t e = mc_next_event_fast(m); e < t; e = mc_next_event_fast(m)) mc_advance(m, e);
    cs.t = t;
    cs.iter = 0;
  }
  if (cs.iter + 1 < iter) {
    if (mc_next_event_fast(m) <= t) mc_advance(m, t);
    cs.iter = iter - 1;
  }
}

int Player::timing_failed(unsigned c) const {
  std::fprintf(stderr, "strata: timing check failed: mem.ch%u (%s, checked against %s): %s\n", c, dev_->name,
               chk_dev_->name, tcheck_error(&tcs_[c]));
  return kExitCheckFailed;
}

void Player::stalled(const char* what) const {
  throw ConfigError(opt_.trace + ": the player stalled (" + what + ")");
}

// The cycle (*t) and iteration (*iter) at which the waiting request fits:
// its engines brought there; not now: again in this cycle after its engines
// advance at it, else at the next event of one of them.
inline int Player::wait_until_fits(uint64_t* t, unsigned* iter) {
  for (;;) {
    for (uint32_t i = 0; i < sp_.nparts; ++i) sync(sp_.ch[i], *t, *iter);
    if (check_)
      for (uint32_t i = 0; i < sp_.nparts; ++i)
        if (tcs_[sp_.ch[i]].violations) return timing_failed(sp_.ch[i]);
    if (fits()) return kExitOk;
    bool again = false;
    uint64_t nt = MC_NEVER;
    for (uint32_t i = 0; i < sp_.nparts; ++i) {
      const uint64_t e = mc_next_event_fast(&mcs_[sp_.ch[i]]);
      again |= e <= *t;
      nt = std::min(nt, e);
    }
    if (again) {
      ++*iter;
      continue;
    }
    if (nt == MC_NEVER) stalled("no event left with requests pending");
    *t = nt;
    *iter = 1;
  }
}

// The waiting request enters its engines at cycle t in a free slot.
inline void Player::submit(uint64_t t) {
  const uint32_t s = free_slot_;
  Slot& sl = slots_[s];
  free_slot_ = sl.next;
  sl.enter = t;
  sl.done = 0;
  sl.parts = sp_.nparts;
  sl.write = req_.write;
  ++inflight_;
  for (uint32_t i = 0; i < sp_.nparts; ++i) {
    mc* m = &mcs_[sp_.ch[i]];
    if (mc_submit(m, t, req_.write, &sp_.atoms[sp_.first[i]], sp_.count[i], s) != 0) {
      char h[24];
      std::snprintf(h, sizeof h, "%llx", static_cast<unsigned long long>(req_.addr));
      throw ConfigError(opt_.trace + ":" + std::to_string(rd_->line()) + ": address 0x" + h +
                        " is outside the device");
    }
    // The engine settles its read/write mode when asked for its next event
    // (mc.h): ask after every submission, as a caller waiting for that event does.
    (void)mc_next_event_fast(m);
  }
  ++nreq_;
  req_bytes_ += req_.bytes;
  if (req_.write) ++writes_;
  else ++reads_;
}

// Every request of the trace, in order (admission above), then the drain.
int Player::replay() {
  load_next();
  while (have_) {
    uint64_t t = std::max(cur_t_, req_cycle_);
    unsigned iter = t == cur_t_ ? cur_iter_ : 1;
    if (const int rc = wait_until_fits(&t, &iter)) return rc;
    submit(t);
    cur_t_ = t;
    cur_iter_ = iter;
    load_next();
  }
  return drain();
}

// Every engine until its queues are empty (completions are reported when the
// last column command of a request issues: mc_cfg.done_at_issue).
int Player::drain() {
  for (unsigned c = 0; c < nch_; ++c) {
    mc* m = &mcs_[c];
    while (mc_rq_occupancy(m) + mc_wq_occupancy(m)) {
      const uint64_t e = mc_next_event_fast(m);
      if (e == MC_NEVER) stalled("no event left with requests pending");
      mc_advance(m, e);
      if (check_ && tcs_[c].violations) return timing_failed(c);
    }
  }
  if (inflight_) stalled("requests left in flight");
  if (nreq_ == 0)
    throw ConfigError(opt_.trace + ": expected at least one request line, got none (empty or only comments/blank "
                      "lines, " + std::to_string(rd_->line()) + " lines)");
  end_ = std::max(last_done_, cur_t_);
  t_end_ = host_seconds_now();
  return kExitOk;
}

// The end of the run: idle engines' refreshes brought up to it, each
// channel's counters and energy, the final timing check (refresh interval).
int Player::settle() {
  cs_.resize(nch_);
  for (unsigned c = 0; c < nch_; ++c) {
    for (uint64_t e = mc_next_event_fast(&mcs_[c]); e <= end_ && e != MC_NEVER; e = mc_next_event_fast(&mcs_[c]))
      mc_advance(&mcs_[c], e);
    cs_[c].st = *mc_get_stats(&mcs_[c], end_);
    if (check_) {
      tcheck_finish(&tcs_[c], end_);
      if (!tcheck_ok(&tcs_[c])) {
        std::fprintf(stderr, "strata: timing check failed: mem.ch%u (%s): %s\n", c, dev_->name,
                     tcheck_error(&tcs_[c]));
        return kExitCheckFailed;
      }
    }
    mc_energy(&mcs_[c], end_, &cs_[c].en);
  }
  return kExitOk;
}

// ---------------------------------------------------------------- results

void Player::register_stats(StatsRegistry& S) {
  const mc_cfg& mcfg = setup_.engine;
  const double sim_s = static_cast<double>(end_) / (mem_mhz_ * 1e6);
  const double period_ns = 1e3 / mem_mhz_;
  auto sum = [&](uint64_t mc_stats::*f) {
    double v = 0;
    for (auto& x : cs_) v += static_cast<double>(x.st.*f);
    return v;
  };
  auto esum = [&](double mc_energy_j::*f) {
    double v = 0;
    for (auto& x : cs_) v += x.en.*f;
    return v;
  };
  const double rd_b = sum(&mc_stats::rd_bytes), wr_b = sum(&mc_stats::wr_bytes);
  const double atoms = sum(&mc_stats::rd_atoms) + sum(&mc_stats::wr_atoms);
  auto val = [&](const std::string& n, const std::string& d, Unit u, double v) {
    vals_.push_back(v);
    S.value(n, d, u, &vals_.back());
  };
  val("sim.seconds", "simulated time: trace start to last completion", Unit::Second, sim_s);
  val("sim.mem_cycles", "memory command-clock cycles simulated", Unit::Cycle, static_cast<double>(end_));
  val("memtrace.requests", "trace requests replayed", Unit::Count, static_cast<double>(nreq_));
  val("memtrace.reads", "read requests", Unit::Count, static_cast<double>(reads_));
  val("memtrace.writes", "write requests", Unit::Count, static_cast<double>(writes_));
  val("memtrace.request_bytes", "bytes asked for by the trace requests", Unit::Byte, static_cast<double>(req_bytes_));
  if (opt_.wrap_addresses)
    val("memtrace.wrapped_requests", "requests beyond the configured capacity folded into it (--wrap-addresses)",
        Unit::Count, static_cast<double>(wrapped_));
  val("mem.reads", "column reads issued, all channels", Unit::Count, sum(&mc_stats::rd_atoms));
  val("mem.writes", "column writes issued, all channels", Unit::Count, sum(&mc_stats::wr_atoms));
  val("mem.read_bytes", "bytes read, all channels", Unit::Byte, rd_b);
  val("mem.write_bytes", "bytes written, all channels", Unit::Byte, wr_b);
  val("mem.bandwidth_gbps", "(read + write bytes) / simulated seconds / 1e9", Unit::GigabytePerSecond,
      sim_s > 0 ? (rd_b + wr_b) / sim_s / 1e9 : 0);
  val("mem.peak_bandwidth_gbps", "channels x bus bytes x data rate x clock", Unit::GigabytePerSecond,
      nch_ * dram_peak_bytes_per_s(dev_) / 1e9);
  val("mem.avg_read_latency_ns", "read request entry into the controller to last data beat", Unit::Nanosecond,
      lat_n_ ? static_cast<double>(lat_sum_) / static_cast<double>(lat_n_) * period_ns : 0);
  val("mem.read_latency_p50_ns", "median read latency", Unit::Nanosecond, percentile(0.50) * period_ns);
  val("mem.read_latency_p95_ns", "95th percentile read latency", Unit::Nanosecond, percentile(0.95) * period_ns);
  val("mem.read_latency_p99_ns", "99th percentile read latency", Unit::Nanosecond, percentile(0.99) * period_ns);
  val("mem.row_hit_rate", "row hits / column accesses, all channels", Unit::Ratio,
      atoms > 0 ? sum(&mc_stats::row_hits) / atoms : 0);
  val("mem.activations", "ACT commands, all channels", Unit::Count, sum(&mc_stats::acts));
  val("mem.precharges", "PRE commands, all channels", Unit::Count, sum(&mc_stats::pres));
  val("mem.dirty_precharges", "PRE commands closing a written row buffer, all channels", Unit::Count,
      sum(&mc_stats::pres_dirty));
  val("mem.refreshes", "REF commands, all channels", Unit::Count, sum(&mc_stats::refs));
  double checked = 0;
  for (auto& t : tcs_) checked += static_cast<double>(tcheck_checked(&t));
  val("mem.timing_checked_commands", "commands checked by the timing checker (0 with mem.timing_check=false)",
      Unit::Count, checked);
  val("mem.energy_j", "memory device energy, all channels", Unit::Joule, esum(&mc_energy_j::total));
  val("mem.energy_per_bit_pj", "device energy / bits transferred", Unit::Joule,
      atoms > 0 ? esum(&mc_energy_j::total) * 1e12 / ((rd_b + wr_b) * 8) : 0);
  val("mem.power_w", "average device power", Unit::Watt, sim_s > 0 ? esum(&mc_energy_j::total) / sim_s : 0);
  val("mem.energy.act_j", "activation energy, all channels", Unit::Joule, esum(&mc_energy_j::act));
  val("mem.energy.pre_j", "precharge energy, all channels", Unit::Joule, esum(&mc_energy_j::pre));
  val("mem.energy.rd_j", "column read energy, all channels", Unit::Joule, esum(&mc_energy_j::rd));
  val("mem.energy.wr_j", "column write energy, all channels", Unit::Joule, esum(&mc_energy_j::wr));
  val("mem.energy.ref_j", "refresh energy, all channels", Unit::Joule, esum(&mc_energy_j::ref));
  val("mem.energy.bg_j", "background (power-state) energy, all channels", Unit::Joule, esum(&mc_energy_j::bg));
  val("mem.powerdowns", "precharge power-down exits, all channels", Unit::Count, sum(&mc_stats::powerdowns));
  val("mem.gate_wakeups", "NVM power-gating wake-ups, all channels", Unit::Count, sum(&mc_stats::gate_wakeups));
  if (md_.mixed)  // mixed technologies: traffic and energy by memory kind (its ranks, all channels)
    for (unsigned k : md_.kinds) {
      double rb = 0, wb = 0, ej = 0;
      for (unsigned c = 0; c < nch_; ++c)
        for (uint32_t r = 0; r < mcfg.ranks; ++r) {
          if (dram_mem_kind(md_.at(c, r)) != k) continue;
          mc_energy_j re;
          mc_rank_energy(&mcs_[c], r, end_, &re);
          rb += static_cast<double>(mcs_[c].ranks[r].n_rd) * dev_->atom_bytes;
          wb += static_cast<double>(mcs_[c].ranks[r].n_wr) * dev_->atom_bytes;
          ej += re.total;
        }
      const std::string p = std::string("mem.") + dram_kind_name(k);
      val(p + ".read_bytes", std::string("bytes read from the ") + dram_kind_name(k) + " ranks", Unit::Byte, rb);
      val(p + ".write_bytes", std::string("bytes written to the ") + dram_kind_name(k) + " ranks", Unit::Byte, wb);
      val(p + ".energy_j", std::string("energy of the ") + dram_kind_name(k) + " ranks (each its own preset)",
          Unit::Joule, ej);
    }
  for (unsigned c = 0; c < nch_; ++c) {
    const std::string p = "mem.ch" + std::to_string(c);
    const mc_stats& s = cs_[c].st;
    const double ca = static_cast<double>(s.rd_atoms + s.wr_atoms);
    val(p + ".reads", "column reads", Unit::Count, static_cast<double>(s.rd_atoms));
    val(p + ".writes", "column writes", Unit::Count, static_cast<double>(s.wr_atoms));
    val(p + ".row_hits", "column accesses to an already open row", Unit::Count, static_cast<double>(s.row_hits));
    val(p + ".row_hit_rate", "row hits / column accesses", Unit::Ratio, ca > 0 ? static_cast<double>(s.row_hits) / ca : 0);
    val(p + ".activations", "ACT commands", Unit::Count, static_cast<double>(s.acts));
    val(p + ".bandwidth_gbps", "(read + write bytes) / simulated time", Unit::GigabytePerSecond,
        sim_s > 0 ? static_cast<double>(s.rd_bytes + s.wr_bytes) / sim_s / 1e9 : 0);
    val(p + ".bus_utilization", "data-bus cycles carrying data / cycles", Unit::Ratio,
        end_ ? static_cast<double>(s.bus_busy) / static_cast<double>(end_) : 0);
    val(p + ".energy.act_j", "activation energy", Unit::Joule, cs_[c].en.act);
    val(p + ".energy.pre_j", "precharge energy", Unit::Joule, cs_[c].en.pre);
    val(p + ".energy.rd_j", "column read energy", Unit::Joule, cs_[c].en.rd);
    val(p + ".energy.wr_j", "column write energy", Unit::Joule, cs_[c].en.wr);
    val(p + ".energy.ref_j", "refresh energy", Unit::Joule, cs_[c].en.ref);
    val(p + ".energy.bg_j", "background energy", Unit::Joule, cs_[c].en.bg);
    val(p + ".energy_j", "device energy", Unit::Joule, cs_[c].en.total);
    val(p + ".powerdowns", "precharge power-down exits", Unit::Count, static_cast<double>(s.powerdowns));
    val(p + ".gate_wakeups", "NVM power-gating wake-ups", Unit::Count, static_cast<double>(s.gate_wakeups));
    for (uint32_t r = 0; r < mcfg.ranks; ++r) {  // per rank: energy and time in each power state
      const std::string q = p + ".rank" + std::to_string(r);
      mc_energy_j re;
      mc_power pw;
      mc_rank_energy(&mcs_[c], r, end_, &re);
      mc_rank_power(&mcs_[c], r, end_, &pw);
      if (md_.mixed) {  // which device the rank is, and its traffic
        const dram_preset* rd = md_.at(c, r);
        const mc_rank_& R = mcs_[c].ranks[r];
        val(q + ".device." + rd->name,
            std::string("1: rank ") + std::to_string(r) + " is " + rd->desc + " (" + dram_kind_name(dram_mem_kind(rd)) +
                ")",
            Unit::Count, 1);
        val(q + ".read_atoms", "32 B column reads issued to the rank", Unit::Count, static_cast<double>(R.n_rd));
        val(q + ".write_atoms", "32 B column writes issued to the rank", Unit::Count, static_cast<double>(R.n_wr));
        val(q + ".activations", "ACT commands to the rank", Unit::Count, static_cast<double>(R.n_act));
      }
      val(q + ".energy.act_j", "activation energy", Unit::Joule, re.act);
      val(q + ".energy.pre_j", "precharge energy", Unit::Joule, re.pre);
      val(q + ".energy.rd_j", "column read energy", Unit::Joule, re.rd);
      val(q + ".energy.wr_j", "column write energy", Unit::Joule, re.wr);
      val(q + ".energy.ref_j", "refresh energy", Unit::Joule, re.ref);
      val(q + ".energy.bg_j", "background energy (power state x time)", Unit::Joule, re.bg);
      val(q + ".energy_j", "rank energy", Unit::Joule, re.total);
      val(q + ".act_standby_cycles", "cycles with some bank open", Unit::Cycle, static_cast<double>(pw.act_standby));
      val(q + ".pre_standby_cycles", "cycles with all banks closed, clock enabled", Unit::Cycle,
          static_cast<double>(pw.pre_standby));
      val(q + ".power_down_cycles", "cycles in precharge power-down", Unit::Cycle, static_cast<double>(pw.power_down));
      val(q + ".gated_cycles", "cycles power-gated (NVM)", Unit::Cycle, static_cast<double>(pw.gated));
      val(q + ".powerdowns", "precharge power-down exits", Unit::Count, static_cast<double>(pw.powerdowns));
      val(q + ".gate_wakeups", "power-gating wake-ups", Unit::Count, static_cast<double>(pw.gate_wakeups));
    }
  }
  struct rusage ru {};
  getrusage(RUSAGE_SELF, &ru);
  val("host.seconds", "host wall-clock seconds of the replay (trace reading included)", Unit::Second,
      t_end_ - t_setup_);
  val("host.setup_seconds", "host seconds before the replay", Unit::Second, t_setup_ - t_start_);
  val("host.mem_requests_per_second", "trace requests replayed per host second", Unit::PerSecond,
      t_end_ > t_setup_ ? static_cast<double>(nreq_) / (t_end_ - t_setup_) : 0);
  val("host.peak_rss_bytes", "peak resident memory of the process", Unit::Byte, static_cast<double>(ru.ru_maxrss) * 1024.0);
}

void Player::write_outputs(StatsRegistry& S) const { write_stats(opt_, C_, S); }

void Player::print_summary(StatsRegistry& S) const {
  std::printf("strata memtrace finished on %s (%s, %s format)\n", opt_.trace.c_str(), C_.s("mem.device").c_str(),
              TraceReader::format_name(rd_->format()));
  std::printf("  requests    %llu (%llu reads, %llu writes) in %.3f us simulated\n",
              static_cast<unsigned long long>(nreq_), static_cast<unsigned long long>(reads_),
              static_cast<unsigned long long>(writes_), S.get("sim.seconds") * 1e6);
  std::printf("  bandwidth   %.1f GB/s of %.1f GB/s peak, row hits %.1f%%\n", S.get("mem.bandwidth_gbps"),
              S.get("mem.peak_bandwidth_gbps"), 100 * S.get("mem.row_hit_rate"));
  std::printf("  read lat.   mean %.1f ns, p50 %.1f, p95 %.1f, p99 %.1f ns\n", S.get("mem.avg_read_latency_ns"),
              S.get("mem.read_latency_p50_ns"), S.get("mem.read_latency_p95_ns"), S.get("mem.read_latency_p99_ns"));
  std::printf("  energy      %.3g J (%.2f pJ/bit)\n", S.get("mem.energy_j"), S.get("mem.energy_per_bit_pj"));
  std::printf("  host        %.3f s, %.3g requests/s, peak RSS %.0f MiB\n", S.get("host.seconds"),
              S.get("host.mem_requests_per_second"), S.get("host.peak_rss_bytes") / 1048576.0);
  std::printf("  output      %s/{stats.txt,stats.json,config.txt}\n", opt_.out_dir.c_str());
}

}  // namespace

// ------------------------------------------------- through the memory side

// A config whose memory side is more than the device controllers (a policy
// other than plain, a host path, SCM throttling) is replayed through the
// memory side the platform builds (platform/memory_side.h): the trace driver
// stands where the L2 banks stand and sends each request as 128 B line
// requests, a line to the port of the L2 bank that serves it (the static
// map), reads as the L2's fills and writes as its write-backs, in trace order
// (a line the memory side does not accept at once holds back everything
// behind it until its END_REQ), each request entering at its timestamp or
// later. Its latency runs from the first line's BEGIN_REQ to the last line's
// BEGIN_RESP.
namespace {

// The trace's span (the footprint a policy may size itself by: the bytes from
// address 0 to the end of the highest request), read once before the replay;
// it also checks every line before anything is simulated.
uint64_t trace_span(const MemTraceOptions& opt) {
  TraceReader rd(opt.trace, opt.format, opt.request_bytes);
  TraceReq r;
  uint64_t end = 0;
  while (rd.next(&r)) end = std::max(end, r.addr + r.bytes < r.addr ? UINT64_MAX : r.addr + r.bytes);
  return end;
}

class SideReplay : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(SideReplay);
  // Port b = L2 bank b: bound up times to each partition's tsock in partition order, so bank b reaches
  // partition b / up on its port b % up, as under the platform (build_l2).
  tlm_utils::multi_passthrough_initiator_socket<SideReplay> isock;

  SideReplay(sc_core::sc_module_name n, const MemTraceOptions& opt, const amap* map, MemorySide& mem,
             PayloadPool& pool, unsigned up)
      : sc_module(n), isock("isock"), opt_(opt), map_(map), mem_(mem), pool_(pool) {
    isock.register_nb_transport_bw(this, &SideReplay::bw);
    for (size_t p = 0; p < mem.partitions(); ++p)
      for (unsigned k = 0; k < up; ++k) isock.bind(mem.side(p).tsock);
    feed_ev_.bind<&SideReplay::feed>(this, {Stage::L2, 0});  // where the L2 banks stand
    limit_ev_.bind<&SideReplay::limit>(this, {Stage::Sampler, 0});
  }

  // Before sc_start: the trace, its clock, the replay limit and the capacity
  // (as the direct replay: TraceLimits).
  void start(double mem_mhz, const TraceLimits& lim) {
    mem_mhz_ = mem_mhz;
    trace_mhz_ = opt_.trace_clock_mhz > 0 ? opt_.trace_clock_mhz : mem_mhz;
    lim_ = lim;
    rd_.reset(new TraceReader(opt_.trace, opt_.format, opt_.request_bytes));
    // A request due at the limit still gets as long again to be answered before the run counts as stalled.
    limit_ev_.notify(sc_core::sc_time(2 * lim.limit_us * 1e6, sc_core::SC_PS));
    load_next();
    if (have_) feed_ev_.notify(sc_core::SC_ZERO_TIME);
    else finished();  // no request: run_memtrace reports the empty trace
  }
  const std::string& error() const { return error_; }
  bool stalled() const { return stalled_; }

  // Stats of the replay (the devices' and the memory side's own are registered by their modules).
  void register_stats(StatsRegistry& S) {
    auto val = [&](const std::string& n, const std::string& d, Unit u, double v) {
      vals_.push_back(v);
      S.value(n, d, u, &vals_.back());
    };
    val("memtrace.requests", "trace requests replayed", Unit::Count, static_cast<double>(nreq_));
    val("memtrace.reads", "read requests", Unit::Count, static_cast<double>(reads_));
    val("memtrace.writes", "write requests", Unit::Count, static_cast<double>(writes_));
    val("memtrace.request_bytes", "bytes asked for by the trace requests", Unit::Byte, static_cast<double>(req_bytes_));
    val("memtrace.lines", "128 B line requests sent to the memory side", Unit::Count, static_cast<double>(lines_));
    if (opt_.wrap_addresses)
      val("memtrace.wrapped_requests", "requests beyond the configured capacity folded into it (--wrap-addresses)",
          Unit::Count, static_cast<double>(wrapped_));
    val("memtrace.avg_read_latency_ns", "read request: first line into the memory side to the last line's response",
        Unit::Nanosecond, lat_n_ ? static_cast<double>(lat_sum_ps_) / static_cast<double>(lat_n_) / 1e3 : 0);
    val("memtrace.read_latency_p50_ns", "median read latency (1 ns steps)", Unit::Nanosecond, percentile(0.50));
    val("memtrace.read_latency_p95_ns", "95th percentile read latency (1 ns steps)", Unit::Nanosecond, percentile(0.95));
    val("memtrace.read_latency_p99_ns", "99th percentile read latency (1 ns steps)", Unit::Nanosecond, percentile(0.99));
  }
  uint64_t requests() const { return nreq_; }
  uint64_t reads() const { return reads_; }
  uint64_t writes() const { return writes_; }
  double last_done_s() const { return static_cast<double>(last_done_ps_) * 1e-12; }
  uint64_t lines_in_trace() const { return rd_ ? rd_->line() : 0; }
  TraceFormat format() const { return rd_->format(); }

 private:
  struct Req {  // a trace request in flight
    uint64_t enter_ps = 0;
    uint32_t parts = 0;  // line requests not answered yet
    uint32_t next = 0;   // free list
    bool write = false;
  };

  // The next trace request (have_ = false at the end): its entry time.
  void load_next() {
    have_ = rd_->next(&req_);
    if (!have_) return;
    check_request(opt_, *rd_, lim_, &req_, &wrapped_);
    uint64_t cyc = 0;
    if (req_.timed)
      cyc = std::fabs(trace_mhz_ - mem_mhz_) < 1e-9
                ? req_.cycle
                : static_cast<uint64_t>(std::ceil(static_cast<double>(req_.cycle) * mem_mhz_ / trace_mhz_ - 1e-9));
    at_ = sc_core::sc_time(static_cast<double>(cyc) * 1e6 / mem_mhz_, sc_core::SC_PS).value();
    line_ = req_.addr & ~static_cast<uint64_t>(kLineBytes - 1);
    cur_ = UINT32_MAX;
  }

  // Lines of the trace in order while the memory side accepts them at once
  // and their request is due; then wait for an END_REQ, the next timestamp,
  // or (all sent) the last response.
  void feed() {
    try {
      const uint64_t now = sim_now().value();
      while (!wait_gp_ && have_) {
        if (at_ > now) {
          feed_ev_.notify_at(at_, now);
          return;
        }
        send_line(now);
      }
    } catch (const ConfigError& e) {  // bad input found during the replay: stop, run_memtrace reports it
      error_ = e.what();
      stop();
    }
  }

  void send_line(uint64_t now) {
    const uint64_t end = req_.addr + req_.bytes;
    if (cur_ == UINT32_MAX) {  // the request's first line: it enters now
      cur_ = take_slot();
      Req& q = slots_[cur_];
      q.enter_ps = now / tick_per_ps();
      q.parts = static_cast<uint32_t>((end - 1) / kLineBytes - req_.addr / kLineBytes + 1);
      q.write = req_.write;
      ++nreq_;
      req_bytes_ += req_.bytes;
      ++(req_.write ? writes_ : reads_);
    }
    tlm::tlm_generic_payload* gp = pool_.alloc();
    GpuExt& e = GpuExt::get(*gp);
    const uint64_t lo = std::max(line_, req_.addr), hi = std::min(line_ + kLineBytes, end);
    for (uint64_t s = (lo - line_) / kSectorBytes; s <= (hi - 1 - line_) / kSectorBytes; ++s)
      e.sector_mask = static_cast<uint8_t>(e.sector_mask | 1u << s);
    gp->set_address(line_);
    gp->set_command(req_.write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    if (req_.write) e.set_bytes(static_cast<unsigned>(lo - line_), static_cast<unsigned>(hi - lo));
    e.cls = req_.write ? ReqClass::Writeback : ReqClass::Fill;  // what the L2 sends for a miss and an eviction
    e.sm_id = ~0u;
    e.tag = cur_;
    const uint32_t bank = amap_l2_bank(map_, line_);
    e.l2_bank = bank;
    e.issue_ps = now / tick_per_ps();
    ++lines_;
    line_ += kLineBytes;
    if (line_ >= end) load_next();  // the whole request is on its way
    tlm::tlm_phase ph = tlm::BEGIN_REQ;
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    const tlm::tlm_sync_enum s = isock[bank]->nb_transport_fw(*gp, ph, d);
    if (s == tlm::TLM_ACCEPTED) wait_gp_ = gp;
    else if (s == tlm::TLM_COMPLETED || (s == tlm::TLM_UPDATED && ph == tlm::BEGIN_RESP)) answered(*gp, d);
  }

  tlm::tlm_sync_enum bw(int, tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& d) {
    if (ph == tlm::END_REQ || (ph == tlm::BEGIN_RESP && &gp == wait_gp_)) {
      if (&gp == wait_gp_) {
        wait_gp_ = nullptr;
        feed_ev_.notify(sc_core::SC_ZERO_TIME);
      }
      if (ph == tlm::END_REQ) return tlm::TLM_ACCEPTED;
    }
    if (ph != tlm::BEGIN_RESP) SC_REPORT_FATAL(name(), "unexpected phase from the memory side");
    answered(gp, d);
    return tlm::TLM_COMPLETED;
  }

  // A line's response (at now + d): its request completes with its last line.
  void answered(tlm::tlm_generic_payload& gp, const sc_core::sc_time& d) {
    const uint32_t id = GpuExt::get(gp).tag;
    gp.release();
    Req& q = slots_[id];
    if (--q.parts) return;
    const uint64_t done_ps = (sim_now() + d).value() / tick_per_ps();
    if (!q.write) {
      const uint64_t l = done_ps - q.enter_ps;
      lat_sum_ps_ += l;
      ++lat_n_;
      const uint64_t ns = l / 1000;
      if (ns < lat_hist_.size()) ++lat_hist_[ns];
      else ++lat_big_[63 - __builtin_clzll(ns)];
    }
    last_done_ps_ = std::max(last_done_ps_, done_ps);
    q.next = free_;
    free_ = id;
    if (--inflight_ == 0 && !have_) finished();
  }

  uint32_t take_slot() {
    ++inflight_;
    if (free_ == UINT32_MAX) {  // a new high of requests in flight: the only growth
      slots_.emplace_back();
      return static_cast<uint32_t>(slots_.size() - 1);
    }
    const uint32_t i = free_;
    free_ = slots_[i].next;
    return i;
  }

  // Every request answered: the run ends when the memory side has nothing left to do (its own transfers, as at
  // the end of a platform run); SCM throttling's windows end here.
  void finished() {
    limit_ev_.cancel();
    if (mem_.throttle()) mem_.throttle()->stop();
  }
  // The replay limit reached with requests still in flight (the memory side never answered them).
  void limit() {
    stalled_ = true;
    stop();
  }
  void stop() {
    limit_ev_.cancel();
    Scheduler::get().pause();
    sc_core::sc_stop();
  }
  static uint64_t tick_per_ps() { return static_cast<uint64_t>(sc_core::sc_time(1, sc_core::SC_PS).value()); }
  double percentile(double q) const {  // ns
    if (!lat_n_) return 0;
    const uint64_t want = static_cast<uint64_t>(std::ceil(q * static_cast<double>(lat_n_)));
    uint64_t acc = 0;
    for (size_t l = 0; l < lat_hist_.size(); ++l)
      if ((acc += lat_hist_[l]) >= want) return static_cast<double>(l);
    for (int k = 16; k < 64; ++k)
      if ((acc += lat_big_[k]) >= want) return static_cast<double>(1ull << k);
    return static_cast<double>(lat_hist_.size());
  }

  const MemTraceOptions& opt_;
  const amap* map_;
  MemorySide& mem_;
  PayloadPool& pool_;
  Event feed_ev_, limit_ev_;
  std::unique_ptr<TraceReader> rd_;
  TraceLimits lim_;
  double mem_mhz_ = 0, trace_mhz_ = 0;
  TraceReq req_;
  bool have_ = false;
  uint64_t at_ = 0;     // ticks: when the current request may enter
  uint64_t line_ = 0;   // its next line to send
  uint32_t cur_ = UINT32_MAX;  // its slot once its first line is sent
  tlm::tlm_generic_payload* wait_gp_ = nullptr;  // sent, END_REQ due: holds back the trace
  std::vector<Req> slots_;
  uint32_t free_ = UINT32_MAX;
  uint64_t inflight_ = 0;
  uint64_t nreq_ = 0, reads_ = 0, writes_ = 0, req_bytes_ = 0, lines_ = 0, wrapped_ = 0;
  std::vector<uint64_t> lat_hist_ = std::vector<uint64_t>(kLatCycles, 0);  // per ns
  uint64_t lat_big_[64] = {};
  uint64_t lat_sum_ps_ = 0, lat_n_ = 0, last_done_ps_ = 0;
  std::string error_;
  bool stalled_ = false;
  std::deque<double> vals_;
};

// The replay through the memory side, in steps: the options, the trace's
// span, the policy's derivation, devices and address map, the memory side
// from the platform's builder (platform/memory_side.h) with the driver above
// it, the simulation, the stats, the files, the summary.
int run_through_memory_side(const Config& C0, const MemTraceOptions& opt) {
  const double t0 = host_seconds_now();
  Config C = C0;  // the policy's derivation may set keys (config.txt shows them)
  check_options(C, opt);
  const uint64_t span = trace_span(opt);
  MemDevices md = mem_devices(C);
  DerivedStat derived;
  if (derive_memside_config(C, md, MemSideProgram{span, span}, &derived)) md = mem_devices(C);
  amap map{};
  init_address_map(C, md, &map);
  Scheduler::get();
  PayloadPool pool;
  StatsRegistry S;
  MemorySide mem(C, pool, S);
  const unsigned nparts = md.channels / static_cast<unsigned>(C.i("memside.partition_channels"));
  const unsigned up = static_cast<unsigned>(C.i("l2.banks")) / nparts;
  mem.build(md, &map, up, MemSideProgram{span, span});
  mem.check_placement(span);
  mem.build_scm_throttle();
  SideReplay drv("memtrace", opt, &map, mem, pool, up);
  mem.register_totals(S, nullptr);
  const TraceLimits lim = trace_limits(C, md, md.iface->clk_mhz, opt);
  drv.start(md.iface->clk_mhz, lim);
  if (mem.throttle()) mem.throttle()->start();
  const double t_setup = host_seconds_now();
  sc_core::sc_start();
  const double t_end = host_seconds_now();
  if (!drv.error().empty()) throw ConfigError(drv.error());
  if (drv.stalled()) {
    std::fprintf(stderr, "strata memtrace: requests still in flight at the replay limit of %g us (the memory side "
                 "did not answer them; a model bug, please report with the config and trace)\n", lim.limit_us);
    return kExitFailure;
  }
  if (drv.requests() == 0)
    throw ConfigError(opt.trace + ": expected at least one request line, got none (empty or only comments/blank "
                      "lines, " + std::to_string(drv.lines_in_trace()) + " lines)");
  mem.finish_timing_check();
  double sim_s = sc_core::sc_time_stamp().to_seconds(), host_s = t_end - t_setup, setup_s = t_setup - t0, rate = 0,
         rss = 0, last_done = drv.last_done_s();
  rate = host_s > 0 ? static_cast<double>(drv.requests()) / host_s : 0;
  struct rusage ru {};
  getrusage(RUSAGE_SELF, &ru);
  rss = static_cast<double>(ru.ru_maxrss) * 1024.0;
  S.value("sim.seconds", "simulated time: trace start to the memory side's last activity", Unit::Second, &sim_s);
  S.value("memtrace.last_response_seconds", "simulated time of the last trace request's response", Unit::Second,
          &last_done);
  drv.register_stats(S);
  if (!derived.name.empty()) S.value(derived.name, derived.desc, Unit::Count, &derived.value);
  S.value("host.seconds", "host wall-clock seconds of the replay (trace reading included)", Unit::Second, &host_s);
  S.value("host.setup_seconds", "host seconds before the replay (the trace's span read once)", Unit::Second, &setup_s);
  S.value("host.mem_requests_per_second", "trace requests replayed per host second", Unit::PerSecond, &rate);
  S.value("host.peak_rss_bytes", "peak resident memory of the process", Unit::Byte, &rss);
  write_stats(opt, C, S);
  if (!opt.quiet) {
    std::printf("strata memtrace finished on %s (%s, %s format) through memory side %s%s\n", opt.trace.c_str(),
                C.s("mem.device").c_str(), TraceReader::format_name(drv.format()), C.s("memside.policy").c_str(),
                C.s("hostpath.link") != "none" ? (", host path " + C.s("hostpath.link")).c_str() : "");
    std::printf("  requests    %llu (%llu reads, %llu writes), last response at %.3f us simulated\n",
                static_cast<unsigned long long>(drv.requests()), static_cast<unsigned long long>(drv.reads()),
                static_cast<unsigned long long>(drv.writes()), last_done * 1e6);
    std::printf("  devices     %.1f GB/s of %.1f GB/s peak, row hits %.1f%%, device read latency %.1f ns\n",
                S.get("mem.bandwidth_gbps"), S.get("mem.peak_bandwidth_gbps"), 100 * S.get("mem.row_hit_rate"),
                S.get("mem.avg_read_latency_ns"));
    std::printf("  read lat.   mean %.1f ns, p50 %.0f, p95 %.0f, p99 %.0f ns (through the memory side)\n",
                S.get("memtrace.avg_read_latency_ns"), S.get("memtrace.read_latency_p50_ns"),
                S.get("memtrace.read_latency_p95_ns"), S.get("memtrace.read_latency_p99_ns"));
    std::printf("  host        %.3f s, %.3g requests/s\n", host_s, rate);
    std::printf("  output      %s/{stats.txt,stats.json,config.txt}\n", opt.out_dir.c_str());
  }
  return kExitOk;
}

}  // namespace

// The player's steps: set-up (devices, address map, engines and checkers as
// the platform's), the trace and its clock, the replay (admission in trace
// order, drain), the end-of-run state, the stats, the files, the summary.
// A memory side that is more than its device controllers runs as the
// platform builds it (run_through_memory_side).
int run_memtrace(const Config& C, const MemTraceOptions& opt) {
  if (!memside_is_plain(C)) return run_through_memory_side(C, opt);
  Player P(C, opt);
  P.open_trace();
  if (const int rc = P.replay()) return rc;
  if (const int rc = P.settle()) return rc;
  StatsRegistry S;
  P.register_stats(S);
  P.write_outputs(S);
  if (!opt.quiet) P.print_summary(S);
  return kExitOk;
}

}  // namespace strata
