/* gpu_power: activity-based GPU power (gpu_power.h).
 *
 * Defaults: an FX5800-class GPU (hybrid graphics memory Table 1: 30 SMs at 325 MHz, 16 KB L1, a 128 KB L2 in
 * 16 banks, 16 memory controllers) in a 65 nm process. They are estimates, not a calibration against a
 * measured chip: the paper gives none of its McPAT numbers. Dynamic energies start from Horowitz's 45 nm,
 * 0.9 V per-operation energies (M. Horowitz, "Computing's energy problem", ISSCC 2014: 32-bit FP add 0.9 pJ,
 * FP multiply 3.7 pJ; 64-bit read of an 8 KB SRAM 10 pJ, of a 32 KB SRAM 20 pJ) scaled to 65 nm at 1.15 V by
 * C x V^2: K = (65 / 45) x (1.15 / 0.9)^2 = 2.36.
 *  - thread_inst_pj: an FMA-class lane op (0.9 + 3.7 pJ) + 3 operand reads and 1 write of 32 bits from an
 *    8 KB register bank (4 x 5 pJ): 24.6 pJ x K = 58 pJ.
 *  - warp_inst_pj: a 64-bit instruction fetch from an 8 KB instruction cache (10 pJ) + decode, scheduling and
 *    scoreboard taken as the same again (Strata estimate): 20 pJ x K = 47 pJ.
 *  - l1_access_pj: a 128 B line = 16 x 64-bit reads of a 16 KB array (15 pJ, between the 8 KB and 32 KB
 *    figures): 240 pJ x K = 566 pJ.
 *  - l2_access_pj: a 128 B line from an 8 KB bank (128 KB / 16): 16 x 10 pJ x K = 378 pJ.
 *  - noc_flit_pj, mc_access_pj: Strata estimates (no figure in the sources above): a 32 B flit over a
 *    few millimetres of crossbar wire, and a controller request's queue search, scheduling and PHY logic,
 *    each below an L2 access.
 *  - static: Strata estimates of 65 nm leakage at a 325 MHz clock: 0.5 W per SM, 1 W for the L2 and
 *    crossbar, 0.25 W per memory controller (20 W for Table 1's GPU).
 * Every value is a key (gpu_power.<key>) so that a study can put its own McPAT / AccelWattch figures in. */
#include "power/gpu_power.h"

static const struct {
  const char *key, *doc;
  double def;
} k_params[] = {
#define GPW_ROW(m, key, def, doc) {key, doc, def},
    GPW_PARAMS(GPW_ROW)
#undef GPW_ROW
};
#define N_PARAMS (sizeof k_params / sizeof k_params[0])

size_t gpw_param_count(void) { return N_PARAMS; }
const char *gpw_param_key(size_t i) { return i < N_PARAMS ? k_params[i].key : NULL; }
const char *gpw_param_doc(size_t i) { return i < N_PARAMS ? k_params[i].doc : NULL; }
double gpw_param_default(size_t i) { return i < N_PARAMS ? k_params[i].def : 0.0; }

double *gpw_param_ptr(gpw_params *p, size_t i) {
  size_t n = 0;
#define GPW_PTR(m, key, def, doc) \
  if (n++ == i) return &p->m;
  GPW_PARAMS(GPW_PTR)
#undef GPW_PTR
  return NULL;
}

void gpw_defaults(gpw_params *p) {
  for (size_t i = 0; i < N_PARAMS; ++i) *gpw_param_ptr(p, i) = k_params[i].def;
}

void gpw_compute(const gpw_params *p, const gpw_activity *a, gpw_energy *out) {
  const double pj = 1e-12, t = a->seconds;
  out->core_j = (a->thread_insts * p->thread_inst_pj + a->warp_insts * p->warp_inst_pj) * pj +
                p->sm_static_w * (double)a->sms * t;
  out->cache_j = (a->l1_accesses * p->l1_access_pj + a->l2_accesses * p->l2_access_pj) * pj + p->l2_static_w * t;
  out->noc_j = a->noc_flits * p->noc_flit_pj * pj;
  out->mc_j = a->mc_accesses * p->mc_access_pj * pj + p->mc_static_w * (double)a->mcs * t;
  out->total_j = out->core_j + out->cache_j + out->noc_j + out->mc_j;
}
