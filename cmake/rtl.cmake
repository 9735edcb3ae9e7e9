# RTL blocks (testbenches/<block>/CMakeLists.txt): Verilator harness against the C reference,
# lint, Yosys synthesis check, GTKWave save file vs trace, coverage report. The scripts are
# tools/rtl_synth.py, tools/rtl_wave_check.py and tools/rtl_coverage.py.

# strata_rtl_package(<prefix> <out-var>): path of ${STRATA_GEN_DIR}/<prefix>_pkg.sv, generated
# now if missing: verilate() runs Verilator at configure time, so the package must exist then;
# the build-time rule of strata_params (same command) keeps it up to date afterwards.
function(strata_rtl_package prefix out)
  set(_pkg ${STRATA_GEN_DIR}/${prefix}_pkg.sv)
  if(NOT EXISTS ${_pkg})
    execute_process(COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/tools/genparams.py
                            ${CMAKE_SOURCE_DIR}/rtl/params/${prefix}.toml ${STRATA_GEN_DIR}
                    RESULT_VARIABLE _rc)
    if(_rc)
      message(FATAL_ERROR "genparams failed for rtl/params/${prefix}.toml")
    endif()
  endif()
  set_source_files_properties(${_pkg} PROPERTIES GENERATED TRUE)
  set(${out} ${_pkg} PARENT_SCOPE)
endfunction()

# strata_rtl_harness(<exe> SOURCES <cpp>... TOP <module> SV <file>... MODELS <spec>...
#                    [DEFINES <def>...] [VERILATOR_ARGS <arg>...])
# A C++ harness linked to strata_ref with one Verilated model (TRACE_FST, COVERAGE, -Wall
# --assert) per MODELS entry, a string "<prefix> [<extra Verilator args, e.g. -GWays=4>...]".
function(strata_rtl_harness exe)
  cmake_parse_arguments(A "" "TOP" "SOURCES;SV;MODELS;DEFINES;VERILATOR_ARGS" ${ARGN})
  add_executable(${exe} ${A_SOURCES})
  add_dependencies(${exe} strata_params)
  target_link_libraries(${exe} PRIVATE strata_ref)
  target_compile_options(${exe} PRIVATE -Wno-unused-parameter)  # Verilator runtime headers vs -Wextra
  if(A_DEFINES)
    target_compile_definitions(${exe} PRIVATE ${A_DEFINES})
  endif()
  foreach(_spec ${A_MODELS})
    separate_arguments(_words UNIX_COMMAND "${_spec}")
    list(POP_FRONT _words _prefix)
    verilate(${exe} PREFIX ${_prefix} TOP_MODULE ${A_TOP} TRACE_FST COVERAGE SOURCES ${A_SV}
      VERILATOR_ARGS -Wall --assert ${A_VERILATOR_ARGS} ${_words})
  endforeach()
endfunction()

# strata_rtl_test(<block> <name> <exe> "<args>"): CTest rtl_<block>_<name> running <exe> with the
# harness arguments <args> ("&&" chains several runs of <exe> in one test; @BIN@ = the block's
# build folder). Label rtl.
function(strata_rtl_test block name exe args)
  string(REPLACE "@BIN@" "${CMAKE_CURRENT_BINARY_DIR}" args "${args}")
  string(REPLACE "&&" ";" _runs "${args}")
  list(LENGTH _runs _n)
  if(_n EQUAL 1)
    separate_arguments(_words UNIX_COMMAND "${args}")
    add_test(NAME rtl_${block}_${name} COMMAND ${exe} ${_words})
  else()
    set(_sh "")
    foreach(_r ${_runs})
      string(STRIP "${_r}" _r)
      list(APPEND _sh "$<TARGET_FILE:${exe}> ${_r}")
    endforeach()
    list(JOIN _sh " && " _sh)
    add_test(NAME rtl_${block}_${name} COMMAND sh -c "${_sh}")
  endif()
  set_tests_properties(rtl_${block}_${name} PROPERTIES LABELS rtl TIMEOUT 120)
endfunction()

