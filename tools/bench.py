#!/usr/bin/env python3
"""Strata benchmark: simulation speed and memory use (not a test; numbers go in notes).

Runs `stream` and `random` on baseline_hbm2 or another config (the build should be Release) and
prints, per run, host seconds (median of N), memory-controller requests per host second, simulated
bandwidth and peak RSS. Usage: bench.py STRATA [--repeat N] [--config NAME] [--set key=value ...]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile


def main():
    ap = argparse.ArgumentParser(prog="bench.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("strata", help="the strata binary to measure (a Release build)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per workload; the median is reported (default 3)")
    ap.add_argument("--config", default="baseline_hbm2", help="platform config (default baseline_hbm2)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="config override, repeatable")
    a = ap.parse_args()
    if a.repeat < 1:
        ap.error("--repeat must be >= 1")
    if not (os.path.isfile(a.strata) and os.access(a.strata, os.X_OK)):
        ap.error(f"{a.strata}: not an executable")
    strata, repeat, config = a.strata, a.repeat, a.config
    extra = [x for kv in a.set for x in ("--set", kv)]
    print(f"config {config}")
    print("mem req = 128 B line requests at the memory controllers; 32 B acc = DRAM column accesses")
    print(f"{'workload':<10} {'host s (median)':>16} {'mem req':>12} {'req/host s':>12} {'32B acc/host s':>15} "
          f"{'inst/host s':>12} {'GB/s sim':>9} {'peak RSS MiB':>13}")
    for wl in ("stream", "random"):
        runs = []
        for _ in range(repeat):
            with tempfile.TemporaryDirectory() as d:
                cmd = [strata, "--quiet", "--config", config, "--workload", wl, "--out", d, *extra]
                if subprocess.run(cmd).returncode != 0:
                    sys.exit(f"bench.py: {' '.join(cmd)} failed")
                with open(os.path.join(d, "stats.json")) as f:
                    runs.append(json.load(f))
        med = statistics.median(r["host.seconds"] for r in runs)
        r = min(runs, key=lambda r: abs(r["host.seconds"] - med))
        req = r["mem.reads"] + r["mem.writes"]
        acc = r["host.mem_accesses_per_second"] * r["host.seconds"]
        print(f"{wl:<10} {med:>16.3f} {req:>12.0f} {req / med:>12.0f} {acc / med:>15.0f} {r['gpu.instructions'] / med:>12.3g} "
              f"{r['mem.bandwidth_gbps']:>9.1f} {r['host.peak_rss_bytes'] / 2**20:>13.0f}")


if __name__ == "__main__":
    main()
