// Accel-Sim trace reader tests (workloads/accelsim.cpp): line parsing of every
// address mode and tracer version, the opcode table, the external vectoradd
// trace's warp-instruction count and global addresses against a derivation by
// hand, the hand-written multi-kernel trace (widths 1..16, splits, joins,
// synthetic exits), and a gzip copy made here reading identically.
// Usage: accelsim_test_reader DATA_DIR EXTERNAL_VECTORADD_DIR TMP_DIR
#include <zlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <systemc>  // declares sc_main (the SystemC runtime linked with the platform supplies main)
#include <vector>

#include "platform/config.h"
#include "workloads/accelsim.h"

using namespace strata;
namespace fs = std::filesystem;

#include "tests/common/expect.h"

static std::string parse(const std::string& line, unsigned ver, bool li, SassInst* si) {
  return sass_parse_inst(line.data(), line.data() + line.size(), ver, li, si);
}

static void test_parse() {
  SassInst si;
  // mode 0: one address per active lane, in lane order (lanes 1 and 4 active)
  EXPECT(parse("0098 00000012 1 R4 LDG.E.64 1 R2 8 0 0x100 0x7f0 ", 4, false, &si).empty());
  EXPECT_EQ(si.pc, 0x98u);
  EXPECT_EQ(si.ndst, 1u);
  EXPECT_EQ(si.dst[0], 4u);
  EXPECT_EQ(si.width, 8u);
  EXPECT_EQ(si.addr[1], 0x100u);
  EXPECT_EQ(si.addr[4], 0x7f0u);
  // mode 1: k-th active lane at base + k*stride (negative stride allowed)
  EXPECT(parse("0 f0 0 STG.E 2 R6 R0 4 1 0x1000 -4 ", 3, false, &si).empty());
  EXPECT_EQ(si.addr[4], 0x1000u);
  EXPECT_EQ(si.addr[7], 0x1000u - 12);
  // mode 2: base, then (active - 1) deltas from the previous active lane
  EXPECT(parse("0 00000007 1 R1 LDG.E 1 R2 4 2 0x2000 8 -4 ", 4, false, &si).empty());
  EXPECT_EQ(si.addr[0], 0x2000u);
  EXPECT_EQ(si.addr[1], 0x2008u);
  EXPECT_EQ(si.addr[2], 0x2004u);
  // line numbers (enable lineinfo) and the v5 immediate
  EXPECT(parse("77 0010 ffffffff 1 R5 MUFU.RSQ 1 R3 0 -3", 5, true, &si).empty());
  EXPECT_EQ(si.imm, -3);
  EXPECT_EQ(si.nsrc, 1u);
  EXPECT(parse("0010 ffffffff 1 R5 MUFU.RSQ 1 R3 0", 5, false, &si).find("expected the immediate") == 0);
  EXPECT(parse("0010 ffffffff 1 R5 MUFU.RSQ 1 R3 0 1", 4, false, &si).find("expected end of line, got '1'") == 0);
  EXPECT(parse("0010 ffffffff 1 R5 LDG 1 R3 4 9 0x0", 4, false, &si).find("expected an address mode") == 0);
  EXPECT(parse("0010 ffffffff 1 R256 MOV 0 0", 4, false, &si).find("expected a destination register") == 0);
  EXPECT(parse("0010 ffffffff 0 mov 0 0", 4, false, &si).find("expected an opcode") == 0);
}

static void test_table() {
  EXPECT(sass_classify("LDG.E.CG") == SassClass::GlobalLoad);
  EXPECT(sass_classify("STG.E.128") == SassClass::GlobalStore);
  EXPECT(sass_classify("ATOM.E.ADD") == SassClass::GlobalAtomic);
  EXPECT(sass_classify("LDS.U.32") == SassClass::Shared);
  EXPECT(sass_classify("STL") == SassClass::Local);
  EXPECT(sass_classify("BAR.SYNC") == SassClass::Barrier);
  EXPECT(sass_classify("BAR.ARV") == SassClass::Control);
  EXPECT(sass_classify("EXIT") == SassClass::Exit);
  EXPECT(sass_classify("MUFU.RSQ") == SassClass::Sfu);
  EXPECT(sass_classify("FFMA") == SassClass::FpAlu);
  EXPECT(sass_classify("BRA") == SassClass::Branch);
  EXPECT(sass_classify("SOMETHINGNEW") == SassClass::IntAlu);
  EXPECT(sass_class_op(SassClass::GlobalAtomic) == Op::Load);
  EXPECT(sass_class_op(SassClass::Shared) == Op::Alu);
}

