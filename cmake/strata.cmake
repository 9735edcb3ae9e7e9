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
