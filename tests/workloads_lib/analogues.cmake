# The kernel-library analogues, by pattern (docs/workload_library.md).
set(STRATA_ANALOGUES
  scalarprod blackscholes nn reduction kmeans mersenne libor scan
  hotspot3d laplace stencil conv2d convsep srad heartwall
  pathfinder nw fwt bitonic dct8x8
  histogram mummer lavamd
)
set(STRATA_ANALOGUES_DETERMINISM mummer)
# Dense and irregular analogues (pattern_dense.cpp, pattern_tree.cpp, rows in
# pattern_stencil.cpp / pattern_gather.cpp). STRATA_ANALOGUE_FOOTPRINT_<name>
# replaces the run test's 1 MiB where a smaller size keeps the test short;
# STRATA_ANALOGUE_ARGS_<name> adds options to the run and determinism tests
# (knobs that the footprint does not set).
list(APPEND STRATA_ANALOGUES backprop neuralnet ray barneshut weather cfd streamcluster gaussian)
set(STRATA_ANALOGUE_FOOTPRINT_neuralnet 560KiB)
set(STRATA_ANALOGUE_ARGS_ray --set workload.ray.height=32)
list(APPEND STRATA_ANALOGUES_DETERMINISM ray)
set(STRATA_ANALOGUE_ARGS_barneshut --set workload.footprint=128KiB --set workload.barneshut.steps=1)
list(APPEND STRATA_ANALOGUES_DETERMINISM barneshut)
set(STRATA_ANALOGUE_FOOTPRINT_gaussian 64KiB)
