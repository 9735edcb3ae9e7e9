#!/bin/sh
# Yosys synthesis check of the bypass scorer: fails on any error, on inferred latches or on
# problems found by `check -assert`; prints the cell count of the flattened design.
# usage: synth.sh YOSYS LOGFILE PKG.sv RTL.sv...
set -eu
yosys=$1; log=$2; shift 2
if [ -z "$yosys" ] || [ "$yosys" = "YOSYS-NOTFOUND" ]; then echo "ERROR: yosys not found"; exit 1; fi
"$yosys" -q -l "$log" -p "read_verilog -sv -DSYNTHESIS $*; synth -flatten -top bps_scorer; check -assert; stat" \
  >/dev/null 2>&1 || { echo "ERROR: yosys failed, see $log"; tail -20 "$log"; exit 1; }
if grep -qE '\$_DLATCH|\$dlatch|^Latch inferred' "$log"; then
  echo "LATCH inferred, see $log"; grep -E 'DLATCH|dlatch|^Latch inferred' "$log" | head; exit 1
fi
cells=$(awk '/Number of cells:/ {n=$4} END {print n}' "$log")
ffs=$(awk '/Number of cells:/ {s=0} /\$_(S)?DFF/ {s+=$2} END {print s+0}' "$log")  # last stat only
echo "bps_scorer synthesis OK: $cells cells ($ffs flip-flops), no latches"
