#!/usr/bin/env bash
# Strata set-up: installs the Debian packages the project needs (idempotent).
#   scripts/setup.sh        everything: build, run, tests, RTL, fuzzing, experiments (make test, .ci/run)
#   scripts/setup.sh run    what building and running the strata executable needs (make run)
set -euo pipefail
case "${1:-all}" in
  run | all) ;;
  *) echo "setup.sh: expected 'run' or nothing, got '$1'" >&2; exit 2 ;;
esac
PKGS=(                      # strata itself (make run)
  build-essential cmake ninja-build pkg-config python3
  libsystemc-dev            # SystemC 2.3 + TLM 2.0 (pkg-config systemc, tlm)
  libtomlplusplus-dev       # config parser (TOML, with source positions for errors)
  nlohmann-json3-dev        # stats.json writer
  libcli11-dev              # command line
  zlib1g-dev liblzma-dev libzstd-dev   # compressed traces
  xz-utils zstd                        # .xz / .zst Accel-Sim traces are read through these tools
)
[ "${1:-all}" = run ] || PKGS+=(     # tests, RTL, tools (make test)
  verilator yosys gtkwave   # RTL lint/sim, synthesis check, waveform viewer + vcd2fst
  libcmocka-dev             # C unit tests
  hyperfine                            # benchmark timing (docs/memtrace.md "Benchmark")
  python3-matplotlib                   # strata sweep figures, strata plot (docs/experiments.md)
  slurm-wlm munge                      # strata sweep --backend slurm, its test (scripts/slurm_local.sh)
  clang libclang-rt-dev                # libFuzzer targets (fuzz/, docs/fuzzing.md); CUDA programs (strata cuda build)
)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  echo "setup: installing ${missing[*]}" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