// Every warp instruction of every kernel, generated functionally.
struct Rec {
  uint32_t kernel, cta, warp;
  Op op;
  uint32_t active;
  unsigned bytes;
  std::vector<uint64_t> addr;  // active lanes, lane order
};

static std::vector<Rec> run_all(const std::string& path, AccelsimCounts* counts, uint64_t* hash = nullptr) {
  bstore golden, device;
  bstore_init(&golden);
  bstore_init(&device);
  std::vector<Rec> out;
  {
    std::unique_ptr<Program> p = make_accelsim_program(path);
    p->init(&golden, &device);
    uint32_t k = 0;
    uint64_t h = 0;
    for (Kernel* kn; (kn = p->next_kernel()); ++k)
      for (uint32_t c = 0; c < kn->ctas; ++c)
        for (uint32_t w = 0; w < kn->warps_per_cta; ++w) {
          WarpCtx ctx;
          ctx.cta = c;
          ctx.warp = w;
          kn->warp_begin(ctx);
          WarpInst in;
          do {
            kn->warp_next(ctx, in);
            Rec r{k, c, w, in.op, in.active, in.bytes, {}};
            h = mix64(h ^ (static_cast<uint64_t>(in.op) << 40 | in.active));
            h = mix64(h ^ (uint64_t(in.dst) << 24 | uint64_t(in.src[0]) << 16 | uint64_t(in.src[1]) << 8 | in.src[2]));
            if (in.op == Op::Load || in.op == Op::Store)
              for (unsigned l = 0; l < kWarpSize; ++l)
                if ((in.active >> l) & 1u) {
                  r.addr.push_back(in.addr[l]);
                  h = mix64(h ^ in.addr[l] ^ (in.op == Op::Store ? in.data[l] : 0));
                }
            out.push_back(std::move(r));
          } while (in.op != Op::Exit);
        }
    if (counts) *counts = accelsim_counts(*p);
    if (hash) *hash = h;
  }
  bstore_free(&golden);
  bstore_free(&device);
  return out;
}

// External trace (accelsim-vectoradd-sm61, tracer v4, one CTA of 1024 threads,
// n = 100 floats, arrays a, b, c of 400 B copied to A = 0x7fd165500000,
// B = A + 0x200, C = A + 0x400). By hand from kernel-1.traceg:
//   warps 0..3 run 23 lines (bounds check, 2 LDG.E.CG, FADD, STG.E, EXIT);
//   warps 4..31 fail the bounds check and run 9 lines (their EXIT at 0x58);
//   warp-instructions = 4*23 + 28*9 = 344 (all accesses 4 B: no split, no join).
//   Each LDG/STG is mode 1 (base + stride 4); warp w's lanes are threads
//   t = 32w + l, active for t < 100 (warp 3: mask 0x0000000f = threads 96..99),
//   so the loads read A + 4t and B + 4t, the stores write C + 4t, t = 0..99:
//   12 memory warp-instructions, 200 load lanes, 100 store lanes.
//   The EXIT at 0x58 of warps 0..3 (mask 0 or 0xfffffff0) is not the warp's last
//   line, so it is an ALU-class instruction, and only the final EXIT ends a warp.
static void test_vectoradd(const std::string& dir) {
  AccelsimCounts cn;
  const std::vector<Rec> v = run_all(dir, &cn);
  EXPECT_EQ(v.size(), 344u);
  EXPECT_EQ(cn.trace_insts, 344u);
  EXPECT_EQ(cn.kernels, 1u);
  EXPECT_EQ(cn.memcpys, 3u);
  EXPECT_EQ(cn.extra_parts + cn.joins + cn.synthetic_exits, 0u);
  const uint64_t A = 0x7fd165500000ull, B = A + 0x200, C = A + 0x400;
  std::vector<uint64_t> ld, st, expect_ld, expect_st;
  unsigned mem_insts = 0, exits = 0;
  for (const Rec& r : v) {
    if (r.op == Op::Load) ld.insert(ld.end(), r.addr.begin(), r.addr.end());
    if (r.op == Op::Store) st.insert(st.end(), r.addr.begin(), r.addr.end());
    if (r.op == Op::Load || r.op == Op::Store) {
      ++mem_insts;
      EXPECT_EQ(r.bytes, 4u);
      EXPECT(r.warp < 4);
    }
    exits += r.op == Op::Exit;
  }
  for (unsigned w = 0; w < 4; ++w) {
    for (unsigned t = 32 * w; t < std::min(100u, 32 * w + 32); ++t) expect_ld.push_back(A + 4 * t);
    for (unsigned t = 32 * w; t < std::min(100u, 32 * w + 32); ++t) expect_ld.push_back(B + 4 * t);
    for (unsigned t = 32 * w; t < std::min(100u, 32 * w + 32); ++t) expect_st.push_back(C + 4 * t);
  }
  EXPECT_EQ(mem_insts, 12u);
  EXPECT_EQ(exits, 32u);
  EXPECT(ld == expect_ld);
  EXPECT(st == expect_st);
  EXPECT_EQ(ld.size(), 200u);
}

