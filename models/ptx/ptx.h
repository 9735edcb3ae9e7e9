/* PTX front end: a parser for the PTX that clang 14 emits (and nvcc's PTX ISA 6.x-7.x where
 * the instructions are the same) and a functional SIMT executor (issue 22 item 3, docs/ptx.md).
 *
 * A module is parsed and decoded once (ptx_parse); its kernels are looked up by entry name
 * (ptx_kernel_find) with their parameter layout. A CTA object (ptx_cta_init) holds the warps'
 * registers, reconvergence stacks, the CTA's shared memory and its threads' local memory; global
 * and constant memory belong to the caller and are reached through ptx_mem_ops. ptx_warp_step
 * executes one warp instruction and describes it (ptx_winst) for a timing model; ptx_cta_run
 * runs a whole CTA functionally (round-robin over its warps, honouring bar.sync).
 *
 * Errors are one line in the caller's buffer: "NAME:LINE: what was expected" for parse errors,
 * "NAME:LINE: kernel K: ..." for instructions the executor does not implement and for faults at
 * run time. Nothing here prints or exits (kernel printf goes to ptx_launch.print). */
#ifndef STRATA_PTX_H
#define STRATA_PTX_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PTX_WARP 32

typedef struct ptx_module ptx_module;
typedef struct ptx_kernel ptx_kernel;
typedef struct ptx_cta ptx_cta;

/* State spaces. Global and const memory belong to the caller (ptx_mem_ops). */
typedef enum ptx_space {
  PTX_SPACE_GENERIC = 0,
  PTX_SPACE_GLOBAL,
  PTX_SPACE_SHARED,
  PTX_SPACE_LOCAL,
  PTX_SPACE_PARAM,
  PTX_SPACE_CONST
} ptx_space;

/* Generic-address windows: a generic address in [BASE, BASE + 2^32) is the shared (or local,
 * or const) address (addr - BASE); every other generic address is a global address. cvta adds
 * and removes these bases. The caller's global allocations must stay below PTX_WINDOW_CONST. */
#define PTX_WINDOW_CONST 0xfd00000000000000ull
#define PTX_WINDOW_LOCAL 0xfe00000000000000ull
#define PTX_WINDOW_SHARED 0xff00000000000000ull

/* ------------------------------------------------------------------ module */

/* Parse and decode `len` bytes of PTX text; `name` names the text in messages. On success
 * returns 0 and *out owns the module (ptx_free). On failure returns -1, *out is NULL and `err`
 * holds one line "NAME:LINE: ...". Never reads past text[len-1]; the text need not be
 * NUL-terminated. Instructions the executor does not implement do not fail the parse: they
 * fail ptx_kernel_find of the kernels that can reach them (and ptx_module_check). */
int ptx_parse(const char *text, size_t len, const char *name, ptx_module **out, char *err, size_t errlen);
void ptx_free(ptx_module *m);

/* 0 if every kernel of the module can run; else -1 and the first problem in err (an
 * unimplemented instruction, a call to a function without a body, recursion). */
int ptx_module_check(const ptx_module *m, char *err, size_t errlen);

unsigned ptx_module_kernel_count(const ptx_module *m);
const ptx_kernel *ptx_module_kernel_at(const ptx_module *m, unsigned i);

/* The kernel (.entry) named `name`, or NULL with a one-line reason in err (no such entry, or
 * it reaches an instruction the executor does not implement: names the instruction, the kernel
 * and the PTX line). */
const ptx_kernel *ptx_kernel_find(const ptx_module *m, const char *name, char *err, size_t errlen);

/* Module-scope .global and .const variables live in two segments laid out by the parser; the
 * caller places each segment in its memory and tells the module where (default base 0 for
 * both), and copies the initial image there. */
typedef struct ptx_segment {
  uint64_t size;  /* bytes */
  uint32_t align; /* largest variable alignment */
  const uint8_t *image; /* initial bytes [0, init_bytes); the rest of the segment is zero */
  uint64_t init_bytes;
} ptx_segment;
ptx_segment ptx_module_segment(const ptx_module *m, ptx_space space); /* GLOBAL or CONST */
void ptx_module_set_base(ptx_module *m, ptx_space space, uint64_t base);

/* Address (in its space, base included), size and space of a module-scope variable
 * (cudaMemcpyToSymbol). Returns 0, or -1 if there is no such .global/.const variable. */
