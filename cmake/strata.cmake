# Helper functions shared by the Strata build.

# strata_generate_params(): for each rtl/params/<block>.toml, generate
# ${STRATA_GEN_DIR}/<prefix>_params.h and <prefix>_pkg.sv (tools/genparams.py).
# The file name stem must equal the description's `prefix`.
# Target `strata_params` depends on all of them; STRATA_PARAM_SV lists the SV packages.
function(strata_generate_params)
  file(GLOB _descs CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/rtl/params/*.toml)
  set(_outs "")
  set(_svs "")
  foreach(_d ${_descs})
    get_filename_component(_stem ${_d} NAME_WE)
    set(_h ${STRATA_GEN_DIR}/${_stem}_params.h)
    set(_sv ${STRATA_GEN_DIR}/${_stem}_pkg.sv)
    add_custom_command(OUTPUT ${_h} ${_sv}
      COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/tools/genparams.py ${_d} ${STRATA_GEN_DIR}
      DEPENDS ${_d} ${CMAKE_SOURCE_DIR}/tools/genparams.py
      COMMENT "genparams ${_stem}")
    list(APPEND _outs ${_h} ${_sv})
    list(APPEND _svs ${_sv})
  endforeach()
  add_custom_target(strata_params DEPENDS ${_outs})
  set(STRATA_PARAM_SV ${_svs} PARENT_SCOPE)
  file(MAKE_DIRECTORY ${STRATA_GEN_DIR})
endfunction()

# strata_add_c_test(name src...): a cmocka unit test linked to strata_ref.
function(strata_add_c_test name)
  add_executable(${name} ${ARGN})
  target_link_libraries(${name} PRIVATE strata_ref PkgConfig::CMOCKA m)
  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES LABELS unit)
endfunction()

# strata_add_module_test(name src...): a SystemC/TLM module test (own sc_main).
function(strata_add_module_test name)
  add_executable(${name} ${ARGN})
  target_link_libraries(${name} PRIVATE strata_platform)
  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES LABELS module)
endfunction()

# strata_add_cuda_program(NAME SOURCES src... [DEPENDS file...] [OPTIONS opt...]): builds the CUDA
# program NAME (into bin/ of the current binary folder) from its .cu/.c/.cpp sources with `strata cuda build`
# (docs/cuda.md), rebuilt when a source, a listed dependency (headers), strata or Strata's CUDA runtime
# changes. The target NAME is built by default; its property STRATA_CUDA_PROGRAM holds the program's
# path (for add_test: $<TARGET_PROPERTY:NAME,STRATA_CUDA_PROGRAM>). OPTIONS go to `strata cuda build`
# (-I DIR, -D NAME=VAL, -O LEVEL).
function(strata_add_cuda_program name)
  cmake_parse_arguments(_cp "" "" "SOURCES;DEPENDS;OPTIONS" ${ARGN})
  if(NOT _cp_SOURCES)
    message(FATAL_ERROR "strata_add_cuda_program(${name}): no SOURCES")
  endif()
  set(_srcs "")
  foreach(_s ${_cp_SOURCES})
    get_filename_component(_abs ${_s} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
    list(APPEND _srcs ${_abs})
  endforeach()
  set(_deps "")
  foreach(_s ${_cp_DEPENDS})
    get_filename_component(_abs ${_s} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
    list(APPEND _deps ${_abs})
  endforeach()
  set(_out ${CMAKE_CURRENT_BINARY_DIR}/bin/${name})
  file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/bin)
  add_custom_command(OUTPUT ${_out}
    COMMAND $<TARGET_FILE:strata> cuda build ${_srcs} ${_cp_OPTIONS} -o ${_out}
    DEPENDS ${_srcs} ${_deps} strata strata_cudart
    COMMENT "strata cuda build ${name}"
    VERBATIM)
  add_custom_target(${name} ALL DEPENDS ${_out})
  set_target_properties(${name} PROPERTIES STRATA_CUDA_PROGRAM ${_out})
endfunction()