// tests/accelsim/data/multi: 3 kernels, tracer v3 / v4+lineinfo / v5.
// By hand (see the comments of each file's lines):
//  k1 TB0 w0: S2R, LDG.64 (mode 0, 8-aligned: 1 part), DADD, BAR, STG.U8, EXIT       = 6
//  k1 TB0 w1: S2R, LDG.64 (mode 1), BAR, STG.U16 (mode 2), EXIT                       = 5
//  k1 TB1 w0: LDG.128 (2 x 8 B), STG.128 (2 x 8 B), EXIT                              = 5
//  k1 TB1 w1: insts = 0 -> synthetic EXIT                                             = 1
//  k2: LDG.U8 (widened to 4 B), LDG, STG.64 at 4-aligned addresses (2 x 4 B), MUFU, EXIT = 6
//  k3 w0: MOV, LDG.96 (3 x 4 B), ATOM, RED, LDS, STS, IMAD.WIDE, MOV, join, STG.128 (2 x 8 B), EXIT = 14
//      (STG.128 reads R2..R5 and R10..R13: producers MOV(R2), LDG parts (R4, R5), IMAD.WIDE
//       (R10, R11: its dst slot took the 4th producer id, R6's), MOV(R12) -> 5 ids > 4 -> 1 join)
//  k3 w1: MOV, STG (mode 0, reversed), synthetic EXIT                                 = 3
//  total 40 = 31 trace lines + 6 extra parts + 1 join + 2 synthetic exits
static void test_multi(const std::string& dir) {
  AccelsimCounts cn;
  const std::vector<Rec> v = run_all(dir, &cn);
  EXPECT_EQ(v.size(), 40u);
  EXPECT_EQ(cn.kernels, 3u);
  EXPECT_EQ(cn.trace_insts, 31u);
  EXPECT_EQ(cn.extra_parts, 6u);
  EXPECT_EQ(cn.joins, 1u);
  EXPECT_EQ(cn.synthetic_exits, 2u);
  EXPECT_EQ(cn.memcpys, 4u);
  std::map<std::string, std::vector<const Rec*>> by;  // "k.cta.warp" -> instructions
  for (const Rec& r : v) by[std::to_string(r.kernel) + "." + std::to_string(r.cta) + "." + std::to_string(r.warp)].push_back(&r);
  EXPECT_EQ(by["0.0.0"].size(), 6u);
  EXPECT_EQ(by["0.0.1"].size(), 5u);
  EXPECT_EQ(by["0.1.0"].size(), 5u);
  EXPECT_EQ(by["0.1.1"].size(), 1u);
  EXPECT_EQ(by["1.0.0"].size(), 6u);
  EXPECT_EQ(by["2.0.0"].size(), 14u);
  EXPECT_EQ(by["2.0.1"].size(), 3u);
  // k1 w0 LDG.64 mode 0: lane l at 0x10000 + 8l, 8 B
  const Rec* r = by["0.0.0"][1];
  EXPECT(r->op == Op::Load && r->bytes == 8 && r->addr.size() == 32 && r->addr[5] == 0x10028);
  EXPECT(by["0.0.0"][3]->op == Op::Barrier);
  // STG.U8 mode 1 stride 1, lanes 0..15: widened to the 4-byte words 0x20000 + (l & ~3)
  r = by["0.0.0"][4];
  EXPECT(r->op == Op::Store && r->bytes == 4 && r->active == 0xffffu && r->addr[6] == 0x20004);
  // k1 w1 (16 threads): LDG.64 mode 1 base 0x10100 stride 8; STG.U16 mode 2 lanes 8..15 at 0x20100 + 2k
  r = by["0.0.1"][1];
  EXPECT(r->active == 0xffffu && r->addr[15] == 0x10100 + 8 * 15);
  r = by["0.0.1"][3];
  EXPECT(r->active == 0xff00u && r->addr[0] == 0x20100 && r->addr[7] == 0x2010c);
  // k1 TB1 LDG.128 mode 2: lanes 0..15 at 0x11000 + 16l, lane 16 at 0x11400, then +16; split into 2 x 8 B
  r = by["0.1.0"][0];
  const Rec* r2 = by["0.1.0"][1];
  EXPECT(r->bytes == 8 && r2->bytes == 8 && r->addr[15] == 0x110f0 && r->addr[16] == 0x11400 &&
         r->addr[31] == 0x114f0 && r2->addr[16] == 0x11408);
  // STG.128 mode 1: 0x12000 + 16l, parts at +0 and +8
  EXPECT(by["0.1.0"][2]->addr[1] == 0x12010 && by["0.1.0"][3]->addr[1] == 0x12018);
  // k2: LDG.U8 mode 1 stride 1 from 0x10003: lane l reads the word holding 0x10003 + l
  r = by["1.0.0"][0];
  EXPECT(r->bytes == 4 && r->addr[0] == 0x10000 && r->addr[1] == 0x10004 && r->addr[31] == 0x10020);
  // STG.64 at 0x20004 + 8l (4-aligned): two 4-byte parts
  EXPECT(by["1.0.0"][2]->bytes == 4 && by["1.0.0"][2]->addr[1] == 0x2000c && by["1.0.0"][3]->addr[1] == 0x20010);
  EXPECT(by["1.0.0"][4]->op == Op::Sfu);
  // k3: LDG.96 at 0x30004 + 12l: parts +0, +4, +8
  EXPECT(by["2.0.0"][1]->addr[2] == 0x3001c && by["2.0.0"][2]->addr[2] == 0x30020 && by["2.0.0"][3]->addr[2] == 0x30024);
  EXPECT(by["2.0.0"][4]->op == Op::Load && by["2.0.0"][4]->addr[9] == 0x31024);  // ATOM: a read
  EXPECT(by["2.0.0"][5]->op == Op::Load && by["2.0.0"][5]->addr[9] == 0x31000);  // RED stride 0
  EXPECT(by["2.0.0"][6]->op == Op::Alu && by["2.0.0"][7]->op == Op::Alu);          // LDS, STS
  EXPECT(by["2.0.0"][10]->op == Op::Alu);                                           // the join
  EXPECT(by["2.0.0"][11]->op == Op::Store && by["2.0.0"][13]->op == Op::Exit);
  // k3 w1 STG mode 0 reversed: lane l at 0x32000 + 4 (31 - l)
  r = by["2.0.1"][1];
  EXPECT(r->addr[0] == 0x3207c && r->addr[31] == 0x32000);
}