int ptx_module_symbol(const ptx_module *m, const char *name, ptx_space *space, uint64_t *addr, uint64_t *size);

/* ------------------------------------------------------------------ kernel */

typedef struct ptx_param_info {
  const char *name;
  uint32_t offset; /* in the parameter buffer */
  uint32_t size;   /* bytes */
  uint32_t align;
} ptx_param_info;

typedef struct ptx_kernel_info {
  const char *name;         /* entry name (mangled as in the PTX) */
  unsigned nparams;
  uint32_t param_bytes;     /* size of the parameter buffer */
  uint32_t shared_static;   /* bytes of static .shared (extern .shared starts after, 16-aligned) */
  uint32_t local_per_thread; /* bytes of local memory per thread (locals + call frames) */
  uint32_t regs;            /* registers per thread (all reachable functions, constants included) */
  uint32_t insts;           /* decoded instructions of the kernel's own body */
  uint32_t line;            /* PTX line of the .entry */
} ptx_kernel_info;

ptx_kernel_info ptx_kernel_get_info(const ptx_kernel *k);
ptx_param_info ptx_kernel_param(const ptx_kernel *k, unsigned i);

/* ------------------------------------------------------------------ memory callbacks */

typedef enum ptx_atom_op {
  PTX_ATOM_ADD, PTX_ATOM_MIN, PTX_ATOM_MAX, PTX_ATOM_EXCH, PTX_ATOM_CAS, PTX_ATOM_INC,
  PTX_ATOM_DEC, PTX_ATOM_AND, PTX_ATOM_OR, PTX_ATOM_XOR
} ptx_atom_op;

typedef enum ptx_atom_type {
  PTX_ATY_U32, PTX_ATY_S32, PTX_ATY_U64, PTX_ATY_S64, PTX_ATY_F32, PTX_ATY_F64
} ptx_atom_type;

/* The value an atomic leaves in memory: old value `old`, operands a (and b for CAS: compare a,
 * swap in b). Values are bit patterns in the low 4 or 8 bytes. For callers that perform atomics
 * in their own memory model. */
uint64_t ptx_atom_apply(ptx_atom_op op, ptx_atom_type ty, uint64_t old, uint64_t a, uint64_t b);

/* Global and const memory of the caller. Each call moves `size` bytes (1, 2, 4, 8 or 16,
 * little-endian) at a naturally aligned address of one thread. Return 0, or nonzero for a
 * fault (the executor then stops with an error naming the address). `atomic` may be NULL:
 * the executor then performs atomics as load + ptx_atom_apply + store (functional mode is
 * sequential, so that is atomic). */
typedef struct ptx_mem_ops {
  void *ctx;
  int (*load)(void *ctx, ptx_space space, uint64_t addr, void *dst, unsigned size);
  int (*store)(void *ctx, uint64_t addr, const void *src, unsigned size);
  int (*atomic)(void *ctx, uint64_t addr, ptx_atom_op op, ptx_atom_type ty, uint64_t a, uint64_t b,
                uint64_t *old);
} ptx_mem_ops;

/* Optional fast path for loads and stores (not atomics), called with ptx_mem_ops.ctx: host
 * memory holding the bytes [*base, *base + *len) of `space` around addr, or NULL (then load /
 * store are called). The executor keeps the last region per CTA and space and reads and writes
 * it directly, so the region must stay valid and be the memory load/store would reach until
 * the launch ends. */
typedef uint8_t *(*ptx_map_fn)(void *ctx, ptx_space space, uint64_t addr, uint64_t *base, uint64_t *len);

/* ------------------------------------------------------------------ CTA and warps */

typedef struct ptx_launch {
  const ptx_kernel *kernel;
  uint32_t grid[3];  /* CTAs per dimension */
  uint32_t block[3]; /* threads per dimension */
  const void *params; /* parameter buffer, ptx_kernel_info.param_bytes bytes (copied at init) */
  size_t params_size;
  uint32_t dyn_shared; /* bytes of extern .shared */
  ptx_mem_ops mem;
  ptx_map_fn map; /* may be NULL */
  /* Kernel printf (vprintf): the formatted text of one thread's call, called with
   * ptx_mem_ops.ctx in execution order (a warp's lanes in lane order). May be NULL: the text is
   * then discarded (formats are still checked). */
  void (*print)(void *ctx, const char *text, size_t len);
} ptx_launch;

