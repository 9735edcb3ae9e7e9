#!/usr/bin/env bash
# `make run`'s configuration (STRATA_ONLY_RUN=ON, Makefile): configures a scratch folder and checks that it
# builds the strata executable and nothing of the test suite, the RTL testbenches or the CUDA programs.
set -euo pipefail
src=$1 work=$2
rm -rf "$work"
cmake -S "$src" -B "$work" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTRATA_ONLY_RUN=ON >/dev/null
targets=$(ninja -C "$work" -t targets all)
fail() { echo "only_run: $*"; exit 1; }
grep -q '^strata: ' <<<"$targets" || fail "no strata target"
! grep -qE '^(unit_|module_|tb_|ctc_|bps_|flrb_)[a-z_]*: ' <<<"$targets" || fail "a test or testbench target is configured"
! grep -q 'workloads/cuda/bin' <<<"$targets" || fail "the CUDA programs are configured"
n=$(cd "$work" && ctest -N | sed -n 's/^Total Tests: //p')
[ "$n" = 0 ] || fail "expected no tests, got $n"
rm -rf "$work"
echo "only_run: strata only, no tests"
