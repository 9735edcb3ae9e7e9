/* The wire between a CUDA program and `strata cuda run` (docs/cuda.md "How a
 * program runs"). The program is an ordinary host process linked with
 * Strata's CUDA runtime (cudart.c); strata starts it with one end of a Unix
 * socket pair in the environment (STRATA_CUDA_FD) and serves its calls: the
 * device memory, the kernels and the simulated clock live in strata. Every
 * call is one request and one reply, in order: the program waits for each
 * reply, so host code and the simulated GPU never run at the same time and a
 * run is deterministic.
 *
 * A request is a strata_wire_req header and `len` bytes of payload; a reply
 * is a strata_wire_rep header and `len` bytes. Payloads are the packed
 * structs below followed by variable data; both ends are one machine, so
 * integers travel in host order. This header is the one definition both ends
 * use (C11; the server includes it from C++). */
#ifndef STRATA_CUDA_WIRE_H
#define STRATA_CUDA_WIRE_H

#include <stdint.h>

#define STRATA_WIRE_VERSION 2u
#define STRATA_WIRE_FD_ENV "STRATA_CUDA_FD"
#define STRATA_WIRE_MAX_PAYLOAD (1ull << 32) /* one request's payload; larger copies are split */
#define STRATA_WIRE_MAX_NAME 1024u           /* kernel and symbol names, NUL included */
#define STRATA_WIRE_MAX_PARAMS 256u          /* kernel parameters */

enum strata_wire_op {
  STRATA_WIRE_HELLO = 1,   /* {version} -> {} */
  STRATA_WIRE_MODULE,      /* {module} + PTX text -> {} (status cudaErrorInvalidKernelImage + message) */
  STRATA_WIRE_FUNCTION,    /* {module} + entry name -> {kernel id, parameter layout} */
  STRATA_WIRE_VAR,         /* {module, bytes, constant} + symbol name -> {device address} */
  STRATA_WIRE_MALLOC,      /* {bytes} -> {device address} */
  STRATA_WIRE_FREE,        /* {address} -> {} */
  STRATA_WIRE_WRITE,       /* {address} + bytes: host to device -> {} */
  STRATA_WIRE_READ,        /* {address, bytes} -> bytes: device to host */
  STRATA_WIRE_COPY,        /* {dst, src, bytes}: device to device -> {} */
  STRATA_WIRE_SET,         /* {address, bytes, value} -> {} */
  STRATA_WIRE_LAUNCH,      /* {kernel, grid, block, shared bytes, parameter bytes} + parameters -> {}
                              (replied when the kernel has finished) */
  STRATA_WIRE_TIME,        /* {} -> {simulated picoseconds} */
  STRATA_WIRE_PROPS,       /* {} -> struct cudaDeviceProp */
  STRATA_WIRE_FAIL,        /* one line: the program uses what Strata does not implement -> no reply (strata
                              stops the run with the line, exit 2) */
  STRATA_WIRE_OPS
};

struct strata_wire_req {
  uint32_t op;
  uint32_t pad;
  uint64_t len;
};

struct strata_wire_rep {
  int32_t status; /* a cudaError_t; non-zero replies carry a one-line message as payload */
  uint32_t pad;
  uint64_t len;
};

struct strata_wire_hello { uint32_t version; };
struct strata_wire_module { uint32_t module; };
struct strata_wire_var { uint32_t module; uint32_t constant; uint64_t bytes; };
struct strata_wire_addr { uint64_t addr; };
struct strata_wire_range { uint64_t addr; uint64_t bytes; };
struct strata_wire_copy { uint64_t dst; uint64_t src; uint64_t bytes; };
struct strata_wire_set { uint64_t addr; uint64_t bytes; uint32_t value; uint32_t pad; };
struct strata_wire_launch {
  uint32_t kernel;
  uint32_t grid[3];
  uint32_t block[3];
  uint32_t param_bytes;
  uint64_t shared_bytes;
};
/* FUNCTION's reply: the entry's parameters, as the PTX declares them. */
struct strata_wire_params {
  uint32_t kernel;
  uint32_t count;
  uint32_t total;                          /* bytes of the parameter buffer */
  uint32_t offset[STRATA_WIRE_MAX_PARAMS]; /* of parameter i in the buffer */
  uint32_t size[STRATA_WIRE_MAX_PARAMS];   /* bytes of parameter i */
};
struct strata_wire_time { uint64_t ps; };

/* A texture descriptor in device memory (not a request): cudaCreateTextureObject allocates one and
 * the object is its address; cudaBindTexture writes one into the texture reference's .texref
 * variable. The PTX executor reads it at each tex fetch (models/ptx/ptx.h ptx_tex_desc, the same
 * layout: workloads/cuda_program.cpp checks). */
#define STRATA_WIRE_TEX_MAGIC 0x31585453u
enum { STRATA_WIRE_TEX_LINEAR = 1 };
struct strata_wire_texture {
  uint32_t magic;     /* STRATA_WIRE_TEX_MAGIC */
  uint8_t kind;       /* STRATA_WIRE_TEX_LINEAR */
  uint8_t channels;   /* 1, 2 or 4 */
  uint8_t bits;       /* per channel: 8, 16 or 32 */
  uint8_t format;     /* cudaChannelFormatKind: 0 signed, 1 unsigned, 2 float */
  uint64_t base;      /* device address, aligned to the element */
  uint64_t bytes;     /* bound bytes */
  uint32_t read_mode; /* cudaTextureReadMode: 0 element type, 1 normalized float */
  uint32_t pad;
};

#endif
