#!/usr/bin/env python3
"""Benchmark of `strata memtrace` (not a test; numbers go in notes).

Replays 1 M sequential and 1 M uniformly random 64 B requests (2/3 reads, no timestamps: as fast
as the controllers accept) on the HBM2 preset (configs/baseline_hbm2: 8 channels; the random trace
also on configs/hbm2_pseudo_channel: the same HBM2 as 16 pseudo-channels) and prints,
per trace, host seconds (median of N runs), requests per host second, simulated bandwidth and
peak RSS. Traces are written once into WORKDIR by tools/gen_memtrace.py.

usage: bench_memtrace.py STRATA WORKDIR [--repeat N] [--count N] [--set key=value ...]
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile


def main():
    strata, work = sys.argv[1], sys.argv[2]
    args = sys.argv[3:]
    repeat, count, extra = 3, 1000000, []
    while args:
        a = args.pop(0)
        if a == "--repeat":
            repeat = int(args.pop(0))
        elif a == "--count":
            count = int(args.pop(0))
        elif a == "--set":
            extra += ["--set", args.pop(0)]
    gen = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gen_memtrace.py")
    os.makedirs(work, exist_ok=True)
    print(f"{'config':<20} {'trace':<8} {'requests':>9} {'host s (median)':>16} {'req/host s':>12} {'GB/s sim':>9} "
          f"{'% peak':>7} {'row hits':>9} {'p99 ns':>8} {'RSS MiB':>8}")
    for config, pattern in (("baseline_hbm2", "seq"), ("baseline_hbm2", "random"), ("hbm2_pseudo_channel", "random")):
        path = os.path.join(work, f"bench_{pattern}_{count}.trc")
        if not os.path.exists(path):
            subprocess.run([sys.executable, gen, path, "--pattern", pattern, "--count", str(count)], check=True)
        runs = []
        for _ in range(repeat):
            with tempfile.TemporaryDirectory() as d:
                subprocess.run([strata, "memtrace", "--quiet", "--config", config, "--trace", path,
                                "--out", d, *extra], check=True)
                with open(os.path.join(d, "stats.json")) as f:
                    runs.append(json.load(f))
        med = statistics.median(r["host.seconds"] for r in runs)
        r = runs[0]
        print(f"{config:<20} {pattern:<8} {r['memtrace.requests']:>9.0f} {med:>16.3f} {r['memtrace.requests'] / med:>12.0f} "
              f"{r['mem.bandwidth_gbps']:>9.1f} {100 * r['mem.bandwidth_gbps'] / r['mem.peak_bandwidth_gbps']:>7.1f} "
              f"{r['mem.row_hit_rate']:>9.3f} {r['mem.read_latency_p99_ns']:>8.0f} "
              f"{max(x['host.peak_rss_bytes'] for x in runs) / 2**20:>8.0f}")


if __name__ == "__main__":
    main()
