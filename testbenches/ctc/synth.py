#!/usr/bin/env python3
"""Yosys synthesis check of the configurable tag cache (rtl/ctc).

Runs `synth` on ctc at the paper configuration of rtl/params/ctc.toml with the
two SRAMs (ctc_sram: the L2 arrays the CTC reuses, HMS Sec. III-D) kept as
black-box macros, and on a small ctc_sram alone (so its RTL is synthesized too).
Fails (exit 1) on any Yosys error, on `check -assert` problems or on an inferred
latch; prints the cell counts.
Usage: synth.py --yosys YOSYS --pkg ctc_pkg.sv --workdir DIR
"""
import argparse
import pathlib
import re
import subprocess
import sys

RTL = pathlib.Path(__file__).resolve().parents[2] / "rtl" / "ctc"


def run(yosys, script, log):
    p = subprocess.run([yosys, "-q", "-l", str(log), "-p", script], capture_output=True, text=True)
    text = log.read_text() if log.exists() else ""
    if p.returncode != 0:
        sys.stdout.write(p.stdout + p.stderr)
        sys.exit(f"synth.py: yosys failed (see {log})")
    if re.search(r"^Latch inferred", text, re.M) or re.search(r"\$_?DLATCH|\$dlatch", text, re.I):
        sys.exit(f"synth.py: latch inferred (see {log})")
    if re.search(r"^ERROR", text, re.M):
        sys.exit(f"synth.py: error in {log}")
    return text


def cells(text, module):
    """Cell count of `module` in the last stat report (or the hierarchy total)."""
    blocks = re.split(r"^=== (.*) ===$", text, flags=re.M)
    found = None
    for name, body in zip(blocks[1::2], blocks[2::2]):
        if name.strip() == module:
            m = re.search(r"Number of cells:\s+(\d+)", body)
            if m:
                found = int(m.group(1))
    return found


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--yosys", required=True)
    ap.add_argument("--pkg", required=True)
    ap.add_argument("--workdir", required=True)
    a = ap.parse_args()
    if not a.yosys or a.yosys.endswith("NOTFOUND"):
        sys.exit("synth.py: yosys not found")
    wd = pathlib.Path(a.workdir)
    wd.mkdir(parents=True, exist_ok=True)
    rtl = " ".join(str(RTL / f) for f in ("ctc_plru.sv", "ctc.sv"))
    top = run(a.yosys,
              f"read_verilog -sv -lib {RTL / 'ctc_sram.sv'}; read_verilog -sv {a.pkg} {rtl}; "
              "hierarchy -check -top ctc; synth -top ctc; check -assert; stat",
              wd / "ctc.log")
    sram = run(a.yosys,
               f"read_verilog -sv {RTL / 'ctc_sram.sv'}; chparam -set Width 8 -set Depth 16 ctc_sram; "
               "synth -top ctc_sram; check -assert; stat",
               wd / "ctc_sram.log")
    total = cells(top, "design hierarchy")
    own = cells(top, "ctc")
    flops = sum(int(n) for n in re.findall(r"^\s+\$_S?DFF\w*\s+(\d+)$", top.split("=== design hierarchy ===")[-1], re.M))
    sram_cells = cells(sram, "ctc_sram")
    if total is None or own is None or sram_cells is None:
        sys.exit("synth.py: no cell count in the Yosys report")
    macros = re.findall(r"^\s+ctc_sram\s+(\d+)$", top, re.M)
    print(f"rtl_ctc_synth: ctc at the paper configuration, 2 SRAM macros black-boxed: {total} cells "
          f"({flops} flip-flops; ctc module {own}, 2 x ctc_plru {total - own}); "
          f"ctc_sram 8x16 alone: {sram_cells} cells; no latches")
    if not macros:
        sys.exit("synth.py: SRAM macros missing from the netlist")


if __name__ == "__main__":
    main()
