// Accel-Sim SASS trace reader: runs a trace written by Accel-Sim's NVBit
// tracer (kernelslist.g + kernel-N.traceg, tracer versions 3 to 5) as a
// Strata Program. Format, opcode table, register mapping, memory-width
// handling and the streaming design are documented in docs/accelsim_traces.md.
//
// Streaming: the constructor reads every kernel file once, sequentially, to
// validate it (bad input = ConfigError "FILE:LINE: expected ..., got '...'")
// and to keep, per warp, the byte offset of its first instruction line. While
// the platform runs, each resident warp reads its own lines lazily (plain
// files: pread of a small chunk at the warp's offset; compressed files: the
// resident thread block's text, decompressed from a forward stream). Memory is
// bounded by the resident CTAs plus 24 bytes of index per warp of the trace.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "program.h"

namespace strata {

// Instruction classes of the opcode table (one row per SASS base opcode).
enum class SassClass : uint8_t {
  IntAlu,       // integer / logic / move / conversion        -> Op::Alu
  FpAlu,        // FP32/FP64/FP16/tensor arithmetic            -> Op::Alu
  Sfu,          // MUFU and other special-function ops         -> Op::Sfu
  GlobalLoad,   // LDG, LD (generic), LDGSTS ...               -> Op::Load
  GlobalStore,  // STG, ST (generic)                           -> Op::Store
  GlobalAtomic, // ATOM, ATOMG, RED                            -> Op::Load (read traffic, no value change)
  Shared,       // LDS, STS, ATOMS, LDSM ...                   -> Op::Alu (on-chip, not modelled)
  Local,        // LDL, STL                                    -> Op::Alu (spills, not modelled)
  Constant,     // LDC, ULDC                                   -> Op::Alu
  Texture,      // TEX, TLD, SULD, ... (no addresses traced)   -> Op::Sfu
  Barrier,      // BAR (not .ARV)                              -> Op::Barrier
  Exit,         // EXIT (the warp's last line)                 -> Op::Exit
  Branch,       // BRA, BSSY, BSYNC, CALL, RET, ...            -> Op::Alu
  Control,      // MEMBAR, DEPBAR, VOTE, SHFL, S2R, NOP, ...   -> Op::Alu
};

const char* sass_class_name(SassClass c);
// Class of an opcode: looked up by its base name (text before the first '.'),
// unknown opcodes are IntAlu. BAR.ARV (arrive without wait) is Control.
SassClass sass_classify(const char* opcode);
// The platform Op a class becomes (Exit only for a warp's last instruction).
Op sass_class_op(SassClass c);

// One parsed instruction line.
struct SassInst {
  uint64_t pc = 0;
  uint32_t mask = 0;
  uint8_t ndst = 0, nsrc = 0;
  uint8_t dst[32] = {}, src[32] = {};  // trace register numbers (R255 = RZ)
  char opcode[64] = {};
  unsigned width = 0;                  // mem_width: bytes per lane, 0 = no memory operands
  unsigned mode = 0;                   // address compression mode (0 list, 1 base+stride, 2 base+deltas)
  uint64_t addr[kWarpSize] = {};       // per lane (active lanes only)
  int64_t imm = 0;                     // tracer version 5
};

// Parses one instruction line [b, e) of a tracer-`version` (3..5) file (with a
// leading line number when `lineinfo`). Returns "" on success, otherwise the
// reason "expected ..., got '...'" (no file/line: the caller adds them).
std::string sass_parse_inst(const char* b, const char* e, unsigned version, bool lineinfo, SassInst* out);

// Counters of the translation (for tests and docs; whole program so far).
struct AccelsimCounts {
  uint64_t kernels = 0;          // kernels listed
  uint64_t trace_insts = 0;      // instruction lines in all kernel files
  uint64_t memcpys = 0;          // MemcpyHtoD lines
  uint64_t extra_parts = 0;      // extra warp instructions from splitting wide/misaligned accesses
  uint64_t joins = 0;            // extra ALU instructions merging > 4 producer registers
  uint64_t synthetic_exits = 0;  // warps whose trace did not end with EXIT (Exit appended)
};

// Builds the program of an Accel-Sim trace: a directory holding kernelslist.g,
// or the kernelslist file itself. Reads and validates every file (streaming);
// throws ConfigError with "FILE:LINE: ..." on bad input.
// max_bytes: sim.max_footprint; MemcpyHtoD copies adding up to more are bad input naming their line.
std::unique_ptr<Program> make_accelsim_program(const std::string& path, uint64_t max_bytes = UINT64_MAX);
// Counters of a program made by make_accelsim_program (zero for others).
AccelsimCounts accelsim_counts(const Program& p);

// The trace of the `accelsim` built-in workload (set by the CLI from --trace;
// a path is not a config key: config keys are typed numbers and names).
void set_accelsim_trace(const std::string& path);
const std::string& accelsim_trace();

}  // namespace strata
