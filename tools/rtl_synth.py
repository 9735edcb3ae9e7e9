#!/usr/bin/env python3
"""Yosys synthesis check of an RTL block (CTest rtl_<block>_synth, cmake/rtl.cmake).

One or more runs, each introduced by `--run NAME`. A run reads its sources, optionally sets
parameters of the top module, synthesizes it and fails (exit 1) on any Yosys error, on problems
found by `check -assert` or on an inferred latch (a "Latch inferred" log line or a latch cell left
in the netlist). It prints the cell count of the last `stat` (whole hierarchy), the flip-flops and
the cells of each module.

usage: rtl_synth.py --yosys YOSYS --workdir DIR
         --run NAME --top MODULE [--flatten] [--define NAME]... [--lib FILE.sv]...
                    [--chparam PARAM=VALUE]... [--expect-cell TYPE]... SOURCE.sv...
         [--run NAME ...]
  --lib FILE        read as a black box (an SRAM kept as a macro); --expect-cell TYPE fails the
                    run unless the netlist still instantiates TYPE (the macros were not lost).
  --define NAME     `read_verilog -DNAME` (e.g. SYNTHESIS, to drop `ifndef SYNTHESIS checks).
"""
import argparse
import pathlib
import re
import subprocess
import sys

LATCH_CELLS = "t:$dlatch t:$adlatch t:$dlatchsr t:$_DLATCH* t:$_DLATCHSR*"


def parse_runs(argv):
    common = argparse.ArgumentParser(prog="rtl_synth.py", add_help=False)
    common.add_argument("--yosys", required=True)
    common.add_argument("--workdir", required=True)
    run = argparse.ArgumentParser(prog="rtl_synth.py --run NAME", add_help=False)
    run.add_argument("--top", required=True)
    run.add_argument("--flatten", action="store_true")
    run.add_argument("--define", action="append", default=[])
    run.add_argument("--lib", action="append", default=[])
    run.add_argument("--chparam", action="append", default=[])
    run.add_argument("--expect-cell", action="append", default=[])
    run.add_argument("sources", nargs="+")
    cuts = [i for i, a in enumerate(argv) if a == "--run"]
    if not cuts or cuts[-1] + 1 >= len(argv):
        sys.exit(__doc__)
    opts = common.parse_args(argv[:cuts[0]])
    runs = []
    for k, i in enumerate(cuts):
        end = cuts[k + 1] if k + 1 < len(cuts) else len(argv)
        r = run.parse_args(argv[i + 2:end])
        r.name = argv[i + 1]
        runs.append(r)
    return opts, runs


def script(r):
    defs = "".join(f" -D{d}" for d in r.define)
    cmds = [f"read_verilog -sv{defs} -lib {f}" for f in r.lib]
    cmds.append(f"read_verilog -sv{defs} " + " ".join(r.sources))
    if r.chparam:
        sets = " ".join("-set " + p.replace("=", " ", 1) for p in r.chparam)
        cmds.append(f"chparam {sets} {r.top}")
    cmds += [f"synth{' -flatten' if r.flatten else ''} -top {r.top}",
             "check -assert", f"select -assert-none {LATCH_CELLS}", "stat"]
    return "; ".join(cmds)


def last_stat(log):
    """Cells per module and of the whole design in the final `stat` report, and its flip-flops."""
    text = log[log.rfind("Printing statistics"):]
    blocks = re.split(r"^=== (.*) ===$", text, flags=re.M)
    per = {}
    for name, body in zip(blocks[1::2], blocks[2::2]):
        m = re.search(r"Number of cells:\s+(\d+)", body)
        if m:
            per[name.strip()] = (int(m.group(1)), body)
    if not per:
        return None, 0, {}
    total, body = per.pop("design hierarchy", None) or next(iter(per.values()))
    flops = sum(int(n) for n in re.findall(r"^\s+\$_S?DFF\w*\s+(\d+)$", body, re.M))
    return total, flops, {k: v[0] for k, v in per.items()}


def run_one(yosys, workdir, r):
    log = workdir / f"{r.name}.log"
    p = subprocess.run([yosys, "-q", "-l", str(log), "-p", script(r)], capture_output=True, text=True)
    text = log.read_text(errors="replace") if log.exists() else ""
    if p.returncode != 0:
        sys.stdout.write("\n".join(text.splitlines()[-20:]) + "\n" + p.stdout + p.stderr)
        sys.exit(f"rtl_synth.py: FAIL: yosys run {r.name} failed (see {log})")
    latches = [ln for ln in text.splitlines() if "Latch inferred" in ln and "No latch" not in ln]
    if latches:
        sys.stdout.write("\n".join(latches[:10]) + "\n")
        sys.exit(f"rtl_synth.py: FAIL: LATCH inferred in run {r.name} (see {log})")
    total, flops, per = last_stat(text)
    if total is None:
        sys.exit(f"rtl_synth.py: FAIL: no cell count in the Yosys report of run {r.name}")
    body = text[text.rfind("Printing statistics"):]
    body = body[body.find("=== design hierarchy ==="):] if "=== design hierarchy ===" in body else body
    macros = []
    for cell in r.expect_cell:
        n = sum(int(x) for x in re.findall(rf"^\s+{re.escape(cell)}\s+(\d+)$", body, re.M))
        if n == 0:
            sys.exit(f"rtl_synth.py: FAIL: run {r.name}: no {cell} left in the netlist")
        macros.append(f"{n} x {cell}")
    short = {m: re.sub(r"^\$paramod\\(\w+)\\.*", r"\1", m) for m in per}  # $paramod\ctc_plru\MaxWays=.. -> ctc_plru
    detail = ", ".join(f"{short[m]} {c}" for m, c in per.items()) if len(per) > 1 else ""
    print(f"synth [{r.name}] top {r.top}: {total} cells ({flops} flip-flops"
          + (f"; macros {', '.join(macros)}" if macros else "")
          + (f"; per module: {detail}" if detail else "") + "), no latches")


def main():
    opts, runs = parse_runs(sys.argv[1:])
    if not opts.yosys or opts.yosys.endswith("NOTFOUND"):
        sys.exit("rtl_synth.py: FAIL: yosys not found")
    wd = pathlib.Path(opts.workdir)
    wd.mkdir(parents=True, exist_ok=True)
    for r in runs:
        run_one(opts.yosys, wd, r)


if __name__ == "__main__":
    main()
