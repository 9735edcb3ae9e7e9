#!/bin/sh
# Yosys synthesis check of rtl/flrb (CTest rtl_flrb_synth).
# usage: synth.sh FLRB_PKG.sv RTL_DIR
# 1. The paper-size block (4K descriptors, 2K x 4 hash slots) with its RAM
#    arrays as macros (flrb_ram read as a black box): the logic around them.
# 2. A small instance (16 descriptors, 8 x 2 slots) with the RAMs inferred and
#    mapped to flip-flops, to prove flrb_ram itself synthesizes.
# Fails on any Yosys error, on 'check' problems and on inferred latches.
# Prints the cell counts (docs/rtl/flrb.md quotes them).
set -e
PKG=$1
RTL=$2
OUT=${TMPDIR:-/tmp}/flrb_synth.$$
mkdir -p "$OUT"
trap 'rm -rf "$OUT"' EXIT
run() {  # name, yosys commands
  if ! yosys -p "$2" > "$OUT/$1.log" 2>&1; then
    tail -20 "$OUT/$1.log"
    echo "FAIL: yosys $1"
    exit 1
  fi
  if grep -E "^Latch inferred|Latch inferred for" "$OUT/$1.log" | grep -v "No latch" | grep -q .; then
    grep "Latch inferred" "$OUT/$1.log" | grep -v "No latch"
    echo "FAIL: latch inferred ($1)"
    exit 1
  fi
  # the last statistics section of the log (the final 'stat')
  last=$(grep -n "Printing statistics" "$OUT/$1.log" | tail -1 | cut -d: -f1)
  tail -n +"$last" "$OUT/$1.log" > "$OUT/$1.stat"
  cells=$(grep -m1 "Number of cells" "$OUT/$1.stat" | awk '{print $4}')
  ffs=$(grep -E '^ +\$_(S?DFF|DFFE|SDFF)' "$OUT/$1.stat" | awk '{s+=$2} END {print s+0}')
  rams=$(grep -E '^ +flrb_ram ' "$OUT/$1.stat" | awk '{print $2}')
  echo "flrb synth [$1]: cells=$cells flip-flops=$ffs ram-macros=${rams:-0}"
}
LATCH='select -assert-none t:$dlatch t:$adlatch t:$dlatchsr t:$_DLATCH* t:$_DLATCHSR*'
run full "read_verilog -sv -lib $RTL/flrb_ram.sv; read_verilog -sv $PKG $RTL/flrb.sv; synth -top flrb; check -assert; $LATCH; stat"
run small "read_verilog -sv $PKG $RTL/flrb_ram.sv $RTL/flrb.sv; chparam -set CapW 4 -set BktW 3 -set Ways 2 flrb; synth -top flrb -flatten; check -assert; $LATCH; stat"
echo "PASS: flrb synthesis (no errors, no latches)"
