#!/usr/bin/env python3
"""Strata benchmark: simulation speed and memory use (not a test; numbers go in notes).

Runs `stream` and `random` on baseline_hbm2 or other configs (the build should be Release) and
prints, per config and workload, host seconds (median of N), memory-controller requests per host
second, simulated bandwidth and peak RSS; under Unified Memory also the far faults and page moves.
Usage: bench.py STRATA [--repeat N] [--config NAME ...] [--um] [--callgrind] [--set key=value ...]

--um benchmarks the Unified Memory configs against the run without it on the same workloads
(baseline_hbm2: every byte in device memory; hbm_inf: pages start on the host, compulsory faults;
hbm_um: RHBM 0.75, pages evicted and refetched; docs/um.md "Speed"). --callgrind counts instructions
(valgrind's callgrind, one run each) instead of timing, for a loaded machine: instructions per
memory-controller request do not move with the load. The requests include the page moves' device
accesses (mem.class.page_in / page_out), so a fault costs what its moves and the driver cost.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

UM_CONFIGS = ["baseline_hbm2", "hbm_inf", "hbm_um"]


def run_once(strata, config, wl, extra, callgrind):
    """One run: (stats dict, callgrind instruction total or None)."""
    with tempfile.TemporaryDirectory() as d:
        cmd = [strata, "--quiet", "--config", config, "--workload", wl, "--out", os.path.join(d, "out"), *extra]
        cg = os.path.join(d, "cg.out")
        if callgrind:
            cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={cg}", *cmd]
        p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if p.returncode != 0:
            sys.exit(f"bench.py: {' '.join(cmd)} failed (exit status {p.returncode}): "
                     f"{p.stderr.strip().splitlines()[-1] if p.stderr.strip() else ''}")
        with open(os.path.join(d, "out", "stats.json")) as f:
            stats = json.load(f)
        ir = None
        if callgrind:
            with open(cg) as f:
                m = re.search(r"^summary: (\d+)", f.read(), re.M)
            if not m:
                sys.exit(f"bench.py: {cg}: no 'summary:' line in the callgrind output")
            ir = int(m.group(1))
        return stats, ir


def main():
    ap = argparse.ArgumentParser(prog="bench.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("strata", help="the strata binary to measure (a Release build)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per workload; the median is reported (default 3)")
    ap.add_argument("--config", action="append", default=[], metavar="NAME",
                    help="platform config, repeatable (default baseline_hbm2)")
    ap.add_argument("--um", action="store_true",
                    help=f"the Unified Memory pair: configs {', '.join(UM_CONFIGS)} on the same workloads")
    ap.add_argument("--workload", action="append", default=[], metavar="NAME",
                    help="workload, repeatable (default stream and random)")
    ap.add_argument("--callgrind", action="store_true",
                    help="count instructions under valgrind --tool=callgrind (one run each) instead of timing")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="config override, repeatable")
    a = ap.parse_args()
    if a.repeat < 1:
        ap.error("--repeat must be >= 1")
    if not (os.path.isfile(a.strata) and os.access(a.strata, os.X_OK)):
        ap.error(f"{a.strata}: not an executable")
    configs = a.config + (UM_CONFIGS if a.um else [])
    configs = list(dict.fromkeys(configs)) or ["baseline_hbm2"]
    workloads = a.workload or ["stream", "random"]
    repeat = 1 if a.callgrind else a.repeat
    extra = [x for kv in a.set for x in ("--set", kv)]
    print("mem req = 128 B line requests at the memory controllers (page moves included); "
          "32 B acc = DRAM column accesses")
    if a.callgrind:
        print(f"{'config':<14} {'workload':<10} {'M instr':>10} {'mem req':>10} {'instr/req':>10} "
              f"{'instr/warp inst':>15} {'faults':>8} {'pages in':>9} {'pages out':>9} {'sim us':>9}")
    else:
        print(f"{'config':<14} {'workload':<10} {'host s (median)':>16} {'mem req':>10} {'req/host s':>11} "
              f"{'32B acc/host s':>15} {'inst/host s':>12} {'GB/s sim':>9} {'RSS MiB':>8} {'faults':>8} "
              f"{'pages in':>9} {'pages out':>9} {'sim us':>9}")
    for config in configs:
        for wl in workloads:
            runs = [run_once(a.strata, config, wl, extra, a.callgrind) for _ in range(repeat)]
            med = statistics.median(r[0]["host.seconds"] for r in runs)
            r, ir = min(runs, key=lambda r: abs(r[0]["host.seconds"] - med))
            req = r["mem.reads"] + r["mem.writes"]
            um = (r.get("um.faults", 0), r.get("um.pages_in", 0), r.get("um.pages_out", 0))
            sim_us = r["sim.seconds"] * 1e6
            if a.callgrind:
                warp = r.get("gpu.warp_instructions", 0) or sum(
                    v for k, v in r.items() if re.fullmatch(r"gpu\.sm\d+\.warp_instructions", k))
                print(f"{config:<14} {wl:<10} {ir / 1e6:>10.1f} {req:>10.0f} {ir / req:>10.0f} "
                      f"{ir / warp if warp else 0:>15.0f} {um[0]:>8} {um[1]:>9} {um[2]:>9} {sim_us:>9.1f}")
            else:
                acc = r["host.mem_accesses_per_second"] * r["host.seconds"]
                print(f"{config:<14} {wl:<10} {med:>16.3f} {req:>10.0f} {req / med:>11.0f} {acc / med:>15.0f} "
                      f"{r['gpu.instructions'] / med:>12.3g} {r['mem.bandwidth_gbps']:>9.1f} "
                      f"{r['host.peak_rss_bytes'] / 2**20:>8.0f} {um[0]:>8} {um[1]:>9} {um[2]:>9} {sim_us:>9.1f}")


if __name__ == "__main__":
    main()
