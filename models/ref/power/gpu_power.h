/* gpu_power: an activity-based power model of the GPU chip (cores, caches, interconnect, memory controllers),
 * in the spirit of GPUWattch / AccelWattch (per-event dynamic energies x activity counts, plus static power
 * x time), for the system power and energy efficiency of the hybrid graphics memory paper (Sec. 5.1: "We
 * calculate the power of GPU cores, caches and memory controllers based on the power model from McPAT").
 * The parameters and the reasons for their defaults (an FX5800-class 65 nm GPU, Table 1) are in gpu_power.c
 * (GPW_PARAMS) and docs/hybrid_graphics.md "Power model". Pure arithmetic: the platform calls it when stats
 * are read, nothing on the request path. */
#ifndef STRATA_GPU_POWER_H
#define STRATA_GPU_POWER_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* X(member, key, default, doc): the parameters, config keys gpu_power.<key>. */
#define GPW_PARAMS(X)                                                                                            \
  X(thread_inst_pj, "thread_inst_pj", 58.0,                                                                    \
    "dynamic energy per thread instruction (one lane: datapath op + 3 register reads + 1 write), pJ")           \
  X(warp_inst_pj, "warp_inst_pj", 47.0,                                                                        \
    "dynamic energy per warp instruction (fetch, decode, schedule, scoreboard), pJ")                            \
  X(l1_access_pj, "l1_access_pj", 566.0, "dynamic energy per L1 access (a 128 B line), pJ")                    \
  X(l2_access_pj, "l2_access_pj", 378.0, "dynamic energy per L2 access (a 128 B line), pJ")                    \
  X(noc_flit_pj, "noc_flit_pj", 150.0, "dynamic energy per crossbar flit (request and response), pJ")          \
  X(mc_access_pj, "mc_access_pj", 100.0,                                                                       \
    "dynamic energy per memory-controller request (queues, scheduler, PHY logic; the I/O termination is the "   \
    "memory's mem.io.*), pJ")                                                                                   \
  X(sm_static_w, "sm_static_w", 0.5, "static (leakage) power per SM, W")                                       \
  X(l2_static_w, "l2_static_w", 1.0, "static power of the L2 and the crossbar, W")                              \
  X(mc_static_w, "mc_static_w", 0.25, "static power per memory controller (per memory partition: memside.partition_channels channels), W")

typedef struct gpw_params {
#define GPW_MEMBER(m, key, def, doc) double m;
  GPW_PARAMS(GPW_MEMBER)
#undef GPW_MEMBER
} gpw_params;

/* Activity over an interval (counts since its start) and its length. */
typedef struct gpw_activity {
  double thread_insts, warp_insts;
  double l1_accesses, l2_accesses, noc_flits, mc_accesses;
  double seconds;
  unsigned sms, mcs;
} gpw_activity;

/* Energy of each part over the interval, joules: dynamic + its static power x seconds. */
typedef struct gpw_energy {
  double core_j;  /* SMs: thread and warp instructions, SM leakage */
  double cache_j; /* L1 and L2 accesses, the L2's and crossbar's leakage */
  double noc_j;   /* crossbar flits */
  double mc_j;    /* memory-controller requests and leakage */
  double total_j;
} gpw_energy;

size_t gpw_param_count(void);
const char *gpw_param_key(size_t i);  /* "thread_inst_pj", ...; NULL past the end */
const char *gpw_param_doc(size_t i);
double gpw_param_default(size_t i);
double *gpw_param_ptr(gpw_params *p, size_t i);
void gpw_defaults(gpw_params *p);
void gpw_compute(const gpw_params *p, const gpw_activity *a, gpw_energy *out);

#ifdef __cplusplus
}
#endif

#endif