static void gzip_copy(const fs::path& src, const fs::path& dst) {
  std::ifstream in(src, std::ios::binary);
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  gzFile g = gzopen(dst.string().c_str(), "wb6");
  gzwrite(g, data.data(), static_cast<unsigned>(data.size()));
  gzclose(g);
}

// A gzip-compressed copy (kernel files compressed, same names) reads identically.
static void test_gzip(const std::string& src, const std::string& tmp) {
  const fs::path dst = fs::path(tmp) / "gz";
  fs::remove_all(dst);
  fs::create_directories(dst);
  for (const auto& e : fs::directory_iterator(src)) {
    if (e.path().extension() == ".traceg") gzip_copy(e.path(), dst / e.path().filename());
    else fs::copy_file(e.path(), dst / e.path().filename());
  }
  uint64_t h1 = 0, h2 = 0;
  const size_t n1 = run_all(src, nullptr, &h1).size();
  const size_t n2 = run_all(dst.string(), nullptr, &h2).size();
  EXPECT_EQ(n1, n2);
  EXPECT_EQ(h1, h2);
}

static void test_errors(const std::string& data) {
  auto msg = [](const std::string& p) {
    try {
      make_accelsim_program(p);
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT(msg(data + "/bad/mode.g").find("mode.traceg:20: expected an address mode 0, 1 or 2, got '3'") !=
         std::string::npos);
  EXPECT(msg(data + "/bad/count.g").find("count.traceg:22: expected 1 more instruction line(s) of warp 0") !=
         std::string::npos);
  EXPECT(msg(data + "/nope").find("cannot open") != std::string::npos);
}

int sc_main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s DATA_DIR VECTORADD_DIR TMP_DIR\n", argv[0]);
    return 2;
  }
  test_parse();
  test_table();
  test_vectoradd(argv[2]);
  test_multi(std::string(argv[1]) + "/multi");
  test_gzip(argv[2], argv[3]);
  test_gzip(std::string(argv[1]) + "/multi", argv[3]);
  test_errors(argv[1]);
  if (failures) std::fprintf(stderr, "%d failure(s)\n", failures);
  else std::printf("accelsim reader: all tests passed\n");
  return failures ? 1 : 0;
}
