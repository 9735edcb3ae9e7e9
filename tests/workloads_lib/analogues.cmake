# The kernel-library analogues, by pattern (docs/workload_library.md).
set(STRATA_ANALOGUES
  scalarprod blackscholes nn reduction kmeans mersenne libor scan
  hotspot3d laplace stencil conv2d convsep srad heartwall
  pathfinder nw fwt bitonic dct8x8
  histogram mummer lavamd
)
set(STRATA_ANALOGUES_DETERMINISM mummer)
# Graph analogues (pattern_graph.cpp). Their run time grows with edges x rounds, so
# their runs use smaller footprints (STRATA_ANALOGUE_FOOTPRINT_<name>, both tests);
# their timing depends on the graph, so sssp is also run for determinism.
list(APPEND STRATA_ANALOGUES sssp kcore gcolor)
list(APPEND STRATA_ANALOGUES_DETERMINISM sssp)
set(STRATA_ANALOGUE_FOOTPRINT_sssp 256KiB)
set(STRATA_ANALOGUE_FOOTPRINT_kcore 256KiB)
set(STRATA_ANALOGUE_FOOTPRINT_gcolor 64KiB)
# Dense and irregular analogues (pattern_dense.cpp, pattern_tree.cpp, rows in
# pattern_stencil.cpp / pattern_gather.cpp). STRATA_ANALOGUE_ARGS_<name> adds
# options to both tests (knobs that the footprint does not set).
list(APPEND STRATA_ANALOGUES backprop neuralnet ray barneshut weather cfd streamcluster gaussian)
set(STRATA_ANALOGUE_FOOTPRINT_neuralnet 560KiB)
set(STRATA_ANALOGUE_ARGS_ray --set workload.ray.height=32)
list(APPEND STRATA_ANALOGUES_DETERMINISM ray)
set(STRATA_ANALOGUE_FOOTPRINT_barneshut 128KiB)
set(STRATA_ANALOGUE_ARGS_barneshut --set workload.barneshut.steps=1)
list(APPEND STRATA_ANALOGUES_DETERMINISM barneshut)
set(STRATA_ANALOGUE_FOOTPRINT_gaussian 64KiB)
