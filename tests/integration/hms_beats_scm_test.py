#!/usr/bin/env python3
"""Regression of HMS against the SCM-only stack (issue 16; docs/hms.md "Experiment"): on a DRAM-cache-
friendly analogue (conv2d at 16 MiB, the DRAM cache at 37.5 % of the footprint, as the HMS experiment
runs it) HMS must take fewer GPU cycles and write fewer SCM bytes than SCM-only, with --check on.
Usage: hms_beats_scm_test.py STRATA OUTDIR"""
import json
import os
import subprocess
import sys


def run(strata, out, config, extra):
    cmd = [strata, "--quiet", "--force", "--check", "--out", out, "--config", config, "--workload", "conv2d",
           "--set", "workload.footprint=16MiB", *extra]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"FAIL: {' '.join(cmd)} exited {r.returncode}: {r.stderr.strip()}")
    with open(os.path.join(out, "stats.json")) as f:
        return json.load(f)


def main():
    strata, outdir = sys.argv[1], sys.argv[2]
    scm = run(strata, os.path.join(outdir, "scm_only"), "scm_only", [])
    hms = run(strata, os.path.join(outdir, "hms"), "hms", ["--set", "memside.dcache.footprint_ratio=0.375"])
    c_scm, c_hms = scm["gpu.cycles"], hms["gpu.cycles"]
    w_scm, w_hms = scm["mem.scm.write_bytes"], hms["mem.scm.write_bytes"]
    if not c_hms < c_scm:
        sys.exit(f"FAIL: HMS takes {c_hms:.0f} GPU cycles, SCM-only {c_scm:.0f}: HMS should be faster on conv2d")
    if not w_hms < w_scm:
        sys.exit(f"FAIL: HMS writes {w_hms:.0f} SCM bytes, SCM-only {w_scm:.0f}: the DRAM cache should absorb writes")
    if not hms["dcache.bypasses"] or not hms["dcache.fills"]:
        sys.exit("FAIL: the bypass policy should fill some lines and bypass others")
    print(f"ok: HMS {c_hms:.0f} cycles vs SCM-only {c_scm:.0f} ({c_hms / c_scm:.3f}x); SCM writes {w_hms:.0f} vs {w_scm:.0f} B")


if __name__ == "__main__":
    main()
