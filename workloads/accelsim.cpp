// Accel-Sim SASS trace reader (see workloads/accelsim.h and docs/accelsim_traces.md).
//
// Format facts (Accel-Sim tracer, util/tracer_nvbit/tracer_tool, versions 3-5):
//   kernelslist.g   "MemcpyHtoD,0x%016lx,%lld" lines and kernel trace file names, in launch order
//   kernel-N.traceg "-key = value" header lines, then
//                   #BEGIN_TB / thread block = x,y,z / (warp = w / insts = n / n lines)* / #END_TB
//   instruction     [line_num] PC(hex) mask(hex) ndst R.. OPCODE nsrc R.. mem_width
//                   [mode addresses] [immediate (version 5)]
//   mode 0          one hex address per active lane (lane order)
//   mode 1          hex base, decimal stride: the k-th active lane accesses base + k*stride
//   mode 2          hex base, (active lanes - 1) signed decimal deltas from the previous active lane
#include "accelsim.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <unordered_map>

#include "common/input_error.h"  // ConfigError
#include "accelsim_io.h"
#include "offload_blocks.h"
#include "registry.h"

namespace strata {

namespace fs = std::filesystem;
using accelsim_io::ByteStream;
using accelsim_io::Compression;
using accelsim_io::LineReader;

// ------------------------------------------------------------------ opcode table

namespace {

struct OpRow {
  const char* name;
  SassClass cls;
};

// THE opcode table: SASS base opcode (text before the first '.') -> class.
// Opcodes not listed are IntAlu. Covers Kepler..Hopper SASS as printed by nvdisasm.
constexpr OpRow kOpTable[] = {
    // integer, logic, moves, conversions (uniform-datapath U* forms included)
    {"IADD", SassClass::IntAlu}, {"IADD3", SassClass::IntAlu}, {"IADD32I", SassClass::IntAlu},
    {"IMAD", SassClass::IntAlu}, {"IMADSP", SassClass::IntAlu}, {"IMUL", SassClass::IntAlu},
    {"IMUL32I", SassClass::IntAlu}, {"ISCADD", SassClass::IntAlu}, {"ISETP", SassClass::IntAlu},
    {"ISET", SassClass::IntAlu}, {"IMNMX", SassClass::IntAlu}, {"IABS", SassClass::IntAlu},
    {"ICMP", SassClass::IntAlu}, {"LOP", SassClass::IntAlu}, {"LOP3", SassClass::IntAlu},
    {"LOP32I", SassClass::IntAlu}, {"SHL", SassClass::IntAlu}, {"SHR", SassClass::IntAlu},
    {"SHF", SassClass::IntAlu}, {"BFE", SassClass::IntAlu}, {"BFI", SassClass::IntAlu},
    {"BREV", SassClass::IntAlu}, {"FLO", SassClass::IntAlu}, {"POPC", SassClass::IntAlu},
    {"SEL", SassClass::IntAlu}, {"MOV", SassClass::IntAlu}, {"MOV32I", SassClass::IntAlu},
    {"PRMT", SassClass::IntAlu}, {"XMAD", SassClass::IntAlu}, {"LEA", SassClass::IntAlu},
    {"IDP", SassClass::IntAlu}, {"P2R", SassClass::IntAlu}, {"R2P", SassClass::IntAlu},
    {"PSETP", SassClass::IntAlu}, {"PLOP3", SassClass::IntAlu}, {"I2I", SassClass::IntAlu},
    {"VABSDIFF", SassClass::IntAlu}, {"VABSDIFF4", SassClass::IntAlu}, {"VMAD", SassClass::IntAlu},
    {"UIADD3", SassClass::IntAlu}, {"UMOV", SassClass::IntAlu}, {"ULOP3", SassClass::IntAlu},
    {"USEL", SassClass::IntAlu}, {"USHF", SassClass::IntAlu}, {"UIMAD", SassClass::IntAlu},
    {"ULEA", SassClass::IntAlu}, {"UISETP", SassClass::IntAlu}, {"R2UR", SassClass::IntAlu},
    // floating point (FP32, FP64, FP16x2, tensor cores, FP conversions)
    {"FADD", SassClass::FpAlu}, {"FADD32I", SassClass::FpAlu}, {"FFMA", SassClass::FpAlu},
    {"FFMA32I", SassClass::FpAlu}, {"FMUL", SassClass::FpAlu}, {"FMUL32I", SassClass::FpAlu},
    {"FMNMX", SassClass::FpAlu}, {"FSET", SassClass::FpAlu}, {"FSETP", SassClass::FpAlu},
    {"FCMP", SassClass::FpAlu}, {"FCHK", SassClass::FpAlu}, {"FSWZADD", SassClass::FpAlu},
    {"DADD", SassClass::FpAlu}, {"DFMA", SassClass::FpAlu}, {"DMUL", SassClass::FpAlu},
    {"DMNMX", SassClass::FpAlu}, {"DSET", SassClass::FpAlu}, {"DSETP", SassClass::FpAlu},
    {"HADD2", SassClass::FpAlu}, {"HFMA2", SassClass::FpAlu}, {"HMUL2", SassClass::FpAlu},
    {"HSET2", SassClass::FpAlu}, {"HSETP2", SassClass::FpAlu}, {"HMNMX2", SassClass::FpAlu},
    {"HMMA", SassClass::FpAlu}, {"IMMA", SassClass::FpAlu}, {"BMMA", SassClass::FpAlu},
    {"DMMA", SassClass::FpAlu}, {"F2F", SassClass::FpAlu}, {"F2FP", SassClass::FpAlu},
    {"F2I", SassClass::FpAlu}, {"I2F", SassClass::FpAlu}, {"FRND", SassClass::FpAlu},
    // special function unit
    {"MUFU", SassClass::Sfu}, {"RRO", SassClass::Sfu},
    // global memory (LD/ST are generic addressing; traced addresses are treated as global)
    {"LDG", SassClass::GlobalLoad}, {"LD", SassClass::GlobalLoad}, {"LDGSTS", SassClass::GlobalLoad},
    {"STG", SassClass::GlobalStore}, {"ST", SassClass::GlobalStore},
    {"ATOM", SassClass::GlobalAtomic}, {"ATOMG", SassClass::GlobalAtomic}, {"RED", SassClass::GlobalAtomic},
    // shared, local, constant memory
    {"LDS", SassClass::Shared}, {"STS", SassClass::Shared}, {"LDSM", SassClass::Shared},
    {"ATOMS", SassClass::Shared}, {"LDL", SassClass::Local}, {"STL", SassClass::Local},
    {"LDC", SassClass::Constant}, {"ULDC", SassClass::Constant},
    // texture / surface (the tracer records no addresses for them)
    {"TEX", SassClass::Texture}, {"TLD", SassClass::Texture}, {"TLD4", SassClass::Texture},
    {"TXQ", SassClass::Texture}, {"TMML", SassClass::Texture}, {"TXD", SassClass::Texture},
    {"TEXS", SassClass::Texture}, {"TLDS", SassClass::Texture}, {"TLD4S", SassClass::Texture},
    {"SULD", SassClass::Texture}, {"SUST", SassClass::Texture}, {"SUATOM", SassClass::Texture},
    {"SURED", SassClass::Texture}, {"SUQ", SassClass::Texture},
    // barriers and exit
    {"BAR", SassClass::Barrier}, {"EXIT", SassClass::Exit},
    // control flow
    {"BRA", SassClass::Branch}, {"BRX", SassClass::Branch}, {"JMP", SassClass::Branch},
    {"JMX", SassClass::Branch}, {"CALL", SassClass::Branch}, {"RET", SassClass::Branch},
    {"BSSY", SassClass::Branch}, {"BSYNC", SassClass::Branch}, {"BREAK", SassClass::Branch},
    {"BPT", SassClass::Branch}, {"KILL", SassClass::Branch}, {"SSY", SassClass::Branch},
    {"SYNC", SassClass::Branch}, {"PBK", SassClass::Branch}, {"BRK", SassClass::Branch},
    {"PCNT", SassClass::Branch}, {"CONT", SassClass::Branch}, {"PRET", SassClass::Branch},
    {"PEXIT", SassClass::Branch}, {"CAL", SassClass::Branch}, {"JCAL", SassClass::Branch},
    {"WARPSYNC", SassClass::Branch}, {"BMOV", SassClass::Branch}, {"YIELD", SassClass::Branch},
    // everything else that is not arithmetic
    {"NOP", SassClass::Control}, {"S2R", SassClass::Control}, {"CS2R", SassClass::Control},
    {"S2UR", SassClass::Control}, {"MEMBAR", SassClass::Control}, {"DEPBAR", SassClass::Control},
    {"ERRBAR", SassClass::Control}, {"FENCE", SassClass::Control}, {"CCTL", SassClass::Control},
    {"CCTLL", SassClass::Control}, {"VOTE", SassClass::Control}, {"VOTEU", SassClass::Control},
    {"SHFL", SassClass::Control}, {"MATCH", SassClass::Control}, {"REDUX", SassClass::Control},
    {"LDGDEPBAR", SassClass::Control}, {"ARRIVES", SassClass::Control}, {"NANOSLEEP", SassClass::Control},
};

const std::unordered_map<std::string, SassClass>& op_map() {
  static const std::unordered_map<std::string, SassClass> m = [] {
    std::unordered_map<std::string, SassClass> r;
    for (const OpRow& row : kOpTable) r.emplace(row.name, row.cls);
    return r;
  }();
  return m;
}

}  // namespace

const char* sass_class_name(SassClass c) {
  static const char* const n[] = {"int_alu", "fp_alu", "sfu", "global_load", "global_store", "global_atomic", "shared",
                                  "local", "constant", "texture", "barrier", "exit", "branch", "control"};
  return n[static_cast<unsigned>(c)];
}

SassClass sass_classify(const char* opcode) {
  const char* dot = std::strchr(opcode, '.');
  const std::string base = dot ? std::string(opcode, dot) : std::string(opcode);
  auto it = op_map().find(base);
  const SassClass c = it == op_map().end() ? SassClass::IntAlu : it->second;
  if (c == SassClass::Barrier && dot && std::strstr(dot, ".ARV")) return SassClass::Control;  // arrive, no wait
  return c;
}

Op sass_class_op(SassClass c) {
  switch (c) {
    case SassClass::Sfu:
    case SassClass::Texture: return Op::Sfu;
    case SassClass::GlobalLoad:
    case SassClass::GlobalAtomic: return Op::Load;
    case SassClass::GlobalStore: return Op::Store;
    case SassClass::Barrier: return Op::Barrier;
    case SassClass::Exit: return Op::Exit;
    default: return Op::Alu;
  }
}

// ------------------------------------------------------------------ line parsing

namespace {

// Whitespace-separated tokens of one line.
struct Cur {
  const char* p;
  const char* e;
  bool tok(const char** b, const char** te) {
    while (p < e && (*p == ' ' || *p == '\t')) ++p;
    *b = p;
    while (p < e && *p != ' ' && *p != '\t') ++p;
    *te = p;
    return *te > *b;
  }
  bool at_end() {
    while (p < e && (*p == ' ' || *p == '\t')) ++p;
    return p >= e;
  }
};

// Trace text for a message: at most 60 bytes, control characters and binary escaped (\xNN).
std::string esc(const char* b, const char* e) {
  std::string t;
  for (const char* p = b; p < b + std::min<size_t>(static_cast<size_t>(e - b), 60); ++p) {
    const unsigned char c = static_cast<unsigned char>(*p);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      t += static_cast<char>(c);
    } else {
      char h[8];
      std::snprintf(h, sizeof h, "\\x%02x", c);
      t += h;
    }
  }
  return t;
}
std::string esc(const std::string& s) { return esc(s.data(), s.data() + s.size()); }

std::string got(const char* b, const char* e) {
  if (b >= e) return "got '' (end of line)";
  return "got '" + esc(b, e) + "'";
}

bool parse_dec(const char* b, const char* e, uint64_t* v) {
  if (b >= e || e - b > 19) return false;
  uint64_t x = 0;
  for (const char* q = b; q < e; ++q) {
    if (*q < '0' || *q > '9') return false;
    x = x * 10 + static_cast<uint64_t>(*q - '0');
  }
  *v = x;
  return true;
}

bool parse_sdec(const char* b, const char* e, int64_t* v) {
  const bool neg = b < e && *b == '-';
  uint64_t x;
  if (!parse_dec(b + (neg ? 1 : 0), e, &x)) return false;
  *v = neg ? -static_cast<int64_t>(x) : static_cast<int64_t>(x);
  return true;
}

bool parse_hex(const char* b, const char* e, uint64_t* v) {
  if (e - b > 2 && b[0] == '0' && (b[1] == 'x' || b[1] == 'X')) b += 2;
  if (b >= e || e - b > 16) return false;
  uint64_t x = 0;
  for (const char* q = b; q < e; ++q) {
    unsigned d;
    if (*q >= '0' && *q <= '9') d = static_cast<unsigned>(*q - '0');
    else if (*q >= 'a' && *q <= 'f') d = static_cast<unsigned>(*q - 'a' + 10);
    else if (*q >= 'A' && *q <= 'F') d = static_cast<unsigned>(*q - 'A' + 10);
    else return false;
    x = x << 4 | d;
  }
  *v = x;
  return true;
}

bool parse_reg(const char* b, const char* e, uint8_t* r) {
  uint64_t x;
  if (e - b < 2 || *b != 'R' || !parse_dec(b + 1, e, &x) || x > 255) return false;
  *r = static_cast<uint8_t>(x);
  return true;
}

}  // namespace

