#!/usr/bin/env python3
"""A mechanism microbenchmark must win where its mechanism works (issue 22 item 7; docs/hac.md
"Mechanism microbenchmarks"): run one CUDA program under --check with a base design and a tested
design and assert stat ratios tested/base.

usage: mech_pair_test.py STRATA PROGRAM OUTDIR --config C --base SET[,SET] --design SET[,SET]
         --bound STAT<=RATIO [--bound ...] -- PROGRAM_ARGS
"""
import argparse
import json
import subprocess
import sys


def run(exe, prog, out, config, sets, args):
    cmd = [exe, "cuda", "run", prog, "--config", config, "--check", "--quiet", "--force", "--out", out]
    for s in sets:
        cmd += ["--set", s]
    cmd += ["--"] + args
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"FAIL: {' '.join(cmd)} exited {r.returncode}: {r.stderr.strip()[-400:]}")
    with open(f"{out}/stats.json") as f:
        return json.load(f)


def main():
    argv = sys.argv[1:]
    prog_args = argv[argv.index("--") + 1:] if "--" in argv else []
    argv = argv[:argv.index("--")] if "--" in argv else argv
    ap = argparse.ArgumentParser()
    ap.add_argument("exe")
    ap.add_argument("prog")
    ap.add_argument("out")
    ap.add_argument("--config", required=True)
    ap.add_argument("--base", required=True)
    ap.add_argument("--design", required=True)
    ap.add_argument("--bound", action="append", required=True)
    a = ap.parse_args(argv)
    base = run(a.exe, a.prog, a.out + "/base", a.config, a.base.split(","), prog_args)
    test = run(a.exe, a.prog, a.out + "/design", a.config, a.design.split(","), prog_args)
    notes, bad = [], []
    for b in a.bound:
        stat, lim = b.split("<=")
        x, y = test[stat], base[stat]
        if y <= 0:
            sys.exit(f"FAIL: {stat} is {y} with the base design: nothing to compare")
        r = x / y
        notes.append(f"{stat} {y} -> {x} ({r:.3f}x, bound {lim})")
        if r > float(lim):
            bad.append(notes[-1])
    if bad:
        sys.exit("FAIL: " + "; ".join(bad))
    print("ok: " + "; ".join(notes))


if __name__ == "__main__":
    main()
