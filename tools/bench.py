#!/usr/bin/env python3
"""Strata benchmark: simulation speed and memory use (not a test; numbers go in notes).

Runs `stream` and `random` on baseline_hbm2 or another config (the build should be Release) and
prints, per run, host seconds (median of N), memory-controller requests per host second, simulated
bandwidth and peak RSS. Usage: bench.py STRATA [--repeat N] [--config NAME] [--set key=value ...]
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile


def main():
    strata = sys.argv[1]
    repeat = 3
    config = "baseline_hbm2"
    extra = []
    args = sys.argv[2:]
    while args:
        a = args.pop(0)
        if a == "--repeat":
            repeat = int(args.pop(0))
        elif a == "--config":
            config = args.pop(0)
        elif a == "--set":
            extra += ["--set", args.pop(0)]
    print(f"config {config}")
    print("mem req = 128 B line requests at the memory controllers; 32 B acc = DRAM column accesses")
    print(f"{'workload':<10} {'host s (median)':>16} {'mem req':>12} {'req/host s':>12} {'32B acc/host s':>15} "
          f"{'inst/host s':>12} {'GB/s sim':>9} {'peak RSS MiB':>13}")
    for wl in ("stream", "random"):
        runs = []
        for _ in range(repeat):
            with tempfile.TemporaryDirectory() as d:
                cmd = [strata, "--quiet", "--config", config, "--workload", wl, "--out", d, *extra]
                subprocess.run(cmd, check=True)
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