/* Texture descriptor (docs/ptx.md "Textures"): a texture handle (a texture object, or the address of
 * a .texref variable) is the global address of one of these, written by the CUDA runtime. tex.1d
 * with an integer coordinate (tex1Dfetch) reads element x of the linear memory [base, base + bytes). */
#define PTX_TEX_MAGIC 0x31585453u /* "STX1" */
enum { PTX_TEX_LINEAR = 1 };
enum { PTX_TEX_SIGNED = 0, PTX_TEX_UNSIGNED = 1, PTX_TEX_FLOAT = 2 };  /* channel format */
enum { PTX_TEX_ELEMENT = 0, PTX_TEX_NORMALIZED = 1 };              /* read mode */
typedef struct ptx_tex_desc {
  uint32_t magic;    /* PTX_TEX_MAGIC; anything else is a fetch through an unbound or bad handle */
  uint8_t kind;      /* PTX_TEX_LINEAR */
  uint8_t channels;  /* 1, 2 or 4 */
  uint8_t bits;      /* per channel: 8, 16 or 32 (float: 32) */
  uint8_t format;    /* PTX_TEX_SIGNED / UNSIGNED / FLOAT */
  uint64_t base;     /* device address of element 0, aligned to the element size */
  uint64_t bytes;    /* bound bytes: elements = bytes / (channels * bits / 8) */
  uint32_t read_mode; /* PTX_TEX_ELEMENT, or PTX_TEX_NORMALIZED (8- and 16-bit integer channels) */
  uint32_t pad;
} ptx_tex_desc; /* 32 bytes, little-endian, 8-aligned */

/* Allocate a CTA for launches like `l` and set it to CTA `cta_id`. All allocation happens here;
 * stepping never allocates. Returns 0, or -1 with a one-line reason (bad dimensions, parameter
 * buffer of the wrong size, out of memory). */
int ptx_cta_init(ptx_cta **out, const ptx_launch *l, const uint32_t cta_id[3], char *err, size_t errlen);
/* Restart the same CTA object as CTA `cta_id` of the same launch (no allocation). */
void ptx_cta_reset(ptx_cta *c, const uint32_t cta_id[3]);
void ptx_cta_free(ptx_cta *c);
unsigned ptx_cta_warps(const ptx_cta *c);
/* Local memory in the caller's global memory (a timing model's device-memory region, as a GPU's
 * runtime reserves one): from now on the CTA's .local variables (ld/st.local and generic addresses
 * in the local window; not device-function parameters, which stay in the CTA) are read and written
 * through ptx_launch.map / ptx_mem_ops.load/store at ptx_local_addr(base, stride, thread, offset),
 * thread = warp * 32 + lane within the CTA, each naturally aligned 4-byte word (or the smaller
 * access) by itself. stride 0: back to the CTA's own local memory. ptx_cta_reset sets stride 0. */
void ptx_cta_set_local(ptx_cta *c, uint64_t base, uint64_t stride);
/* The global address of byte `off` of thread `thread`'s local memory in a region of `stride`
 * threads at `base`: word (off / 4) of every thread is contiguous, so the same word of the 32
 * lanes of a warp is one 128-byte line (the interleaving NVIDIA's GPUs use for local memory). */
static inline uint64_t ptx_local_addr(uint64_t base, uint64_t stride, uint32_t thread, uint64_t off) {
  return base + ((off >> 2) * stride + thread) * 4 + (off & 3);
}
/* Shared memory of the CTA (static then dynamic), for tests and debuggers. */
uint8_t *ptx_cta_shared(ptx_cta *c, uint32_t *bytes);
/* The error of the last PTX_STEP_ERROR, one line. */
const char *ptx_cta_error(const ptx_cta *c);

