// strata memtrace: DRAM-level trace player (see memtrace.h).
//
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
#include <memory>

#include "common/stats.h"
#include "platform/platform.h"

extern "C" {
#include "addrmap.h"
#include "dram.h"
#include "mc.h"
#include "tcheck.h"
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

TraceReader::TraceReader(const std::string& path, TraceFormat fmt, unsigned default_bytes)
    : path_(path), fmt_(fmt), default_bytes_(default_bytes) {
  if (!fs::is_regular_file(path)) throw ConfigError(path + ": cannot open trace file (no such file)");
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

struct Player {
  const dram_preset* dev = nullptr;
  amap map{};
  std::vector<mc> mcs;
  std::vector<tcheck> tcs;       // one command-timing checker per channel (mem.timing_check)
  std::vector<Slot> slots;
  uint32_t free_slot = 0;
  std::vector<uint64_t> lat_hist = std::vector<uint64_t>(kLatCycles, 0);
  uint64_t lat_big[64] = {};
  uint64_t lat_sum = 0, lat_n = 0;
  uint64_t last_done = 0;
  uint64_t reads = 0, writes = 0;
  uint64_t inflight = 0;

  static void on_done(void* ctx, uint64_t user, int, uint64_t cycle) {
    Player* P = static_cast<Player*>(ctx);
    Slot& s = P->slots[user];
    if (cycle > s.done) s.done = cycle;
    if (--s.parts) return;
    if (!s.write) {
      const uint64_t l = s.done - s.enter;
      P->lat_sum += l;
      ++P->lat_n;
      if (l < kLatCycles) ++P->lat_hist[l];
      else ++P->lat_big[63 - __builtin_clzll(l)];
    }
    if (s.done > P->last_done) P->last_done = s.done;
    s.next = P->free_slot;
    P->free_slot = static_cast<uint32_t>(user);
    --P->inflight;
  }

  // Cycle below which `q` of the read latencies lie (q in (0, 1]).
  double percentile(double q) const {
    if (!lat_n) return 0;
    const uint64_t want = static_cast<uint64_t>(std::ceil(q * static_cast<double>(lat_n)));
    uint64_t acc = 0;
    for (uint32_t l = 0; l < kLatCycles; ++l)
      if ((acc += lat_hist[l]) >= want) return l;
    for (int k = 16; k < 64; ++k)
      if ((acc += lat_big[k]) >= want) return static_cast<double>(1ull << k);
    return static_cast<double>(kLatCycles);
  }
};

// A request split into per-channel parts (atoms in address order).
struct Split {
  uint32_t nparts = 0;
  uint32_t ch[kMaxRequestBytes / 16];
  uint32_t first[kMaxRequestBytes / 16], count[kMaxRequestBytes / 16];
  mc_addr atoms[kMaxRequestBytes / 16 + 1];
};

}  // namespace

int run_memtrace(const Config& C, const MemTraceOptions& opt) {
  const double t_start = host_seconds_now();
  Player P;
  const MemDevices md = mem_devices(C);  // outlives the engines (they keep pointers to its per-rank presets)
  P.dev = md.iface;
  const dram_preset* dev = P.dev;
  const unsigned nch = md.channels;
  char err[256];
  init_address_map(C, md, &P.map);
  for (const char* k : {"sim.warmup_instructions", "sim.max_instructions"})  // GPU runs only
    if (C.i(k) != 0) C.fail(k, "expected 0 with strata memtrace (a DRAM trace has no instructions; use sim.max_time_us)");
  if (opt.request_bytes == 0 || opt.request_bytes > kMaxRequestBytes)
    throw ConfigError("--request-bytes: expected 1.." + std::to_string(kMaxRequestBytes) + ", got " +
                      std::to_string(opt.request_bytes));
  // Engine and checker set-up as the platform's (mc_setup); the channels
  // differ only in their rank presets (mixed technologies).
  const McCfg setup = mc_setup(C, md, 0);
  const mc_cfg& mcfg = setup.engine;
  const uint32_t max_atoms = (kMaxRequestBytes + dev->atom_bytes - 1) / dev->atom_bytes + 1;
  if (std::min(mcfg.rq_size, mcfg.wq_size) < std::min<uint32_t>(max_atoms, (opt.request_bytes + dev->atom_bytes - 1) / dev->atom_bytes + 1))
    C.fail("mem.read_queue", "expected room for one request of --request-bytes");
  P.mcs.resize(nch);
  const bool check = setup.check_dev != nullptr;
  const dram_preset* chk_dev = check ? setup.check_dev : dev;
  if (check) P.tcs.resize(nch);
  for (unsigned c = 0; c < nch; ++c) {
    mc_cfg ce = mc_setup(C, md, c).engine;
    ce.done_at_issue = 1;  // completions are only recorded here: no completion events (Player::on_done)
    if (mc_init(&P.mcs[c], &ce, err, sizeof err) != 0) C.fail("mem.device", err);
    mc_set_done(&P.mcs[c], &Player::on_done, &P);
    if (check) {
      if (tcheck_init_ranks(&P.tcs[c], chk_dev, ce.rank_devs, ce.ranks, err, sizeof err) != 0)
        C.fail("mem.timing_check_device", err);
      tcheck_expect_refresh(&P.tcs[c], mcfg.refresh);
      mc_set_cmd_log(&P.mcs[c], tcheck_cmd, &P.tcs[c]);
    }
  }
  size_t nslots = 0;
  for (unsigned c = 0; c < nch; ++c) nslots += P.mcs[c].nparents;
  P.slots.resize(nslots + 1);
  for (size_t i = 0; i < P.slots.size(); ++i)
    P.slots[i].next = i + 1 < P.slots.size() ? static_cast<uint32_t>(i + 1) : UINT32_MAX;
  P.free_slot = 0;

  const double mem_mhz = dev->clk_mhz;
  const double trace_mhz = opt.trace_clock_mhz > 0 ? opt.trace_clock_mhz : mem_mhz;
  const bool same_clock = std::fabs(trace_mhz - mem_mhz) < 1e-9;
  TraceReader rd(opt.trace, opt.format, opt.request_bytes);
  const double t_setup = host_seconds_now();
  // Timestamps past the replay limit (sim.max_time_us, else kDefaultTraceLimitUs)
  // are bad input: the player would otherwise simulate idle refresh up to them.
  const double limit_us = C.f("sim.max_time_us") > 0 ? C.f("sim.max_time_us") : kDefaultTraceLimitUs;
  const uint64_t limit_trace_cycles = static_cast<uint64_t>(std::min(limit_us * trace_mhz, 1.8e19));

  // The request waiting to enter, split by channel.
  TraceReq req;
  Split sp;
  bool have = false;
  uint64_t req_cycle = 0;  // memory cycle at which it may enter
  uint64_t nreq = 0, req_bytes = 0;
  const uint32_t ab = dev->atom_bytes;
  // Layouts "off:A col:R ...": the R atoms of an A*R-byte chunk differ only in
  // the lowest column digit (no carry into other fields, row and hash
  // unchanged; the column index is built low piece first), so one decode per
  // chunk serves its atoms (addrmap.h).
  const uint64_t col_chunk = amap_col_chunk_bytes(&P.map);
  // masks instead of divisions when the sizes are powers of two (the usual case)
  const bool ab_pow2 = (ab & (ab - 1)) == 0, chunk_pow2 = col_chunk && (col_chunk & (col_chunk - 1)) == 0;
  auto load_next = [&]() {
    have = rd.next(&req);
    if (!have) return;
    if (req.timed && req.cycle > limit_trace_cycles) {
      char lim[32];
      std::snprintf(lim, sizeof lim, "%g", limit_us);
      throw ConfigError(opt.trace + ":" + std::to_string(rd.line()) + ": expected a timestamp within the replay " +
                        "limit of " + lim + " us (" + std::to_string(limit_trace_cycles) + " trace cycles; set " +
                        "sim.max_time_us to replay longer traces), got cycle " + std::to_string(req.cycle));
    }
    req_cycle = !req.timed ? 0
                : same_clock ? req.cycle
                             : static_cast<uint64_t>(std::ceil(static_cast<double>(req.cycle) * mem_mhz / trace_mhz - 1e-9));
    const uint64_t a0 = ab_pow2 ? req.addr & ~static_cast<uint64_t>(ab - 1) : req.addr / ab * ab;
    const uint64_t a1 = req.addr + req.bytes;
    if (a1 < req.addr) {  // the request runs past 2^64 (it would split into nothing)
      char h[24];
      std::snprintf(h, sizeof h, "%llx", static_cast<unsigned long long>(req.addr));
      throw ConfigError(opt.trace + ":" + std::to_string(rd.line()) + ": address 0x" + h + " + " +
                        std::to_string(req.bytes) + " bytes is outside the device");
    }
    sp.nparts = 0;
    uint32_t n = 0;
    amap_loc l{};
    for (uint64_t a = a0; a < a1; a += ab, ++n) {
      const uint64_t in_chunk = chunk_pow2 ? a & (col_chunk - 1) : col_chunk ? a % col_chunk : 0;
      if (n && in_chunk) ++l.col;  // same chunk: only the low column digit moves
      else amap_decode(&P.map, a, &l);
      sp.atoms[n] = mc_addr{l.ra, l.bg, l.ba, l.col, l.row};
      if (sp.nparts && sp.ch[sp.nparts - 1] == l.ch) {
        ++sp.count[sp.nparts - 1];
      } else {
        sp.ch[sp.nparts] = l.ch;
        sp.first[sp.nparts] = n;
        sp.count[sp.nparts] = 1;
        ++sp.nparts;
      }
    }
  };
  // A request split into several parts of one channel (an address range that
  // leaves and re-enters it) must fit as a whole: count atoms per channel.
  auto fits = [&]() {
    if (P.free_slot == UINT32_MAX) return false;
    if (sp.nparts == 1) { /* the usual case: one channel */
      const mc& m = P.mcs[sp.ch[0]];
      return mc_can_accept_fast(&m, req.write, sp.count[0]) && m.parent_free != UINT32_MAX;
    }
    for (uint32_t i = 0; i < sp.nparts; ++i) {
      uint32_t need = 0;
      for (uint32_t j = 0; j < sp.nparts; ++j)
        if (sp.ch[j] == sp.ch[i]) need += sp.count[j];
      const mc& m = P.mcs[sp.ch[i]];
      if (!mc_can_accept_fast(&m, req.write, need) || m.parent_free == UINT32_MAX) return false;
    }
    return true;
  };

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
  struct ChSync {
    uint64_t t = 0;      // cycle the engine has been brought to (everything before it done)
    unsigned iter = 0;   // iterations of cycle t whose closing advance it has had
  };
  std::vector<ChSync> csync(nch);
  // Channel c up to cycle t, before the feed of iteration `iter` of that cycle.
  auto sync = [&](unsigned c, uint64_t t, unsigned iter) {
    mc* m = &P.mcs[c];
    ChSync& cs = csync[c];
    if (t > cs.t) {
      for (uint64_t e = mc_next_event_fast(m); e < t; e = mc_next_event_fast(m)) mc_advance(m, e);
      cs.t = t;
      cs.iter = 0;
    }
    if (cs.iter + 1 < iter) {
      if (mc_next_event_fast(m) <= t) mc_advance(m, t);
      cs.iter = iter - 1;
    }
  };
  auto timing_failed = [&](unsigned c) {
    std::fprintf(stderr, "strata: timing check failed: mem.ch%u (%s, checked against %s): %s\n", c, dev->name,
                 chk_dev->name, tcheck_error(&P.tcs[c]));
    for (auto& m : P.mcs) mc_free(&m);
    for (auto& t : P.tcs) tcheck_free(&t);
    return kExitCheckFailed;
  };

  load_next();
  uint64_t cur_t = 0;    // cycle the last request entered
  unsigned cur_iter = 1; // and the iteration of that cycle
  while (have) {
    uint64_t t = std::max(cur_t, req_cycle);
    unsigned iter = t == cur_t ? cur_iter : 1;
    for (;;) {
      for (uint32_t i = 0; i < sp.nparts; ++i) sync(sp.ch[i], t, iter);
      if (check)
        for (uint32_t i = 0; i < sp.nparts; ++i)
          if (P.tcs[sp.ch[i]].violations) return timing_failed(sp.ch[i]);
      if (fits()) break;
      // Not now: again in this cycle after its engines advance at it, else at
      // the next event of one of them.
      bool again = false;
      uint64_t nt = MC_NEVER;
      for (uint32_t i = 0; i < sp.nparts; ++i) {
        const uint64_t e = mc_next_event_fast(&P.mcs[sp.ch[i]]);
        again |= e <= t;
        nt = std::min(nt, e);
      }
      if (again) {
        ++iter;
        continue;
      }
      if (nt == MC_NEVER) throw ConfigError(opt.trace + ": the player stalled (no event left with requests pending)");
      t = nt;
      iter = 1;
    }
    const uint32_t s = P.free_slot;
    Slot& sl = P.slots[s];
    P.free_slot = sl.next;
    sl.enter = t;
    sl.done = 0;
    sl.parts = sp.nparts;
    sl.write = req.write;
    ++P.inflight;
    for (uint32_t i = 0; i < sp.nparts; ++i) {
      mc* m = &P.mcs[sp.ch[i]];
      if (mc_submit(m, t, req.write, &sp.atoms[sp.first[i]], sp.count[i], s) != 0) {
        char h[24];
        std::snprintf(h, sizeof h, "%llx", static_cast<unsigned long long>(req.addr));
        throw ConfigError(opt.trace + ":" + std::to_string(rd.line()) + ": address 0x" + h +
                          " is outside the device");
      }
      // The engine settles its read/write mode when asked for its next event
      // (mc.h): ask after every submission, as a caller waiting for that event does.
      (void)mc_next_event_fast(m);
    }
    cur_t = t;
    cur_iter = iter;
    ++nreq;
    req_bytes += req.bytes;
    if (req.write) ++P.writes; else ++P.reads;
    load_next();
  }
  // Drain: every engine until its queues are empty (completions are reported
  // when the last column command of a request issues: mc_cfg.done_at_issue).
  for (unsigned c = 0; c < nch; ++c) {
    mc* m = &P.mcs[c];
    while (mc_rq_occupancy(m) + mc_wq_occupancy(m)) {
      const uint64_t e = mc_next_event_fast(m);
      if (e == MC_NEVER) throw ConfigError(opt.trace + ": the player stalled (no event left with requests pending)");
      mc_advance(m, e);
      if (check && P.tcs[c].violations) return timing_failed(c);
    }
  }
  if (P.inflight) throw ConfigError(opt.trace + ": the player stalled (requests left in flight)");
  if (nreq == 0)
    throw ConfigError(opt.trace + ": expected at least one request line, got none (empty or only comments/blank "
                      "lines, " + std::to_string(rd.line()) + " lines)");
  const uint64_t now = cur_t;
  const uint64_t end = std::max(P.last_done, now);
  const double t_end = host_seconds_now();

  // ---------------------------------------------------------------- stats
  StatsRegistry S;
  const double sim_s = static_cast<double>(end) / (mem_mhz * 1e6);
  const double host_s = t_end - t_start;
  const double period_ns = 1e3 / mem_mhz;
  struct ChStats {
    mc_stats st;
    mc_energy_j en;
  };
  std::vector<ChStats> cs(nch);
  for (unsigned c = 0; c < nch; ++c) {
    // Bring idle engines' refreshes up to the end of the run.
    for (uint64_t e = mc_next_event_fast(&P.mcs[c]); e <= end && e != MC_NEVER; e = mc_next_event_fast(&P.mcs[c]))
      mc_advance(&P.mcs[c], e);
    cs[c].st = *mc_get_stats(&P.mcs[c], end);
    if (check) {
      tcheck_finish(&P.tcs[c], end);
      if (!tcheck_ok(&P.tcs[c])) {
        std::fprintf(stderr, "strata: timing check failed: mem.ch%u (%s): %s\n", c, dev->name,
                     tcheck_error(&P.tcs[c]));
        return kExitCheckFailed;
      }
    }
    mc_energy(&P.mcs[c], end, &cs[c].en);
  }
  auto sum = [&](uint64_t mc_stats::*f) {
    double v = 0;
    for (auto& x : cs) v += static_cast<double>(x.st.*f);
    return v;
  };
  auto esum = [&](double mc_energy_j::*f) {
    double v = 0;
    for (auto& x : cs) v += x.en.*f;
    return v;
  };
  const double rd_b = sum(&mc_stats::rd_bytes), wr_b = sum(&mc_stats::wr_bytes);
  const double atoms = sum(&mc_stats::rd_atoms) + sum(&mc_stats::wr_atoms);
  std::deque<double> vals;  // stable addresses for the registry
  auto val = [&](const std::string& n, const std::string& d, Unit u, double v) {
    vals.push_back(v);
    S.value(n, d, u, &vals.back());
  };
  val("sim.seconds", "simulated time: trace start to last completion", Unit::Second, sim_s);
  val("sim.mem_cycles", "memory command-clock cycles simulated", Unit::Cycle, static_cast<double>(end));
  val("memtrace.requests", "trace requests replayed", Unit::Count, static_cast<double>(nreq));
  val("memtrace.reads", "read requests", Unit::Count, static_cast<double>(P.reads));
  val("memtrace.writes", "write requests", Unit::Count, static_cast<double>(P.writes));
  val("memtrace.request_bytes", "bytes asked for by the trace requests", Unit::Byte, static_cast<double>(req_bytes));
  val("mem.reads", "column reads issued, all channels", Unit::Count, sum(&mc_stats::rd_atoms));
  val("mem.writes", "column writes issued, all channels", Unit::Count, sum(&mc_stats::wr_atoms));
  val("mem.read_bytes", "bytes read, all channels", Unit::Byte, rd_b);
  val("mem.write_bytes", "bytes written, all channels", Unit::Byte, wr_b);
  val("mem.bandwidth_gbps", "(read + write bytes) / simulated seconds / 1e9", Unit::GigabytePerSecond,
      sim_s > 0 ? (rd_b + wr_b) / sim_s / 1e9 : 0);
  val("mem.peak_bandwidth_gbps", "channels x bus bytes x data rate x clock", Unit::GigabytePerSecond,
      nch * dram_peak_bytes_per_s(dev) / 1e9);
  val("mem.avg_read_latency_ns", "read request entry into the controller to last data beat", Unit::Nanosecond,
      P.lat_n ? static_cast<double>(P.lat_sum) / static_cast<double>(P.lat_n) * period_ns : 0);
  val("mem.read_latency_p50_ns", "median read latency", Unit::Nanosecond, P.percentile(0.50) * period_ns);
  val("mem.read_latency_p95_ns", "95th percentile read latency", Unit::Nanosecond, P.percentile(0.95) * period_ns);
  val("mem.read_latency_p99_ns", "99th percentile read latency", Unit::Nanosecond, P.percentile(0.99) * period_ns);
  val("mem.row_hit_rate", "row hits / column accesses, all channels", Unit::Ratio,
      atoms > 0 ? sum(&mc_stats::row_hits) / atoms : 0);
  val("mem.activations", "ACT commands, all channels", Unit::Count, sum(&mc_stats::acts));
  val("mem.precharges", "PRE commands, all channels", Unit::Count, sum(&mc_stats::pres));
  val("mem.dirty_precharges", "PRE commands closing a written row buffer, all channels", Unit::Count,
      sum(&mc_stats::pres_dirty));
  val("mem.refreshes", "REF commands, all channels", Unit::Count, sum(&mc_stats::refs));
  double checked = 0;
  for (auto& t : P.tcs) checked += static_cast<double>(tcheck_checked(&t));
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
  if (md.mixed)  // mixed technologies: traffic and energy by memory kind (its ranks, all channels)
    for (unsigned k : md.kinds) {
      double rb = 0, wb = 0, ej = 0;
      for (unsigned c = 0; c < nch; ++c)
        for (uint32_t r = 0; r < mcfg.ranks; ++r) {
          if (dram_mem_kind(md.at(c, r)) != k) continue;
          mc_energy_j re;
          mc_rank_energy(&P.mcs[c], r, end, &re);
          rb += static_cast<double>(P.mcs[c].ranks[r].n_rd) * dev->atom_bytes;
          wb += static_cast<double>(P.mcs[c].ranks[r].n_wr) * dev->atom_bytes;
          ej += re.total;
        }
      const std::string p = std::string("mem.") + dram_kind_name(k);
      val(p + ".read_bytes", std::string("bytes read from the ") + dram_kind_name(k) + " ranks", Unit::Byte, rb);
      val(p + ".write_bytes", std::string("bytes written to the ") + dram_kind_name(k) + " ranks", Unit::Byte, wb);
      val(p + ".energy_j", std::string("energy of the ") + dram_kind_name(k) + " ranks (each its own preset)",
          Unit::Joule, ej);
    }
  for (unsigned c = 0; c < nch; ++c) {
    const std::string p = "mem.ch" + std::to_string(c);
    const mc_stats& s = cs[c].st;
    const double ca = static_cast<double>(s.rd_atoms + s.wr_atoms);
    val(p + ".reads", "column reads", Unit::Count, static_cast<double>(s.rd_atoms));
    val(p + ".writes", "column writes", Unit::Count, static_cast<double>(s.wr_atoms));
    val(p + ".row_hits", "column accesses to an already open row", Unit::Count, static_cast<double>(s.row_hits));
    val(p + ".row_hit_rate", "row hits / column accesses", Unit::Ratio, ca > 0 ? static_cast<double>(s.row_hits) / ca : 0);
    val(p + ".activations", "ACT commands", Unit::Count, static_cast<double>(s.acts));
    val(p + ".bandwidth_gbps", "(read + write bytes) / simulated time", Unit::GigabytePerSecond,
        sim_s > 0 ? static_cast<double>(s.rd_bytes + s.wr_bytes) / sim_s / 1e9 : 0);
    val(p + ".bus_utilization", "data-bus cycles carrying data / cycles", Unit::Ratio,
        end ? static_cast<double>(s.bus_busy) / static_cast<double>(end) : 0);
    val(p + ".energy.act_j", "activation energy", Unit::Joule, cs[c].en.act);
    val(p + ".energy.pre_j", "precharge energy", Unit::Joule, cs[c].en.pre);
    val(p + ".energy.rd_j", "column read energy", Unit::Joule, cs[c].en.rd);
    val(p + ".energy.wr_j", "column write energy", Unit::Joule, cs[c].en.wr);
    val(p + ".energy.ref_j", "refresh energy", Unit::Joule, cs[c].en.ref);
    val(p + ".energy.bg_j", "background energy", Unit::Joule, cs[c].en.bg);
    val(p + ".energy_j", "device energy", Unit::Joule, cs[c].en.total);
    val(p + ".powerdowns", "precharge power-down exits", Unit::Count, static_cast<double>(s.powerdowns));
    val(p + ".gate_wakeups", "NVM power-gating wake-ups", Unit::Count, static_cast<double>(s.gate_wakeups));
    for (uint32_t r = 0; r < mcfg.ranks; ++r) {  // per rank: energy and time in each power state
      const std::string q = p + ".rank" + std::to_string(r);
      mc_energy_j re;
      mc_power pw;
      mc_rank_energy(&P.mcs[c], r, end, &re);
      mc_rank_power(&P.mcs[c], r, end, &pw);
      if (md.mixed) {  // which device the rank is, and its traffic
        const dram_preset* rd = md.at(c, r);
        const mc_rank_& R = P.mcs[c].ranks[r];
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
  val("host.seconds", "host wall-clock seconds of the replay (trace reading included)", Unit::Second, t_end - t_setup);
  val("host.setup_seconds", "host seconds before the replay", Unit::Second, t_setup - t_start);
  val("host.mem_requests_per_second", "trace requests replayed per host second", Unit::PerSecond,
      t_end > t_setup ? static_cast<double>(nreq) / (t_end - t_setup) : 0);
  val("host.peak_rss_bytes", "peak resident memory of the process", Unit::Byte, static_cast<double>(ru.ru_maxrss) * 1024.0);
  (void)host_s;

  std::error_code ec;
  fs::create_directories(opt.out_dir, ec);
  if (ec) throw ConfigError("--out " + opt.out_dir + ": cannot create directory (" + ec.message() + ")");
  if (!write_file_atomic(opt.out_dir + "/stats.json", [&](const std::string& f) { return S.write_json(f); }) ||
      !write_file_atomic(opt.out_dir + "/stats.txt", [&](const std::string& f) { return S.write_txt(f); }))
    throw ConfigError("--out " + opt.out_dir + ": cannot write stats files");
  if (!opt.quiet) {
    std::printf("strata memtrace finished on %s (%s, %s format)\n", opt.trace.c_str(), C.s("mem.device").c_str(),
                TraceReader::format_name(rd.format()));
    std::printf("  requests    %llu (%llu reads, %llu writes) in %.3f us simulated\n",
                static_cast<unsigned long long>(nreq), static_cast<unsigned long long>(P.reads),
                static_cast<unsigned long long>(P.writes), sim_s * 1e6);
    std::printf("  bandwidth   %.1f GB/s of %.1f GB/s peak, row hits %.1f%%\n", S.get("mem.bandwidth_gbps"),
                S.get("mem.peak_bandwidth_gbps"), 100 * S.get("mem.row_hit_rate"));
    std::printf("  read lat.   mean %.1f ns, p50 %.1f, p95 %.1f, p99 %.1f ns\n", S.get("mem.avg_read_latency_ns"),
                S.get("mem.read_latency_p50_ns"), S.get("mem.read_latency_p95_ns"), S.get("mem.read_latency_p99_ns"));
    std::printf("  energy      %.3g J (%.2f pJ/bit)\n", S.get("mem.energy_j"), S.get("mem.energy_per_bit_pj"));
    std::printf("  host        %.3f s, %.3g requests/s, peak RSS %.0f MiB\n", S.get("host.seconds"),
                S.get("host.mem_requests_per_second"), S.get("host.peak_rss_bytes") / 1048576.0);
    std::printf("  output      %s/{stats.txt,stats.json}\n", opt.out_dir.c_str());
  }
  for (auto& m : P.mcs) mc_free(&m);
  for (auto& t : P.tcs) tcheck_free(&t);
  return kExitOk;
}

}  // namespace strata