# strata_rtl_block(<block>
#   TOP <module>              top module (harness models, lint)
#   RTL <file.sv>...          RTL sources; the generated package <block>_pkg.sv is put first
#   [VLT <file.vlt>]          Verilator configuration file (waivers), for lint and the models
#   [VERILATOR_ARGS <arg>...] extra Verilator arguments of every model of tb_<block>
#   [DEFINES <def>...]        compile definitions of tb_<block> (built from tb_<block>.cpp)
#   [MODELS <spec>...]        models of tb_<block> (see strata_rtl_harness; default "V<top>")
#   [RUNS <name> "<args>"...] harness CTests rtl_<block>_<name> (see strata_rtl_test)
#   [LINT_PARAMS "<-G...>"...] lint again at these parameter corners (rtl_<block>_lint)
#   SYNTH <arg>...            tools/rtl_synth.py runs (rtl_<block>_synth); @PKG@ = the package
#   [GTKW <file> TRACE_ARGS "<args>" [TOGGLES <signal>...] [TRACE_NAME <n>]]  rtl_<block>_<n>
#                             (default n = trace): the save file names only signals of the trace
#                             tb_<block> <args> --trace writes; the TOGGLES signals change value
#   [COVERAGE <dat|glob>... [COVERAGE_RUN "<args>"]])  target <block>_coverage: merge + report
#                             (after the CTests, or after running tb_<block> <COVERAGE_RUN args>)
# Sets STRATA_RTL_SV (VLT, package, RTL) and STRATA_RTL_VARGS in the caller's scope, for extra
# harnesses of the same block.
function(strata_rtl_block block)
  cmake_parse_arguments(A "" "TOP;VLT;GTKW;TRACE_NAME;TRACE_ARGS;COVERAGE_RUN"
    "RTL;VERILATOR_ARGS;DEFINES;MODELS;RUNS;LINT_PARAMS;SYNTH;TOGGLES;COVERAGE" ${ARGN})
  strata_rtl_package(${block} _pkg)
  set(_sv ${A_VLT} ${_pkg} ${A_RTL})
  if(NOT A_MODELS)
    set(A_MODELS V${A_TOP})
  endif()
  set(_tb tb_${block})
  strata_rtl_harness(${_tb} SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/${_tb}.cpp TOP ${A_TOP} SV ${_sv}
    MODELS ${A_MODELS} DEFINES ${A_DEFINES} VERILATOR_ARGS ${A_VERILATOR_ARGS})

  set(_runs ${A_RUNS})
  while(_runs)
    list(POP_FRONT _runs _name _args)
    strata_rtl_test(${block} ${_name} ${_tb} "${_args}")
  endwhile()

  # Lint at the default parameters and at the given corners of the parameter ranges.
  list(JOIN _sv " " _sv_words)
  set(_lint "verilator --lint-only -Wall ${_sv_words} --top-module ${A_TOP}")
  set(_cmd "${_lint}")
  foreach(_g ${A_LINT_PARAMS})
    string(APPEND _cmd " && ${_lint} ${_g}")
  endforeach()
  add_test(NAME rtl_${block}_lint COMMAND sh -c "${_cmd}")

  set(_synth ${A_SYNTH})
  list(TRANSFORM _synth REPLACE "@PKG@" "${_pkg}")
  add_test(NAME rtl_${block}_synth COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/tools/rtl_synth.py
    --yosys ${YOSYS} --workdir ${CMAKE_CURRENT_BINARY_DIR}/synth ${_synth})
  set_tests_properties(rtl_${block}_lint PROPERTIES LABELS rtl TIMEOUT 120)
  # synthesis of a whole block takes about a minute on an idle core; a loaded machine needs more
  set_tests_properties(rtl_${block}_synth PROPERTIES LABELS rtl TIMEOUT 600)
  set_tests_properties(rtl_${block}_synth PROPERTIES FAIL_REGULAR_EXPRESSION "LATCH|ERROR")

  if(A_GTKW)
    if(NOT A_TRACE_NAME)
      set(A_TRACE_NAME trace)
    endif()
    find_program(FST2VCD fst2vcd)  # package gtkwave; without it the test fails, it is not skipped
    if(NOT FST2VCD)
      set(FST2VCD fst2vcd)
    endif()
    string(REPLACE "@BIN@" "${CMAKE_CURRENT_BINARY_DIR}" _targs "${A_TRACE_ARGS}")
    separate_arguments(_targs UNIX_COMMAND "${_targs}")
    list(TRANSFORM A_TOGGLES PREPEND "--toggles=")
    add_test(NAME rtl_${block}_${A_TRACE_NAME} COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/tools/rtl_wave_check.py
      --gtkw ${A_GTKW} --workdir ${CMAKE_CURRENT_BINARY_DIR}/trace --fst2vcd ${FST2VCD} ${A_TOGGLES}
      -- $<TARGET_FILE:${_tb}> ${_targs})
    set_tests_properties(rtl_${block}_${A_TRACE_NAME} PROPERTIES LABELS rtl TIMEOUT 120)
  endif()

  if(A_COVERAGE)
    set(_out ${CMAKE_CURRENT_BINARY_DIR}/coverage)
    file(MAKE_DIRECTORY ${_out})
    list(TRANSFORM A_COVERAGE REPLACE "@BIN@" "${CMAKE_CURRENT_BINARY_DIR}")
    set(_pre "")
    if(A_COVERAGE_RUN)
      string(REPLACE "@BIN@" "${CMAKE_CURRENT_BINARY_DIR}" _cargs "${A_COVERAGE_RUN}")
      separate_arguments(_cargs UNIX_COMMAND "${_cargs}")
      set(_pre COMMAND ${_tb} ${_cargs})
    endif()
    add_custom_target(${block}_coverage ${_pre}
      COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/tools/rtl_coverage.py --title ${block} --rank
              ${_out} ${A_COVERAGE}
      WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}
      COMMENT "verilator_coverage: ${_out}/coverage_summary.txt, coverage_annotated/, coverage.info")
  endif()

  set(STRATA_RTL_SV ${_sv} PARENT_SCOPE)
  set(STRATA_RTL_VARGS ${A_VERILATOR_ARGS} PARENT_SCOPE)
endfunction()
