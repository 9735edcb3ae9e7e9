# The kernel-library analogues, by pattern (docs/workload_library.md).
set(STRATA_ANALOGUES
  scalarprod blackscholes nn reduction kmeans mersenne libor scan
)
set(STRATA_ANALOGUES_DETERMINISM)
