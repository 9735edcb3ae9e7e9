/* The arithmetic of a GPU atomic unit: the value a global atomic leaves in memory, given the old
 * value and the operands (PTX ISA "atom" and "red": add, min, max, exch, cas, inc, dec, and, or,
 * xor on 32- and 64-bit integers, f32 and f64 add). The L2 bank's atomic unit (models/l2) and the
 * PTX executor (models/ptx, ptx_atom_apply) both compute with it, so the timed path and the
 * functional path cannot disagree on an operation's result. */
#ifndef STRATA_GPU_ATOMIC_H
#define STRATA_GPU_ATOMIC_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Operation and operand type; numbered as ptx_atom_op and ptx_atom_type (models/ptx/ptx.h). */
typedef enum gpu_atom_op {
  GPU_ATOM_ADD, GPU_ATOM_MIN, GPU_ATOM_MAX, GPU_ATOM_EXCH, GPU_ATOM_CAS, GPU_ATOM_INC,
  GPU_ATOM_DEC, GPU_ATOM_AND, GPU_ATOM_OR, GPU_ATOM_XOR, GPU_ATOM_OPS
} gpu_atom_op;

typedef enum gpu_atom_type {
  GPU_ATY_U32, GPU_ATY_S32, GPU_ATY_U64, GPU_ATY_S64, GPU_ATY_F32, GPU_ATY_F64, GPU_ATY_TYPES
} gpu_atom_type;

/* Bytes of an operand of type ty (4 or 8). */
unsigned gpu_atom_bytes(gpu_atom_type ty);

/* The value left in memory: old value `old`, operand a (and b for CAS: compare with a, swap in
 * b; inc/dec: a is the wrap bound). Values are bit patterns in the low 4 or 8 bytes; the result
 * is zero-extended from the operand size. */
uint64_t gpu_atom_apply(gpu_atom_op op, gpu_atom_type ty, uint64_t old, uint64_t a, uint64_t b);

#ifdef __cplusplus
}
#endif
#endif