std::string sass_parse_inst(const char* b, const char* e, unsigned version, bool lineinfo, SassInst* o) {
  Cur c{b, e};
  const char *tb, *te;
  uint64_t v;
  if (lineinfo) {
    c.tok(&tb, &te);
    if (!parse_dec(tb, te, &v)) return "expected a source line number (enable lineinfo = 1), " + got(tb, te);
  }
  c.tok(&tb, &te);
  if (!parse_hex(tb, te, &o->pc)) return "expected an instruction line 'PC mask ndst ...' (hex PC), " + got(tb, te);
  c.tok(&tb, &te);
  if (!parse_hex(tb, te, &v) || v > 0xffffffffull) return "expected a 32-bit hex active mask, " + got(tb, te);
  o->mask = static_cast<uint32_t>(v);
  c.tok(&tb, &te);
  if (!parse_dec(tb, te, &v) || v > 32) return "expected the number of destination registers (0..32), " + got(tb, te);
  o->ndst = static_cast<uint8_t>(v);
  for (unsigned i = 0; i < o->ndst; ++i) {
    c.tok(&tb, &te);
    if (!parse_reg(tb, te, &o->dst[i])) return "expected a destination register R0..R255, " + got(tb, te);
  }
  c.tok(&tb, &te);
  const bool op_ok = te > tb && te - tb < static_cast<long>(sizeof o->opcode) && *tb >= 'A' && *tb <= 'Z' &&
                     std::all_of(tb, te, [](char ch) {
                       return (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '.' || ch == '_';
                     });
  if (!op_ok) return "expected an opcode (e.g. LDG.E.64), " + got(tb, te);
  std::memcpy(o->opcode, tb, static_cast<size_t>(te - tb));
  o->opcode[te - tb] = 0;
  c.tok(&tb, &te);
  if (!parse_dec(tb, te, &v) || v > 32) return "expected the number of source registers (0..32), " + got(tb, te);
  o->nsrc = static_cast<uint8_t>(v);
  for (unsigned i = 0; i < o->nsrc; ++i) {
    c.tok(&tb, &te);
    if (!parse_reg(tb, te, &o->src[i])) return "expected a source register R0..R255, " + got(tb, te);
  }
  c.tok(&tb, &te);
  if (!parse_dec(tb, te, &v) || v > 16) return "expected a memory width in bytes (0..16), " + got(tb, te);
  o->width = static_cast<unsigned>(v);
  o->mode = 0;
  if (o->width > 0) {
    c.tok(&tb, &te);
    if (!parse_dec(tb, te, &v) || v > 2) return "expected an address mode 0, 1 or 2, " + got(tb, te);
    o->mode = static_cast<unsigned>(v);
    const unsigned active = static_cast<unsigned>(__builtin_popcount(o->mask));
    if (o->mode == 0) {
      for (unsigned l = 0; l < kWarpSize; ++l) {
        if (!((o->mask >> l) & 1u)) continue;
        c.tok(&tb, &te);
        if (!parse_hex(tb, te, &o->addr[l]))
          return "expected " + std::to_string(active) + " hex addresses (one per active lane), " + got(tb, te);
      }
    } else {
      uint64_t base;
      c.tok(&tb, &te);
      if (!parse_hex(tb, te, &base)) return "expected a hex base address, " + got(tb, te);
      int64_t step = 0;
      if (o->mode == 1) {
        c.tok(&tb, &te);
        if (!parse_sdec(tb, te, &step)) return "expected a decimal stride, " + got(tb, te);
      }
      uint64_t a = base;
      bool first = true;
      for (unsigned l = 0; l < kWarpSize; ++l) {
        if (!((o->mask >> l) & 1u)) continue;
        if (!first) {
          if (o->mode == 2) {
            c.tok(&tb, &te);
            if (!parse_sdec(tb, te, &step))
              return "expected " + std::to_string(active ? active - 1 : 0) +
                     " decimal address deltas (one per active lane after the first), " + got(tb, te);
          }
          a += static_cast<uint64_t>(step);
        }
        o->addr[l] = a;
        first = false;
      }
    }
  }
  o->imm = 0;
  if (version >= 5) {
    c.tok(&tb, &te);
    if (!parse_sdec(tb, te, &o->imm)) return "expected the immediate (tracer version 5), " + got(tb, te);
  }
  if (!c.at_end()) {
    c.tok(&tb, &te);
    return "expected end of line, " + got(tb, te);
  }
  return "";
}

// ------------------------------------------------------------------ kernel index

namespace {

struct WarpSpan {
  uint64_t off = 0;   // byte offset of the warp's first instruction line (uncompressed)
  uint64_t line = 0;  // its line number
  uint32_t insts = 0;
  bool present = false;
};
struct TbSpan {
  uint64_t begin = 0, end = 0;  // uncompressed byte range of #BEGIN_TB .. #END_TB
};

struct KernelTrace {
  std::string file, name;
  Compression comp = Compression::None;
  unsigned version = 0;
  bool lineinfo = false;
  uint64_t grid[3] = {0, 0, 0}, block[3] = {0, 0, 0};
  uint32_t threads = 0, wpc = 0;
  std::vector<WarpSpan> warps;  // TB (file order) * wpc + warp
  std::vector<TbSpan> tbs;
  uint64_t insts = 0;
  // Offload-candidate blocks derived from the whole trace (workloads/offload_blocks.h)
  // and the innermost block of each PC that lies in one.
  std::vector<OffloadBlock> blocks;
  std::unordered_map<uint64_t, uint16_t> pc_block;
};

[[noreturn]] void bad(const std::string& file, uint64_t line, const std::string& what) {
  throw ConfigError(file + ":" + std::to_string(line) + ": " + what);
}

std::string trim(const char* b, const char* e) {
  while (b < e && (*b == ' ' || *b == '\t')) ++b;
  while (e > b && (e[-1] == ' ' || e[-1] == '\t')) --e;
  return std::string(b, e);
}

bool starts(const char* b, const char* e, const char* lit) {
  const size_t n = std::strlen(lit);
  return static_cast<size_t>(e - b) >= n && std::memcmp(b, lit, n) == 0;
}

// "x,y,z" with non-negative values.
bool parse_xyz(const std::string& s, uint64_t d[3]) {
  const char* p = s.data();
  const char* end = s.data() + s.size();
  for (int i = 0; i < 3; ++i) {
    const char* q = p;
    while (q < end && *q != ',') ++q;
    if (!parse_dec(p, q, &d[i]) || (i < 2 && q >= end) || (i == 2 && q != end)) return false;
    p = q + 1;
  }
  return true;
}

// "(x,y,z)" with positive values.
bool parse_dim3(const std::string& s, uint64_t d[3]) {
  if (s.size() < 7 || s.front() != '(' || s.back() != ')' || !parse_xyz(s.substr(1, s.size() - 2), d)) return false;
  return d[0] && d[1] && d[2] && d[0] <= 0x7fffffff && d[1] <= 0xffff && d[2] <= 0xffff;
}

void header_line(KernelTrace& k, const char* b, const char* e, uint64_t ln, bool* have_version) {
  const char* eq = static_cast<const char*>(std::memchr(b, '=', static_cast<size_t>(e - b)));
  if (!eq) bad(k.file, ln, "expected a header line '-key = value', " + got(b, e));
  const std::string key = trim(b + 1, eq), val = trim(eq + 1, e);
  uint64_t v;
  auto num = [&](const char* what) {
    if (!parse_dec(val.data(), val.data() + val.size(), &v))
      bad(k.file, ln, std::string("expected '-") + key + " = " + what + "', got '" + esc(val) + "'");
  };
  if (key == "kernel name") {
    if (val.empty()) bad(k.file, ln, "expected '-kernel name = NAME', got ''");
    k.name = val;
  } else if (key == "grid dim" || key == "block dim") {
    if (!parse_dim3(val, key == "grid dim" ? k.grid : k.block))
      bad(k.file, ln, "expected '-" + key + " = (x,y,z)' with positive integers, got '" + esc(val) + "'");
  } else if (key == "accelsim tracer version") {
    num("3, 4 or 5");
    if (v < 3 || v > 5) bad(k.file, ln, "expected accelsim tracer version 3, 4 or 5, got '" + esc(val) + "'");
    k.version = static_cast<unsigned>(v);
    *have_version = true;
  } else if (key == "enable lineinfo") {
    num("0 or 1");
    if (v > 1) bad(k.file, ln, "expected '-enable lineinfo = 0 or 1', got '" + esc(val) + "'");
    k.lineinfo = v == 1;
  } else if (key == "kernel id" || key == "shmem" || key == "nregs" || key == "binary version" ||
             key == "cuda stream id") {
    num("an integer");
  } else if (key == "shmem base_addr" || key == "local mem base_addr") {
    if (!parse_hex(val.data(), val.data() + val.size(), &v))
      bad(k.file, ln, "expected '-" + key + " = 0xADDRESS', got '" + esc(val) + "'");
  }
  // nvbit version and keys of newer tracers: free text, not needed.
}

// One sequential pass over a kernel trace: validates every line, records where
// each TB and warp starts. Memory: O(TBs x warps per TB).
KernelTrace index_kernel(const std::string& file, AccelsimCounts* counts) {
  KernelTrace k;
  k.file = file;
  LineReader lr(file);
  k.comp = lr.compression();
  const char *b, *e;
  bool have_version = false, in_body = false;
  enum { kOutside, kNeedBlock, kNeedWarp, kNeedInsts, kInInsts } st = kOutside;
  std::vector<bool> seen_tb;
  std::vector<bool> seen_warp;
  uint64_t cur_tb = 0, cur_warp = 0, left = 0;
  SassInst si;
  SassBlockDeriver blocks;
  while (lr.next(&b, &e)) {
    const uint64_t ln = lr.line_number();
    const std::string t = trim(b, e);
    if (t.empty()) continue;
    if (!in_body) {
      if (t[0] == '-') {
        header_line(k, t.data(), t.data() + t.size(), ln, &have_version);
        continue;
      }
      if (t != "#BEGIN_TB") {
        if (t[0] == '#') continue;  // "#traces format = ..." comment
        bad(file, ln, "expected a header line '-key = value' or #BEGIN_TB, " + got(t.data(), t.data() + t.size()));
      }
      // End of the header: the keys the reader needs must be there.
      if (!k.grid[0]) bad(file, ln, "expected a '-grid dim = (x,y,z)' header line before #BEGIN_TB");
      if (!k.block[0]) bad(file, ln, "expected a '-block dim = (x,y,z)' header line before #BEGIN_TB");
      if (!have_version) bad(file, ln, "expected a '-accelsim tracer version = N' header line before #BEGIN_TB");
      const uint64_t threads = k.block[0] * k.block[1] * k.block[2];
      if (threads > 1024) bad(file, ln, "expected a block of at most 1024 threads, got " + std::to_string(threads));
      k.threads = static_cast<uint32_t>(threads);
      k.wpc = (k.threads + kWarpSize - 1) / kWarpSize;
      const uint64_t g = k.grid[0] * k.grid[1] * k.grid[2];
      if (g <= (uint64_t(1) << 28)) seen_tb.assign(g, false);
      if (k.name.empty()) k.name = fs::path(file).filename().string();
      in_body = true;
    }
    const char* tb_ = t.data();
    const char* te_ = t.data() + t.size();
    if (st == kInInsts) {
      if (t[0] == '#' || starts(tb_, te_, "warp") || starts(tb_, te_, "thread block"))
        bad(file, ln, "expected " + std::to_string(left) + " more instruction line(s) of warp " +
                          std::to_string(cur_warp) + ", " + got(tb_, te_));
      const std::string err = sass_parse_inst(b, e, k.version, k.lineinfo, &si);
      if (!err.empty()) bad(file, ln, err);
      blocks.add(si);
      ++k.insts;
      if (--left == 0) st = kNeedWarp;
      continue;
    }
    if (t == "#BEGIN_TB") {
      if (st != kOutside) bad(file, ln, "expected #END_TB before the next #BEGIN_TB, got '#BEGIN_TB'");
      k.tbs.push_back({lr.line_offset(), 0});
      k.warps.resize(k.warps.size() + k.wpc);
      seen_warp.assign(k.wpc, false);
      cur_tb = k.tbs.size() - 1;
      st = kNeedBlock;
    } else if (t == "#END_TB") {
      if (st != kNeedWarp) bad(file, ln, "expected 'thread block = x,y,z' or 'warp = N' before #END_TB, got '#END_TB'");
      k.tbs.back().end = lr.line_offset() + static_cast<uint64_t>(e - b) + 1;
      st = kOutside;
    } else if (st == kNeedBlock) {
      uint64_t xyz[3] = {0, 0, 0};
      bool ok = starts(tb_, te_, "thread block");
      if (ok) {
        const std::string rest = trim(tb_ + 12, te_);
        ok = rest.size() > 1 && rest[0] == '=' && parse_xyz(trim(rest.data() + 1, rest.data() + rest.size()), xyz);
        for (int i = 0; ok && i < 3; ++i) ok = xyz[i] < k.grid[i];
      }
      if (!ok)
        bad(file, ln, "expected 'thread block = x,y,z' inside the grid (" + std::to_string(k.grid[0]) + "," +
                          std::to_string(k.grid[1]) + "," + std::to_string(k.grid[2]) + "), " + got(tb_, te_));
      if (!seen_tb.empty()) {
        const uint64_t lin = xyz[0] + k.grid[0] * (xyz[1] + k.grid[1] * xyz[2]);
        if (seen_tb[lin]) bad(file, ln, "expected each thread block once, got a second '" + esc(t) + "'");
        seen_tb[lin] = true;
      }
      st = kNeedWarp;
    } else if (st == kNeedWarp && starts(tb_, te_, "warp")) {
      const std::string rest = trim(tb_ + 4, te_);
      uint64_t w = 0;
      const std::string num = rest.size() > 1 && rest[0] == '=' ? trim(rest.data() + 1, rest.data() + rest.size()) : "";
      if (!parse_dec(num.data(), num.data() + num.size(), &w) || w >= k.wpc)
        bad(file, ln, "expected 'warp = N' with N below " + std::to_string(k.wpc) + " (block of " +
                          std::to_string(k.threads) + " threads), " + got(tb_, te_));
      if (seen_warp[w]) bad(file, ln, "expected each warp once per thread block, got a second '" + esc(t) + "'");
      seen_warp[w] = true;
      cur_warp = w;
      blocks.warp_begin();
      st = kNeedInsts;
    } else if (st == kNeedInsts) {
      const std::string rest = starts(tb_, te_, "insts") ? trim(tb_ + 5, te_) : "";
      const std::string num = rest.size() > 1 && rest[0] == '=' ? trim(rest.data() + 1, rest.data() + rest.size()) : "";
      uint64_t n = 0;
      if (!parse_dec(num.data(), num.data() + num.size(), &n) || n > 0xffffffffull)
        bad(file, ln, "expected 'insts = N' after 'warp = " + std::to_string(cur_warp) + "', " + got(tb_, te_));
      WarpSpan& ws = k.warps[cur_tb * k.wpc + cur_warp];
      ws.present = true;
      ws.insts = static_cast<uint32_t>(n);
      ws.off = lr.line_offset() + static_cast<uint64_t>(e - b) + 1;
      ws.line = ln + 1;
      left = n;
      st = n ? kInInsts : kNeedWarp;
    } else if (st == kOutside) {
      bad(file, ln, "expected #BEGIN_TB, " + got(tb_, te_));
    } else {
      bad(file, ln, "expected 'warp = N' or #END_TB, " + got(tb_, te_));
    }
  }
  const uint64_t last = lr.line_number();
  if (!in_body) bad(file, last, "expected at least one #BEGIN_TB thread block after the header");
  if (st != kOutside) {
    bad(file, last + 1, st == kInInsts ? "expected " + std::to_string(left) + " more instruction line(s), got end of file"
                                       : std::string("expected #END_TB, got end of file"));
  }
  {  // Accel-Sim traces every thread block of the grid: a header claiming more is a cut or corrupt trace
    const uint64_t g = k.grid[0] * k.grid[1] * k.grid[2];
    if (k.tbs.size() != g)
      bad(file, last, "expected the " + std::to_string(g) + " thread blocks of '-grid dim = (" +
                          std::to_string(k.grid[0]) + "," + std::to_string(k.grid[1]) + "," +
                          std::to_string(k.grid[2]) + ")', got " + std::to_string(k.tbs.size()) + " traced");
  }
  counts->trace_insts += k.insts;
  blocks.derive(&k.blocks, &k.pc_block);
  return k;
}

// ------------------------------------------------------------------ functional data

// Synthetic store data: a function of the 4-byte word address and the kernel
// launch (all stores of one kernel to one word write the same value, so
// intra-kernel races of the traced program cannot make golden and device differ).
inline uint32_t word_value(uint64_t word_addr, uint64_t salt) { return static_cast<uint32_t>(mix64((word_addr >> 2) ^ salt)); }
inline uint64_t chunk_value(uint64_t addr, unsigned bytes, uint64_t salt) {
  uint64_t v = word_value(addr, salt);
  if (bytes == 8) v |= static_cast<uint64_t>(word_value(addr + 4, salt)) << 32;
  return v;
}
constexpr uint64_t kInitSalt = 0x4d656d6370794844ull;  // "MemcpyHD"
inline uint64_t store_salt(uint32_t kseq) { return mix64(0x53746f7265ull + kseq); }

// ------------------------------------------------------------------ the kernel

class AccelKernel : public Kernel {
 public:
  AccelKernel(const KernelTrace& kt, uint32_t kseq, bstore* g, AccelsimCounts* counts)
      : kt_(kt), salt_(store_salt(kseq)), counts_(counts) {
    name = kt.name;
    golden = g;
    blocks = kt.blocks;
    ctas = static_cast<uint32_t>(kt.tbs.size());
    warps_per_cta = kt.wpc;
    if (kt.comp == Compression::None) {
      fd_ = ::open(kt.file.c_str(), O_RDONLY);
      if (fd_ < 0) throw std::runtime_error(kt.file + ": cannot reopen trace file");
    }
  }
  ~AccelKernel() override {
    if (fd_ >= 0) ::close(fd_);
  }

  void warp_begin(WarpCtx& w) const override {
    const uint64_t gid = static_cast<uint64_t>(w.cta) * kt_.wpc + w.warp;
    w.s[0] = gid;
    w.mask = lanes_below(static_cast<uint64_t>(w.warp) * kWarpSize, kt_.threads);
    auto r = std::make_unique<Run>();
    const WarpSpan& ws = kt_.warps[gid];
    r->left = ws.present ? ws.insts : 0;
    r->line = ws.line;
    r->mask = w.mask;
    std::fill(std::begin(r->wid), std::end(r->wid), kNoReg);
    if (fd_ >= 0) {
      r->text = std::make_shared<std::string>();
      r->file_off = ws.off;
    } else if (r->left) {
      r->text = tb_text(w.cta);
      r->pos = static_cast<size_t>(ws.off - kt_.tbs[w.cta].begin);
    }
    if (fd_ < 0 && ++tb_begun_[w.cta] == kt_.wpc) {  // every warp holds the text now
      tb_cache_.erase(w.cta);
      tb_begun_.erase(w.cta);
    }
    runs_[gid] = std::move(r);
  }

  void warp_next(WarpCtx& w, WarpInst& o) const override {
    auto it = runs_.find(w.s[0]);
    Run& r = *it->second;
    if (r.pend_pos == r.pend.size()) {
      r.pend.clear();
      r.pend_pos = 0;
      if (r.left == 0) {  // the trace of this warp ended without EXIT (or is empty)
        ++counts_->synthetic_exits;
        r.pend.emplace_back();
        r.pend.back().exit(r.mask);
      } else {
        const char *b, *e;
        next_line(r, &b, &e);
        const std::string err = sass_parse_inst(b, e, kt_.version, kt_.lineinfo, &si_);
        if (!err.empty())  // validated before the run: the file changed since
          throw std::runtime_error(kt_.file + ":" + std::to_string(r.line) + ": " + err);
        ++r.line;
        --r.left;
        const size_t first = r.pend.size();
        translate(r, si_);
        tag_block(r, si_.pc, first);
      }
    }
    o = r.pend[r.pend_pos++];
    if (o.op == Op::Exit) runs_.erase(it);
  }

 private:
  struct Run {
    std::shared_ptr<std::string> text;  // plain: a chunk of the file; compressed: the TB's text
    size_t pos = 0;
    uint64_t file_off = 0;  // plain: file offset of the next byte to read
    uint64_t line = 0;
    uint32_t left = 0, mask = 0;
    uint64_t prev_pc = 0;          // previous traced instruction's PC
    uint16_t prev_block = kNoBlock;  // and its offload block
    uint8_t wid[256];  // platform register id holding trace register Rn's latest value (kNoReg: ready)
    std::vector<WarpInst> pend;
    size_t pend_pos = 0;
  };

  std::shared_ptr<std::string> tb_text(uint32_t cta) const {
    auto it = tb_cache_.find(cta);
    if (it != tb_cache_.end()) return it->second;
    const TbSpan& tb = kt_.tbs[cta];
    if (!cs_ || tb.begin < cs_pos_) {  // (re)start the forward stream; the GPU launches CTAs in order
      cs_.reset(new ByteStream(kt_.file));
      cs_pos_ = 0;
    }
    if (!cs_->skip(tb.begin - cs_pos_)) throw std::runtime_error(kt_.file + ": trace file shrank since it was read");
    auto s = std::make_shared<std::string>(static_cast<size_t>(tb.end - tb.begin), '\0');
    size_t got_n = 0;
    while (got_n < s->size()) {
      const size_t n = cs_->read(&(*s)[got_n], s->size() - got_n);
      if (!n) break;
      got_n += n;
    }
    s->resize(got_n);
    cs_pos_ = tb.begin + got_n;
    tb_cache_[cta] = s;
    return s;
  }

  // Next non-blank line of the warp's section.
  void next_line(Run& r, const char** b, const char** e) const {
    for (;;) {
      std::string& t = *r.text;
      const char* base = t.data();
      const char* nl = static_cast<const char*>(std::memchr(base + r.pos, '\n', t.size() - r.pos));
      if (!nl && fd_ >= 0) {  // plain file: refill the chunk (keep the partial line)
        t.erase(0, r.pos);
        r.pos = 0;
        const size_t want = std::max<size_t>(4096, t.size());
        const size_t old = t.size();
        t.resize(old + want);
        const ssize_t n = ::pread(fd_, &t[old], want, static_cast<off_t>(r.file_off));
        t.resize(old + static_cast<size_t>(std::max<ssize_t>(n, 0)));
        r.file_off += static_cast<uint64_t>(std::max<ssize_t>(n, 0));
        if (n > 0) continue;
        base = t.data();
      }
      const char* end = nl ? nl : base + t.size();
      const char* start = base + r.pos;
      if (start == end && !nl) throw std::runtime_error(kt_.file + ": trace file shrank since it was read");
      r.pos = static_cast<size_t>(end - base) + (nl ? 1 : 0);
      const char* q = start;
      while (q < end && (*q == ' ' || *q == '\t' || *q == '\r')) ++q;
      if (q == end) {  // blank line
        ++r.line;
        continue;
      }
      *b = start;
      *e = end > start && end[-1] == '\r' ? end - 1 : end;
      return;
    }
  }

  // Registers an instruction reads/writes, expanded to the registers a
  // vector/64-bit access really touches (the tracer lists only the first).
  static unsigned span_regs(const SassInst& si, SassClass c, bool dst) {
    const bool mem = c == SassClass::GlobalLoad || c == SassClass::GlobalStore || c == SassClass::GlobalAtomic;
    const unsigned wregs = std::max(1u, si.width / 4);
    if (mem) {
      if (dst) return wregs;
      return std::max(2u, c == SassClass::GlobalStore ? wregs : 2u);  // 64-bit address pair / store data vector
    }
    const char* op = si.opcode;
    const bool wide = std::strstr(op, ".WIDE") || std::strstr(op, ".64") || std::strstr(op, ".F64") ||
                      (op[0] == 'D' && c == SassClass::FpAlu);
    return wide ? 2 : 1;
  }

  void translate(Run& r, const SassInst& si) const {
    const SassClass cls = sass_classify(si.opcode);
    const bool last = r.left == 0;
    if (cls == SassClass::Exit && last) {
      r.pend.emplace_back();
      r.pend.back().exit(si.mask);
      return;
    }
    if (cls == SassClass::Barrier && si.mask) {
      r.pend.emplace_back();
      r.pend.back().barrier(si.mask);
      if (last) append_exit(r);
      return;
    }
    Op op = sass_class_op(cls);
    if (op == Op::Exit || op == Op::Barrier) op = Op::Alu;  // EXIT of some lanes mid-trace; predicated-off BAR
    const bool mem = (op == Op::Load || op == Op::Store) && si.width > 0;
    if ((op == Op::Load || op == Op::Store) && !mem) op = Op::Alu;  // no addresses traced

    // Producer ids of everything read (deduplicated).
    uint8_t ids[64];
    unsigned nid = 0;
    auto add_id = [&](uint8_t id) {
      if (id == kNoReg) return;
      for (unsigned i = 0; i < nid; ++i)
        if (ids[i] == id) return;
      ids[nid++] = id;
    };
    const unsigned sspan = span_regs(si, cls, false);
    for (unsigned i = 0; i < si.nsrc; ++i)
      for (unsigned k = 0; k < sspan && si.src[i] + k < 255u; ++k) add_id(r.wid[si.src[i] + k]);

    // Access split (memory only): chunks of c bytes, naturally aligned.
    unsigned c = 4, parts = 1;
    uint64_t lo[kWarpSize] = {};
    unsigned lparts[kWarpSize] = {};
    if (mem) {
      bool al8 = si.width >= 8 && si.width % 8 == 0;
      for (unsigned l = 0; l < kWarpSize && al8; ++l)
        if (((si.mask >> l) & 1u) && (si.addr[l] & 7u)) al8 = false;
      c = al8 ? 8 : 4;
      parts = 0;
      for (unsigned l = 0; l < kWarpSize; ++l) {
        if (!((si.mask >> l) & 1u)) continue;
        lo[l] = si.addr[l] & ~static_cast<uint64_t>(c - 1);
        const uint64_t hi = (si.addr[l] + si.width + c - 1) & ~static_cast<uint64_t>(c - 1);
        lparts[l] = static_cast<unsigned>((hi - lo[l]) / c);
        parts = std::max(parts, lparts[l]);
      }
      parts = std::max(parts, 1u);
    }

    // More producers than check slots: ALU "join" instructions fold 4 into 1
    // (its dst waits for itself by the SM's WAW check). Slots: 3 sources + the
    // dst slot, except for split loads whose parts need their own dst ids.
    const unsigned slots = mem && op == Op::Load && parts > 1 ? 3 : 4;
    while (nid > slots) {
      r.pend.emplace_back();
      r.pend.back().alu(ids[0], si.mask, ids[1], ids[2], ids[3]);
      std::memmove(ids + 1, ids + 4, (nid - 4) * sizeof ids[0]);
      nid -= 3;
      ++counts_->joins;
    }
    const uint8_t s0 = nid > 0 ? ids[0] : kNoReg, s1 = nid > 1 ? ids[1] : kNoReg, s2 = nid > 2 ? ids[2] : kNoReg;
    const uint8_t extra = nid > 3 ? ids[3] : kNoReg;

    // Destination ids: first trace destination (not RZ) mod kMaxRegs.
    int d0 = -1;
    for (unsigned i = 0; i < si.ndst; ++i)
      if (si.dst[i] != 255) {
        d0 = si.dst[i];
        break;
      }
    const unsigned dspan = span_regs(si, cls, true);
    auto set_dests = [&](auto id_of_reg) {
      for (unsigned i = 0; i < si.ndst; ++i)
        for (unsigned k = 0; k < dspan && si.dst[i] != 255 && si.dst[i] + k < 255u; ++k)
          r.wid[si.dst[i] + k] = id_of_reg(k);
    };

    if (!mem) {
      uint8_t dst = extra != kNoReg ? extra : (d0 >= 0 ? static_cast<uint8_t>(d0 % kMaxRegs) : kNoReg);
      r.pend.emplace_back();
      WarpInst& in = r.pend.back();
      if (op == Op::Sfu)
        in.sfu(dst, si.mask, s0, s1), in.src[2] = s2;
      else
        in.alu(dst, si.mask, s0, s1, s2);
      if (dst != kNoReg) set_dests([&](unsigned) { return dst; });
    } else {
      counts_->extra_parts += parts - 1;
      uint8_t part_dst[8];
      for (unsigned p = 0; p < parts; ++p)
        part_dst[p] = d0 < 0 ? kNoReg
                             : parts == 1 && extra != kNoReg ? extra
                                                             : static_cast<uint8_t>((d0 + p * (c / 4)) % kMaxRegs);
      for (unsigned p = 0; p < parts; ++p) {
        uint32_t act = 0;
        for (unsigned l = 0; l < kWarpSize; ++l)
          if (((si.mask >> l) & 1u) && lparts[l] > p) act |= 1u << l;
        r.pend.emplace_back();
        WarpInst& in = r.pend.back();
        if (op == Op::Load) {
          in.load(part_dst[p], act, c, s0);
          in.src[1] = s1;
          in.src[2] = s2;
        } else {
          in.store(act, c, s0, s1, s2);
          in.dst = extra;  // checked before issue, never written by a store
        }
        for (unsigned l = 0; l < kWarpSize; ++l) {
          in.addr[l] = 0;
          in.data[l] = 0;
          if (!((act >> l) & 1u)) continue;
          in.addr[l] = lo[l] + static_cast<uint64_t>(p) * c;
          if (op == Op::Store) {
            in.data[l] = chunk_value(in.addr[l], c, salt_);
            bstore_write(golden, in.addr[l], &in.data[l], c);
          }
        }
      }
      if (op == Op::Load && d0 >= 0)  // register k holds bytes 4k..4k+3: the part that loads them
        set_dests([&](unsigned k) { return part_dst[std::min(parts - 1, 4 * k / c)]; });
    }
    if (last) append_exit(r);
  }

  // Offload-block tags of the warp instructions of one traced line (from
  // pend[first]): the innermost derived block holding the PC; a new instance
  // begins when the warp comes from another block (or none), or jumps
  // backwards within a straight-line block.
  void tag_block(Run& r, uint64_t pc, size_t first) const {
    uint16_t b = kNoBlock;
    if (!kt_.pc_block.empty()) {
      auto it = kt_.pc_block.find(pc);
      if (it != kt_.pc_block.end()) b = it->second;
    }
    if (b != kNoBlock) {
      const bool entry = b != r.prev_block || (kt_.blocks[b].trip == TripKind::None && pc <= r.prev_pc);
      for (size_t i = first; i < r.pend.size(); ++i)
        if (r.pend[i].op != Op::Exit) r.pend[i].in_block(b, entry && i == first);
    }
    r.prev_pc = pc;
    r.prev_block = b;
  }

  void append_exit(Run& r) const {
    ++counts_->synthetic_exits;
    r.pend.emplace_back();
    r.pend.back().exit(r.mask);
  }

  const KernelTrace& kt_;
  uint64_t salt_;
  AccelsimCounts* counts_;
  int fd_ = -1;
  mutable std::unique_ptr<ByteStream> cs_;
  mutable uint64_t cs_pos_ = 0;
  mutable std::unordered_map<uint32_t, std::shared_ptr<std::string>> tb_cache_;
  mutable std::unordered_map<uint32_t, unsigned> tb_begun_;
  mutable std::unordered_map<uint64_t, std::unique_ptr<Run>> runs_;
  mutable SassInst si_;
};

// ------------------------------------------------------------------ the program

class AccelProgram : public Program {
 public:
  // max_bytes: sim.max_footprint; MemcpyHtoD copies adding up to more are rejected at their line.
  explicit AccelProgram(const std::string& path, uint64_t max_bytes = UINT64_MAX) : Program("accelsim") {
    std::string list = path;
    std::error_code ec;
    if (fs::is_directory(path, ec)) list = (fs::path(path) / "kernelslist.g").string();
    LineReader lr(list);  // throws "cannot open"
    const fs::path dir = fs::path(list).parent_path();
    std::vector<std::pair<uint64_t, uint64_t>> copies;
    uint64_t copied = 0;  // bytes of all copies so far (an upper bound of the merged regions)
    const char *b, *e;
    while (lr.next(&b, &e)) {
      const uint64_t ln = lr.line_number();
      const std::string t = trim(b, e);
      if (t.empty() || t[0] == '#') continue;
      if (t.compare(0, 10, "MemcpyHtoD") == 0) {
        const size_t c1 = t.find(','), c2 = c1 == std::string::npos ? c1 : t.find(',', c1 + 1);
        uint64_t addr = 0, bytes = 0;
        const bool ok = c1 == 10 && c2 != std::string::npos && t.find(',', c2 + 1) == std::string::npos &&
                        t.compare(c1 + 1, 2, "0x") == 0 && parse_hex(t.data() + c1 + 1, t.data() + c2, &addr) &&
                        parse_dec(t.data() + c2 + 1, t.data() + t.size(), &bytes) && bytes <= (uint64_t(1) << 40);
        if (!ok) bad(list, ln, "expected 'MemcpyHtoD,0xADDRESS,BYTES', got '" + esc(t) + "'");
        copied += bytes;
        if (copied > max_bytes)
          bad(list, ln, "MemcpyHtoD of " + std::to_string(bytes) + " bytes brings the copies to " +
                            std::to_string(copied) + " bytes, over sim.max_footprint (" + std::to_string(max_bytes) +
                            " bytes); raise sim.max_footprint if you mean it");
        if (bytes) copies.push_back({addr, bytes});
        ++counts_.memcpys;
        continue;
      }
      if (t.compare(0, 6, "Memcpy") == 0) continue;  // device-to-host copies: nothing to simulate
      if (t.find_first_of(" \t,") != std::string::npos)
        bad(list, ln, "expected 'MemcpyHtoD,0xADDRESS,BYTES' or a kernel trace file name, got '" + esc(t) + "'");
      const fs::path kf = fs::path(t).is_absolute() ? fs::path(t) : dir / t;
      if (!fs::is_regular_file(kf, ec)) bad(list, ln, "kernel trace file '" + kf.string() + "' not found");
      kernels_.push_back(index_kernel(kf.string(), &counts_));
    }
    if (kernels_.empty()) bad(list, lr.line_number(), "expected at least one kernel trace file line, got none");
    counts_.kernels = kernels_.size();
    // Arrays: the MemcpyHtoD ranges, 128 B aligned, overlapping ones merged.
    for (auto& cp : copies) {
      const uint64_t lo = cp.first & ~uint64_t(127);
      cp.second = ((cp.first + cp.second + 127) & ~uint64_t(127)) - lo;
      cp.first = lo;
    }
    std::sort(copies.begin(), copies.end());
    for (const auto& cp : copies) {
      if (!regions_.empty() && cp.first <= regions_.back().first + regions_.back().second)
        regions_.back().second = std::max(regions_.back().first + regions_.back().second, cp.first + cp.second) -
                                 regions_.back().first;
      else
        regions_.push_back(cp);
    }
    for (const auto& rg : regions_) {
      char nm[40];
      std::snprintf(nm, sizeof nm, "memcpy@0x%llx", static_cast<unsigned long long>(rg.first));
      const unsigned i = add_array(nm, rg.second);
      set_array_base(i, rg.first);
    }
  }

  Kernel* next_kernel() override {
    cur_.reset();
    if (next_ >= kernels_.size()) return nullptr;
    const uint32_t seq = static_cast<uint32_t>(++next_);
    cur_.reset(new AccelKernel(kernels_[seq - 1], seq, golden_, &counts_));
    return cur_.get();
  }
  // A trace has no host-side result to check; the golden-memory checker
  // (--check) compares every load.
  bool verify(bstore*, std::string*) const override { return true; }
  unsigned kernels_estimate() const override { return static_cast<unsigned>(kernels_.size()); }
  // The traced instruction lines (each one warp instruction, or a few where an
  // instruction is split; an estimate for progress reports).
  uint64_t kernel_warp_insts(unsigned k) const override { return k < kernels_.size() ? kernels_[k].insts : 0; }
  AccelsimCounts counts_;

 protected:
  // Every MemcpyHtoD region gets deterministic contents (a function of the
  // address) in golden and device memory before the first kernel.
  void init_data() override {
    std::vector<uint32_t> buf(1 << 16);
    for (const auto& rg : regions_)
      for (uint64_t a = rg.first; a < rg.first + rg.second;) {
        const uint64_t n = std::min<uint64_t>(buf.size(), (rg.first + rg.second - a) / 4);
        for (uint64_t i = 0; i < n; ++i) buf[i] = word_value(a + 4 * i, kInitSalt);
        write_init(a, buf.data(), 4 * n);
        a += 4 * n;
      }
  }

 private:
  std::vector<KernelTrace> kernels_;
  std::vector<std::pair<uint64_t, uint64_t>> regions_;
  size_t next_ = 0;
  std::unique_ptr<AccelKernel> cur_;
};

std::string& trace_path() {
  static std::string p;
  return p;
}

}  // namespace

std::unique_ptr<Program> make_accelsim_program(const std::string& path, uint64_t max_bytes) {
  return std::make_unique<AccelProgram>(path, max_bytes);
}

AccelsimCounts accelsim_counts(const Program& p) {
  const AccelProgram* a = dynamic_cast<const AccelProgram*>(&p);
  return a ? a->counts_ : AccelsimCounts{};
}

void set_accelsim_trace(const std::string& path) { trace_path() = path; }
const std::string& accelsim_trace() { return trace_path(); }

WorkloadInfo workload_accelsim() {
  WorkloadInfo wi;
  wi.name = "accelsim";
  wi.desc = "Accel-Sim SASS trace given with --trace DIR_OR_kernelslist.g (docs/accelsim_traces.md)";
  wi.make = [](const std::map<std::string, int64_t>& knobs, uint64_t) -> std::unique_ptr<Program> {
    if (accelsim_trace().empty())
      throw ConfigError("workload 'accelsim': expected a trace, give it with --trace DIR_OR_kernelslist.g");
    const auto m = knobs.find(kMaxFootprintKnob);
    return make_accelsim_program(accelsim_trace(),
                                 m != knobs.end() && m->second > 0 ? static_cast<uint64_t>(m->second) : UINT64_MAX);
  };
  return wi;
}

}  // namespace strata