/* Instruction classes for a timing model (WarpInst). */
typedef enum ptx_iclass {
  PTX_IC_ALU,     /* integer and f32 arithmetic, logic, moves, conversions, setp */
  PTX_IC_SFU,     /* transcendental and approximate f32: sin, cos, lg2, ex2, rcp, rsqrt, sqrt */
  PTX_IC_INTDIV,  /* integer div, rem */
  PTX_IC_FP64,    /* f64 arithmetic */
  PTX_IC_LOAD,    /* global load (or generic resolving to global) */
  PTX_IC_STORE,   /* global store */
  PTX_IC_ATOMIC,  /* global atom / red */
  PTX_IC_SHARED,  /* shared ld / st / atom */
  PTX_IC_LOCAL,   /* local ld / st (and device-function parameters) */
  PTX_IC_CONST,   /* const or kernel-parameter load */
  PTX_IC_BARRIER, /* bar.sync / barrier.sync */
  PTX_IC_MEMBAR,  /* membar / fence */
  PTX_IC_WARP,    /* vote, shfl, activemask */
  PTX_IC_BRANCH,  /* bra, call, ret (not the kernel's last) */
  PTX_IC_EXIT,    /* exit, or ret of the kernel */
  PTX_IC_COUNT
} ptx_iclass;
const char *ptx_iclass_name(ptx_iclass c);

/* One executed warp instruction. Register ids are per-thread registers of the kernel
 * (ptx_kernel_info.regs), PTX_NOREG when absent. */
#define PTX_NOREG 0xffffffffu
typedef struct ptx_winst {
  ptx_iclass cls;
  uint32_t active;   /* lanes that executed it (guard predicate applied) */
  uint32_t pc;       /* instruction index in the module */
  uint32_t line;     /* PTX source line */
  uint32_t dst;      /* first written register */
  uint32_t src[3];   /* read registers */
  uint8_t bytes;     /* memory: bytes per lane (vector total) */
  uint8_t is_store;  /* memory: 1 for st, 0 for ld; atomics: 2 */
  uint8_t space;     /* memory: ptx_space actually accessed (PARAM for a device function's parameter in its frame, class local) */
  uint64_t addr[PTX_WARP]; /* memory: per active lane, address in `space` */
  uint64_t data[PTX_WARP]; /* scalar stores of <= 8 bytes: the stored value per active lane */
} ptx_winst;

typedef enum ptx_step_status {
  PTX_STEP_OK = 0,      /* one instruction executed */
  PTX_STEP_BARRIER = 1, /* executed bar.sync: the warp now waits (released when all live warps arrive) */
  PTX_STEP_WAITING = 2, /* nothing executed: the warp waits at a barrier */
  PTX_STEP_EXITED = 3,  /* the warp has no live threads (the instruction was its exit, or it had exited) */
  PTX_STEP_ERROR = -1   /* fault or internal limit: ptx_cta_error */
} ptx_step_status;

/* Execute the next instruction of warp `warp` (0-based in the CTA). `out` may be NULL. */
ptx_step_status ptx_warp_step(ptx_cta *c, unsigned warp, ptx_winst *out);

/* Set register `reg` (a ptx_winst register id) of warp `warp` in the lanes of `lanes` to vals[lane]:
 * a timing model that performs a warp's global atomics itself delivers their old values this way
 * (the executor left the destination as its ptx_mem_ops.atomic callback returned it). Returns 0,
 * or -1 for a warp or register the CTA does not have. */
int ptx_warp_set_reg(ptx_cta *c, unsigned warp, uint32_t reg, uint32_t lanes, const uint64_t *vals);

/* 1 if the warp's next instruction may run while a global atomic of the warp is still being
 * performed elsewhere: it neither reads nor writes register `reg` (the atomic's destination, or
 * PTX_NOREG), nor accesses global memory with a load or store in an 8-byte word an atomic lane
 * updates (addr[lane] for the lanes of `lanes`), and is not a call, return, exit, trap, barrier or
 * fence, nor an atomic unless `atom_ok` (a timing model that keeps one warp's atomics to an address
 * in issue order; such an atomic may write `reg` itself: the caller then delivers only the newer
 * atomic's old values to it). 0 if it must wait (also when the warp waits, has exited or its next instruction
 * is unknown). Nothing is executed. */
int ptx_warp_next_independent(ptx_cta *c, unsigned warp, uint32_t reg, const uint64_t *addr, uint32_t lanes, int atom_ok);

/* Run the CTA to completion functionally: warps in turn, each until it waits, exits or has run
 * a quantum of instructions. Returns 0, or -1 (error in ptx_cta_error; also when every live
 * warp waits at a barrier that can never complete). *insts (may be NULL) receives the warp
 * instructions executed. */
int ptx_cta_run(ptx_cta *c, uint64_t *insts);

/* Run a whole grid functionally, CTAs in order (x fastest). Returns 0 or -1 with err. */
int ptx_grid_run(const ptx_launch *l, uint64_t *insts, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
