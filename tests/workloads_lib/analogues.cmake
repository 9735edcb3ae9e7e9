# The kernel-library analogues, by pattern (docs/workload_library.md).
set(STRATA_ANALOGUES
  scalarprod blackscholes nn reduction kmeans mersenne libor scan
  hotspot3d laplace stencil conv2d convsep srad heartwall
  pathfinder nw fwt bitonic dct8x8
  histogram mummer lavamd
)
set(STRATA_ANALOGUES_DETERMINISM mummer)
